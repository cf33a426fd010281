/* MPI_ERRORS_RETURN on the window: the refused call returns its error class
 * and the program goes on (then puts correctly and prints what it got). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, one = 1, cls = -1;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int rc = MPI_Put(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Error_class(rc, &cls);
    printf("rank %d: put with no epoch: %s\n", rank,
           cls == MPI_ERR_RMA_SYNC ? "MPI_ERR_RMA_SYNC" : "something else");
    MPI_Win_fence(0, win);
    if (rank == 1)
        MPI_Put(&one, 1, MPI_INT, 0, 3, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    if (rank == 0)
        printf("rank 0: base[3] = %d\n", base[3]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
