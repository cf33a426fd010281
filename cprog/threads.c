/* The order among the process's threads (threads.h has the design). Every
 * thread's clock lives in a table under one mutex: a release, an acquire
 * and a first sight change clocks under it; a thread reads its own clock
 * without it (no other thread writes it). */
#include "threads.h"

#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rmalab/error.h>
#include <rmalab/races.h>

typedef struct {
    int slot;  /* its own, or its section's while it runs one */
    int own;
    bool mpi;  /* made an MPI call since its view last caught up */
    bool idle; /* a team's thread between its part and its next (run_threads_end) */
    int parts; /* team parts it is in (nested teams: more than one) */
    int64_t t[RUN_THREADS];
    int64_t *k;
    /* In a sections construct: what it knew when it met it, and what the
     * sections it ran did; the section slots it holds. */
    bool sections;
    int64_t entry[RUN_THREADS], done[RUN_THREADS];
    int64_t *entry_k, *done_k;
    int held[RUN_SECTIONS], nheld;
} tstate;

#define PHYSICAL (RUN_THREADS - RUN_SECTIONS)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static tstate *table[RUN_THREADS];
static int seen;  /* threads seen, however many */
static int teams; /* teams forked and not yet joined (under `lock`) */
static bool taken[RUN_THREADS];  /* section slots in use (under `lock`) */
static int64_t last[RUN_THREADS]; /* a section slot's last step (under `lock`) */
static __thread tstate *me;
/* The forks of running teams whose threads have not all begun (under
 * `lock`). It grows: nested teams (each thread of a team forking its own)
 * can have as many open at once as there are threads forking, more than any
 * fixed size. `lost` counts those that found no room, without memory: then
 * no point is known to all until they have begun, which keeps operations
 * watched longer (more work, the same verdicts: a thread is still judged by
 * what it knows). */
static run_sync **open_forks;
static int nopen, capopen, lost;
static bool own_clocks; /* per-thread clock entries (run_threads_start) */
/* The view and slot this thread's core calls use (rmalab_clock_thread). */
static __thread int64_t *installed_k;
static __thread int installed_slot;

int run_threads_world(void)
{
    static int W;
    int up = 0;
    if (!W && PMPI_Initialized(&up) == MPI_SUCCESS && up)
        W = (int)(rmalab_clock_wire_size() / sizeof(int64_t));
    return W;
}

/* *dst = max(*dst, src), made when missing (none without memory: a view
 * then stays the process's, which orders more and reports less). */
static void join_k(int64_t **dst, const int64_t *src)
{
    int W = run_threads_world();
    if (!src || !W || (!*dst && !(*dst = calloc((size_t)W, sizeof **dst))))
        return;
    for (int i = 0; i < W; i++)
        (*dst)[i] = src[i] > (*dst)[i] ? src[i] : (*dst)[i];
}

static void join_t(int64_t *dst, const int64_t *src)
{
    for (int i = 0; i < RUN_THREADS; i++)
        dst[i] = src[i] > dst[i] ? src[i] : dst[i];
}

void run_threads_start(bool checked)
{
    int level = MPI_THREAD_SINGLE, want, all = 1;
    PMPI_Query_thread(&level);
    want = checked && level >= MPI_THREAD_SERIALIZED ? RUN_THREADS : 1;
    if (PMPI_Allreduce(&want, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) == MPI_SUCCESS &&
        all > 1 && rmalab_clock_threads(all) == RMALAB_OK)
        own_clocks = true;
}

bool run_threads_own_clocks(void)
{
    return own_clocks;
}

/* With per-thread entries: while s runs a part of an OpenMP team, its
 * calls to the core carry its view, made when missing (zeros: a thread of
 * a team knows what its fork gives it), on its slot. Outside any team (the
 * serial code, a thread of the program's own, whose order with others,
 * by pthread_join say, is not seen) they carry the process's clock on
 * slot 0, as with one entry per rank. s is the calling thread's. */
static void install(tstate *s)
{
    int W = run_threads_world();
    if (!own_clocks || !W)
        return;
    if (!s->parts || (!s->k && !(s->k = calloc((size_t)W, sizeof *s->k)))) {
        if (installed_k) /* without memory too: the process's, which orders more */
            rmalab_clock_thread(NULL, 0);
        installed_k = NULL;
        return;
    }
    if (s->k != installed_k || s->slot != installed_slot) {
        rmalab_clock_thread(s->k, s->slot);
        installed_k = s->k;
        installed_slot = s->slot;
    }
}

