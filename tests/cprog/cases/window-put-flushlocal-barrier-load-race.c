/* Rank 0 puts to rank 1 and calls MPI_Win_flush_local before a barrier,
 * after which rank 1 reads the element: flush_local completes the put at
 * the origin only, not at the target.
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
    MPI_Win_lock_all(0, win);
    if (rank == 0) {
        MPI_Put(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win); /* RACE A */
        MPI_Win_flush_local(1, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        seen = base[0]; /* RACE B */
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return seen == 2;
}
