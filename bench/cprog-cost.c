/* The cost of rmalab cc's instrumentation on a memory-bound kernel whose
 * grid is a window (bench/cprog-cost.py builds this file with mpicc and
 * with rmalab cc, and runs them side by side): a 5-point Jacobi sweep over
 * ROWS x COLS doubles per rank, two windows of MPI_Win_allocate that swap
 * roles each sweep, halo rows exchanged by MPI_Put between fences.
 *
 * usage: cprog-cost [sweeps [rows [cols]]]
 * Prints "time S check C": the slowest rank's seconds for the sweeps, and
 * a weighted sum of a row of the grid that every build must print the same. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    double *g;
    MPI_Win win;
} grid;

static void sweep(int n, int m, const double *restrict a, double *restrict b)
{
    for (int i = 1; i <= n; i++)
        for (int j = 1; j < m - 1; j++)
            b[i * m + j] = 0.25 * (a[(i - 1) * m + j] + a[(i + 1) * m + j] +
                                   a[i * m + j - 1] + a[i * m + j + 1]);
}

/* Row 1 to the upper neighbour's row n + 1, row n to the lower one's row 0. */
static void exchange(const grid *a, int n, int m, int up, int down)
{
    MPI_Win_fence(MPI_MODE_NOPRECEDE, a->win);
    if (up != MPI_PROC_NULL)
        MPI_Put(a->g + m, m, MPI_DOUBLE, up, (MPI_Aint)(n + 1) * m, m, MPI_DOUBLE, a->win);
    if (down != MPI_PROC_NULL)
        MPI_Put(a->g + (size_t)n * m, m, MPI_DOUBLE, down, 0, m, MPI_DOUBLE, a->win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, a->win);
}

static void make(grid *x, int n, int m, int rank)
{
    MPI_Aint bytes = (MPI_Aint)(n + 2) * m * (MPI_Aint)sizeof(double);
    MPI_Win_allocate(bytes, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &x->g, &x->win);
    for (long k = 0; k < (long)(n + 2) * m; k++)
        x->g[k] = (double)((k * 7 + rank) % 13) * 0.1;
}

int main(int argc, char **argv)
{
    int rank, size;
    int sweeps = argc > 1 ? atoi(argv[1]) : 100;
    int n = argc > 2 ? atoi(argv[2]) : 1024, m = argc > 3 ? atoi(argv[3]) : 2048;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    grid a, b;
    make(&a, n, m, rank);
    make(&b, n, m, rank);
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int it = 0; it < sweeps; it++) {
        exchange(&a, n, m, up, down);
        sweep(n, m, a.g, b.g);
        grid t = a;
        a = b;
        b = t;
    }
    double t = MPI_Wtime() - t0, slowest, check, mine = 0;
    for (int j = 0; j < m; j++)
        mine += a.g[(n / 2) * m + j] * (j % 7 + 1);
    MPI_Reduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine, &check, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("time %.4f check %.9f\n", slowest, check);
    MPI_Win_free(&a.win);
    MPI_Win_free(&b.win);
    MPI_Finalize();
    return 0;
}
