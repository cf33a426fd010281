/* A correct program: a ring of puts in fence epochs, a PSCW exchange and a
 * counter under locks. Its output is the same under rmalab run as under
 * mpiexec, and rmalab says nothing. */
#include <mpi.h>
#include <stdio.h>

static void fences(MPI_Win win, int *base, int rank, int size)
{
    for (int round = 0; round < 3; round++) {
        int v = 10 * round + rank;
        MPI_Win_fence(MPI_MODE_NOPRECEDE, win); /* assertions reach the core as its own */
        MPI_Put(&v, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
        MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, win);
        printf("rank %d: fence round %d got %d\n", rank, round, base[0]);
    }
}

static void pscw(MPI_Win win, int *base, int rank, int size)
{
    MPI_Group world, peer;
    int other = (rank + 1) % size, v = 1000 + rank;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &other, &peer);
    for (int round = 0; round < 3; round++) {
        MPI_Win_post(peer, 0, win);
        MPI_Win_start(peer, 0, win);
        MPI_Put(&v, 1, MPI_INT, other, 1, 1, MPI_INT, win);
        MPI_Win_complete(win);
        MPI_Win_wait(win);
        printf("rank %d: pscw round %d got %d\n", rank, round, base[1]);
        v += 10;
    }
    MPI_Group_free(&peer);
    MPI_Group_free(&world);
}

static void locks(MPI_Win win, int *base, int rank, int size)
{
    int one = 1, old = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 5; i++) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Accumulate(&one, 1, MPI_INT, 0, 2, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Get(&old, 1, MPI_INT, 0, 2, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
    printf("rank %d: counter %d\n", rank, old);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rank, size, *base;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    base[2] = 0;
    fences(win, base, rank, size);
    pscw(win, base, rank, size);
    locks(win, base, rank, size);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
