/* MPI_Win_flush_local completes an MPI_Rput at the origin before its
 * request is waited for: the buffer may be written at once.
 * verdict: no race
 * ranks: 2
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, *base;
    int value = 1;
    MPI_Request rq;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_lock_all(0, win);
    if (rank == 0) {
        MPI_Rput(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win, &rq);
        MPI_Win_flush_local(1, win);
        value = 2;
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return value == -2;
}
