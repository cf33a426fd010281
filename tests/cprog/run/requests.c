/* The request forms in a passive-target epoch: MPI_Rput and MPI_Rget_c
 * with their MPI_Wait, then MPI_Raccumulate and MPI_Rget_accumulate under
 * MPI_Waitall. The same output as under plain mpiexec. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, v, got = -1, old = -1, one = 1;
    MPI_Win win;
    MPI_Request rq[2];
    MPI_Status st[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    base[0] = base[1] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    v = 100 + rank;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1 - rank, 0, win);
    MPI_Rput(&v, 1, MPI_INT, 1 - rank, 0, 1, MPI_INT, win, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Win_unlock(1 - rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, 1 - rank, 0, win);
    MPI_Rget_c(&got, 1, MPI_INT, 1 - rank, 0, 1, MPI_INT, win, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Win_unlock(1 - rank, win);
    MPI_Win_lock_all(0, win);
    MPI_Raccumulate(&one, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_SUM, win, &rq[0]);
    MPI_Rget_accumulate(&one, 1, MPI_INT, &old, 1, MPI_INT, 0, 2, 1, MPI_INT, MPI_SUM, win,
                        &rq[1]);
    MPI_Waitall(2, rq, st);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d: base[0] %d, got %d, old %s\n", rank, base[0], got,
           old == 0 || old == 1 ? "0 or 1" : "wrong");
    if (rank == 0)
        printf("rank 0: counter %d\n", base[1]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
