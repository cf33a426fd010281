/* Rank 0 exposes its window to ranks 1 and 2 in one PSCW epoch, and both
 * put to the same element: one exposure epoch does not order its origins.
 * verdict: race
 * ranks: 3
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value, zero = 0, origins[2] = {1, 2}, *base;
    MPI_Win win;
    MPI_Group world, group;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    value = rank;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (rank == 0) {
        MPI_Group_incl(world, 2, origins, &group);
        MPI_Win_post(group, 0, win);
        MPI_Win_wait(win);
    } else {
        MPI_Group_incl(world, 1, &zero, &group);
        MPI_Win_start(group, 0, win);
        if (rank == 1)
            MPI_Put(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, win); /* RACE A */
        else
            MPI_Put(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, win); /* RACE B */
        MPI_Win_complete(win);
    }
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
