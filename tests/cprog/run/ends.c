/* A program that ends badly on rank 1 (argv[1]: "abort" calls MPI_Abort,
 * "segv" dereferences NULL, "hang" never comes: the job is then
 * interrupted or killed) while rank 0 waits in a fence: the job must end
 * with a non-zero status and leave no process behind. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, *base;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (rank == 1 && argc > 1 && strcmp(argv[1], "abort") == 0)
        MPI_Abort(MPI_COMM_WORLD, 3);
    if (rank == 1 && argc > 1 && strcmp(argv[1], "segv") == 0) {
        volatile int *nowhere = NULL;
        *nowhere = 1;
    }
    while (rank == 1 && argc > 1 && strcmp(argv[1], "hang") == 0)
        sleep(1);
    MPI_Win_fence(0, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
