/* The synchronisation calls of a window: each goes through the core's epoch
 * state machine and PSCW engine, with its call site for the race checker;
 * a refusal is an error at its line. A window the core does not know goes
 * to PMPI unchanged. */
#include "pmpi.h"
#include "types.h"
#include "watch.h"

#include <stdlib.h>

#include <rmalab/error.h>

#define ON_WINDOW(win, pmpi)                                                   \
    RUN_ON_WINDOW(win, pmpi);                                                 \
    run_site(s, pc)

/* After a call that may have completed operations. */
static int after(run_win *s, const void *pc, const char *call, int rc)
{
    run_watch_sync(s);
    return run_win_done(s, pc, call, rc);
}

/* The ranks of `group` in the window's group; *ranks is malloc'd. */
static int ranks_of(run_win *s, MPI_Group group, int **ranks, int *n)
{
    *ranks = NULL;
    if (PMPI_Group_size(group, n) != MPI_SUCCESS)
        return rmalab_set_error(RMALAB_ERR_GROUP, "an invalid group");
    int *in = malloc(sizeof(int) * (size_t)(*n + 1));
    *ranks = malloc(sizeof(int) * (size_t)(*n + 1));
    if (!in || !*ranks) {
        free(in);
        return rmalab_set_error(RMALAB_ERR_NO_MEM, "out of memory for a group");
    }
    for (int i = 0; i < *n; i++)
        in[i] = i;
    int e = PMPI_Group_translate_ranks(group, *n, in, s->group, *ranks);
    free(in);
    for (int i = 0; e == MPI_SUCCESS && i < *n; i++)
        if ((*ranks)[i] == MPI_UNDEFINED)
            return rmalab_set_error(RMALAB_ERR_GROUP, "rank %d of the group is not in the "
                                    "window's group", i);
    return e == MPI_SUCCESS ? RMALAB_OK
                            : rmalab_set_error(RMALAB_ERR_GROUP, "an invalid group");
}

typedef int (*group_call)(rmalab_win *, const int *, int, int);

static int with_group(run_win *s, const void *pc, const char *call, group_call fn,
                      MPI_Group group, int assert_)
{
    int *ranks = NULL, n = 0, mode;
    int rc = run_mode_of(assert_, &mode);
    if (!rc)
        rc = ranks_of(s, group, &ranks, &n);
    if (!rc)
        rc = fn(s->w, ranks, n, mode);
    free(ranks);
    return after(s, pc, call, rc);
}

RUN_API int run_MPI_Win_post(MPI_Group group, int assert_, MPI_Win win)
{
    ON_WINDOW(win, PMPI_Win_post(group, assert_, win));
    return with_group(s, pc, "MPI_Win_post", rmalab_win_post, group, assert_);
}

RUN_API int run_MPI_Win_start(MPI_Group group, int assert_, MPI_Win win)
{
    ON_WINDOW(win, PMPI_Win_start(group, assert_, win));
    return with_group(s, pc, "MPI_Win_start", rmalab_win_start, group, assert_);
}

RUN_API int run_MPI_Win_complete(MPI_Win win)
{
    ON_WINDOW(win, PMPI_Win_complete(win));
    return after(s, pc, "MPI_Win_complete", rmalab_win_complete(s->w));
}

RUN_API int run_MPI_Win_wait(MPI_Win win)
{
    ON_WINDOW(win, PMPI_Win_wait(win));
    return after(s, pc, "MPI_Win_wait", rmalab_win_wait(s->w));
}

RUN_API int run_MPI_Win_test(MPI_Win win, int *flag)
{
    ON_WINDOW(win, PMPI_Win_test(win, flag));
    bool done = false;
    int rc = rmalab_win_test(s->w, &done);
    *flag = done;
    return after(s, pc, "MPI_Win_test", rc);
}

RUN_API int run_MPI_Win_fence(int assert_, MPI_Win win)
{
    ON_WINDOW(win, PMPI_Win_fence(assert_, win));
    int mode, rc = run_mode_of(assert_, &mode); /* a wrong one takes part, failing */
    return after(s, pc, "MPI_Win_fence", rmalab_win_fence_status(s->w, rc ? 0 : mode, rc));
}

RUN_API int run_MPI_Win_lock(int lock_type, int rank, int assert_, MPI_Win win)
{
    ON_WINDOW(win, PMPI_Win_lock(lock_type, rank, assert_, win));
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    int mode, rc = run_mode_of(assert_, &mode);
    if (!rc)
        rc = lock_type == MPI_LOCK_EXCLUSIVE || lock_type == MPI_LOCK_SHARED
                 ? rmalab_win_lock(s->w, rank, lock_type == MPI_LOCK_EXCLUSIVE, mode)
                 : rmalab_set_error(RMALAB_ERR_ARG, "lock_type %d is neither "
                                    "MPI_LOCK_EXCLUSIVE nor MPI_LOCK_SHARED", lock_type);
    return after(s, pc, "MPI_Win_lock", rc);
}

RUN_API int run_MPI_Win_unlock(int rank, MPI_Win win)
{
    ON_WINDOW(win, PMPI_Win_unlock(rank, win));
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    return after(s, pc, "MPI_Win_unlock", rmalab_win_unlock(s->w, rank));
}

RUN_API int run_MPI_Win_lock_all(int assert_, MPI_Win win)
{
    ON_WINDOW(win, PMPI_Win_lock_all(assert_, win));
    int mode, rc = run_mode_of(assert_, &mode);
    return after(s, pc, "MPI_Win_lock_all", rc ? rc : rmalab_win_lock_all(s->w, mode));
}

RUN_API int run_MPI_Win_unlock_all(MPI_Win win)
{
    ON_WINDOW(win, PMPI_Win_unlock_all(win));
    return after(s, pc, "MPI_Win_unlock_all", rmalab_win_unlock_all(s->w));
}

RUN_API int run_MPI_Win_flush(int rank, MPI_Win win)
{
    ON_WINDOW(win, PMPI_Win_flush(rank, win));
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    return after(s, pc, "MPI_Win_flush", rmalab_win_flush(s->w, rank));
}

RUN_API int run_MPI_Win_flush_all(MPI_Win win)
{
    ON_WINDOW(win, PMPI_Win_flush_all(win));
    return after(s, pc, "MPI_Win_flush_all", rmalab_win_flush_all(s->w));
}

RUN_API int run_MPI_Win_flush_local(int rank, MPI_Win win)
{
    ON_WINDOW(win, PMPI_Win_flush_local(rank, win));
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    return after(s, pc, "MPI_Win_flush_local", rmalab_win_flush_local(s->w, rank));
}

RUN_API int run_MPI_Win_flush_local_all(MPI_Win win)
{
    ON_WINDOW(win, PMPI_Win_flush_local_all(win));
    return after(s, pc, "MPI_Win_flush_local_all", rmalab_win_flush_local_all(s->w));
}

RUN_API int run_MPI_Win_sync(MPI_Win win)
{
    ON_WINDOW(win, PMPI_Win_sync(win));
    return after(s, pc, "MPI_Win_sync", rmalab_win_sync(s->w));
}
