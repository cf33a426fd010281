/* One put that reaches across two regions attached side by side to a
 * dynamic window (as MPICH's test win_dynamic_rma_flush_get does with
 * -count=9216): each byte it writes is attached memory, so MPI allows it.
 * rmalab's range check wanted the bytes inside one region, and refused it
 * ("is not inside memory rank 1 has attached"). */
#include <mpi.h>
#include <stdio.h>

#define HALF 8

int main(int argc, char **argv)
{
    static int mem[2 * HALF], src[2 * HALF];
    int rank, size, wrong = 0;
    MPI_Aint at[2], peer_at;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_attach(win, &mem[0], HALF * sizeof(int));
    MPI_Win_attach(win, &mem[HALF], HALF * sizeof(int));
    MPI_Get_address(&mem[0], &at[0]);
    int peer = (rank + 1) % size;
    MPI_Sendrecv(&at[0], 1, MPI_AINT, (rank + size - 1) % size, 0, &peer_at, 1, MPI_AINT, peer,
                 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < 2 * HALF; i++)
        src[i] = 100 * rank + i;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, peer, 0, win);
    MPI_Put(src, HALF + 4, MPI_INT, peer, peer_at + 2 * sizeof(int), HALF + 4, MPI_INT, win);
    MPI_Win_unlock(peer, win);
    MPI_Barrier(MPI_COMM_WORLD);
    int from = (rank + size - 1) % size;
    for (int i = 0; i < 2 * HALF; i++)
        wrong += mem[i] != (i >= 2 && i < HALF + 6 ? 100 * from + i - 2 : 0);
    printf("rank %d: %d ints wrong\n", rank, wrong);
    MPI_Win_detach(win, &mem[0]);
    MPI_Win_detach(win, &mem[HALF]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
