/* Under lock_all, rank 1 writes its own window while rank 0 gets the same
 * element; the barrier comes only after both.
 * verdict: race
 * ranks: 2
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 0, *base;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_lock_all(0, win);
    if (rank == 1) {
        base[0] = 9; /* RACE A */
        MPI_Win_sync(win);
    } else {
        MPI_Get(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win); /* RACE B */
        MPI_Win_flush(1, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
