/* A correct program: a put between fences, then PSCW in order. Its
 * arguments, if any, are printed by each rank; "fail" as the first makes
 * it exit with status 3 (rmalab test passes a program its arguments). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, one = 1, *base;
    MPI_Win win;
    MPI_Group world, peer;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int other = 1 - rank;
    MPI_Group_incl(world, 1, &other, &peer);
    MPI_Win_allocate(64, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_fence(0, win);
    MPI_Put(&one, 1, MPI_INT, other, rank, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Win_post(peer, 0, win);
    MPI_Win_start(peer, 0, win);
    MPI_Put(&rank, 1, MPI_INT, other, 2, 1, MPI_INT, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    printf("rank %d: %d %d\n", rank, base[1 - rank], base[2]);
    MPI_Win_free(&win);
    MPI_Group_free(&peer);
    MPI_Group_free(&world);
    MPI_Finalize();
    for (int i = 1; i < argc; i++)
        printf("rank %d: argument %d: %s\n", rank, i, argv[i]);
    return argc > 1 && strcmp(argv[1], "fail") == 0 ? 3 : 0;
}
