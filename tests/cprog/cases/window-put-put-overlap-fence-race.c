/* Rank 1 puts elements 0-1 of rank 0's window, rank 2 puts elements 1-2,
 * in one fence epoch: they share element 1.
 * verdict: race
 * ranks: 3
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, pair[2], *base;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    pair[0] = pair[1] = rank;
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_fence(0, win);
    if (rank == 1)
        MPI_Put(pair, 2, MPI_INT, 0, 0, 2, MPI_INT, win); /* RACE A */
    else if (rank == 2)
        MPI_Put(pair, 2, MPI_INT, 0, 1, 2, MPI_INT, win); /* RACE B */
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
