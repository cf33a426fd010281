/* bench-engines: PSCW epoch time for raw MPICH and rmalab's two engines,
 * native (MPICH's calls) and rma (rmalab's protocol over MPI-3 atomics and
 * node-shared memory), side by side in one run.
 *
 *     mpiexec -n 2 -bind-to core build/bench/bench-engines [epochs [rounds]]
 *     MPIR_CVAR_NOLOCAL=1 mpiexec -n 2 -bind-to core build/bench/bench-engines
 *     mpiexec -n 4 -bind-to core build/bench/bench-engines
 *
 * Patterns, each epoch one 8-byte put per origin-target pair:
 *   latency (2 ranks)  rank 0: start({1}) put complete; rank 1: post({0}) wait
 *   fan (3+ ranks)     rank 0 starts to every other rank and puts to each;
 *                      the others post({0}) and wait
 *   ring (3+ ranks)    every rank posts to its left, starts to its right,
 *                      puts to the right, completes and waits
 * Variants run on their own 16-byte windows (disp_unit 8): raw MPICH with
 * groups built once, rmalab native and rmalab rma (rmalab_pscw hint).
 *
 * Each variant first runs a warm-up; then every round runs each variant once,
 * the order rotated per round, with a barrier before each run. A run counts
 * as the slowest rank's time. Reported: the median µs per epoch, and ratios
 * as medians of per-round ratios (runs a few ms apart), which drift between
 * rounds does not move. Data is checked after every run. The exit status is
 * 0 whatever the goals say; non-zero only if a call fails or a check does
 * not hold. */
#include <mpi.h>
#include <rmalab/rmalab.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_ROUNDS 64
#define WIN_BYTES 16

enum { RAW, NATIVE, RMA, NVARIANTS };
enum { LATENCY, FAN, RING, NPATTERNS };

static const char *const variant_names[NVARIANTS] = {"raw MPICH C", "rmalab native",
                                                     "rmalab rma"};
static const char *const pattern_names[NPATTERNS] = {"latency", "fan", "ring"};

static int rank, size;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "bench-engines: rank %d: %s: %s\n", rank, what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

#define CHECK(call)                                                            \
    do {                                                                       \
        int rc_ = (call);                                                      \
        if (rc_)                                                               \
            die(#call, rmalab_errmsg());                                       \
    } while (0)

/* Who this rank posts to (its origins) and starts to (its targets). */
struct roles {
    int origins[64], norigins;
    int targets[64], ntargets;
};

static struct roles roles_of(int pattern)
{
    struct roles r = {0};
    if (pattern == LATENCY || pattern == FAN) {
        if (rank == 0)
            for (int t = 1; t < size; t++)
                r.targets[r.ntargets++] = t;
        else
            r.origins[r.norigins++] = 0;
    } else {
        r.origins[r.norigins++] = (rank - 1 + size) % size;
        r.targets[r.ntargets++] = (rank + 1) % size;
    }
    return r;
}

/* ------------------------------------------------------------------------ */
/* Variants                                                                 */

struct variant {
    MPI_Win win;            /* raw */
    int64_t *base;          /* raw */
    MPI_Group origins, targets;
    rmalab_win *w;          /* rmalab */
};

static void open_variant(int v, struct variant *x, const struct roles *r)
{
    memset(x, 0, sizeof *x);
    if (v == RAW) {
        MPI_Group g;
        MPI_Win_allocate(WIN_BYTES, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &x->base, &x->win);
        MPI_Win_get_group(x->win, &g);
        MPI_Group_incl(g, r->norigins, r->origins, &x->origins);
        MPI_Group_incl(g, r->ntargets, r->targets, &x->targets);
        MPI_Group_free(&g);
        memset(x->base, 0, WIN_BYTES);
        return;
    }
    rmalab_info *info;
    CHECK(rmalab_info_create(&info));
    CHECK(rmalab_info_set(info, "rmalab_pscw", v == RMA ? "rma" : "native"));
    rmalab_win_opts o = {.size = WIN_BYTES, .disp_unit = 8, .info = info};
    CHECK(rmalab_win_allocate(&o, &x->w, NULL));
    rmalab_info_destroy(&info);
}

static void close_variant(int v, struct variant *x)
{
    if (v == RAW) {
        MPI_Group_free(&x->origins);
        MPI_Group_free(&x->targets);
        MPI_Win_free(&x->win);
    } else {
        CHECK(rmalab_win_free(&x->w));
    }
}

/* `n` epochs; the value put in epoch i is first + i. */
static void epochs(int v, struct variant *x, const struct roles *r, long first, int n)
{
    for (int i = 0; i < n; i++) {
        int64_t val = first + i;
        if (v == RAW) {
            if (r->norigins)
                MPI_Win_post(x->origins, 0, x->win);
            if (r->ntargets) {
                MPI_Win_start(x->targets, 0, x->win);
                for (int k = 0; k < r->ntargets; k++)
                    MPI_Put(&val, 1, MPI_INT64_T, r->targets[k], 0, 1, MPI_INT64_T, x->win);
                MPI_Win_complete(x->win);
            }
            if (r->norigins)
                MPI_Win_wait(x->win);
        } else {
            if (r->norigins)
                CHECK(rmalab_win_post(x->w, r->origins, r->norigins, 0));
            if (r->ntargets) {
                CHECK(rmalab_win_start(x->w, r->targets, r->ntargets, 0));
                for (int k = 0; k < r->ntargets; k++)
                    CHECK(rmalab_win_put(x->w, r->targets[k], 0, RMALAB_INT64, 1, &val));
                CHECK(rmalab_win_complete(x->w));
            }
            if (r->norigins)
                CHECK(rmalab_win_wait(x->w));
        }
    }
}

static int64_t last_value(int v, struct variant *x)
{
    int64_t got = 0;
    if (v == RAW)
        got = x->base[0];
    else
        CHECK(rmalab_win_read(x->w, 0, RMALAB_INT64, 1, &got));
    return got;
}

/* ------------------------------------------------------------------------ */
/* Measurement                                                              */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One timed run; returns the slowest rank's seconds. */
static double timed_run(int v, struct variant *x, const struct roles *r, long *counter, int n)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now_s();
    epochs(v, x, r, *counter, n);
    double t = now_s() - t0, slowest;
    *counter += n;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (r->norigins && last_value(v, x) != *counter - 1)
        die(variant_names[v], "the last epoch's value did not arrive");
    return slowest;
}

