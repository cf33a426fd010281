/* A post to a group that never starts: rank 1 exposes its window to rank
 * 0 and waits for rank 0's epoch to complete, while rank 0 goes on to a
 * barrier without ever calling MPI_Win_start. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, *base;
    MPI_Win win;
    MPI_Group world, peer;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int other = 1 - rank;
    MPI_Group_incl(world, 1, &other, &peer);
    MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (rank == 1) {
        MPI_Win_post(peer, 0, win);
        MPI_Win_wait(win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
