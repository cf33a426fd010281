/* A PSCW exchange: rank 1 exposes its window to rank 0 (post, wait), rank
 * 0 puts into it in an access epoch (start, put, complete). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, peer;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    int *mem, v = 42;
    MPI_Win win;
    MPI_Group world, other;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &peer, &other);
    MPI_Win_allocate(4, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Win_set_name(win, "exchange");
    if (rank == 1) {
        MPI_Win_post(other, 0, win);
        MPI_Win_wait(win);
        printf("got %d\n", *mem);
    } else {
        MPI_Win_start(other, 0, win);
        MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Win_complete(win);
    }
    MPI_Win_free(&win);
    MPI_Group_free(&other);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
