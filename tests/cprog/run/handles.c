/* Bad handles in a C program's window calls, with MPI_ERRORS_RETURN on
 * MPI_COMM_WORLD and the window so that the program goes on:
 *   handles null    MPI_Win_fence on MPI_WIN_NULL
 *   handles freed   a second MPI_Win_free of a freed window (plain MPICH
 *                   4.0.2 crashes in it)
 *   handles bogus   MPI_Win_fence on a handle no window ever had
 *   handles type    MPI_Put with MPI_DATATYPE_NULL
 * Each rank prints the class it got. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "null";
    int me, *base, v = 1, rc = MPI_SUCCESS, cls;
    char name[MPI_MAX_ERROR_STRING];
    MPI_Win win, again;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Win_allocate(64, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Win_fence(0, win);
    if (strcmp(mode, "null") == 0)
        rc = MPI_Win_fence(0, MPI_WIN_NULL);
    else if (strcmp(mode, "bogus") == 0)
        rc = MPI_Win_fence(0, (MPI_Win)0x12345678);
    else if (strcmp(mode, "type") == 0)
        rc = MPI_Put(&v, 1, MPI_DATATYPE_NULL, 1 - me, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    again = win;
    MPI_Win_free(&win); /* the first free */
    if (strcmp(mode, "freed") == 0)
        rc = MPI_Win_free(&again);
    MPI_Error_class(rc, &cls);
    MPI_Error_string(cls, name, &(int){0});
    printf("rank %d: %s\n", me, rc == MPI_SUCCESS ? "success" : name);
    MPI_Finalize();
    return 0;
}
