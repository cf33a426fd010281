/* Two OpenMP threads of rank 0: one stores to an element of rank 0's
 * window; the other, after sleeping, gets an element of rank 1's window
 * into that element under a lock. No OpenMP construct orders the store
 * before the get's call: a race, though the store came first in time.
 * verdict: race
 * ranks: 2
 */
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, provided, *base;
    MPI_Win win;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    base[0] = 3;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
#pragma omp parallel num_threads(2)
        {
            if (omp_get_thread_num() == 1)
                base[2] = 5; /* RACE A */
            else {
                usleep(300000);
                MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
                MPI_Get(&base[2], 1, MPI_INT, 1, 0, 1, MPI_INT, win); /* RACE B */
                MPI_Win_unlock(1, win);
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int seen = base[2];
    MPI_Win_free(&win);
    MPI_Finalize();
    return seen == 4;
}
