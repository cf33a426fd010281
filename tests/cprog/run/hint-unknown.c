#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int *base;
    MPI_Win win;
    MPI_Info info;
    MPI_Init(&argc, &argv);
    MPI_Info_create(&info);
    MPI_Info_set(info, "no_lock", "true");
    MPI_Info_set(info, "accumulate_ordering", "rawr");
    MPI_Win_allocate(64, 1, info, MPI_COMM_WORLD, &base, &win);
    MPI_Info_free(&info);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
