/* A column into a neighbour's matrix with rmalab's C API, from the
 * caller's memory (no copy) through a strided layout: every rank puts the
 * 4 doubles of `col` into column 1 of the 4x4 row-major matrix of its right
 * neighbour, as MPI_Type_vector(4, 1, 4) shapes the target. The origin
 * memory belongs to MPI until the operation completes: rmalab_win_done
 * says when it may be written again. Then one misuse: a vector whose
 * footprint (13 elements from displacement 4) leaves the 16-element window.
 *
 *   cc column.c $(pkg-config --cflags --libs rmalab) -o column
 *   mpiexec -n 2 ./column
 */
#include <stdio.h>

#include <mpi.h>
#include <rmalab/rmalab.h>

#define CHECK(call)                                                                         \
    do {                                                                                    \
        int rc_ = (call);                                                                   \
        if (rc_ != RMALAB_OK) {                                                             \
            fprintf(stderr, "%s: %s\n", rmalab_err_name(rc_), rmalab_errmsg());               \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                   \
        }                                                                                   \
    } while (0)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rmalab_win *win;
    rmalab_win_opts opts = {.size = 16 * sizeof(double), .disp_unit = sizeof(double),
                            .name = "matrix"};
    CHECK(rmalab_win_allocate(&opts, &win, NULL));

    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double col[4] = {rank + 0.1, rank + 0.2, rank + 0.3, rank + 0.4};
    rmalab_vector column = {.count = 4, .blocklen = 1, .stride = 4};
    uint64_t ticket;
    char by[96];
    CHECK(rmalab_win_lock(win, right, false, 0));
    CHECK(rmalab_win_put_mem(win, right, 1, RMALAB_DOUBLE, 4, col, &column, &ticket));
    rmalab_win_completer(win, right, by, sizeof by);
    printf("rank %d: col[] is MPI's until %s (done: %d)\n", rank, by,
           rmalab_win_done(win, right, ticket));
    CHECK(rmalab_win_unlock(win, right));
    col[0] = -1; /* free again: rmalab_win_done(win, right, ticket) is now true */

    MPI_Barrier(MPI_COMM_WORLD);
    double m[16];
    CHECK(rmalab_win_read(win, 0, RMALAB_DOUBLE, 16, m));
    printf("rank %d: column 1 from rank %d: %.1f %.1f %.1f %.1f\n", rank, left, m[1], m[5], m[9],
           m[13]);

    CHECK(rmalab_win_lock(win, right, false, 0));
    int rc = rmalab_win_put_mem(win, right, 4, RMALAB_DOUBLE, 4, col, &column, NULL);
    if (rank == 0)
        printf("a footprint past the window: %s: %s\n", rmalab_err_name(rc), rmalab_errmsg());
    CHECK(rmalab_win_unlock(win, right));

    CHECK(rmalab_win_free(&win));
    MPI_Finalize();
    return m[5] == left + 0.2 && rc == RMALAB_ERR_RMA_RANGE ? 0 : 1;
}
