/* Rank 1 reads an element of rank 0's window with MPI_Get_accumulate and
 * MPI_NO_OP while rank 2 puts to it: the atomic read does not make a plain
 * put atomic.
 * verdict: race
 * ranks: 3
 */
#include <mpi.h>
#include <stddef.h>

int main(int argc, char **argv)
{
    int rank, value = 1, r = 0, *base;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_fence(0, win);
    if (rank == 1)
        MPI_Get_accumulate(NULL, 0, MPI_INT, &r, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_NO_OP, win); /* RACE A */
    else if (rank == 2)
        MPI_Put(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, win); /* RACE B */
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
