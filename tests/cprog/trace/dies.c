/* Rank 1 aborts in the middle of a traced epoch: MPI_Finalize is never
 * reached, so no trace can be gathered. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, *mem;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win win;
    MPI_Win_allocate(4, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Win_fence(0, win);
    if (rank == 1)
        MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
