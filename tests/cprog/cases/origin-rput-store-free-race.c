/* An MPI_Rput's request freed with MPI_Request_free: the operation goes
 * on, and its origin buffer is in use until the epoch completes it; the
 * store comes before the unlock. (Plain MPICH 4.0.2 refuses to free an
 * RMA request; rmalab run completes it locally there instead.)
 * verdict: race
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
        MPI_Rput(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win, &rq); /* RACE A */
        MPI_Request_free(&rq);
        value = 2;                                                /* RACE B */
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return value == -2;
}
