/* 300 windows live at once, each put to and fenced, then all freed, as
 * MPICH's test window_creation holds 1000: the interceptor's table of
 * windows held 256, and refused the 257th creation. (16 ints each: plain
 * MPICH 4.0.2 misplaces puts into windows of 4 bytes, docs/c-internals.md.) */
#include <mpi.h>
#include <stdio.h>

#define WINS 300

int main(int argc, char **argv)
{
    static MPI_Win win[WINS];
    static int *base[WINS];
    int rank, size, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < WINS; i++)
        MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base[i],
                         &win[i]);
    for (int i = 0; i < WINS; i++) {
        int v = i * 10 + rank;
        MPI_Win_fence(0, win[i]);
        MPI_Put(&v, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win[i]);
        MPI_Win_fence(0, win[i]);
        bad += *base[i] != i * 10 + (rank + size - 1) % size;
    }
    for (int i = 0; i < WINS; i++)
        MPI_Win_free(&win[i]);
    printf("rank %d: %d windows, %d wrong\n", rank, WINS, bad);
    MPI_Finalize();
    return 0;
}
