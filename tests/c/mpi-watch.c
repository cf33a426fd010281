/* A PMPI layer for the check suites of test-core-mpi: it sees the MPI calls
 * the core makes (the core is linked statically into the test program, so
 * these definitions take the place of libmpich's MPI_ entry points, and
 * forward to the PMPI_ ones, as MPI's profiling interface provides). Tests
 * use it to check what timing cannot show on a machine whose MPI delivers
 * small messages eagerly: that the rma engine completes the notifications
 * it sends before post and complete return, and that it synchronises
 * memory before a post. Counters are per process, for the owning thread
 * (the sampler threads of the suites make no MPI call). */
#include <mpi.h>

#include "testutil.h"

#define WATCH_SLOTS 64

/* Accumulates issued and not yet completed by a flush, per window and
 * target rank. */
static struct {
    MPI_Win win;
    int rank;
    long n;
} pending[WATCH_SLOTS];
static long win_syncs;

static void forget(MPI_Win win, int rank) /* rank < 0: every rank */
{
    for (int i = 0; i < WATCH_SLOTS; i++)
        if (pending[i].n && pending[i].win == win && (rank < 0 || pending[i].rank == rank))
            pending[i].n = 0;
}

int MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                   int target_rank, MPI_Aint target_disp, int target_count,
                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    int e = PMPI_Accumulate(origin_addr, origin_count, origin_datatype, target_rank,
                            target_disp, target_count, target_datatype, op, win);
    int free_slot = -1;
    for (int i = 0; e == MPI_SUCCESS && i < WATCH_SLOTS; i++) {
        if (pending[i].n && pending[i].win == win && pending[i].rank == target_rank) {
            pending[i].n++;
            return e;
        }
        if (!pending[i].n && free_slot < 0)
            free_slot = i;
    }
    if (e == MPI_SUCCESS && free_slot >= 0) {
        pending[free_slot].win = win;
        pending[free_slot].rank = target_rank;
        pending[free_slot].n = 1;
    }
    return e;
}

int MPI_Win_flush(int rank, MPI_Win win)
{
    int e = PMPI_Win_flush(rank, win);
    if (e == MPI_SUCCESS)
        forget(win, rank);
    return e;
}

int MPI_Win_flush_all(MPI_Win win)
{
    int e = PMPI_Win_flush_all(win);
    if (e == MPI_SUCCESS)
        forget(win, -1);
    return e;
}

int MPI_Win_unlock(int rank, MPI_Win win)
{
    int e = PMPI_Win_unlock(rank, win);
    if (e == MPI_SUCCESS)
        forget(win, rank);
    return e;
}

int MPI_Win_unlock_all(MPI_Win win)
{
    int e = PMPI_Win_unlock_all(win);
    if (e == MPI_SUCCESS)
        forget(win, -1);
    return e;
}

int MPI_Win_fence(int assert_, MPI_Win win)
{
    int e = PMPI_Win_fence(assert_, win);
    if (e == MPI_SUCCESS)
        forget(win, -1);
    return e;
}

int MPI_Win_complete(MPI_Win win)
{
    int e = PMPI_Win_complete(win);
    if (e == MPI_SUCCESS)
        forget(win, -1);
    return e;
}

int MPI_Win_free(MPI_Win *win)
{
    MPI_Win w = *win;
    int e = PMPI_Win_free(win);
    if (e == MPI_SUCCESS)
        forget(w, -1);
    return e;
}

int MPI_Win_sync(MPI_Win win)
{
    win_syncs++;
    return PMPI_Win_sync(win);
}

long tu_mpi_unflushed_accumulates(void)
{
    long n = 0;
    for (int i = 0; i < WATCH_SLOTS; i++)
        n += pending[i].n;
    return n;
}

long tu_mpi_win_syncs(void)
{
    return win_syncs;
}
