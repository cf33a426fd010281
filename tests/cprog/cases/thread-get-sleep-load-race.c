/* Two OpenMP threads of rank 0: the master gets an element of rank 1's
 * window into a buffer under a lock; the other thread reads the buffer
 * after sleeping, with no OpenMP construct between them. The get is
 * complete in time when the read comes, but nothing orders the unlock
 * before the read: a race, whatever the timing.
 * verdict: race
 * ranks: 2
 */
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, provided, got = 0, seen = 0, *base;
    MPI_Win win;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    base[0] = 7;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
#pragma omp parallel num_threads(2)
        {
#pragma omp master
            {
                MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
                MPI_Get(&got, 1, MPI_INT, 1, 0, 1, MPI_INT, win); /* RACE A */
                MPI_Win_unlock(1, win);
            }
            if (omp_get_thread_num() == 1) {
                usleep(300000);
                seen = got; /* RACE B */
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return seen == 8;
}
