/* Rank 0 puts to rank 2 and unlocks, then the three ranks start an
 * MPI_Iallreduce and complete it with MPI_Waitall beside a receive of
 * their own; rank 2 then reads the element: the put came before rank 0's
 * contribution to the sum.
 * verdict: no race
 * ranks: 3
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, value = 1, one = 1, sum = 0, got = -1, copy = 0, *base;
    MPI_Win win;
    MPI_Request rq[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 2, 0, win);
        MPI_Put(&value, 1, MPI_INT, 2, 0, 1, MPI_INT, win);
        MPI_Win_unlock(2, win);
    }
    MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(&got, 1, MPI_INT, (rank + size - 1) % size, 0, MPI_COMM_WORLD, &rq[1]);
    MPI_Send(&rank, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    if (rank == 2)
        copy = base[0];
    MPI_Win_free(&win);
    MPI_Finalize();
    return copy == -2 || sum != size;
}
