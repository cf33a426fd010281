/* Two OpenMP threads of rank 0: one gets an element of rank 1's window
 * into a buffer under a lock and then, in a critical section, sets a
 * flag; the other reads the buffer in the same critical section once it
 * sees the flag. The critical section orders the unlock before the read.
 * verdict: no race
 * ranks: 2
 */
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, provided, got = 0, ready = 0, seen = 0, *base;
    MPI_Win win;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    base[0] = 7;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
#pragma omp parallel num_threads(2)
        {
            if (omp_get_thread_num() == 0) {
                MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
                MPI_Get(&got, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
                MPI_Win_unlock(1, win);
#pragma omp critical
                ready = 1;
            } else {
                int done = 0;
                while (!done) {
#pragma omp critical
                    {
                        if (ready) {
                            seen = got;
                            done = 1;
                        }
                    }
                    if (!done)
                        usleep(1000);
                }
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return rank == 0 && seen != 7;
}
