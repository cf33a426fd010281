/* Blocking calls (rmalab/block.h): the one road every call that may block
 * takes. It publishes what the call waits for, so that another thread can
 * read it while this one is inside MPI; in SLEEP mode it waits for the
 * group of a collective call in a nonblocking collective (the call's
 * agreement, or an MPI_Ibarrier), tested with a backoff that sleeps,
 * before the call itself runs, which then finds every rank there and
 * hardly waits. It also keeps the last of these calls that failed.
 *
 * The record is a stack of rmalab__block on the callers' stacks; a reader
 * copies the innermost, and a call leaves only once no reader can be
 * looking at its record, so a reader never sees a record whose arrays are
 * gone. The thread that published first (the owner: the Lua thread, a C
 * program's main thread) has a stack of its own, which it pushes and pops
 * with plain stores: a reader raises a flag, then makes every thread of
 * the process pass a full memory barrier (membarrier(2)), so that a
 * leaving call either sees the flag and waits the few loads of the copy,
 * or has unlinked its record before the reader looks. A call costs no
 * atomic read-modify-write there (two lock/unlock pairs before, an atomic
 * exchange each: about 35 ns a ping-pong round trip). Other threads, and
 * every thread where membarrier(2) is missing, share a stack guarded by a
 * spin lock that writers hold for a few stores and readers for a copy.
 *
 * The owner's entry is inline in its caller (block.h), or calls
 * nothing (a message's): the owner known by its thread pointer, a world
 * communicator's fields from a cached size, two loads for the collective
 * checks, no clock until a thread reads; the rest comes here (*_slow). */
#include "private.h"
#include "alloc.h"
#include "error-private.h"
#include "block.h"

#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rmalab/block.h>

_Atomic int rmalab__block_wait_mode = RMALAB_WAIT_SPIN;

static struct {
    atomic_flag lock;
    const rmalab__block *now;     /* the innermost call of threads but the
                                     owner, NULL: none blocked */
    rmalab_failure failure;
} proc = {.lock = ATOMIC_FLAG_INIT};

/* block.h's fast paths read these. */
struct rmalab__block_own rmalab__block_own;
_Atomic uintptr_t rmalab__block_owner; /* the owner's thread pointer; 0: none */
atomic_bool rmalab__block_failed;
int rmalab__block_world_size = -1;
atomic_bool rmalab__block_timed;
static atomic_int owned;  /* 0: no call yet; 1: there is an owner; -1: no membarrier */

static void proc_lock(void)
{
    while (atomic_flag_test_and_set_explicit(&proc.lock, memory_order_acquire))
        ;
}

static void proc_unlock(void)
{
    atomic_flag_clear_explicit(&proc.lock, memory_order_release);
}

double rmalab__block_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------------------ */
/* The mode                                                                 */

__attribute__((constructor)) static void mode_from_env(void)
{
    const char *env = getenv("RMALAB_WAIT");
    bool sleep = env && strcmp(env, rmalab_wait_mode_name(RMALAB_WAIT_SLEEP)) == 0;
    atomic_store(&rmalab__block_wait_mode, sleep ? RMALAB_WAIT_SLEEP : RMALAB_WAIT_SPIN);
}

const char *rmalab_wait_mode_name(rmalab_wait_mode mode)
{
    static const char *const names[] = {[RMALAB_WAIT_SPIN] = "spin",
                                        [RMALAB_WAIT_SLEEP] = "sleep"};
    return (unsigned)mode < sizeof names / sizeof names[0] ? names[mode] : "?";
}

void rmalab_wait_set_mode(int mode)
{
    atomic_store(&rmalab__block_wait_mode,
                 mode == RMALAB_WAIT_SLEEP ? RMALAB_WAIT_SLEEP : RMALAB_WAIT_SPIN);
}

int rmalab_wait_get_mode(void) { return atomic_load(&rmalab__block_wait_mode); }

/* ------------------------------------------------------------------------ */
/* Waiting without spinning, and hurrying (another process needs this one) */

#define SPIN_NS 50000L     /* poll without sleeping this long */
#define FIRST_SLEEP 20000L
#define MAX_SLEEP 1000000L
#define LONG_SLEEP 10000000L /* after LONG_AFTER sleeps */
#define LONG_AFTER 100

/* Until when (CLOCK_MONOTONIC ns) sleeping waits nap at most FIRST_SLEEP;
 * written under nap_lock, so that a nap that checked it and then waits on
 * nap_cond cannot miss the broadcast of a hurry that came in between. */
