/* Hints of a C program's window, after creation: MPI_Win_set_info with a
 * misspelt key and a bad value (warnings at its line), then
 * MPI_Win_get_info, which holds the hints in effect. Prints, on each rank,
 * the values of no_locks and rmalab_pscw in effect. */
#include <mpi.h>
#include <stdio.h>

static void show(MPI_Win win, int me, const char *when)
{
    MPI_Info used;
    char v1[64] = "-", v2[64] = "-";
    int f1 = 0, f2 = 0;
    MPI_Win_get_info(win, &used);
    MPI_Info_get(used, "no_locks", sizeof v1 - 1, v1, &f1);
    MPI_Info_get(used, "rmalab_pscw", sizeof v2 - 1, v2, &f2);
    printf("rank %d %s: no_locks %s, rmalab_pscw %s\n", me, when, f1 ? v1 : "unset",
           f2 ? v2 : "unset");
    MPI_Info_free(&used);
}

int main(int argc, char **argv)
{
    int me, *base;
    MPI_Win win;
    MPI_Info info;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Win_allocate(64, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    show(win, me, "at first");
    MPI_Info_create(&info);
    MPI_Info_set(info, "no_lokcs", "true");
    MPI_Info_set(info, "no_locks", "true");
    MPI_Info_set(info, "accumulate_ordering", "sideways");
    MPI_Win_set_info(win, info);
    MPI_Info_free(&info);
    show(win, me, "after set_info");
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
