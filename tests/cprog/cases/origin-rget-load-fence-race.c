/* An MPI_Rget in a fence epoch, its result read before the MPI_Wait that
 * completes its request. MPI allows request-based operations only in a
 * passive-target epoch; MPICH carries this one out, and so does rmalab
 * run after the error line at the MPI_Rget, so the read is still judged:
 * the data may not have arrived (RMARaceBench's sync/009).
 * verdict: race
 * ranks: 2
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 0, copy = 0, *base;
    MPI_Win win;
    MPI_Request rq;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Rget(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win, &rq); /* RACE A */ /* ERROR */
        copy = value;                                             /* RACE B */
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    }
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return copy == -2;
}