static _Atomic long long hurry_until;
static pthread_mutex_t nap_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nap_cond;
static pthread_once_t nap_once = PTHREAD_ONCE_INIT;

static void nap_init(void)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&nap_cond, &a);
    pthread_condattr_destroy(&a);
}

static long long mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static bool hurrying(long long now)
{
    return now < atomic_load_explicit(&hurry_until, memory_order_relaxed);
}

void rmalab_wait_hurry(double seconds)
{
    pthread_once(&nap_once, nap_init);
    long long until = mono_ns() + (long long)(seconds * 1e9);
    pthread_mutex_lock(&nap_lock);
    if (until > atomic_load_explicit(&hurry_until, memory_order_relaxed))
        atomic_store_explicit(&hurry_until, until, memory_order_relaxed);
    pthread_cond_broadcast(&nap_cond);
    pthread_mutex_unlock(&nap_lock);
}

/* Sleep ns, or FIRST_SLEEP at most while hurried; a hurry that comes
 * during the sleep ends it. */
static void nap(long ns)
{
    pthread_once(&nap_once, nap_init);
    long long t = mono_ns();
    pthread_mutex_lock(&nap_lock);
    if (hurrying(t) && ns > FIRST_SLEEP)
        ns = FIRST_SLEEP;
    long long end = t + ns;
    struct timespec until = {(time_t)(end / 1000000000LL), (long)(end % 1000000000LL)};
    long long before = atomic_load_explicit(&hurry_until, memory_order_relaxed);
    while (atomic_load_explicit(&hurry_until, memory_order_relaxed) == before &&
           pthread_cond_timedwait(&nap_cond, &nap_lock, &until) == 0)
        ; /* a spurious wake-up: sleep on */
    pthread_mutex_unlock(&nap_lock);
}

void rmalab__block_backoff(rmalab__backoff *b)
{
    struct timespec now;
    if (b->n++ == 0) {
        clock_gettime(CLOCK_MONOTONIC, &b->t0);
        return;
    }
    if (!b->ns) {
        if (b->n % 16)
            return;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((now.tv_sec - b->t0.tv_sec) * 1000000000L + now.tv_nsec - b->t0.tv_nsec < SPIN_NS)
            return;
        b->ns = FIRST_SLEEP;
    }
    nap(b->ns);
    if (hurrying(mono_ns())) { /* back to short naps, growing again after */
        b->ns = FIRST_SLEEP;
        b->slept = 0;
    } else if (++b->slept > LONG_AFTER) {
        b->ns = LONG_SLEEP;
    } else if (b->ns < MAX_SLEEP) {
        b->ns = b->ns * 2 < MAX_SLEEP ? b->ns * 2 : MAX_SLEEP;
    }
}

/* ------------------------------------------------------------------------ */
/* Calls that need other processes' progress                                */

static _Atomic(rmalab_progress_hook) progress_hook;
static void *_Atomic progress_arg;

void rmalab_set_progress_hook(rmalab_progress_hook fn, void *arg)
{
    atomic_store(&progress_arg, arg);
    atomic_store(&progress_hook, fn);
}

/* b needs its ranks' progress: tell the hook, as world ranks. */
static void need_progress(const rmalab__block *b)
{
    rmalab_progress_hook fn = atomic_load_explicit(&progress_hook, memory_order_relaxed);
    if (!fn)
        return;
    int world[64], k = 0;
    for (int i = 0; i < b->n; i++) {
        int r = b->ranks ? b->ranks[i] : i;
        world[k++] = b->map ? b->map[r] : r;
        if (k == 64 || i == b->n - 1) {
            fn(world, k, atomic_load(&progress_arg));
            k = 0;
        }
    }
}

int rmalab__block_wait_request(MPI_Request *req, const char *what)
{
    rmalab__backoff bo = RMALAB__BACKOFF_INIT;
    int done = 0;
    for (;;) {
        int e = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (e != MPI_SUCCESS)
            return rmalab__err_mpi(e, what);
        if (done)
            return RMALAB_OK;
        rmalab__block_backoff(&bo);
    }
}

/* ------------------------------------------------------------------------ */
/* Communicators: an id and the world ranks, cached as an attribute         */

struct comm_tag {
    uint64_t id;
    int n;
    int world[]; /* n entries */
};

static int tag_keyval = MPI_KEYVAL_INVALID;
/* Communicators rmalab creates are numbered by a collective call, the same
 * on every member; others when first used, with the top bit set, so that a
 * communicator one rank alone uses (MPI_COMM_SELF, a failed call) never
 * shifts the numbers of the first kind. */
