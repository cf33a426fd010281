#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, v;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    v = rank + 1;
    MPI_Win_allocate(40, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_fence(0, win);
    if (rank == 0)
        MPI_Put(&v, 1, MPI_INT, 0, 2, 1, MPI_INT, win);
    else
        MPI_Put(&v, 1, MPI_INT, 0, 2, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
