/* Rank 1 adds to an element of rank 0's window while rank 2 takes the
 * maximum into it, in one fence epoch: accumulates are atomic only with
 * the same op (or MPI_NO_OP), so the outcome depends on their order.
 * verdict: race
 * ranks: 3
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 4, *base;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    base[0] = 1;
    MPI_Win_fence(0, win);
    if (rank == 1)
        MPI_Accumulate(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win); /* RACE A */
    else if (rank == 2)
        MPI_Accumulate(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_MAX, win); /* RACE B */
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
