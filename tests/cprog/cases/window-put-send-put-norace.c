/* Rank 0 puts to rank 2 and unlocks, then tells rank 1 by a message; rank
 * 1 then puts to the same element of rank 2: the message orders the two
 * passive-target epochs.
 * verdict: no race
 * ranks: 3
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value, token = 0, *base;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    value = rank;
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 2, 0, win);
        MPI_Put(&value, 1, MPI_INT, 2, 0, 1, MPI_INT, win);
        MPI_Win_unlock(2, win);
        MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Win_lock(MPI_LOCK_SHARED, 2, 0, win);
        MPI_Put(&value, 1, MPI_INT, 2, 0, 1, MPI_INT, win);
        MPI_Win_unlock(2, win);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
