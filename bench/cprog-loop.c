/* rmalab run's cost on a plain mpicc binary (issue 39: at most 1.1x):
 * an 8-byte put closed by a fence, or a PSCW exchange, in a loop on 2
 * ranks. Prints rank 0's time per epoch in microseconds; bench/cprog-run.sh
 * runs it under plain mpiexec and under rmalab run, interleaved.
 *
 * usage: cprog-loop fence|pscw [EPOCHS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fence_epoch(MPI_Win win, const double *v, int other)
{
    MPI_Put(v, 1, MPI_DOUBLE, other, 0, 1, MPI_DOUBLE, win);
    MPI_Win_fence(0, win);
}

static void pscw_epoch(MPI_Win win, const double *v, int other, MPI_Group peer)
{
    MPI_Win_post(peer, 0, win);
    MPI_Win_start(peer, 0, win);
    MPI_Put(v, 1, MPI_DOUBLE, other, 0, 1, MPI_DOUBLE, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
}

int main(int argc, char **argv)
{
    int rank, size, pscw = argc > 1 && strcmp(argv[1], "pscw") == 0;
    long epochs = argc > 2 ? atol(argv[2]) : 20000;
    double *base, v = 1.0;
    MPI_Win win;
    MPI_Group world, peer;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int other = (rank + 1) % size;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &other, &peer);
    MPI_Win_allocate(sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_fence(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < epochs; i++) {
        v = (double)i;
        if (pscw)
            pscw_epoch(win, &v, other, peer);
        else
            fence_epoch(win, &v, other);
    }
    double t = MPI_Wtime() - t0;
    if (rank == 0)
        printf("%s %.3f us/epoch\n", pscw ? "pscw" : "fence", t / (double)epochs * 1e6);
    MPI_Group_free(&peer);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
