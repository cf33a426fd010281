/* Rank 0 puts a column to rank 1 through a vector datatype at the target
 * (every fourth int: elements 0, 4, 8, 12) while rank 1 writes element 8
 * in the same fence epoch: the third block of the vector and the store
 * reach the same bytes.
 * verdict: race
 * ranks: 2
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, column[4] = {1, 2, 3, 4}, *base;
    MPI_Datatype strided;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_vector(4, 1, 4, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_fence(0, win);
    if (rank == 0)
        MPI_Put(column, 4, MPI_INT, 1, 0, 1, strided, win); /* RACE A */
    else
        base[8] = 5;                                        /* RACE B */
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Type_free(&strided);
    MPI_Finalize();
    return 0;
}
