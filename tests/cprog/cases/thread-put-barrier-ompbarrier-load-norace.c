/* Rank 0 puts to rank 1 under a lock, then both ranks meet in MPI_Barrier.
 * On rank 1, the master thread of an OpenMP team calls the barrier, and
 * the other thread reads the element after an OpenMP barrier, which
 * orders the MPI barrier before the read.
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
    base[0] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Win_unlock(1, win);
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
#pragma omp parallel num_threads(2)
        {
#pragma omp master
            MPI_Barrier(MPI_COMM_WORLD);
#pragma omp barrier
            if (omp_get_thread_num() == 1)
                seen = base[0];
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return seen == 1;
}
