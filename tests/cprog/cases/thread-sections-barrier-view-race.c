/* Rank 0 puts into rank 1's window under a lock, then meets rank 1 in a
 * barrier. On rank 1, one section makes that barrier and the other reads
 * the window; the team's second thread sleeps before the construct, so
 * the first thread runs both sections, one after the other. The sections
 * are not ordered (another run may give them to two threads), so the
 * barrier orders nothing before the read: a race, whichever thread runs
 * them.
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
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win); /* RACE A */
        MPI_Win_unlock(1, win);
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
#pragma omp parallel num_threads(2)
        {
            if (omp_get_thread_num() == 1)
                usleep(300000);
#pragma omp sections
            {
#pragma omp section
                MPI_Barrier(MPI_COMM_WORLD);
#pragma omp section
                seen = base[0]; /* RACE B */
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return seen == 1;
}
