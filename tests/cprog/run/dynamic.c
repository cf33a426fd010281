/* A dynamic window over the program's own memory, at an odd address:
 *   dynamic ok     each rank puts 4 bytes into its right neighbour's
 *                  attached memory in a fence epoch; prints what arrived
 *   dynamic bad    rank 0 puts to an address rank 1 never attached
 *   dynamic race   every rank puts to the same bytes of rank 0's memory
 *                  in one fence epoch
 * Every call is checked; MPI_ERRORS_RETURN lets "bad" go on. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    int me, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    unsigned char *mem = calloc(64, 1), *p = mem + 5;
    MPI_Win_attach(win, p, 16);
    MPI_Aint mine, *all = malloc((size_t)n * sizeof *all);
    MPI_Get_address(p, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
    int right = (me + 1) % n, rc = MPI_SUCCESS;
    int32_t v = 1000 + me, got;
    MPI_Win_fence(0, win);
    if (strcmp(mode, "ok") == 0)
        MPI_Put(&v, 1, MPI_INT32_T, right, all[right] + 4, 1, MPI_INT32_T, win);
    else if (strcmp(mode, "bad") == 0 && me == 0)
        rc = MPI_Put(&v, 1, MPI_INT32_T, 1, all[1] + 64, 1, MPI_INT32_T, win);
    else if (strcmp(mode, "race") == 0)
        MPI_Put(&v, 1, MPI_INT32_T, 0, all[0] + 4, 1, MPI_INT32_T, win);
    MPI_Win_fence(0, win);
    memcpy(&got, p + 4, sizeof got);
    if (strcmp(mode, "ok") == 0)
        printf("rank %d got %d\n", me, (int)got);
    if (rc != MPI_SUCCESS)
        printf("rank %d: the put returned an error\n", me);
    MPI_Win_detach(win, p);
    MPI_Win_free(&win);
    free(mem);
    free(all);
    MPI_Finalize();
    return 0;
}
