/* Rank 0 puts to rank 1 and unlocks, then both ranks go through an
 * MPI_Ibarrier and its MPI_Wait; rank 1 then overwrites the element: the
 * put was complete at the target before rank 0 called the barrier.
 * verdict: no race
 * ranks: 2
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 1, *base;
    MPI_Win win;
    MPI_Request rq;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Win_unlock(1, win);
    }
    MPI_Ibarrier(MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    if (rank == 1)
        base[0] = 2;
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
