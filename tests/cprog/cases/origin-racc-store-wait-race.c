/* The origin buffer of an MPI_Raccumulate is written before the MPI_Wait
 * that completes the request.
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
        MPI_Raccumulate(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_SUM, win, &rq); /* RACE A */
        value = 2;                                                                /* RACE B */
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return value == -2;
}