/* Runs the pattern; rank 0 prints a table. Returns (on rank 0) the median
 * ratios native/raw in ratios[0] and rma/native in ratios[1]. */
static void run_pattern(int pattern, int n, int rounds, double ratios[2])
{
    struct roles r = roles_of(pattern);
    struct variant x[NVARIANTS];
    long counter[NVARIANTS] = {1, 1, 1};
    double t[NVARIANTS][MAX_ROUNDS], ratio[NVARIANTS][MAX_ROUNDS], rma_native[MAX_ROUNDS];
    for (int v = 0; v < NVARIANTS; v++) {
        open_variant(v, &x[v], &r);
        timed_run(v, &x[v], &r, &counter[v], n / 4 + 1); /* warm-up */
    }
    for (int k = 0; k < rounds; k++) {
        for (int j = 0; j < NVARIANTS; j++) {
            int v = (j + k) % NVARIANTS;
            t[v][k] = timed_run(v, &x[v], &r, &counter[v], n) / n * 1e6;
        }
        for (int v = 0; v < NVARIANTS; v++)
            ratio[v][k] = t[v][k] / t[RAW][k];
        rma_native[k] = t[RMA][k] / t[NATIVE][k];
    }
    for (int v = 0; v < NVARIANTS; v++)
        close_variant(v, &x[v]);
    if (rank != 0)
        return;
    printf("\n%s on %d ranks (%d epochs x %d rounds per variant)\n", pattern_names[pattern],
           size, n, rounds);
    printf("  %-14s %12s %12s\n", "variant", "us/epoch", "vs raw");
    double med[NVARIANTS];
    for (int v = 0; v < NVARIANTS; v++) {
        double tv[MAX_ROUNDS];
        memcpy(tv, t[v], sizeof(double) * (size_t)rounds);
        med[v] = median(tv, rounds);
        printf("  %-14s %12.3f %12.3f\n", variant_names[v], med[v], median(ratio[v], rounds));
    }
    ratios[0] = median(ratio[NATIVE], rounds);
    ratios[1] = median(rma_native, rounds);
    printf("  rma / native: %.3f\n", ratios[1]);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 2000, rounds = argc > 2 ? atoi(argv[2]) : 10;
    if (n < 1 || rounds < 1 || rounds > MAX_ROUNDS || size < 2 || size > 64) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiexec -n 2..64 bench-engines [epochs [rounds <= %d]]\n",
                    MAX_ROUNDS);
        MPI_Finalize();
        return 2;
    }
    const char *nolocal = getenv("MPIR_CVAR_NOLOCAL");
    int network = nolocal && strcmp(nolocal, "0") != 0;
    long cores = 0;
#ifdef _SC_NPROCESSORS_ONLN
    cores = sysconf(_SC_NPROCESSORS_ONLN);
#endif
    if (rank == 0) {
        printf("bench-engines: %d ranks, %s%s\n", size,
               network ? "MPIR_CVAR_NOLOCAL=1 (every byte over the network path)"
                       : "one node (shared memory where possible)",
               cores && size > cores ? "; MORE RANKS THAN CORES: this measures the scheduler, "
                                       "not the protocol"
                                     : "");
    }
    double ratios[2] = {0, 0};
    if (size == 2) {
        run_pattern(LATENCY, n, rounds, ratios);
        if (rank == 0) {
            double goal = network ? 1.2 : 0.25;
            printf("\ngoal: rmalab native <= 1.05x raw: %s (%.3f)\n",
                   ratios[0] <= 1.05 ? "PASS" : "MISS", ratios[0]);
            printf("goal: rma <= %.2fx native%s: %s (%.3f)\n", goal,
                   network ? " over the network path" : " on one node",
                   ratios[1] <= goal ? "PASS" : "MISS", ratios[1]);
        }
    } else {
        run_pattern(FAN, n / 4 + 1, rounds, ratios);
        run_pattern(RING, n / 4 + 1, rounds, ratios);
    }
    MPI_Finalize();
    return 0;
}
