/* Two threads of rank 0 each put to the same element of rank 1 under a
 * shared lock of their own; the second starts after the first has
 * unlocked, but nothing between the threads orders them: a race between
 * two operations of one rank. One clock entry per rank took the first
 * thread's unlock as known to the second.
 * verdict: race
 * ranks: 2
 */
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, provided, one = 1, two = 2, *base;
    MPI_Win win;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    base[0] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
#pragma omp parallel num_threads(2)
        {
            if (omp_get_thread_num() == 0) {
                MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
                MPI_Put(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, win); /* RACE A */
                MPI_Win_unlock(1, win);
            } else {
                usleep(300000);
                MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
                MPI_Put(&two, 1, MPI_INT, 1, 0, 1, MPI_INT, win); /* RACE B */
                MPI_Win_unlock(1, win);
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
