/* halo-c: the exchange of scripts/halo.lua in raw MPICH, for its speed
 * beside the lab's. Each rank owns columns of a 1000 x 1000 grid split by
 * columns; its window holds N rows of 4 ghost doubles, and a halo is one
 * put per neighbour of a contiguous 1000-double origin into a column of
 * the target's window (MPI_Type_vector(1000, 1, 4)), alternating between
 * two ghost pairs by step, as the lab does. The exchange alone (no packing,
 * no compute), EXCHANGES times, best of ROUNDS, the slower rank's time,
 * by native PSCW, fence, and lock/unlock + barrier.
 *     mpiexec -n 2 -bind-to core build/bench/halo-c */
#include <mpi.h>

#include <stdio.h>

enum { N = 1000, G = 4, EXCHANGES = 100, ROUNDS = 5 };

static int left, right, nn, nbr[2];
static MPI_Datatype column;
static double west[N], east[N];

static void put_edges(MPI_Win win, int b)
{
    if (left >= 0)
        MPI_Put(west, N, MPI_DOUBLE, left, 2 * b + 1, 1, column, win);
    if (right >= 0)
        MPI_Put(east, N, MPI_DOUBLE, right, 2 * b, 1, column, win);
}

static void exchange(int method, MPI_Win win, MPI_Group nbrs, int b)
{
    if (method == 0) {
        MPI_Win_post(nbrs, 0, win);
        MPI_Win_start(nbrs, 0, win);
        put_edges(win, b);
        MPI_Win_complete(win);
        MPI_Win_wait(win);
    } else if (method == 1) {
        put_edges(win, b);
        MPI_Win_fence(0, win);
    } else {
        for (int i = 0; i < nn; i++) {
            MPI_Win_lock(MPI_LOCK_SHARED, nbr[i], 0, win);
            if (nbr[i] == left)
                MPI_Put(west, N, MPI_DOUBLE, left, 2 * b + 1, 1, column, win);
            else
                MPI_Put(east, N, MPI_DOUBLE, right, 2 * b, 1, column, win);
            MPI_Win_unlock(nbr[i], win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    static const char *names[] = {"pscw, native", "fence", "lock+barrier"};
    int me, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    left = me > 0 ? me - 1 : -1;
    right = me < size - 1 ? me + 1 : -1;
    if (left >= 0) nbr[nn++] = left;
    if (right >= 0) nbr[nn++] = right;
    MPI_Type_vector(N, 1, G, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    MPI_Group world, nbrs;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, nn, nbr, &nbrs);
    for (int i = 0; i < N; i++) west[i] = east[i] = me + i;
    double *base, best[3];
    MPI_Win win;
    MPI_Win_allocate(N * G * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &base, &win);
    for (int m = 0; m < 3; m++) best[m] = 1e30;
    for (int r = 0; r < ROUNDS; r++)
        for (int m = 0; m < 3; m++) {
            if (m == 1) MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime(), t, slow;
            for (int k = 1; k <= EXCHANGES; k++) exchange(m, win, nbrs, k % 2);
            t = MPI_Wtime() - t0;
            MPI_Allreduce(&t, &slow, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (slow / EXCHANGES < best[m]) best[m] = slow / EXCHANGES;
        }
    /* the last exchange (b = 0) landed: the left ghost holds the left
     * neighbour's east column, the right ghost the right one's west */
    int bad = 0;
    for (int i = 0; i < N; i++) {
        if (left >= 0 && base[i * G] != left + i) bad = 1;
        if (right >= 0 && base[i * G + 1] != right + i) bad = 1;
    }
    if (bad) fprintf(stderr, "halo-c: rank %d: a ghost column is wrong\n", me);
    if (me == 0) {
        printf("raw MPICH, %d ranks: one column of %d doubles per neighbour, "
               "MPI_Type_vector(%d, 1, %d)\n", size, N, N, G);
        for (int m = 0; m < 3; m++)
            printf("   %-13s %8.1f us per exchange\n", names[m], best[m] * 1e6);
    }
    MPI_Win_free(&win);
    MPI_Group_free(&nbrs);
    MPI_Group_free(&world);
    MPI_Type_free(&column);
    MPI_Finalize();
    return bad;
}
