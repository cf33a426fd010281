/* A fence one rank never calls: rank 0 closes its epoch with a fence,
 * rank 1 goes straight to a barrier. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, *base;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (rank == 0)
        MPI_Win_fence(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
