/* An MPI_Rget in a fence epoch, its result read after the MPI_Wait that
 * completes its request; an MPI_Rput's origin written after the fence
 * that completes it, its request waited for only then. MPI allows
 * request-based operations only in a passive-target epoch: an error line
 * at each. MPICH carries them out, and so does rmalab run, and then
 * nothing races: the data arrived before each access. A wrong value is a
 * put to a rank that does not exist: an error line at a line not marked.
 * verdict: no race
 * ranks: 2
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 0, out = 5, *base;
    MPI_Win win;
    MPI_Request rq, wq = MPI_REQUEST_NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    base[0] = 40 + rank;
    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Rget(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win, &rq); /* ERROR */
        MPI_Rput(&out, 1, MPI_INT, 1, 4, 1, MPI_INT, win, &wq); /* ERROR */
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        value += 1;
    }
    MPI_Win_fence(0, win);
    out = 6;
    MPI_Wait(&wq, MPI_STATUS_IGNORE);
    if ((rank == 0 && value != 42) || (rank == 1 && base[4] != 5))
        MPI_Put(&value, 1, MPI_INT, 99, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return out != 6;
}
