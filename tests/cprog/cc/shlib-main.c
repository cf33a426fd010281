/* cc.py, case shlib: rank 1 stores into its window through shlib.c's
 * function, in the fence epoch in which rank 0 puts there (argument
 * "race"), or after the fence that ends it (no argument). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

void shlib_touch(int *p);

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, *buf, v = 5, racy = argc > 1 && strcmp(argv[1], "race") == 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win win;
    MPI_Win_allocate(64, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win);
    MPI_Win_fence(0, win);
    if (rank == 0)
        MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win); /* PUT */
    if (rank == 1 && racy)
        shlib_touch(buf);
    MPI_Win_fence(0, win);
    if (rank == 1 && !racy)
        shlib_touch(buf);
    MPI_Win_free(&win);
    MPI_Finalize();
    if (rank == 1)
        printf("done\n");
    return 0;
}