static atomic_uint_fast64_t next_comm_id = 1, next_local_id = 1;
#define LOCAL_ID (UINT64_C(1) << 63)

static int tag_delete(MPI_Comm c, int keyval, void *value, void *extra)
{
    (void)c, (void)keyval, (void)extra;
    rmalab__mem_free(value);
    return MPI_SUCCESS;
}

/* The communicator's tag, made now with number `id` if it has none
 * (NULL: no memory; the number is used up all the same). */
static struct comm_tag *comm_tag(MPI_Comm c, uint64_t id)
{
    struct comm_tag *t = NULL;
    int flag = 0, n = 0;
    if (tag_keyval == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, tag_delete, &tag_keyval, NULL) !=
            MPI_SUCCESS)
        return NULL;
    MPI_Comm_get_attr(c, tag_keyval, &t, &flag);
    if (flag)
        return t;
    MPI_Comm_size(c, &n);
    if (!(t = rmalab__mem_alloc(sizeof *t + (size_t)n * sizeof(int))))
        return NULL;
    int *local = rmalab__mem_alloc((size_t)n * sizeof(int));
    MPI_Group g = MPI_GROUP_NULL, wg = MPI_GROUP_NULL;
    if (!local || MPI_Comm_group(c, &g) != MPI_SUCCESS ||
        MPI_Comm_group(MPI_COMM_WORLD, &wg) != MPI_SUCCESS) {
        rmalab__mem_free(local);
        rmalab__mem_free(t);
        t = NULL;
        goto out;
    }
    for (int i = 0; i < n; i++)
        local[i] = i;
    MPI_Group_translate_ranks(g, n, local, wg, t->world);
    rmalab__mem_free(local);
    t->n = n;
    t->id = id ? id : LOCAL_ID | atomic_fetch_add(&next_local_id, 1);
    if (MPI_Comm_set_attr(c, tag_keyval, t) != MPI_SUCCESS) {
        rmalab__mem_free(t);
        t = NULL;
    }
out:
    if (g != MPI_GROUP_NULL)
        MPI_Group_free(&g);
    if (wg != MPI_GROUP_NULL)
        MPI_Group_free(&wg);
    return t;
}

void rmalab__block_tag_comm(MPI_Comm c) { comm_tag(c, atomic_fetch_add(&next_comm_id, 1)); }

/* rmalab__block_comm's own path: a communicator but MPI_COMM_WORLD, or
 * the first call on it (its size is asked once). */
void rmalab__block_comm_slow(rmalab__block *b, MPI_Comm c)
{
    if (c == MPI_COMM_WORLD) {
        MPI_Comm_size(MPI_COMM_WORLD, &rmalab__block_world_size);
        rmalab__block_comm(b, c);
        return;
    }
    b->object = "comm";
    b->comm = c;
    b->ranks = NULL;
    const struct comm_tag *t = comm_tag(c, 0);
    b->id = t ? t->id : UINT64_MAX;
    b->map = t ? t->world : NULL;
    b->n = t ? t->n : 0;
}

/* ------------------------------------------------------------------------ */
/* The record                                                               */

/* The first call to publish: this thread becomes the owner, when the
 * kernel has membarrier(2)'s private expedited barrier. The owner is known
 * by its thread pointer (as pthread_self, without its call): unique among
 * the live threads, and only the owner itself can find its own there. */
static bool owning_first(void)
{
    uintptr_t me = (uintptr_t)__builtin_thread_pointer();
    proc_lock();
    if (!atomic_load_explicit(&owned, memory_order_relaxed)) {
        bool ok = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
        if (ok)
            atomic_store_explicit(&rmalab__block_owner, me, memory_order_relaxed);
        atomic_store_explicit(&owned, ok ? 1 : -1, memory_order_release);
    }
    proc_unlock();
    return atomic_load_explicit(&rmalab__block_owner, memory_order_relaxed) == me;
}

/* rmalab__block_push's path for every thread but the owner, and for the
 * first call of the process, which may make its thread the owner. */
void rmalab__block_push_slow(rmalab__block *b)
{
    if (!atomic_load_explicit(&owned, memory_order_acquire) && owning_first()) {
        rmalab__block_push(b);
        return;
    }
    b->owned = false;
    if (!b->since) /* reading_begin compares it with the owner's */
        b->since = rmalab__block_now();
    proc_lock();
    b->prev = proc.now;
    proc.now = b;
    proc_unlock();
}

/* b leaves the list whose head is *now (another thread's call may have
 * entered after it, on the shared stack). */
