/* The origin buffer of an accumulate is written before the unlock that
 * completes it: an accumulate reads its origin as a put does.
 * verdict: race
 * ranks: 2
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 1, *base;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Accumulate(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_SUM, win); /* RACE A */
        value = 2;                                                          /* RACE B */
        MPI_Win_unlock(1, win);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
