/* 40-byte windows (not a multiple of 16) and puts at offsets 16..39: under
 * MPICH 4.0.2 alone some land in the wrong bytes (README, "MPICH 4.0.2
 * behaviour rmalab works around"); under rmalab run every byte is right. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, bad = 0;
    unsigned char *base, mine[40];
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_allocate(40, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 40; i++)
        mine[i] = (unsigned char)(100 * rank + i);
    int right = (rank + 1) % size;
    MPI_Win_fence(0, win);
    for (int off = 16; off < 40; off++)
        MPI_Put(&mine[off], 1, MPI_BYTE, right, off, 1, MPI_BYTE, win);
    MPI_Win_fence(0, win);
    int left = (rank + size - 1) % size;
    for (int off = 16; off < 40; off++)
        bad += base[off] != (unsigned char)(100 * left + off);
    printf("rank %d: %d of 24 bytes wrong\n", rank, bad);
    MPI_Win_free(&win);
    MPI_Finalize();
    return bad != 0;
}
