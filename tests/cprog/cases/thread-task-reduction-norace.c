/* Rank 0's two OpenMP threads sum into a task reduction (libgomp's
 * GOMP_parallel_reductions, whose data's first word libgomp reads), then
 * rank 0 puts the sum into rank 1's window inside a fence epoch; rank 1
 * reads it after the closing fence. The interceptor's fork must hand
 * libgomp that first word: without it libgomp read garbage and aborted.
 * verdict: no race
 * ranks: 2
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, provided, *base;
    long x = 0;
    MPI_Win win;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    base[0] = 0;
    if (rank == 0) {
#pragma omp parallel num_threads(2) reduction(task, + : x)
        {
#pragma omp single
            for (int i = 1; i <= 10; i++) {
#pragma omp task in_reduction(+ : x)
                x += i;
            }
        }
    }
    int sum = (int)x;
    MPI_Win_fence(0, win);
    if (rank == 0)
        MPI_Put(&sum, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    int ok = rank == 0 ? x == 55 : base[0] == 55;
    MPI_Win_free(&win);
    MPI_Finalize();
    return !ok;
}
