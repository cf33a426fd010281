/* Sections ordered by the constructs around them: in each of 40 rounds
 * (more rounds than section slots, which the barriers free), the first
 * section gets an element of rank 1's window under a lock and the second
 * reads a buffer of its own; after the construct's barrier, both threads
 * read the result, and a `nowait` construct's sections touch nothing of
 * the other's. No race.
 * verdict: no race
 * ranks: 2
 */
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, provided, got = 0, mine = 3, sum = 0, *base;
    MPI_Win win;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    base[0] = 7;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
#pragma omp parallel num_threads(2) reduction(+ : sum)
        for (int round = 0; round < 40; round++) {
            if (round == 0 && omp_get_thread_num() == 1)
                usleep(100000);
#pragma omp sections
            {
#pragma omp section
                {
                    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
                    MPI_Get(&got, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
                    MPI_Win_unlock(1, win);
                }
#pragma omp section
                sum += mine;
            }
            sum += got;
#pragma omp barrier
#pragma omp sections nowait
            {
#pragma omp section
                sum += mine;
#pragma omp section
                sum += 1;
            }
#pragma omp barrier
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return rank == 0 && sum != 40 * (3 + 2 * 7 + 3 + 1);
}
