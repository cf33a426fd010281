/* Rank 1 gets an element of rank 0's window that rank 2 puts in the same
 * fence epoch.
 * verdict: race
 * ranks: 3
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 1, *base;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_fence(0, win);
    if (rank == 1)
        MPI_Get(&value, 1, MPI_INT, 0, 2, 1, MPI_INT, win); /* RACE A */
    else if (rank == 2)
        MPI_Put(&value, 1, MPI_INT, 0, 2, 1, MPI_INT, win); /* RACE B */
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
