/* Rank 0 puts element 5 of rank 1's window while rank 1 fills, in a loop,
 * the whole array whose middle is that window, in the same fence epoch.
 * Built with -O2, rmalab's gcc plugin takes the loop's store check out of
 * the loop: one range of all the loop's bytes before it (the calls: line
 * makes check.py look for it), which begins before the window and must
 * still be reported, at the store's own line.
 * verdict: race
 * ranks: 2
 * cflags: -O2
 * calls: __tsan_write_range
 */
#include <mpi.h>
#include <stdlib.h>

__attribute__((noinline)) static void fill(int *p, int n, int v)
{
    for (int i = 0; i < n; i++)
        p[i] = v + i; /* RACE B */
}

int main(int argc, char **argv)
{
    int rank, value = 1, n = 62 + argc;
    int *all = calloc((size_t)n, sizeof(int));
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(all + 16, 32 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (rank == 0)
        MPI_Put(&value, 1, MPI_INT, 1, 5, 1, MPI_INT, win); /* RACE A */
    else
        fill(all, n, 3);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    free(all);
    return 0;
}
