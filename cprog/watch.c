/* The interceptor's half of access-hooks.h. The watched ranges are
 * published as an immutable set behind one atomic pointer: a change builds
 * a new set in the next of a ring of sets and swaps the pointer. A set is
 * reused only RING publications later, by which time a reader that loaded
 * it (a range test of a few instructions) has long finished; the runtime
 * never keeps the pointer across an access. */
#include "watch.h"

#include "access-hooks.h"
#include "report.h"
#include "run.h"
#include "threads.h"
#include "where.h"

#include <pthread.h>
#include <rmalab/races.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    run_win *s;
    int target;
    uint64_t ticket, rq;
    uintptr_t lo, len;
    bool result;
    const void *pc;
    const char *call;
    int by;          /* the slot of the thread that issued it (threads.h) */
    run_point done;  /* the call that completed it, once one has (step 0: none yet) */
} op;

#define RING 256
#define SEEN 256

/* Each copy of the runtime that attached is told the ranges; the last
 * (the program's: libraries' constructors run first) gathers. */
static rmalab_access_hooks *hooks, *copies[32];
static int ncopies;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static op *ops;
static int nops, capops;
static rmalab_access_ranges ring[RING];
static unsigned next_set;
static struct {
    const void *access, *op;
} seen[SEEN];
static int nseen;
static uintptr_t gather_tp; /* the thread pointer of the one that gathers runs (below) */

static void check_ops(uintptr_t a, size_t n, int write, const void *pc, const char *how);
static void check_before(const op *o);
static bool finished(int i);
static void flush_locked(void);
static void forget_near(void);
static void let_runtime_gather(void);

static void add_range(rmalab_access_ranges *r, uintptr_t lo, uintptr_t len)
{
    if (len == 0)
        return;
    if (r->n < RMALAB_ACCESS_RANGES) {
        r->lo[r->n] = lo;
        r->len[r->n++] = len;
        return;
    }
    int k = RMALAB_ACCESS_RANGES - 1; /* merged into the last: a wider test */
    uintptr_t hi = r->lo[k] + r->len[k] > lo + len ? r->lo[k] + r->len[k] : lo + len;
    r->lo[k] = r->lo[k] < lo ? r->lo[k] : lo;
    r->len[k] = hi - r->lo[k];
}

static void add_window(run_win *s, void *ud)
{
    add_range(ud, (uintptr_t)s->base, (uintptr_t)s->size);
    for (int j = 0; s->att && j < RUN_ATTACHED; j++)
        add_range(ud, (uintptr_t)s->att[j].base, (uintptr_t)s->att[j].size);
}

/* Under `lock`. */
static void publish(void)
{
    rmalab_access_ranges *r = &ring[next_set++ % RING];
    r->n = 0;
    run_win_each(add_window, r);
    for (int i = 0; i < nops; i++)
        add_range(r, ops[i].lo, ops[i].len);
    let_runtime_gather();
    for (int i = 0; i < ncopies; i++)
        atomic_store(&copies[i]->ranges, r->n ? r : NULL);
}

void run_watch_windows(void)
{
    if (!hooks)
        return;
    pthread_mutex_lock(&lock);
    forget_near();
    publish();
    pthread_mutex_unlock(&lock);
}

void run_watch_forget(run_win *s)
{
    if (!hooks)
        return;
    pthread_mutex_lock(&lock);
    flush_locked();
    for (int i = 0; i < nops; i++)
        if (ops[i].s == s)
            ops[i--] = ops[--nops];
    publish();
    pthread_mutex_unlock(&lock);
}

void run_watch_op(run_win *s, int target, uint64_t ticket, uint64_t rq, const void *buf,
                  size_t len, bool result, const void *pc, const char *call)
{
    if (!hooks || len == 0 || rmalab_win_done(s->w, target, ticket))
        return;
    pthread_mutex_lock(&lock);
    char how[48];
    snprintf(how, sizeof how, "%s %s", call, result ? "into" : "from");
    check_ops((uintptr_t)buf, len, result, pc, how);
    if (nops == capops) {
        int cap = capops ? 2 * capops : 16;
        op *grown = realloc(ops, (size_t)cap * sizeof *grown);
        if (!grown) {
            pthread_mutex_unlock(&lock);
            return;
        }
        ops = grown;
        capops = cap;
    }
    ops[nops++] = (op){s, target, ticket, rq, (uintptr_t)buf, len, result, pc, call,
                       run_threads_now().slot, {0, 0}};
    check_before(&ops[nops - 1]);
    publish();
    pthread_mutex_unlock(&lock);
}

