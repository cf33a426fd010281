/* A dynamic window: rank 1 attaches memory of its own and sends its
 * address to rank 0, which puts into it inside a fence epoch while rank 1
 * stores into the same element before the closing fence: a race on
 * attached memory.
 * verdict: race
 * ranks: 2
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 42, buf[4] = {0, 0, 0, 0};
    MPI_Aint at = 0;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (rank == 1) {
        MPI_Win_attach(win, buf, sizeof buf);
        MPI_Get_address(buf, &at);
    }
    MPI_Bcast(&at, 1, MPI_AINT, 1, MPI_COMM_WORLD);
    MPI_Win_fence(0, win);
    if (rank == 0)
        MPI_Put(&value, 1, MPI_INT, 1, at, 1, MPI_INT, win); /* RACE A */
    else
        buf[0] = 5; /* RACE B */
    MPI_Win_fence(0, win);
    if (rank == 1)
        MPI_Win_detach(win, buf);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
