/* A get's result array is cleared with memset before the unlock_all that
 * completes the get: the clear and the arriving data collide.
 * verdict: race
 * ranks: 2
 */
#include <mpi.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, *base, row[4];
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_lock_all(0, win);
    if (rank == 0) {
        MPI_Get(row, 4, MPI_INT, 1, 0, 4, MPI_INT, win); /* RACE A */
        memset(row, 0, sizeof row);                      /* RACE B */
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
