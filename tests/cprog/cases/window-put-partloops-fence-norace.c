/* Rank 0 puts elements 20 and 21 of rank 1's window while rank 1 reads
 * parts of it in loops, in the same fence epoch: a search that stops at
 * element 10 (a loop with an early exit) and a sum of the even elements
 * (a stride of two). Neither touches 20 or 21. Built with -O2: rmalab's
 * gcc plugin must leave both loops' checks per access, as a range of the
 * loop's whole count would claim bytes the loop never reads.
 * verdict: no race
 * ranks: 2
 * cflags: -O2
 */
#include <mpi.h>

__attribute__((noinline)) static int find_zero(const int *p, int n)
{
    for (int i = 0; i < n; i++)
        if (p[i] == 0)
            return i;
    return n;
}

__attribute__((noinline)) static int sum_even(const int *p, int n)
{
    int s = 0;
    for (int i = 0; i < n; i += 2)
        s += p[i];
    return s;
}

int main(int argc, char **argv)
{
    int rank, value[2] = {7, 7}, *base, n = 32 + argc, ok = 1;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(n * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < n; i++)
        base[i] = i == 10 ? 0 : 1;
    MPI_Win_fence(0, win);
    if (rank == 0)
        MPI_Put(value, 2, MPI_INT, 1, 20, 2, MPI_INT, win);
    else
        ok = find_zero(base, n) == 10 && sum_even(base, 20) == 9;
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return !ok;
}
