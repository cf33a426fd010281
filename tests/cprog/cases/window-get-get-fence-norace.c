/* Ranks 1 and 2 get the same element of rank 0's window in one fence
 * epoch: two reads never conflict.
 * verdict: no race
 * ranks: 3
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 0, *base;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    base[0] = 7;
    MPI_Win_fence(0, win);
    if (rank > 0)
        MPI_Get(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return rank > 0 && value != 7;
}
