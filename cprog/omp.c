/* The order OpenMP makes among a rank's threads, seen where gcc's lowering
 * of the constructs calls libgomp (GOMP_*, omp_*_lock): each wrapper
 * releases into or acquires from a sync object (threads.h), around the real
 * call, found with dlsym(RTLD_NEXT). A program without OpenMP never calls
 * them.
 *
 * - a team's fork (GOMP_parallel and the combined parallel loops and
 *   sections): each thread of the team starts from the clock of the thread
 *   that forked it, which joins theirs when the team ends;
 * - a team's barriers (GOMP_barrier, and the ends of for, sections and
 *   single with copyprivate that wait): a release into the team's object,
 *   the barrier, an acquire from it; a task releases into the same object
 *   when it ends, which taskwait and taskgroup's end acquire;
 * - each section of a sections construct (GOMP_sections_start, _next) as a
 *   thread of its own, from its thread's clock at the construct;
 * - a task starts from its creator's clock at GOMP_task;
 * - critical (named or not), ordered, and the runtime's atomic lock:
 *   acquire at the start, release at the end; omp_set_lock and
 *   omp_unset_lock (nested too) alike, per lock.
 * Not seen: taskloop, task dependences (depend clauses order nothing
 * here), doacross loops, the old GOMP_parallel_start form, and atomics,
 * OpenMP's or C11's (a flag that one thread sets and another waits for
 * orders nothing here). */
#include "run.h"
#include "threads.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>


/* real_: the next definition of the wrapper `name`, libgomp's. */
#define REAL(name)                                                            \
    static __typeof__(&name) real_;                                           \
    if (!real_) {                                                             \
        void *p_ = dlsym(RTLD_NEXT, #name);                                   \
        memcpy(&real_, &p_, sizeof p_);                                       \
    }

typedef void (*body_fn)(void *);

/* What the program calls (libgomp's signatures, gcc 12). */
RUN_API void GOMP_parallel(body_fn fn, void *data, unsigned n, unsigned flags);
RUN_API unsigned GOMP_parallel_reductions(body_fn fn, void *data, unsigned n, unsigned flags);
RUN_API void GOMP_parallel_sections(body_fn fn, void *data, unsigned n, unsigned count,
                                    unsigned flags);
RUN_API void *GOMP_single_copy_start(void);
RUN_API void GOMP_single_copy_end(void *data);
RUN_API void GOMP_task(body_fn fn, void *data, void (*cpyfn)(void *, void *), long size,
                       long align, bool if_clause, unsigned flags, void **depend, int priority,
                       void *detach);

static __thread run_sync *team; /* the current team's object */
static run_sync no_team;        /* barriers and tasks outside any team */

static run_sync *team_sync(void)
{
    return team ? team : &no_team;
}

/* ------------------------------------------------------------------------ */
/* Teams                                                                    */

/* What a team's threads start from instead of the program's data. libgomp
 * reads the first word of the data of GOMP_parallel_reductions (the task
 * reductions' array), so `first` copies it there; NULL elsewhere. */
typedef struct {
    void *first;
    body_fn fn;
    void *data;
    run_sync fork, join, team;
} fork_t;

/* The size of the calling thread's team (libgomp's omp_get_num_threads). */
static int team_size(void)
{
    static int (*real_)(void);
    if (!real_) {
        void *p_ = dlsym(RTLD_NEXT, "omp_get_num_threads");
        memcpy(&real_, &p_, sizeof p_);
    }
    return real_ ? real_() : 1;
}

static void forked(void *p)
{
    fork_t *f = p;
    run_sync *was = team;
    run_threads_begin(&f->fork, team_size());
    team = &f->team;
    f->fn(f->data);
    run_threads_end(&f->join);
    run_threads_settled();
    team = was;
}

#define FORK(first, call)                                                     \
    fork_t f_ = {first, fn, data, {{0}}, {{0}}, {{0}}};                       \
    run_threads_teams(1);                                                     \
    run_threads_release(&f_.fork);                                            \
    call;                                                                     \
    run_threads_acquire(&f_.join);                                            \
    run_threads_teams(-1);                                                    \
    run_threads_sync_free(&f_.fork);                                          \
    run_threads_sync_free(&f_.join);                                          \
    run_threads_sync_free(&f_.team)

RUN_API void GOMP_parallel(body_fn fn, void *data, unsigned n, unsigned flags)
{
    REAL(GOMP_parallel);
    FORK(NULL, real_(forked, &f_, n, flags));
}

RUN_API unsigned GOMP_parallel_reductions(body_fn fn, void *data, unsigned n, unsigned flags)
{
    REAL(GOMP_parallel_reductions);
    unsigned r;
    FORK(*(void **)data, r = real_(forked, &f_, n, flags));
    return r;
}

RUN_API void GOMP_parallel_sections(body_fn fn, void *data, unsigned n, unsigned count,
                                    unsigned flags)
{
    REAL(GOMP_parallel_sections);
    FORK(NULL, real_(forked, &f_, n, count, flags));
}

/* The combined parallel loops, with a chunk size and without (runtime). */
#define PAR_LOOP(name)                                                        \
    RUN_API void name(body_fn fn, void *data, unsigned n, long start, long end, long incr, \
                      long chunk, unsigned flags);                            \
    RUN_API void name(body_fn fn, void *data, unsigned n, long start, long end, long incr, \
                      long chunk, unsigned flags)                             \
    {                                                                         \
        REAL(name);                                                           \
        FORK(NULL, real_(forked, &f_, n, start, end, incr, chunk, flags));          \
    }
#define PAR_LOOP_RUNTIME(name)                                                \
    RUN_API void name(body_fn fn, void *data, unsigned n, long start, long end, long incr, \
                      unsigned flags);                                        \
    RUN_API void name(body_fn fn, void *data, unsigned n, long start, long end, long incr, \
                      unsigned flags)                                         \
    {                                                                         \
        REAL(name);                                                           \
        FORK(NULL, real_(forked, &f_, n, start, end, incr, flags));                 \
    }
PAR_LOOP(GOMP_parallel_loop_static)
PAR_LOOP(GOMP_parallel_loop_dynamic)
PAR_LOOP(GOMP_parallel_loop_guided)
PAR_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic)
PAR_LOOP(GOMP_parallel_loop_nonmonotonic_guided)
PAR_LOOP_RUNTIME(GOMP_parallel_loop_runtime)
PAR_LOOP_RUNTIME(GOMP_parallel_loop_nonmonotonic_runtime)
PAR_LOOP_RUNTIME(GOMP_parallel_loop_maybe_nonmonotonic_runtime)

