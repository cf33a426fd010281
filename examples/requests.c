/* Requests with rmalab's C API: request-based RMA and typed messages.
 * Every rank rputs 4 doubles into its right neighbour's window inside a
 * lock_all epoch, waits for the request (local completion: its origin may
 * be reused), flushes (remote completion), then rgets them back; meanwhile
 * a typed message goes around the ring with isend and irecv, and one wait
 * for all three requests ends them. Then one misuse: an rput outside a
 * passive-target epoch, refused with ERR_RMA_SYNC.
 *
 *   cc requests.c $(pkg-config --cflags --libs rmalab) -o requests
 *   mpiexec -n 2 ./requests
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
    rmalab_comm *world;
    CHECK(rmalab_comm_wrap(MPI_COMM_WORLD, &world)); /* every rank: it starts a collective */
    rmalab_win *win;
    rmalab_win_opts opts = {.size = 4 * sizeof(double), .disp_unit = sizeof(double),
                            .name = "ring"};
    CHECK(rmalab_win_allocate(&opts, &win, NULL));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    double out[4] = {rank, rank + 0.25, rank + 0.5, rank + 0.75}, back[4];
    int64_t token = 100 + rank, got = -1;
    rmalab_request *rq[3];
    CHECK(rmalab_win_lock_all(win, 0));
    CHECK(rmalab_win_rput(win, right, 0, RMALAB_DOUBLE, 4, out, NULL, &rq[0]));
    CHECK(rmalab_request_wait(rq[0], NULL, NULL, NULL));
    rmalab_request_destroy(&rq[0]);
    out[0] = -1; /* complete locally: free again, though maybe not yet at the target */
    CHECK(rmalab_win_flush(win, right));
    CHECK(rmalab_win_rget(win, right, 0, RMALAB_DOUBLE, 4, back, NULL, &rq[0]));
    CHECK(rmalab_comm_irecv_typed(world, &got, 1, RMALAB_INT64, left, 7, &rq[1]));
    CHECK(rmalab_comm_isend_typed(world, &token, 1, RMALAB_INT64, right, 7, &rq[2]));
    CHECK(rmalab_request_waitall(rq, 3));
    for (int i = 0; i < 3; i++) {
        char what[64];
        rmalab_request_describe(rq[i], what, sizeof what);
        printf("rank %d: %s done\n", rank, what);
        rmalab_request_destroy(&rq[i]);
    }
    CHECK(rmalab_win_unlock_all(win));
    printf("rank %d: read back %.2f %.2f from rank %d; token %lld from rank %d\n", rank, back[0],
           back[3], right, (long long)got, left);

    int rc = rmalab_win_rput(win, right, 0, RMALAB_DOUBLE, 1, out, NULL, &rq[0]);
    if (rank == 0)
        printf("outside an epoch: %s: %s\n", rmalab_err_name(rc), rmalab_errmsg());

    CHECK(rmalab_win_free(&win));
    CHECK(rmalab_comm_free(&world));
    MPI_Finalize();
    return back[3] == rank + 0.75 && got == 100 + left && rc == RMALAB_ERR_RMA_SYNC ? 0 : 1;
}
