/* Rank 0 puts to rank 1 in a PSCW epoch; rank 1 reads the element after
 * MPI_Win_wait, which ends the exposure epoch.
 * verdict: no race
 * ranks: 2
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 1, seen = 0, peer, *base;
    MPI_Win win;
    MPI_Group world, other;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &peer, &other);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (rank == 0) {
        MPI_Win_start(other, 0, win);
        MPI_Put(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Win_complete(win);
    } else {
        MPI_Win_post(other, 0, win);
        MPI_Win_wait(win);
        seen = base[0];
    }
    MPI_Group_free(&other);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    MPI_Finalize();
    return rank == 1 && seen != 1;
}
