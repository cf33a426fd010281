/* Two gets in one fence epoch write the same result buffer: MPI does not
 * order them, so which value the buffer holds afterwards is undefined.
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
        MPI_Get(&value, 1, MPI_INT, 1, 1, 1, MPI_INT, win); /* RACE B */
    }
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