void run_watch_spans(run_win *s, int target, uint64_t ticket, uint64_t rq, const void *buf,
                     const rmalab_span *sp, int n, bool result, const void *pc,
                     const char *call)
{
    for (int i = 0; hooks && i < n; i++)
        run_watch_op(s, target, ticket, rq, (const char *)buf + sp[i].off, (size_t)sp[i].len,
                     result, pc, call);
}

void run_watch_sync(run_win *s)
{
    if (!hooks)
        return;
    pthread_mutex_lock(&lock);
    int before = nops;
    for (int i = 0; i < nops; i++)
        if (ops[i].s == s && rmalab_win_done(s->w, ops[i].target, ops[i].ticket) && finished(i))
            i--;
    if (nops != before)
        publish();
    pthread_mutex_unlock(&lock);
}

void run_watch_waited(uint64_t rq)
{
    if (!hooks || rq == 0)
        return;
    pthread_mutex_lock(&lock);
    int before = nops;
    for (int i = 0; i < nops; i++)
        if (ops[i].rq == rq && finished(i))
            i--;
    if (nops != before)
        publish();
    pthread_mutex_unlock(&lock);
}

void run_watch_end(void)
{
    if (!hooks)
        return;
    pthread_mutex_lock(&lock);
    flush_locked();
    nops = 0;
    gather_tp = 0;
    let_runtime_gather();
    for (int i = 0; i < ncopies; i++)
        atomic_store(&copies[i]->ranges, NULL);
    pthread_mutex_unlock(&lock);
}

/* Under `lock`: has this pair of lines been reported (then true), else
 * remember it. */
static bool reported(const void *access, const void *op_pc)
{
    for (int i = 0; i < nseen; i++)
        if (seen[i].access == access && seen[i].op == op_pc)
            return true;
    if (nseen < SEEN) {
        seen[nseen].access = access;
        seen[nseen++].op = op_pc;
    }
    return false;
}

/* Under `lock`: is o's buffer still the operation's for the calling
 * thread? Until a call completes it; then, for the threads that nothing
 * orders after that call (threads.h): a call of another thread, or one
 * that is still running there. */
static bool in_use(const op *o)
{
    if (o->done.step)
        return !run_threads_knows(o->done);
    if (!rmalab_win_done(o->s->w, o->target, o->ticket))
        return true;
    return run_threads_many() && run_threads_now().slot != o->by;
}

/* Under `lock`: the race of an access (or an operation, `how`) at pc with
 * o, `when` says how they meet. */
static void race_with(const op *o, int write, const void *pc, const char *how,
                      const char *when)
{
    char until[96], text[1200];
    rmalab_win_completer(o->s->w, o->target, until, sizeof until);
    snprintf(text, sizeof text,
             "%s the %s buffer of %s at %s by rank %d (to rank %d), %s\n    MPI forbids %s it "
             "until the call that completes the operation returns (here %s%s)",
             how ? how : write ? "store of" : "load of", o->result ? "result" : "origin",
             o->call, run_where(o->pc), o->s->rank, o->target, when,
             o->result ? "touching" : "changing",
             o->rq ? "the MPI_Wait, or a test, that returns its request; or " : "", until);
    run_race(run_where(pc), text);
}

#define UNORDERED "; between threads and sections, only an OpenMP barrier, taskwait, " \
                  "critical, ordered or the end of the team orders them"

/* Under `lock`: a load or store of a buffer that an operation in flight
 * reads (a store only) or writes, or another operation that reads it (an
 * origin: `how` "MPI_Put from") or writes it (a result: "MPI_Get into").
 * `how` is NULL for a load or store. */
static void check_ops(uintptr_t a, size_t n, int write, const void *pc, const char *how)
{
    for (int i = 0; i < nops; i++) {
        op *o = &ops[i];
        if (a + n <= o->lo || a >= o->lo + o->len || (!write && !o->result))
            continue;
        if (!in_use(o) || reported(pc, o->pc))
            continue;
        race_with(o, write, pc, how,
                  o->done.step ? "which a call of another thread or section completed, and "
                                 "nothing orders that call before this access" UNORDERED
                               : "which is still in flight");
    }
}

