/* MPI_ERRORS_RETURN on the window: the refused call returns its error class
 * and the program goes on (then puts correctly and prints what it got). A
 * fence whose assertion is wrong on the last rank alone fails on every rank
 * (issue 42: the C programs' layer takes part in the core's agreement) and
 * the ranks stay in step. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, *base, one = 1, cls = -1, sum = 0;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
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
    rc = MPI_Win_fence(rank == size - 1 ? 0x4000000 : 0, win);
    MPI_Error_class(rc, &cls);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d: a fence wrong on one rank: %s, then %d ranks in step\n", rank,
           cls == MPI_ERR_ARG ? "MPI_ERR_ARG" : "something else", sum);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
