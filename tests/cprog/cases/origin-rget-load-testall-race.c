/* An MPI_Testall that does not complete (its receive has no message
 * yet: the sender waits for this rank's next message) completes none of
 * its requests: the MPI_Rget's result is read while the get may still be
 * in flight, even when the get itself is done.
 * verdict: race
 * ranks: 2
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, *base;
    int value = 0, copy = 0, go = 0, flag = 0;
    MPI_Request rq[2];
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_lock_all(0, win);
    if (rank == 0) {
        MPI_Rget(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win, &rq[0]); /* RACE A */
        MPI_Irecv(&go, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &rq[1]);
        MPI_Testall(2, rq, &flag, MPI_STATUSES_IGNORE);
        copy = value;                                                /* RACE B */
        MPI_Send(&flag, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    } else {
        MPI_Recv(&go, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&go, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return copy == -2 || flag;
}