/* Loads and stores of watched memory by the threads of a process that has
 * more than one, each with its thread's point (threads.h): an operation
 * issued later on another thread races those of its buffer that nothing
 * orders before its call. A ring: the oldest are forgotten (a race with
 * them is missed). */
typedef struct {
    uintptr_t lo, len;
    const void *pc;
    run_point at;
    bool write;
} past_t;

#define PAST 256
static past_t past[PAST];
static unsigned npast;

/* Under `lock`. */
static void remember(uintptr_t a, size_t n, int write, const void *pc)
{
    run_point at = run_threads_now();
    past_t *l = npast ? &past[(npast - 1) % PAST] : NULL;
    if (l && l->pc == pc && l->write == (write != 0) && l->at.slot == at.slot &&
        l->at.step == at.step && a >= l->lo && a <= l->lo + l->len) {
        if (a + n > l->lo + l->len)
            l->len = a + n - l->lo;
        return;
    }
    past[npast++ % PAST] = (past_t){a, n, pc, at, write != 0};
}

/* Under `lock`: o was just issued by the calling thread. */
static void check_before(const op *o)
{
    unsigned n = npast < PAST ? npast : PAST;
    for (unsigned i = 0; i < n; i++) {
        const past_t *p = &past[i];
        if (p->at.slot == o->by || p->lo + p->len <= o->lo || p->lo >= o->lo + o->len ||
            (!p->write && !o->result) || run_threads_knows(p->at) || reported(p->pc, o->pc))
            continue;
        race_with(o, p->write, p->pc, NULL,
                  "made on another thread or section before that call, and nothing orders it "
                  "before the call" UNORDERED);
    }
}

/* Under `lock`: ops[i] is done by a call of the calling thread. Its buffer
 * is free again for the threads that know that call: every one, when the
 * process has one thread; else it stays, marked, until every thread knows
 * it. Whether it left ops. */
static bool finished(int i)
{
    op *o = &ops[i];
    if (!o->done.step)
        o->done = run_threads_now();
    if (run_threads_many() && !run_threads_all_know(o->done))
        return false;
    ops[i] = ops[--nops];
    return true;
}

/* Loads and stores of window memory reach the checker in runs: the
 * accesses of one instruction to consecutive bytes (a loop over a row) are
 * one record, handed over before the next MPI call on any window or
 * barrier (run_watch_flush), where the checker judges them anyway. A run
 * holds only bytes the instruction touched, so the verdicts are those of
 * one record per access, at a small part of its cost. Only the thread that
 * makes the MPI calls gathers runs, and only while no other thread may
 * (MPI_THREAD_SINGLE or _FUNNELED): another thread's access is handed over
 * at once, as the process's clock stands while it happens, since a call of
 * the MPI thread may move that clock before the next flush.
 *
 * Since only that thread gathers, and the other calls that touch the runs
 * (the flush, a window's creation or free, the operations' list) are MPI
 * calls, which under those levels only it makes, gathering takes no lock.
 * The run each instruction joined last is in the runtime's `hot` table
 * (access-hooks.h), which extends it without calling here while no operation
 * is in flight (then each access is checked against them here first); here, a
 * run's length is brought up to date from its slot before it is read.
 * The lock is taken to hand the runs over (the checker is shared with the
 * other threads' accesses) and to check the operations in flight. */
typedef struct {
    run_span *s;
    const void *pc;
    bool write;
    uintptr_t off, len;
} run_run;

#define RUNS 16
#define HOT RMALAB_ACCESS_HOT
static run_run runs[RUNS];
static int nruns;
static pthread_t mpi_thread; /* the one that attached: the constructors' */
/* The gathering thread's alone, until the next flush: the window its last
 * access fell in, and per slot of hot the run it holds (or held). */
static run_span *near;
static unsigned char owner[HOT];

/* May this thread's accesses wait in runs? Asked at its first access,
 * which comes after MPI_Init (nothing is watched before): the MPI thread's
 * answer is the thread level's, which does not change; any other's is no. */
