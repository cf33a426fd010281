/* Rank 1 reads its own window inside the fence epoch in which rank 0's
 * put may land in the same element.
 * verdict: race
 * ranks: 2
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 1, seen = 0, *base;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    base[0] = 0;
    MPI_Win_fence(0, win);
    if (rank == 0)
        MPI_Put(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win); /* RACE A */
    else
        seen = base[0]; /* RACE B */
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return seen == 2;
}
