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
 * Rank 0 checks that the window holds the last value put.
 *
 * Two more workloads (issue 41), each in the same two-count way:
 *     bench-instr alloc-raw|alloc-rma|alloc-native|lock-raw|lock rounds
 *   alloc-*  a window of 64 bytes (disp_unit 8) allocated and freed, raw
 *            MPI_Win_allocate + MPI_Win_free or rmalab_win_allocate +
 *            rmalab_win_free on either engine;
 *   lock-*   lock(0, shared) + get of one int64 + unlock, raw MPICH or
 *            rmalab's C API (default engine).
 *     bench-instr fence-raw|fence|fence-sleep rounds
 *   fence-*  a put of one int64 to self and a fence, raw MPICH or rmalab's
 *            C API (default engine) in SPIN or SLEEP mode (rmalab/block.h):
 *            what the agreement before each fence costs, and in SLEEP mode
 *            the nonblocking collective that waits for the group. On one
 *            rank a collective waits for nobody: its count is its local
 *            work alone, the least a collective costs. */
#include <mpi.h>
#include <rmalab/rmalab.h>

#include <stdbool.h>
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

/* Windows of 64 bytes made and freed: returns `rounds` when all went well. */
static int64_t run_alloc(const char *engine, long rounds)
{
    long done = 0;
    rmalab_info *info = NULL;
    if (engine && (rmalab_info_create(&info) || rmalab_info_set(info, "rmalab_pscw", engine)))
        return -1;
    for (; done < rounds; done++) {
        if (!engine) {
            void *base;
            MPI_Win win;
            if (MPI_Win_allocate(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win) ||
                MPI_Win_free(&win))
                break;
            continue;
        }
        rmalab_win *w = NULL;
        rmalab_win_opts opts = {.size = 64, .disp_unit = 8, .info = info};
        if (rmalab_win_allocate(&opts, &w, NULL) || rmalab_win_free(&w))
            break;
    }
    rmalab_info_destroy(&info);
    return done;
}

/* Shared lock, get of 8 bytes, unlock: returns the sum of what was read
 * after writing 1 at disp 0, so `rounds` when every get saw it. */
static int64_t run_lock(bool raw, long rounds)
{
    int64_t sum = 0, one = 1, got = 0;
    if (raw) {
        int64_t *base;
        MPI_Win win;
        MPI_Win_allocate(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        base[0] = 1;
        MPI_Win_unlock(0, win);
        for (long i = 0; i < rounds; i++) {
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
            MPI_Get(&got, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, win);
            MPI_Win_unlock(0, win);
            sum += got;
        }
        MPI_Win_free(&win);
        return sum;
    }
    rmalab_win *w = NULL;
    rmalab_win_opts opts = {.size = 64, .disp_unit = 8};
    int bad = rmalab_win_allocate(&opts, &w, NULL) || rmalab_win_write(w, 0, RMALAB_INT64, 1, &one);
    for (long i = 0; !bad && i < rounds; i++) {
        bad |= rmalab_win_lock(w, 0, false, 0);
        rmalab_result *r = NULL;
        const void *data = NULL;
        bad |= rmalab_win_get(w, 0, 0, RMALAB_INT64, 1, &r);
        bad |= rmalab_win_unlock(w, 0);
        bad |= r ? rmalab_result_data(r, &data, NULL, NULL) : 1;
        if (!bad)
            memcpy(&got, data, sizeof got);
        rmalab_result_release(r);
        sum += got;
    }
    rmalab_win_free(&w);
    return bad ? -1 : sum;
}

/* A put of `i` to self and a fence, `rounds` times: returns what the
 * window holds at the end, `rounds` when every put reached it. */
static int64_t run_fence(const char *kind, long rounds)
{
    int64_t last = -1;
    if (strcmp(kind, "raw") == 0) {
        int64_t *base;
        MPI_Win win;
        MPI_Win_allocate(16, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
        MPI_Win_fence(0, win);
        for (int64_t i = 1; i <= rounds; i++) {
            MPI_Put(&i, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, win);
            MPI_Win_fence(0, win);
        }
        last = base[0];
        MPI_Win_free(&win);
        return last;
    }
    rmalab_wait_set_mode(strcmp(kind, "sleep") == 0 ? RMALAB_WAIT_SLEEP : RMALAB_WAIT_SPIN);
    rmalab_win *w = NULL;
    rmalab_win_opts opts = {.size = 16, .disp_unit = 8};
    int bad = rmalab_win_allocate(&opts, &w, NULL) || rmalab_win_fence(w, 0);
    for (int64_t i = 1; !bad && i <= rounds; i++)
        bad = rmalab_win_put(w, 0, 0, RMALAB_INT64, 1, &i) || rmalab_win_fence(w, 0);
    bad = bad || rmalab_win_fence(w, RMALAB_MODE_NOSUCCEED) ||
          rmalab_win_read(w, 0, RMALAB_INT64, 1, &last);
    rmalab_win_free(&w);
    return bad ? -1 : last;
}

static int64_t run(const char *what, long n)
{
    if (strcmp(what, "raw") == 0)
        return run_raw(n);
    if (strcmp(what, "rma") == 0 || strcmp(what, "native") == 0)
        return run_rmalab(what, n);
    if (strncmp(what, "alloc-", 6) == 0)
        return run_alloc(strcmp(what + 6, "raw") == 0 ? NULL : what + 6, n);
    if (strncmp(what, "fence", 5) == 0)
        return run_fence(what[5] ? what + 6 : "spin", n);
    return run_lock(strcmp(what, "lock-raw") == 0, n);
}

int main(int argc, char **argv)
{
    static const char *const kinds[] = {"raw", "rma", "native", "alloc-raw", "alloc-rma",
                                        "alloc-native", "lock-raw", "lock", "fence-raw",
                                        "fence", "fence-sleep"};
    bool known = false;
    for (size_t i = 0; argc == 3 && i < sizeof kinds / sizeof *kinds; i++)
        known |= strcmp(argv[1], kinds[i]) == 0;
    if (!known) {
        fprintf(stderr, "usage: bench-instr raw|rma|native|alloc-raw|alloc-rma|alloc-native|"
                        "lock-raw|lock|fence-raw|fence|fence-sleep n\n");
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
    int64_t last = run(argv[1], epochs);
    MPI_Finalize();
    if (last != epochs) {
        fprintf(stderr, "bench-instr: %s: the window holds %lld, not %ld\n", argv[1],
                (long long)last, epochs);
        return 1;
    }
    return 0;
}
