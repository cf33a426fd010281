/* Loads and stores under rmalab run, through the access bridge (built with
 * -fsanitize=thread and linked with tsan-shim.c): a store to a put's
 * origin before the fence that completes the put, and a load of window
 * memory that another rank puts to in the same fence epoch. Both are
 * races; rank 1 makes the first, rank 0 the second. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, v = 7, seen = 0;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_fence(0, win);
    if (rank == 1) {
        MPI_Put(&v, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        v = 8; /* the origin of the put above, still in flight */
    } else {
        seen = base[1]; /* rank 1's put may be landing here */
    }
    MPI_Win_fence(0, win);
    v = 9; /* after the fence: allowed */
    printf("rank %d: done (%d %d)\n", rank, seen, v);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
