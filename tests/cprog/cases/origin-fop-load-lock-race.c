/* The result of a fetch_and_op, a ticket counter's old value, is read
 * before the unlock that completes the operation.
 * verdict: race
 * ranks: 2
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, one = 1, ticket = -1, mine = -1, *base;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Fetch_and_op(&one, &ticket, MPI_INT, 1, 0, MPI_SUM, win); /* RACE A */
        mine = ticket;                                                /* RACE B */
        MPI_Win_unlock(1, win);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return mine == -2;
}
