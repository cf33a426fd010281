/* MPI-4's large-count forms go through the core as the others do: a
 * window from MPI_Win_allocate_c, an MPI_Put_c with no epoch refused at its
 * line (MPI_ERRORS_RETURN: the program goes on), then MPI_Put_c and
 * MPI_Get_c in fence epochs. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, v, got = -1, cls = -1;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate_c(40, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    v = 10 + rank;
    MPI_Error_class(MPI_Put_c(&v, 1, MPI_INT, 1 - rank, 0, 1, MPI_INT, win), &cls);
    MPI_Win_fence(0, win);
    MPI_Put_c(&v, 1, MPI_INT, 1 - rank, 9, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Get_c(&got, 1, MPI_INT, 1 - rank, 9, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    printf("rank %d: %s, base[9] %d, got %d\n", rank,
           cls == MPI_ERR_RMA_SYNC ? "MPI_ERR_RMA_SYNC" : "no error", base[9], got);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