static bool gathers(void)
{
    static __thread __attribute__((tls_model("initial-exec"))) int role; /* 1 yes, 2 no */
    if (__builtin_expect(role == 0, 0)) {
        role = 2;
        if (pthread_equal(pthread_self(), mpi_thread)) {
            int level;
            PMPI_Query_thread(&level);
            role = level <= MPI_THREAD_FUNNELED ? 1 : 2;
            if (role == 1) {
                pthread_mutex_lock(&lock);
                gather_tp = (uintptr_t)__builtin_thread_pointer();
                let_runtime_gather();
                pthread_mutex_unlock(&lock);
            }
        }
    }
    return role == 1;
}

/* Under `lock`: the runtime extends the runs itself while no operation is
 * in flight (each access is then checked against them here). */
static void let_runtime_gather(void)
{
    atomic_store_explicit(&hooks->gatherer, nops ? 0 : gather_tp, memory_order_relaxed);
}

/* The gathering thread: run k's length as the runtime left it. */
static void sync_hot(unsigned h)
{
    rmalab_access_run *x = &hooks->hot[h];
    if (x->pc && owner[h] < nruns)
        runs[owner[h]].len = x->end - x->lo;
}

/* The gathering thread: slot h holds run k, of the instruction whose
 * entry point returns to ret. */
static void set_hot(unsigned h, const void *ret)
{
    run_run *r = &runs[owner[h]];
    if (owner[h] >= nruns || r->pc != (const char *)ret - 1)
        return;
    uintptr_t lo = (uintptr_t)r->s->base + r->off;
    hooks->hot[h] = (rmalab_access_run){ret, lo, lo + r->len,
                                        (uintptr_t)r->s->base + (uintptr_t)r->s->size, r->write};
}

/* Under `lock`. */
static void hand_over(const run_run *r)
{
    rmalab_type t = r->len == 1 ? RMALAB_UINT8 : r->len == 2 ? RMALAB_UINT16
                  : r->len == 4 ? RMALAB_UINT32 : r->len == 8 ? RMALAB_UINT64 : RMALAB_BYTE;
    int count = t == RMALAB_BYTE ? (int)r->len : 1;
    rmalab_check_site(run_where_key(r->pc));
    rmalab_win_direct(r->s->s->w, r->s->s->rank, r->s->disp0 + (MPI_Aint)r->off, t, count,
                      r->write);
}

/* Under `lock`: another thread's access, with what that thread knows of
 * the other ranks (threads.h), when the process has more than one. */
static void hand_over_seen(const run_run *r)
{
    static int64_t *view;
    int W = run_threads_world();
    if (W && !view)
        view = malloc((size_t)W * sizeof *view);
    bool theirs = view && run_threads_view(view);
    if (theirs)
        rmalab_clock_view(view);
    hand_over(r);
    if (theirs)
        rmalab_clock_view(NULL);
}

/* Under `lock`: the runs to the checker; hot emptied. Only the gathering
 * thread has runs, and only it comes here with some. */
static void flush_locked(void)
{
    if (nruns == 0)
        return;
    for (unsigned h = 0; h < HOT; h++) {
        sync_hot(h);
        hooks->hot[h].pc = NULL;
    }
    for (int i = 0; i < nruns; i++)
        hand_over(&runs[i]);
    run_races_poll();
    nruns = 0;
    forget_near();
}

void run_watch_flush(void)
{
    if (!hooks)
        return;
    pthread_mutex_lock(&lock);
    flush_locked();
    pthread_mutex_unlock(&lock);
}

/* A window was made or freed, or the runs were handed over. */
static void forget_near(void) { near = NULL; }

/* Does the access (off, n) join run r: the same window, instruction and
 * kind, and bytes that r holds already or that follow them? */
static bool joins(run_run *r, const run_span *s, uintptr_t off, size_t n, bool write,
                  const void *pc)
{
    if (r->pc != pc || r->s != s || r->write != write)
        return false;
    if (off >= r->off && off + n <= r->off + r->len)
        return true; /* bytes this instruction already touched in this run */
    if (off != r->off + r->len)
        return false;
    r->len += n;
    return true;
}

/* The gathering thread, first: does the access join the run of slot h,
 * in that run's window, without a lookup of the window? */
static bool joins_hot(unsigned h, uintptr_t a, size_t n, bool write, const void *pc)
{
    if (owner[h] >= nruns)
        return false;
    run_run *r = &runs[owner[h]];
    uintptr_t lo = (uintptr_t)r->s->base;
    if (r->pc != pc || r->write != write || a < lo || a + n > lo + (uintptr_t)r->s->size)
        return false;
    return joins(r, r->s, a - lo, n, write, pc);
}

