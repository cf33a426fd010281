/* Operations that move no bytes, with types that differ between the sides
 * (MPI_INT at the origin, MPI_DOUBLE at the target), as MPICH's test
 * badrma makes them: an empty type signature matches any (MPI-4.1
 * §12.3), so each call succeeds. rmalab run refused them: "the origin's
 * elements are int32 and the target's double". */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, bad = 0, buf[4] = {0}, res[4] = {0}, mem[4] = {0};
    MPI_Datatype empty;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Win_fence(0, win);
    int peer = 1 - rank;
    bad += MPI_Put(buf, 0, MPI_INT, peer, 0, 0, MPI_DOUBLE, win) != MPI_SUCCESS;
    bad += MPI_Get(buf, 0, MPI_INT, peer, 0, 0, MPI_DOUBLE, win) != MPI_SUCCESS;
    bad += MPI_Accumulate(buf, 0, MPI_INT, peer, 0, 0, MPI_DOUBLE, MPI_SUM, win) != MPI_SUCCESS;
    bad += MPI_Get_accumulate(buf, 0, MPI_INT, res, 0, MPI_DOUBLE, peer, 0, 0, MPI_INT,
                              MPI_SUM, win) != MPI_SUCCESS;
    bad += MPI_Put(buf, 1, empty, peer, 0, 0, MPI_DOUBLE, win) != MPI_SUCCESS;
    bad += MPI_Put(buf, 0, MPI_DOUBLE, peer, 0, 2, empty, win) != MPI_SUCCESS;
    MPI_Win_fence(0, win);
    printf("rank %d: %d calls failed, window %d %d %d %d\n", rank, bad, mem[0], mem[1], mem[2],
           mem[3]);
    MPI_Type_free(&empty);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