/* Under `lock`: the process's clock joined into *k. */
static void join_process(int64_t **k)
{
    int W = run_threads_world();
    int64_t *now = W ? malloc((size_t)W * sizeof *now) : NULL;
    if (now) {
        rmalab_clock_peek(now);
        join_k(k, now);
    }
    free(now);
}

/* The calling thread, made at its first sight: `fresh` knows nothing but
 * itself (a thread of a team, which its fork then orders); else it knows
 * every thread's clock as it stands. NULL without memory. */
static tstate *self(bool fresh)
{
    if (me)
        return me;
    tstate *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    pthread_mutex_lock(&lock);
    s->slot = s->own = seen < PHYSICAL ? seen : PHYSICAL - 1;
    __atomic_store_n(&seen, seen + 1, __ATOMIC_RELEASE);
    for (int i = 0; !fresh && i < RUN_THREADS; i++)
        if (table[i]) {
            join_t(s->t, table[i]->t);
            join_k(&s->k, table[i]->k);
        }
    if (!fresh)
        join_process(&s->k);
    if (!table[s->slot])
        table[s->slot] = s;
    s->t[s->slot]++;
    pthread_mutex_unlock(&lock);
    install(s);
    return me = s;
}

/* Under `lock`: the view catches up with the process's clock after the
 * thread's MPI calls (it is outside any now). With per-thread entries the
 * core keeps the view itself. */
static void catch_up(tstate *s)
{
    if (s->mpi && (!own_clocks || !s->parts)) {
        join_process(&s->k);
        s->mpi = false;
    }
}

bool run_threads_many(void)
{
    return __atomic_load_n(&seen, __ATOMIC_ACQUIRE) > 1 ||
           __atomic_load_n(&teams, __ATOMIC_ACQUIRE) > 0;
}

void run_threads_mpi(void)
{
    tstate *s = self(false);
    if (s) {
        s->mpi = true;
        install(s);
    }
}

run_point run_threads_now(void)
{
    tstate *s = self(false);
    return s ? (run_point){s->slot, s->t[s->slot]} : (run_point){0, 0};
}

bool run_threads_knows(run_point p)
{
    tstate *s = self(false);
    return !s || s->t[p.slot] >= p.step;
}

bool run_threads_all_know(run_point p)
{
    bool all = true;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < RUN_THREADS && all; i++)
        all = !table[i] || (table[i]->idle && !teams) || table[i]->t[p.slot] >= p.step;
    for (int i = 0; i < nopen && all; i++)
        all = open_forks[i]->t[p.slot] >= p.step;
    all = all && !lost;
    pthread_mutex_unlock(&lock);
    return all;
}

bool run_threads_view(int64_t *buf)
{
    tstate *s = run_threads_many() ? self(false) : NULL;
    if (!s || (own_clocks && s->parts))
        return false; /* its view is the core's already (install) */
    pthread_mutex_lock(&lock);
    catch_up(s);
    bool has = s->k != NULL;
    if (has)
        memcpy(buf, s->k, (size_t)run_threads_world() * sizeof *buf);
    pthread_mutex_unlock(&lock);
    return has;
}

void run_threads_release(run_sync *o)
{
    tstate *s = self(false);
    if (!s)
        return;
    pthread_mutex_lock(&lock);
    catch_up(s);
    join_t(o->t, s->t);
    join_k(&o->k, s->k);
    s->t[s->slot]++;
    pthread_mutex_unlock(&lock);
}

void run_threads_acquire(run_sync *o)
{
    tstate *s = self(false);
    if (!s)
        return;
    pthread_mutex_lock(&lock);
    catch_up(s);
    join_t(s->t, o->t);
    join_k(&s->k, o->k);
    s->idle = false;
    pthread_mutex_unlock(&lock);
    install(s);
}

/* Under `lock`: fork stands for no thread any more. */
static void fork_close(run_sync *fork)
{
    fork->waiting = 0;
    for (int i = 0; i < nopen; i++)
        if (open_forks[i] == fork) {
            open_forks[i] = open_forks[--nopen];
            return;
        }
    lost -= fork->opened && lost > 0;
}