/* The gathering thread, else: the access joins another run of its
 * instruction, or starts one; slot h then holds that run. */
static void gather(unsigned h, run_span *s, uintptr_t off, size_t n, bool write,
                   const void *pc)
{
    for (int i = 0; i < nruns; i++)
        if (joins(&runs[i], s, off, n, write, pc)) {
            owner[h] = (unsigned char)i;
            return;
        }
    if (nruns == RUNS)
        run_watch_flush();
    owner[h] = (unsigned char)nruns;
    runs[nruns++] = (run_run){s, pc, write, off, n};
}

/* A load or store of this rank's window memory: gathered into a run
 * (h >= 0: the gathering thread's slot of hot), or else handed over at
 * once. */
static void check_window(uintptr_t a, size_t n, int write, const void *pc, int h)
{
    run_span *s = h >= 0 ? near : NULL;
    if (!s || a < (uintptr_t)s->base || a >= (uintptr_t)s->base + (uintptr_t)s->size)
        s = run_win_at((const void *)a);
    if (!s || !s->s->checked)
        return;
    uintptr_t off = a - (uintptr_t)s->base;
    if (off + n > (uintptr_t)s->size)
        n = (size_t)((uintptr_t)s->size - off);
    if (h >= 0) {
        near = s;
        gather((unsigned)h, s, off, n, write != 0, pc);
        return;
    }
    run_run now = {s, pc, write != 0, off, n};
    hand_over_seen(&now);
    run_races_poll();
}

/* The gathering thread's access that the runtime did not take. */
static void gather_access(uintptr_t a, size_t n, int write, const void *ret)
{
    const void *pc = (const char *)ret - 1;
    unsigned h = rmalab_access_hot_slot(ret);
    if (nops) {
        pthread_mutex_lock(&lock);
        check_ops(a, n, write, pc, NULL);
        pthread_mutex_unlock(&lock);
    }
    sync_hot(h);
    if (!joins_hot(h, a, n, write != 0, pc))
        check_window(a, n, write, pc, (int)h);
    set_hot(h, ret);
}

/* ret is the return address of the runtime's entry point (as for the
 * wrappers): one byte back is inside the access's own line. */
static void on_part(uintptr_t a, size_t n, int write, const void *ret)
{
    if (gathers()) {
        gather_access(a, n, write, ret);
        return;
    }
    const void *pc = (const char *)ret - 1;
    pthread_mutex_lock(&lock);
    check_ops(a, n, write, pc, NULL);
    if (run_threads_many())
        remember(a, n, write, pc);
    check_window(a, n, write, pc, -1);
    pthread_mutex_unlock(&lock);
}

/* A wide access (a loop's range, which rmalab's gcc plugin reports before
 * the loop, or a memcpy) may begin outside watched memory, or cross from
 * one window into the next: each watched range's part of it goes on its
 * own, as the loop's own accesses would have (the window is looked up at
 * an access's first byte). */
static void on_access(const void *addr, size_t n, int write, const void *ret)
{
    const rmalab_access_ranges *r = atomic_load(&hooks->ranges);
    uintptr_t a = (uintptr_t)addr;
    if (n <= 16 || !r) {
        on_part(a, n, write, ret);
        return;
    }
    for (int k = 0; k < r->n; k++) {
        uintptr_t lo = a > r->lo[k] ? a : r->lo[k], end = r->lo[k] + r->len[k];
        uintptr_t hi = a + n < end ? a + n : end;
        if (lo < hi)
            on_part(lo, hi - lo, write, ret);
    }
}

RUN_API void rmalab_run_attach(rmalab_access_hooks *h)
{
    if (!h)
        return;
    h->access = on_access;
    mpi_thread = pthread_self();
    pthread_mutex_lock(&lock);
    if (ncopies < (int)(sizeof copies / sizeof *copies)) {
        if (hooks) { /* its runs are handed over; it gathers no more */
            flush_locked();
            atomic_store_explicit(&hooks->gatherer, 0, memory_order_relaxed);
        }
        hooks = copies[ncopies++] = h;
    }
    pthread_mutex_unlock(&lock);
    run_watch_windows();
}
