/* An MPI_Rget_accumulate and an MPI_Rget, each one's result read once
 * MPI_Waitany has returned its request, whichever completes first.
 * verdict: no race
 * ranks: 2
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, *base;
    int one = 1, old = 0, value = 0, sum = 0, i;
    MPI_Request rq[2];
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_lock_all(0, win);
    if (rank == 0) {
        MPI_Rget_accumulate(&one, 1, MPI_INT, &old, 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_SUM, win,
                            &rq[0]);
        MPI_Rget(&value, 1, MPI_INT, 1, 1, 1, MPI_INT, win, &rq[1]);
        for (int k = 0; k < 2; k++) {
            MPI_Waitany(2, rq, &i, MPI_STATUS_IGNORE);
            sum += i == 0 ? old : value;
        }
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return sum == -2;
}
