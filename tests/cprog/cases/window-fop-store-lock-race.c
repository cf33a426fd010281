/* Rank 0 increments a counter on rank 1 with MPI_Fetch_and_op while rank
 * 1 resets it with a plain store, outside any lock: an atomic op does not
 * make a plain store atomic.
 * verdict: race
 * ranks: 2
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, one = 1, old = 0, *base;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Fetch_and_op(&one, &old, MPI_INT, 1, 0, MPI_SUM, win); /* RACE A */
        MPI_Win_unlock(1, win);
    } else {
        base[0] = 0; /* RACE B */
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
