/* A deadlock in PSCW order: each rank starts an access epoch to the other
 * before it posts, so each start() waits for a post() that the other rank
 * makes only after its own start() returns. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, one = 1, *base;
    MPI_Win win;
    MPI_Group world, peer;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int other = 1 - rank;
    MPI_Group_incl(world, 1, &other, &peer);
    MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_start(peer, 0, win);
    MPI_Put(&one, 1, MPI_INT, other, 0, 1, MPI_INT, win);
    MPI_Win_complete(win);
    MPI_Win_post(peer, 0, win);
    MPI_Win_wait(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
