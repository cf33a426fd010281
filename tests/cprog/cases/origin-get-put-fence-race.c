/* A get's result buffer is the origin of a put in the same epoch: the put
 * may send the old value or the fetched one.
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
    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Get(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win); /* RACE A */
        MPI_Put(&value, 1, MPI_INT, 1, 4, 1, MPI_INT, win); /* RACE B */
    }
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
