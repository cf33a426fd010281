/* Heat flowing along a rod, cut into one piece per rank: each rank owns
 * N cells of u, between two ghost cells that hold its neighbours' edge
 * cells. Every step puts this rank's edge cells into the neighbours'
 * ghosts, between two fences, then averages each cell with its
 * neighbours; the rod's two ends are held at 0. To overlap the update
 * with the exchange, it is computed before the closing fence. It has a
 * race: find it with rmalab (scripts/c-race-lab/README.md).
 *
 *   rmalab cc -g scripts/c-race-lab/heat.c -o heat
 *   rmalab run -n 2 ./heat
 */
#include <mpi.h>
#include <stdio.h>

#define N 8
#define STEPS 20

int main(int argc, char **argv)
{
    int rank, size;
    double *u, next[N + 2], total = 0, sum;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* u[0] and u[N + 1] are the ghosts; u[1..N] this rank's cells. */
    MPI_Win_allocate((N + 2) * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &u, &win);
    for (int i = 0; i < N + 2; i++)
        u[i] = rank == 0 && i == 1 ? 1000.0 : 0.0; /* all the heat at the left end */
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    int edge[2] = {1, N}, nb[2] = {left, right}, ghost[2] = {N + 1, 0};

    for (int step = 0; step < STEPS; step++) {
        MPI_Win_fence(0, win);
        for (int d = 0; d < 2; d++)
            if (nb[d] != MPI_PROC_NULL)
                MPI_Put(&u[edge[d]], 1, MPI_DOUBLE, nb[d], ghost[d], 1, MPI_DOUBLE, win);
        for (int i = 1; i <= N; i++)
            next[i] = u[i] + 0.25 * (u[i - 1] - 2 * u[i] + u[i + 1]);
        MPI_Win_fence(0, win);
        for (int i = 1; i <= N; i++)
            u[i] = next[i];
    }

    for (int i = 1; i <= N; i++)
        total += u[i];
    MPI_Reduce(&total, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("heat after %d steps: %.6f (left end %.6f)\n", STEPS, sum, u[1]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
