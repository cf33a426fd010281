#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, one = 1;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(40, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (rank == 1)
        MPI_Put(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
