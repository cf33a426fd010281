/* Rank 0 puts element 0 of rank 1's window while rank 1 writes element 1
 * in the same fence epoch: different bytes, no conflict.
 * verdict: no race
 * ranks: 2
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 1, ok, *base;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_fence(0, win);
    if (rank == 0)
        MPI_Put(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    else
        base[1] = 5;
    MPI_Win_fence(0, win);
    ok = rank == 0 || (base[0] == 1 && base[1] == 5);
    MPI_Win_free(&win);
    MPI_Finalize();
    return !ok;
}
