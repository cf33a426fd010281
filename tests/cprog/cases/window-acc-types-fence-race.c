/* Rank 1 adds an int, rank 2 a float, to the same four bytes of rank 0's
 * window in one fence epoch: atomicity holds only for the same basic type.
 * verdict: race
 * ranks: 3
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, ivalue = 1, *base;
    float fvalue = 1.0f;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    base[0] = 0;
    MPI_Win_fence(0, win);
    if (rank == 1)
        MPI_Accumulate(&ivalue, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win); /* RACE A */
    else if (rank == 2)
        MPI_Accumulate(&fvalue, 1, MPI_FLOAT, 0, 0, 1, MPI_FLOAT, MPI_SUM, win); /* RACE B */
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
