/* A fence epoch with one put: rank 0 puts 8 bytes into rank 1's window.
 * The window is named, so the trace shows "halo". */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double *mem, v = 3.5;
    MPI_Win win;
    MPI_Win_allocate(8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Win_set_name(win, "halo");
    MPI_Win_fence(0, win);
    if (rank == 0)
        MPI_Put(&v, 1, MPI_DOUBLE, 1, 0, 1, MPI_DOUBLE, win);
    MPI_Win_fence(0, win);
    if (rank == 1)
        printf("got %g\n", *mem);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
