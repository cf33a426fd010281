/* As thread-put-unlock-otherbarrier-load-race, with an OpenMP barrier
 * between the first thread's unlock and the second thread's MPI_Barrier:
 * the second thread then knows the unlock, its barrier orders the put
 * before rank 1's read, and the two threads' puts to other elements,
 * ordered by the OpenMP barrier too, do not race.
 * verdict: no race
 * ranks: 2
 */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int rank, provided, value = 42, seen = 0, *base;
    MPI_Win win;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    base[0] = base[1] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
#pragma omp parallel num_threads(2)
        {
            if (omp_get_thread_num() == 0) {
                MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
                MPI_Put(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
                MPI_Put(&value, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
                MPI_Win_unlock(1, win);
            }
#pragma omp barrier
            if (omp_get_thread_num() == 1) {
                MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
                MPI_Put(&value, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
                MPI_Win_unlock(1, win);
                MPI_Barrier(MPI_COMM_WORLD);
            }
        }
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        seen = base[0];
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return seen == 1;
}
