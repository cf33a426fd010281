/* An MPI_Rget's result is read once MPI_Test has returned its request
 * complete.
 * verdict: no race
 * ranks: 2
 */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, *base;
    int value = 0, copy = 0, flag = 0;
    MPI_Request rq;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_lock_all(0, win);
    if (rank == 0) {
        MPI_Rget(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win, &rq);
        for (MPI_Test(&rq, &flag, MPI_STATUS_IGNORE); !flag;
             MPI_Test(&rq, &flag, MPI_STATUS_IGNORE))
            usleep(100);
        copy = value;
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return copy == -2;
}