static void unlink_from(const rmalab__block **now, rmalab__block *b)
{
    if (*now == b) {
        *now = b->prev;
        return;
    }
    rmalab__block *p = (rmalab__block *)*now;
    while (p && p->prev != b)
        p = (rmalab__block *)p->prev;
    if (p)
        p->prev = b->prev;
}

/* rmalab__block_enter_at's path for a passive call, and for a collective
 * one in SLEEP mode or while some thread runs callbacks. */
int rmalab__block_enter_slow(rmalab__block *b)
{
    int refused = b->collective ? rmalab__err_collective_refused(b->call) : RMALAB_OK;
    if (refused)
        return refused;
    rmalab__block_push(b);
    if (b->passive)
        need_progress(b);
    if (atomic_load_explicit(&rmalab__block_wait_mode, memory_order_relaxed) != RMALAB_WAIT_SLEEP ||
        !b->collective)
        return RMALAB_OK;
    MPI_Request req;
    int e = b->agree ? rmalab__err_agree_reduce(b->agree, b->comm, &req)
            : b->dup ? MPI_Comm_idup(b->comm, b->dup, &req)
                     : MPI_Ibarrier(b->comm, &req), rc;
    if (e != MPI_SUCCESS)
        rc = rmalab__err_mpi(e, b->agree ? "MPI_Iallreduce (agreeing without spinning)"
                                : b->dup ? "MPI_Comm_idup (waiting for the group without spinning)"
                                         : "MPI_Ibarrier (waiting for the group without spinning)");
    else
        rc = rmalab__block_wait_request(&req, "MPI_Test (waiting for the group without spinning)");
    if (rc)
        rmalab__block_leave(b);
    b->agreed = !rc && b->agree;
    b->duped = !rc && b->dup && !b->agree;
    return rc;
}

/* rmalab__block_enter_p2p's general path, once the flags are set. */
__attribute__((noinline)) static void enter_p2p(rmalab__block *b, MPI_Comm c, const int *peer)
{
    rmalab__block_comm(b, c);
    if (*peer >= 0 && b->n) {
        b->ranks = peer;
        b->n = 1;
    }
    b->since = rmalab__block_stamp();
    rmalab__block_push(b);
}

/* Its fields one by one (rmalab__coll_begin's memset of the whole record
 * and the calls between were a tenth of a ping-pong's instructions), in
 * one call: inline, it made p2p.c's begin too large to be inlined. The
 * usual case (the owner, on MPI_COMM_WORLD, with nobody reading) calls
 * nothing, so it saves no registers: 41 instructions, where it was 59. */
void rmalab__block_enter_p2p(rmalab__block *b, const char *call, MPI_Comm c, const int *peer)
{
    b->call = call;
    b->win_prev = NULL;
    b->agree = NULL;
    b->dup = NULL;
    b->collective = b->interruptible = b->passive = false;
    atomic_init(&b->interrupted, false);
    b->agreed = b->duped = false;
    if (c != MPI_COMM_WORLD || rmalab__block_world_size < 0 ||
        atomic_load_explicit(&rmalab__block_timed, memory_order_relaxed) ||
        (uintptr_t)__builtin_thread_pointer() !=
            atomic_load_explicit(&rmalab__block_owner, memory_order_relaxed)) {
        enter_p2p(b, c, peer);
        return;
    }
    b->object = "comm";
    b->id = 0;
    b->ranks = *peer >= 0 ? peer : NULL;
    b->map = NULL;
    b->since = 0;
    b->comm = c;
    b->n = *peer >= 0 ? 1 : rmalab__block_world_size;
    b->owned = true;
    b->prev = atomic_load_explicit(&rmalab__block_own.now, memory_order_relaxed);
    atomic_store_explicit(&rmalab__block_own.now, b, memory_order_release);
}

int rmalab__block_agree(rmalab__block *b, int *mixed)
{
    int e = b->agreed ? MPI_SUCCESS : rmalab__err_agree_reduce(b->agree, b->comm, NULL);
    return rmalab__err_agree_verdict(b->agree, e, mixed);
}

/* rmalab__block_leave's general path: a call of another thread than the
 * owner, one the owner leaves out of order, or a reader looking (b may
 * have left the owner's stack already: then unlink_from finds nothing). */
