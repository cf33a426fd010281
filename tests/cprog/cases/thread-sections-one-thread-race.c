/* Two sections of one construct, which OpenMP leaves unordered: the first
 * gets an element of rank 1's window under a lock, the second reads the
 * result. The team's second thread sleeps before the construct, so the
 * first thread runs both sections, one after the other; they are still
 * not ordered (another run may give them to two threads): a race,
 * whichever thread runs them.
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
            if (omp_get_thread_num() == 1)
                usleep(300000);
#pragma omp sections
            {
#pragma omp section
                {
                    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
                    MPI_Get(&got, 1, MPI_INT, 1, 0, 1, MPI_INT, win); /* RACE A */
                    MPI_Win_unlock(1, win);
                }
#pragma omp section
                seen = got; /* RACE B */
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return seen == 8;
}
