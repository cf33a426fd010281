/* Races that only `rmalab cc` and `rmalab run` together can see: a load
 * or store racing an RMA operation. The case is argv[1]; each racy line is
 * marked with a comment that names its case, for the driver (check.py).
 * "quiet" is the same program with every access ordered. The window is 64
 * bytes: MPICH 4.0.2 misplaces puts into a window of 40 (README). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "quiet";
    int rank, value = 1, value2 = 2, *base;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 16; i++)
        base[i] = 0;
    MPI_Win_fence(0, win);
    if (rank == 0 && strcmp(c, "origin") == 0) {
        MPI_Put(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win); /* origin: op */
        value = 42;                                         /* origin: access */
    } else if (rank == 0 && strcmp(c, "get-get") == 0) {
        MPI_Get(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win); /* get-get: op */
        MPI_Get(&value, 1, MPI_INT, 1, 1, 1, MPI_INT, win); /* get-get: access */
    } else if (rank == 0 && strcmp(c, "fop") == 0) {
        MPI_Fetch_and_op(&value, &value2, MPI_INT, 1, 0, MPI_SUM, win); /* fop: op */
        value = 7;                                                      /* fop: access */
    } else if (strcmp(c, "window") == 0) {
        if (rank == 0)
            MPI_Put(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win); /* window: op */
        else
            base[0] = 5; /* window: access */
    } else if (rank == 0) { /* quiet: the same calls, each access after its fence */
        MPI_Put(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Get(&value2, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
    }
    MPI_Win_fence(0, win);
    if (rank == 1 && strcmp(c, "quiet") == 0)
        base[2] = 5;
    value = 3;
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d: value %d value2 %d base[0] %d\n", rank, value, value2, base[0]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