__attribute__((noinline)) static void leave(rmalab__block *b)
{
    if (b->owned) { /* decided at its push, which came first */
        struct rmalab__block_own *o = &rmalab__block_own;
        const rmalab__block *now = atomic_load_explicit(&o->now, memory_order_relaxed);
        if (now == b) /* the owner's calls nest: always, but for a caller's slip */
            atomic_store_explicit(&o->now, b->prev, memory_order_relaxed);
        else
            unlink_from(&now, b);
        /* a reader's membarrier orders this against its flag: it saw the
         * unlink, or this sees the flag and waits for its copy to end (a
         * reader descheduled meanwhile is let run) */
        atomic_signal_fence(memory_order_seq_cst);
        for (int spins = 0; atomic_load_explicit(&o->reading, memory_order_acquire); spins++)
            if (spins >= 100)
                sched_yield();
        return;
    }
    proc_lock();
    unlink_from(&proc.now, b);
    proc_unlock();
}

/* The owner's innermost call: a store and a load, and no register saved. */
void rmalab__block_leave(rmalab__block *b)
{
    struct rmalab__block_own *o = &rmalab__block_own;
    if (b->owned && atomic_load_explicit(&o->now, memory_order_relaxed) == b) {
        atomic_store_explicit(&o->now, b->prev, memory_order_relaxed);
        atomic_signal_fence(memory_order_seq_cst); /* as in leave */
        if (!atomic_load_explicit(&o->reading, memory_order_acquire))
            return;
    }
    leave(b);
}

/* The innermost call published, read with proc.lock held and reading_end
 * after: the owner's or another thread's, whichever entered later. */
static rmalab__block *reading_begin(void)
{
    rmalab__block *a = NULL, *b = (rmalab__block *)proc.now;
    atomic_store_explicit(&rmalab__block_timed, true, memory_order_relaxed);
    if (atomic_load_explicit(&owned, memory_order_acquire) > 0) {
        atomic_store_explicit(&rmalab__block_own.reading, 1, memory_order_relaxed);
        /* registered, so it does not fail; if it did (a child of fork whose
         * kernel dropped the registration), the owner's stack is not read:
         * without the barrier its record may be gone */
        if (syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)
            a = (rmalab__block *)atomic_load_explicit(&rmalab__block_own.now,
                                                      memory_order_acquire);
    }
    /* began while nobody read: from this look (only readers write it now) */
    if (a && !a->since)
        a->since = rmalab__block_now();
    return (rmalab__block *)(!b || (a && a->since >= b->since) ? a : b);
}

void rmalab_blocked_watch(void) { atomic_store(&rmalab__block_timed, true); }

static void reading_end(void)
{
    atomic_store_explicit(&rmalab__block_own.reading, 0, memory_order_release);
}

bool rmalab_blocked_get(rmalab_blocked *out)
{
    memset(out, 0, sizeof *out);
    proc_lock();
    const rmalab__block *b = reading_begin();
    if (b) {
        out->call = b->call;
        out->collective = b->collective;
        out->object = b->object;
        out->id = b->id;
        out->seconds = rmalab__block_now() - b->since;
        out->n_members = b->n;
        out->interruptible = b->interruptible;
        for (int i = 0; i < b->n && i < RMALAB_STATE_MAX_RANKS; i++) {
            int r = b->ranks ? b->ranks[i] : i;
            out->members[i] = b->map ? b->map[r] : r;
        }
    }
    reading_end();
    proc_unlock();
    return b != NULL;
}

/* The flag goes on the innermost call's own record, while its call cannot
 * leave: it cannot outlive that call, so a request that came too late (the
 * call ended, or never blocked) is simply dropped. */
bool rmalab_interrupt(void)
{
    proc_lock();
    rmalab__block *b = reading_begin();
    bool ok = b && b->interruptible;
    if (ok)
        atomic_store_explicit(&b->interrupted, true, memory_order_relaxed);
    reading_end();
    proc_unlock();
    return ok;
}

/* ------------------------------------------------------------------------ */
/* The last failure                                                         */

void rmalab__block_forget(void)
{
    proc_lock();
    atomic_store_explicit(&rmalab__block_failed, false, memory_order_relaxed);
    proc_unlock();
}

int rmalab__block_fail(const char *call, const char *object, uint64_t id, int rc)
{
    proc_lock();
    proc.failure.call = call;
    proc.failure.code = rc;
    proc.failure.object = object;
    proc.failure.id = id;
    snprintf(proc.failure.message, sizeof proc.failure.message, "%s", rmalab_errmsg());
    atomic_store_explicit(&rmalab__block_failed, true, memory_order_relaxed);
    proc_unlock();
    return rc;
}

bool rmalab_last_failure(rmalab_failure *out)
{
    memset(out, 0, sizeof *out);
    proc_lock();
    bool failed = atomic_load_explicit(&rmalab__block_failed, memory_order_relaxed);
    if (failed)
        *out = proc.failure;
    proc_unlock();
    return failed;
}
