/* bench-instr: the work of one PSCW epoch, counted in instructions, which
 * do not drift with the load of a shared machine as times do.
 *
 * One rank (MPI_COMM_WORLD of size 1) runs `epochs` epochs to itself on a 16-byte window (disp_unit
 * 8): post({self}), start({self}), put one int64 at disp 0, complete(),
 * wait(). Nothing waits on another process, so every epoch executes the
 * same instructions; bench/instr.py runs this under callgrind at two epoch
 * counts and divides the difference, which leaves out startup.
 *     bench-instr raw|rma|native epochs
 *   raw     MPI_Win_allocate + MPI_Win_post/start/MPI_Put/complete/wait,
 *           the group built once;
 *   rma     rmalab's C API, hint rmalab_pscw=rma;
 *   native  rmalab's C API, hint rmalab_pscw=native.
 * Rank 0 checks that the window holds the last value put. */
#include <mpi.h>
#include <rmalab/rmalab.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t run_raw(long epochs)
{
    int64_t *base, v = 0;
    MPI_Win win;
    MPI_Group world, self;
    MPI_Win_allocate(16, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, (int[]){0}, &self);
    for (v = 1; v <= epochs; v++) {
        MPI_Win_post(self, 0, win);
        MPI_Win_start(self, 0, win);
        MPI_Put(&v, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, win);
        MPI_Win_complete(win);
        MPI_Win_wait(win);
    }
    int64_t last = base[0];
    MPI_Group_free(&self);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    return last;
}

static int64_t run_rmalab(const char *engine, long epochs)
{
    rmalab_win *w = NULL;
    rmalab_info *info = NULL;
    static const int me[1] = {0};
    int64_t v, last = -1;
    if (rmalab_info_create(&info) || rmalab_info_set(info, "rmalab_pscw", engine))
        return -1;
    rmalab_win_opts opts = {.size = 16, .disp_unit = 8, .info = info, .name = engine};
    int bad = rmalab_win_allocate(&opts, &w, NULL);
    rmalab_info_destroy(&info);
    for (v = 1; !bad && v <= epochs; v++) {
        bad |= rmalab_win_post(w, me, 1, 0);
        bad |= rmalab_win_start(w, me, 1, 0);
        bad |= rmalab_win_put(w, 0, 0, RMALAB_INT64, 1, &v);
        bad |= rmalab_win_complete(w);
        bad |= rmalab_win_wait(w);
    }
    if (!bad)
        bad = rmalab_win_read(w, 0, RMALAB_INT64, 1, &last);
    rmalab_win_free(&w);
    return bad ? -1 : last;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "raw") && strcmp(argv[1], "rma") &&
                      strcmp(argv[1], "native"))) {
        fprintf(stderr, "usage: bench-instr raw|rma|native epochs\n");
        return 2;
    }
    long epochs = atol(argv[2]);
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 1) {
        fprintf(stderr, "bench-instr: run it on one rank (bench/instr.py does)\n");
        MPI_Finalize();
        return 2;
    }
    int64_t last = strcmp(argv[1], "raw") == 0 ? run_raw(epochs) : run_rmalab(argv[1], epochs);
    MPI_Finalize();
    if (last != epochs) {
        fprintf(stderr, "bench-instr: %s: the window holds %lld, not %ld\n", argv[1],
                (long long)last, epochs);
        return 1;
    }
    return 0;
}
