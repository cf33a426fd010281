/* The predefined window attributes read back what the program asked for:
 * under rmalab run the window MPICH holds is larger (its size rounded up
 * to 16) and, on the rma engine, of another flavour; the program must
 * not see either. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int *base, flag, *unit, *flavor, *model;
    MPI_Aint *size;
    void *at;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Win_allocate(40, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &size, &flag);
    MPI_Win_get_attr(win, MPI_WIN_BASE, &at, &flag);
    MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag);
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
    printf("size %ld, base %s, disp_unit %d, flavor %s, model %s\n", (long)*size,
           at == base ? "the one returned" : "another",  *unit,
           *flavor == MPI_WIN_FLAVOR_ALLOCATE ? "allocate" : "another",
           *model == MPI_WIN_UNIFIED ? "unified" : "separate");
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