/* Under `lock`: one more thread of fork's team (of `size`) has begun. */
static void fork_begun(run_sync *fork, int size)
{
    if (!fork->opened) {
        fork->opened = true;
        fork->waiting = size > 0 ? size : 1;
        if (nopen == capopen) {
            int cap = capopen ? 2 * capopen : 32;
            run_sync **more = realloc(open_forks, (size_t)cap * sizeof *more);
            if (more)
                open_forks = more, capopen = cap;
        }
        if (nopen < capopen)
            open_forks[nopen++] = fork;
        else
            lost++;
    }
    if (fork->waiting > 0 && --fork->waiting == 0)
        fork_close(fork);
}

void run_threads_begin(run_sync *fork, int size)
{
    tstate *s = self(true); /* in the table first: it knows less than the fork until the acquire */
    if (s)
        s->parts++; /* the acquire below installs its view */
    run_threads_acquire(fork);
    pthread_mutex_lock(&lock);
    fork_begun(fork, size);
    pthread_mutex_unlock(&lock);
}

void run_threads_teams(int delta)
{
    pthread_mutex_lock(&lock);
    teams += delta;
    pthread_mutex_unlock(&lock);
}

void run_threads_end(run_sync *join)
{
    run_threads_release(join);
    tstate *s = self(false);
    if (!s)
        return;
    pthread_mutex_lock(&lock);
    s->idle = true;
    s->parts -= s->parts > 0;
    pthread_mutex_unlock(&lock);
    install(s);
}

/* Under `lock`: *dst a copy of src (NULL without one or without memory),
 * in place where it can be: a thread's view stays where the core has it. */
static void copy_k(int64_t **dst, const int64_t *src)
{
    int W = run_threads_world();
    if (*dst && src && W) {
        memcpy(*dst, src, (size_t)W * sizeof **dst);
        return;
    }
    free(*dst);
    *dst = NULL;
    join_k(dst, src);
}

/* Under `lock`: a free section slot, its first step set; -1 when none. */
static int take_slot(tstate *s)
{
    if (s->nheld == RUN_SECTIONS)
        return -1;
    for (int a = PHYSICAL; a < RUN_THREADS; a++)
        if (!taken[a]) {
            taken[a] = true;
            s->held[s->nheld++] = a;
            return a;
        }
    return -1;
}

/* Under `lock`: s starts a section from what it knew at the construct, on
 * a slot of its own (else as itself, knowing the sections before). */
static void section_begin(tstate *s)
{
    int a = take_slot(s);
    memcpy(s->t, s->entry, sizeof s->t);
    copy_k(&s->k, s->entry_k);
    if (a < 0) {
        join_t(s->t, s->done);
        join_k(&s->k, s->done_k);
        s->slot = s->own;
        return;
    }
    s->slot = a;
    s->t[a] = last[a] + 1;
}

/* Under `lock`: the construct is over for s, which knows every section it
 * ran. */
static void sections_over(tstate *s)
{
    memcpy(s->t, s->entry, sizeof s->t);
    join_t(s->t, s->done);
    copy_k(&s->k, s->entry_k);
    join_k(&s->k, s->done_k);
    s->slot = s->own;
    s->t[s->own]++;
    s->sections = false;
    copy_k(&s->entry_k, NULL);
    copy_k(&s->done_k, NULL);
}

void run_threads_section(bool another)
{
    tstate *s = self(false);
    if (!s)
        return;
    pthread_mutex_lock(&lock);
    catch_up(s);
    if (!s->sections) {
        s->sections = true;
        memcpy(s->entry, s->t, sizeof s->t);
        memset(s->done, 0, sizeof s->done);
        copy_k(&s->entry_k, s->k);
    } else {
        join_t(s->done, s->t);
        join_k(&s->done_k, s->k);
        if (s->slot != s->own)
            last[s->slot] = s->t[s->slot];
    }
    if (another)
        section_begin(s);
    else
        sections_over(s);
    pthread_mutex_unlock(&lock);
    install(s);
}

void run_threads_settled(void)
{
    tstate *s = me;
    if (!s || !s->nheld || s->sections)
        return;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < s->nheld; i++)
        taken[s->held[i]] = false;
    s->nheld = 0;
    pthread_mutex_unlock(&lock);
}

void run_threads_sync_free(run_sync *o)
{
    if (o->waiting) { /* a fork whose team ended with threads that never began */
        pthread_mutex_lock(&lock);
        fork_close(o);
        pthread_mutex_unlock(&lock);
    }
    free(o->k);
    o->k = NULL;
}
