/* Two OpenMP threads of rank 0: the master gets an element of rank 1's
 * window into a buffer under a lock; after an OpenMP barrier, which orders
 * the unlock before it, the other thread reads the buffer.
 * verdict: no race
 * ranks: 2
 */
#include <mpi.h>
#include <omp.h>

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
                MPI_Get(&got, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
                MPI_Win_unlock(1, win);
            }
#pragma omp barrier
            if (omp_get_thread_num() == 1)
                seen = got;
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return seen == 8;
}