/* ------------------------------------------------------------------------ */
/* Barriers                                                                 */

#define BARRIER(name)                                                         \
    RUN_API void name(void);                                                  \
    RUN_API void name(void)                                                   \
    {                                                                         \
        REAL(name);                                                           \
        run_threads_release(team_sync());                                     \
        real_();                                                              \
        run_threads_acquire(team_sync());                                     \
        run_threads_settled();                                                \
    }
#define BARRIER_CANCEL(name)                                                  \
    RUN_API bool name(void);                                                  \
    RUN_API bool name(void)                                                   \
    {                                                                         \
        REAL(name);                                                           \
        run_threads_release(team_sync());                                     \
        bool r = real_();                                                     \
        run_threads_acquire(team_sync());                                     \
        run_threads_settled();                                                \
        return r;                                                             \
    }
BARRIER(GOMP_barrier)
BARRIER(GOMP_loop_end)
BARRIER(GOMP_sections_end)
BARRIER_CANCEL(GOMP_barrier_cancel)
BARRIER_CANCEL(GOMP_loop_end_cancel)
BARRIER_CANCEL(GOMP_sections_end_cancel)

/* ------------------------------------------------------------------------ */
/* Sections                                                                 */

RUN_API unsigned GOMP_sections_start(unsigned count);
RUN_API unsigned GOMP_sections_start(unsigned count)
{
    REAL(GOMP_sections_start);
    unsigned i = real_(count);
    run_threads_section(i != 0);
    return i;
}

RUN_API unsigned GOMP_sections2_start(unsigned count, uintptr_t *reductions, void **mem);
RUN_API unsigned GOMP_sections2_start(unsigned count, uintptr_t *reductions, void **mem)
{
    REAL(GOMP_sections2_start);
    unsigned i = real_(count, reductions, mem);
    run_threads_section(i != 0);
    return i;
}

RUN_API unsigned GOMP_sections_next(void);
RUN_API unsigned GOMP_sections_next(void)
{
    REAL(GOMP_sections_next);
    unsigned i = real_();
    run_threads_section(i != 0);
    return i;
}

RUN_API void *GOMP_single_copy_start(void)
{
    REAL(GOMP_single_copy_start);
    void *r = real_(); /* others wait here for the one that copies */
    run_threads_acquire(team_sync());
    return r;
}

RUN_API void GOMP_single_copy_end(void *data)
{
    REAL(GOMP_single_copy_end);
    run_threads_release(team_sync());
    real_(data);
}

/* ------------------------------------------------------------------------ */
/* Tasks                                                                    */

/* A task's block, as libgomp copies it: this header, the creator's clock
 * (RUN_THREADS then W int64), then the program's data at `off`. */
typedef struct {
    body_fn fn;
    void (*cpyfn)(void *, void *);
    void *orig;
    run_sync *team;
    long off;
    int64_t clock[];
} task_t;

static void task_run(void *p)
{
    task_t *h = p;
    run_sync from = {{0}, h->clock + RUN_THREADS};
    memcpy(from.t, h->clock, sizeof from.t);
    run_sync *was = team;
    run_threads_acquire(&from);
    team = h->team;
    h->fn((char *)p + h->off);
    run_threads_release(h->team);
    team = was;
}

static void task_copy(void *dst, void *src)
{
    task_t *h = src;
    memcpy(dst, src, (size_t)h->off);
    h->cpyfn((char *)dst + h->off, h->orig);
}

/* The block for a task of `size` bytes aligned at `align`; NULL without
 * memory. */
