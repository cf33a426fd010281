/* Two MPI_Raccumulates from one array, completed together by MPI_Waitall
 * before the array is written again.
 * verdict: no race
 * ranks: 2
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, *base;
    int value[2] = {1, 2};
    MPI_Request rq[2];
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_lock_all(0, win);
    if (rank == 0) {
        MPI_Raccumulate(&value[0], 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_SUM, win, &rq[0]);
        MPI_Raccumulate(&value[1], 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_SUM, win, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        value[0] = value[1] = 0;
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return value[0] == -2;
}
