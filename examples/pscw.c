/* A PSCW ring with rmalab's C API: every rank exposes one int64 to its left
 * neighbour, which puts its own rank there, on the engine that the hint
 * rmalab_pscw names (argv[1]: "rma", our protocol over MPI-3 atomics, the
 * default; or "native", MPICH's calls). Then one misuse, to show the
 * error the core returns instead of handing it to MPI.
 *
 *   cc pscw.c $(pkg-config --cflags --libs rmalab) -o pscw
 *   mpiexec -n 2 ./pscw [rma|native]
 */
#include <inttypes.h>
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

    rmalab_info *hints;
    CHECK(rmalab_info_create(&hints));
    CHECK(rmalab_info_set(hints, "rmalab_pscw", argc > 1 ? argv[1] : "rma"));
    rmalab_win *win;
    rmalab_win_opts opts = {.size = 8, .disp_unit = 8, .info = hints, .name = "ring"};
    CHECK(rmalab_win_allocate(&opts, &win, NULL));
    rmalab_info_destroy(&hints);

    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int64_t mine = rank, got = -1;
    CHECK(rmalab_win_post(win, &left, 1, 0));  /* expose to the left neighbour */
    CHECK(rmalab_win_start(win, &right, 1, 0)); /* access the right one */
    CHECK(rmalab_win_put(win, right, 0, RMALAB_INT64, 1, &mine));
    CHECK(rmalab_win_complete(win));
    CHECK(rmalab_win_wait(win));
    CHECK(rmalab_win_read(win, 0, RMALAB_INT64, 1, &got));
    printf("rank %d: rank %" PRId64 " put %" PRId64 " here\n", rank, got, got);

    /* A complete with no access epoch open: an error that names the rule. */
    int rc = rmalab_win_complete(win);
    if (rank == 0)
        printf("complete outside an epoch: %s: %s\n", rmalab_err_name(rc), rmalab_errmsg());

    CHECK(rmalab_win_free(&win));
    MPI_Finalize();
    return got == left && rc != RMALAB_OK ? 0 : 1;
}