static task_t *task_block(body_fn fn, void *data, void (*cpyfn)(void *, void *), long size,
                          long *align)
{
    size_t W = (size_t)run_threads_world();
    long a = *align > 16 ? *align : 16;
    long off = (long)(sizeof(task_t) + (RUN_THREADS + W) * sizeof(int64_t));
    off = (off + a - 1) / a * a;
    task_t *h = aligned_alloc((size_t)a, (size_t)((off + size + a - 1) / a * a));
    if (!h)
        return NULL;
    *h = (task_t){fn, cpyfn, data, team_sync(), off};
    run_sync now = {{0}, NULL};
    run_threads_release(&now);
    memcpy(h->clock, now.t, sizeof now.t);
    if (now.k)
        memcpy(h->clock + RUN_THREADS, now.k, W * sizeof(int64_t));
    else
        memset(h->clock + RUN_THREADS, 0, W * sizeof(int64_t));
    run_threads_sync_free(&now);
    if (!cpyfn && size > 0)
        memcpy((char *)h + off, data, (size_t)size);
    *align = a;
    return h;
}

RUN_API void GOMP_task(body_fn fn, void *data, void (*cpyfn)(void *, void *), long size,
                       long align, bool if_clause, unsigned flags, void **depend, int priority,
                       void *detach)
{
    REAL(GOMP_task);
    task_t *h = task_block(fn, data, cpyfn, size, &align);
    if (!h) {
        real_(fn, data, cpyfn, size, align, if_clause, flags, depend, priority, detach);
        return;
    }
    real_(task_run, h, cpyfn ? task_copy : NULL, h->off + size, align, if_clause, flags, depend,
          priority, detach);
    free(h);
}

#define TASK_WAIT(name)                                                       \
    RUN_API void name(void);                                                  \
    RUN_API void name(void)                                                   \
    {                                                                         \
        REAL(name);                                                           \
        real_();                                                              \
        run_threads_acquire(team_sync());                                     \
    }
TASK_WAIT(GOMP_taskwait)
TASK_WAIT(GOMP_taskgroup_end)

/* ------------------------------------------------------------------------ */
/* Mutual exclusion                                                         */

/* The object of a lock's address: a few locks, scanned; beyond, one
 * shared object (it orders more, so reports less). */
#define LOCKS 256
static struct {
    const void *key;
    run_sync o;
} locks[LOCKS];
static pthread_mutex_t locks_lock = PTHREAD_MUTEX_INITIALIZER;

static run_sync *lock_sync(const void *key)
{
    pthread_mutex_lock(&locks_lock);
    int i = 0;
    while (i < LOCKS - 1 && locks[i].key && locks[i].key != key)
        i++;
    locks[i].key = locks[i].key ? locks[i].key : key;
    pthread_mutex_unlock(&locks_lock);
    return &locks[i].o;
}

static int critical_key, atomic_key, ordered_key;

#define ENTER(name, key)                                                      \
    RUN_API void name(void);                                                  \
    RUN_API void name(void)                                                   \
    {                                                                         \
        REAL(name);                                                           \
        real_();                                                              \
        run_threads_acquire(lock_sync(key));                                  \
    }
#define LEAVE(name, key)                                                      \
    RUN_API void name(void);                                                  \
    RUN_API void name(void)                                                   \
    {                                                                         \
        REAL(name);                                                           \
        run_threads_release(lock_sync(key));                                  \
        real_();                                                              \
    }
ENTER(GOMP_critical_start, &critical_key)
LEAVE(GOMP_critical_end, &critical_key)
ENTER(GOMP_atomic_start, &atomic_key)
LEAVE(GOMP_atomic_end, &atomic_key)
ENTER(GOMP_ordered_start, &ordered_key)
LEAVE(GOMP_ordered_end, &ordered_key)

#define ENTER_AT(name)                                                        \
    RUN_API void name(void **p);                                              \
    RUN_API void name(void **p)                                               \
    {                                                                         \
        REAL(name);                                                           \
        real_(p);                                                             \
        run_threads_acquire(lock_sync(p));                                    \
    }
#define LEAVE_AT(name)                                                        \
    RUN_API void name(void **p);                                              \
    RUN_API void name(void **p)                                               \
    {                                                                         \
        REAL(name);                                                           \
        run_threads_release(lock_sync(p));                                    \
        real_(p);                                                             \
    }
ENTER_AT(GOMP_critical_name_start)
LEAVE_AT(GOMP_critical_name_end)
ENTER_AT(omp_set_lock)
LEAVE_AT(omp_unset_lock)
ENTER_AT(omp_set_nest_lock)
LEAVE_AT(omp_unset_nest_lock)

#define TRY_AT(name)                                                          \
    RUN_API int name(void **p);                                               \
    RUN_API int name(void **p)                                                \
    {                                                                         \
        REAL(name);                                                           \
        int got = real_(p);                                                   \
        if (got)                                                              \
            run_threads_acquire(lock_sync(p));                                \
        return got;                                                           \
    }
TRY_AT(omp_test_lock)
TRY_AT(omp_test_nest_lock)
