/* The native PSCW engine: MPICH's own MPI_Win_post/start/complete/wait/test.
 *
 * MPICH's matching only counts: MPI_Win_start waits for as many post
 * notifications as its group has ranks and never checks who sent them, so
 * a post from the wrong rank satisfies a start, and mismatched groups hang
 * without a message (docs/pscw.md). The rma engine does better.
 *
 * Groups are cached per window: MPI_Group_incl runs only when the ranks
 * differ from the previous epoch's, as most programs use one group for
 * every epoch. */
#include "win-private.h"
#include "engine-native.h"
#include "alloc.h"
#include "error-private.h"
#include "block.h"

#include <stdlib.h>
#include <string.h>

/* A cached MPI group: rebuilt only when the ranks change. */
struct group_cache {
    MPI_Group group;
    int n;
    int *ranks;
};

struct native {
    struct group_cache post, start;
};

/* Compared in place: most groups are a rank or two, where a call of
 * memcmp cost more than the comparison (every post and start). */
static bool same_ranks(const int *a, const int *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

static int cached_group(rmalab_win *w, struct group_cache *c, const int *ranks, int n,
                        MPI_Group *out)
{
    if (c->group != MPI_GROUP_NULL && c->n == n && same_ranks(c->ranks, ranks, n)) {
        *out = c->group;
        return RMALAB_OK;
    }
    if (!c->ranks && !(c->ranks = rmalab__mem_alloc(((size_t)w->size + 1) * sizeof *c->ranks)))
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory caching a group");
    if (c->group != MPI_GROUP_NULL)
        MPI_Group_free(&c->group);
    int e = MPI_Group_incl(w->wgroup, n, ranks, &c->group);
    if (e != MPI_SUCCESS) {
        c->group = MPI_GROUP_NULL;
        return rmalab__err_mpi(e, "MPI_Group_incl");
    }
    if (n)
        memcpy(c->ranks, ranks, (size_t)n * sizeof *ranks);
    c->n = n;
    *out = c->group;
    return RMALAB_OK;
}

static void group_cache_clear(struct group_cache *c)
{
    if (c->group != MPI_GROUP_NULL)
        MPI_Group_free(&c->group);
    rmalab__mem_free(c->ranks);
    c->ranks = NULL;
    c->n = 0;
}

static int native_post(rmalab_win *w, const int *ranks, int n, int mode)
{
    MPI_Group g;
    int rc = cached_group(w, &((struct native *)w->engine_state)->post, ranks, n, &g);
    if (rc)
        return rc;
    int e = MPI_Win_post(g, mode, w->win);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__err_mpi(e, "MPI_Win_post");
}

static int native_start(rmalab_win *w, const int *ranks, int n, int mode)
{
    MPI_Group g;
    int rc = cached_group(w, &((struct native *)w->engine_state)->start, ranks, n, &g);
    if (rc)
        return rc;
    int e = MPI_Win_start(g, mode, w->win);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__err_mpi(e, "MPI_Win_start");
}

static int native_complete(rmalab_win *w, const int *group, int n)
{
    (void)group, (void)n;
    int e = MPI_Win_complete(w->win);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__err_mpi(e, "MPI_Win_complete");
}

/* Tries of MPI_Win_test before a wait is recorded as blocked: in a loop of
 * epochs most waits end within them, and the record (two lock acquisitions
 * and a clock read, about 120 instructions) would sit on the target's path
 * from the origin's complete to its next post. */
#define QUIET_TESTS 16

/* Recorded as blocked once it outlasts QUIET_TESTS: then MPI_Win_wait, or
 * in SLEEP mode MPI_Win_test with the sleeping backoff (it ends the exposure
 * epoch as MPI_Win_wait does). */
static int native_wait(rmalab_win *w, const int *xgroup, int n)
{
    int done = 0, e = MPI_SUCCESS;
    for (int i = 0; i < QUIET_TESTS && !done && e == MPI_SUCCESS; i++)
        e = MPI_Win_test(w->win, &done);
    if (done || e != MPI_SUCCESS)
        return e == MPI_SUCCESS ? RMALAB_OK : rmalab__err_mpi(e, "MPI_Win_test");
    bool sleep = atomic_load_explicit(&rmalab__block_wait_mode, memory_order_relaxed) ==
                 RMALAB_WAIT_SLEEP;
    rmalab__block b;
    rmalab__backoff bo = RMALAB__BACKOFF_INIT;
    (void)rmalab__win_block(w, &b, "wait", false, xgroup, n);
    if (!sleep)
        e = MPI_Win_wait(w->win);
    while (sleep && (e = MPI_Win_test(w->win, &done)) == MPI_SUCCESS && !done)
        rmalab__block_backoff(&bo);
    rmalab__win_unblock(w, &b);
    return e == MPI_SUCCESS ? RMALAB_OK
                            : rmalab__err_mpi(e, sleep ? "MPI_Win_test" : "MPI_Win_wait");
}

static int native_test(rmalab_win *w, const int *xgroup, int n, int *flag)
{
    (void)xgroup, (void)n;
    int e = MPI_Win_test(w->win, flag);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__err_mpi(e, "MPI_Win_test");
}

/* Local: the state; nothing collective (no setup). */
static int native_make(rmalab_win *w, MPI_Comm parent, MPI_Aint *tail)
{
    (void)parent, (void)tail;
    struct native *n = rmalab__mem_calloc(1, sizeof *n);
    if (!n)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory creating a window");
    n->post.group = n->start.group = MPI_GROUP_NULL;
    w->engine_state = n;
    return RMALAB_OK;
}

static void native_destroy(rmalab_win *w)
{
    struct native *n = w->engine_state;
    if (!n)
        return;
    group_cache_clear(&n->post);
    group_cache_clear(&n->start);
    rmalab__mem_free(n);
    w->engine_state = NULL;
}

/* What get_info says of this engine, which rmalab cannot fix. */
static int native_info(const rmalab_win *w, rmalab_info *info)
{
    (void)w;
    return rmalab_info_set(info, RMALAB_KEY_PSCW_DEFECT,
                           "MPICH 4.0.2 counts PSCW posts without checking their rank or epoch, "
                           "so a post of the next epoch that arrives early can hang a correct "
                           "program in start(); the default engine, rma, matches per peer "
                           "(docs/pscw.md)");
}

const rmalab__engine rmalab__engine_native = {
    .name = "native",
    .own_lock_all = false,
    .own_waits = false,
    .make = native_make,
    .destroy = native_destroy,
    .post = native_post,
    .start = native_start,
    .complete = native_complete,
    .wait = native_wait,
    .test = native_test,
    .info = native_info,
};
