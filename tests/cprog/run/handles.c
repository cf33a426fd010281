/* Bad handles in a C program's window calls, with MPI_ERRORS_RETURN on
 * MPI_COMM_WORLD and the window so that the program goes on:
 *   handles null    MPI_Win_fence on MPI_WIN_NULL
 *   handles freed   a second MPI_Win_free of a freed window (plain MPICH
 *                   4.0.2 crashes in it)
 *   handles bogus   MPI_Win_fence on a handle no window ever had
 *   handles type    MPI_Put with MPI_DATATYPE_NULL
 *   handles types   bad datatypes MPICH aborts, asserts or crashes on inside
 *                   rmalab's reading of them, and a null op, one call each:
 *                   a bogus handle, a freed type, an uncommitted one, a
 *                   bogus handle of MPICH's direct kind, MPI_OP_NULL
 *   handles fatal-win, fatal-type
 *                   a bogus window, a bogus datatype, under the default
 *                   MPI_ERRORS_ARE_FATAL: the job ends, the line said
 * Each rank prints the class it got. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

/* Each bad call's class, printed; the last one's returned. */
static int bad_types(int me, MPI_Win win)
{
    int v[4] = {0}, rc[5], cls;
    MPI_Datatype two, gone, loose;
    MPI_Type_vector(2, 1, 2, MPI_INT, &loose);
    MPI_Type_contiguous(2, MPI_INT, &two);
    MPI_Type_commit(&two);
    gone = two;
    MPI_Type_free(&two);
    rc[0] = MPI_Put(v, 1, (MPI_Datatype)0x12345678, 1 - me, 0, 1, MPI_INT, win); /* bogus */
    rc[1] = MPI_Put(v, 1, gone, 1 - me, 0, 1, gone, win); /* freed */
    rc[2] = MPI_Get(v, 2, MPI_INT, 1 - me, 0, 1, loose, win); /* uncommitted */
    rc[3] = MPI_Accumulate(v, 1, (MPI_Datatype)0x8c000077, 1 - me, 0, 1, MPI_INT, MPI_SUM,
                           win); /* direct kind */
    rc[4] = MPI_Accumulate(v, 1, MPI_INT, 1 - me, 0, 1, MPI_INT, MPI_OP_NULL, win); /* null op */
    for (int i = 0; i < 5; i++) {
        MPI_Error_class(rc[i], &cls);
        printf("rank %d: types %d: %s\n", me, i, cls == MPI_ERR_TYPE ? "MPI_ERR_TYPE"
                                                 : cls == MPI_ERR_OP ? "MPI_ERR_OP" : "other");
    }
    MPI_Type_free(&loose);
    return rc[4];
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "null";
    int me, *base, v = 1, rc = MPI_SUCCESS, cls;
    char name[MPI_MAX_ERROR_STRING];
    MPI_Win win, again;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int fatal = strncmp(mode, "fatal-", 6) == 0;
    if (!fatal)
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Win_allocate(64, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (!fatal)
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Win_fence(0, win);
    if (strcmp(mode, "null") == 0)
        rc = MPI_Win_fence(0, MPI_WIN_NULL);
    else if (strcmp(mode, "bogus") == 0)
        rc = MPI_Win_fence(0, (MPI_Win)0x12345678);
    else if (strcmp(mode, "type") == 0)
        rc = MPI_Put(&v, 1, MPI_DATATYPE_NULL, 1 - me, 0, 1, MPI_INT, win);
    else if (strcmp(mode, "types") == 0)
        rc = bad_types(me, win);
    else if (strcmp(mode, "fatal-win") == 0)
        rc = MPI_Put(&v, 1, MPI_INT, 1 - me, 0, 1, MPI_INT, (MPI_Win)0x12345678);
    else if (strcmp(mode, "fatal-type") == 0)
        rc = MPI_Accumulate(&v, 1, (MPI_Datatype)0x8c000077, 1 - me, 0, 1, MPI_INT, MPI_SUM, win);
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
