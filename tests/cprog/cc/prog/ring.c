/* A small C MPI RMA program that the tests of rmalab cc build in every way
 * a project builds (tests/cprog/cc/cc.py): each rank puts RING_N values
 * (util.c, libm) into its right neighbour's window between fences, sums
 * what it got with OpenMP threads (-fopenmp: a reduction and an atomic),
 * and rank 0 prints every rank's sums. The output is the same under any
 * thread count, so an rmalab cc build and an mpicc build print the same. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "ring.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *base, out[RING_N];
    MPI_Win win;
    MPI_Win_allocate(RING_N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &base, &win);
    memset(base, 0, RING_N * sizeof(double));
    for (int i = 0; i < RING_N; i++)
        out[i] = ring_value(rank, i);
    MPI_Win_fence(0, win);
    MPI_Put(out, RING_N, MPI_DOUBLE, (rank + 1) % size, 0, RING_N, MPI_DOUBLE, win);
    MPI_Win_fence(0, win);
    double sum = 0;
    long big = 0;
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < RING_N; i++) {
        sum += base[i];
        if (base[i] > 4.0) {
#pragma omp atomic
            big++;
        }
    }
    double all[2 * 64];
    double mine[2] = {sum, (double)big};
    MPI_Gather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 0; r < size && r < 64; r++)
            printf("rank %d got %.6f, %g values over 4\n", r, all[2 * r], all[2 * r + 1]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
