/* Ranks 1 and 2 try to claim a flag on rank 0 with MPI_Compare_and_swap
 * under shared locks: compare-and-swaps on one element are atomic.
 * verdict: no race
 * ranks: 3
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, compare = 0, old = -1, *base;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    base[0] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank > 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Compare_and_swap(&rank, &compare, &old, MPI_INT, 0, 0, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
