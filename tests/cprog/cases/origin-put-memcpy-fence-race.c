/* A put's origin array is refilled with memcpy before the fence that
 * completes the put: the copy writes what MPI may still be reading.
 * verdict: race
 * ranks: 2
 */
#include <mpi.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, *base, row[4] = {1, 2, 3, 4}, next[4] = {5, 6, 7, 8};
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Put(row, 4, MPI_INT, 1, 0, 4, MPI_INT, win); /* RACE A */
        memcpy(row, next, sizeof row);                   /* RACE B */
    }
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
