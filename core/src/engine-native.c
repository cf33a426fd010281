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

#include <stdlib.h>
#include <string.h>

static int cached_group(rmalab_win *w, struct rmalab__group_cache *c, const int *ranks, int n,
                        MPI_Group *out)
{
    if (c->group != MPI_GROUP_NULL && c->n == n &&
        (n == 0 || memcmp(c->ranks, ranks, (size_t)n * sizeof *ranks) == 0)) {
        *out = c->group;
        return RMALAB_OK;
    }
    if (!c->ranks && !(c->ranks = malloc(((size_t)w->size + 1) * sizeof *c->ranks)))
        return rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory caching a group");
    if (c->group != MPI_GROUP_NULL)
        MPI_Group_free(&c->group);
    int e = MPI_Group_incl(w->wgroup, n, ranks, &c->group);
    if (e != MPI_SUCCESS) {
        c->group = MPI_GROUP_NULL;
        return rmalab__mpi_fail(e, "MPI_Group_incl");
    }
    if (n)
        memcpy(c->ranks, ranks, (size_t)n * sizeof *ranks);
    c->n = n;
    *out = c->group;
    return RMALAB_OK;
}

void rmalab__group_cache_clear(struct rmalab__group_cache *c)
{
    if (c->group != MPI_GROUP_NULL)
        MPI_Group_free(&c->group);
    free(c->ranks);
    c->ranks = NULL;
    c->n = 0;
}

static int native_post(rmalab_win *w, const int *ranks, int n, int mode)
{
    MPI_Group g;
    int rc = cached_group(w, &w->post_cache, ranks, n, &g);
    if (rc)
        return rc;
    int e = MPI_Win_post(g, mode, w->win);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__mpi_fail(e, "MPI_Win_post");
}

static int native_start(rmalab_win *w, const int *ranks, int n, int mode)
{
    MPI_Group g;
    int rc = cached_group(w, &w->start_cache, ranks, n, &g);
    if (rc)
        return rc;
    int e = MPI_Win_start(g, mode, w->win);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__mpi_fail(e, "MPI_Win_start");
}

static int native_complete(rmalab_win *w)
{
    int e = MPI_Win_complete(w->win);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__mpi_fail(e, "MPI_Win_complete");
}

static int native_wait(rmalab_win *w)
{
    int e = MPI_Win_wait(w->win);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__mpi_fail(e, "MPI_Win_wait");
}

static int native_test(rmalab_win *w, int *flag)
{
    int e = MPI_Win_test(w->win, flag);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__mpi_fail(e, "MPI_Win_test");
}

const rmalab__engine rmalab__native_engine = {
    "native", native_post, native_start, native_complete, native_wait, native_test,
};
