/* Rank 0's first thread puts to rank 1 under a lock and unlocks; its
 * second thread, later, meets rank 1 in MPI_Barrier, and rank 1 then reads
 * the element. Nothing orders the first thread's unlock before the second
 * thread's barrier (RMARaceBench's hybrid/021 without sections): a race,
 * however late the barrier comes. One clock entry per rank took the
 * barrier as the unlock's release.
 * verdict: race
 * ranks: 2
 */
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, provided, value = 42, seen = 0, *base;
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
                MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
                MPI_Put(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win); /* RACE A */
                MPI_Win_unlock(1, win);
            } else {
                usleep(300000);
                MPI_Barrier(MPI_COMM_WORLD);
            }
        }
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        seen = base[0]; /* RACE B */
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return seen == 1;
}
