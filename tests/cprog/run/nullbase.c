/* MPI_Win_create with no memory (base NULL, size 0) on rank 0 and
 * malloc'd memory on rank 1, freed as MPICH's test util (MTestFreeWin)
 * frees it: MPI_WIN_BASE read back, and free() called on it when it is
 * not NULL. MPI_WIN_BASE is the base the program passed (MPI-4.1 §12.2.6),
 * NULL here on rank 0: a base of rmalab's own there made free() abort. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, flag;
    void *at = NULL;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = rank * 64;
    char *buf = n ? malloc(n) : NULL;
    MPI_Win_create(buf, n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_get_attr(win, MPI_WIN_BASE, &at, &flag);
    printf("rank %d: base %s\n", rank, !flag ? "missing" : at == buf ? "the one passed"
                                                                       : "another");
    if (at)
        free(at);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
