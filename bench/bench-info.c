/* bench-info: ns per (set + get) pair for rmalab's info object against
 * MPICH's MPI_Info, at 8, 1,000 and 10,000 keys.
 *
 * Run as a single process: mpiexec -n 1 build/bench/bench-info
 *
 * Method. Keys "key%05d" and values "value%05d" are formatted before any
 * timing. For each size N, each side gets one info object filled with N
 * keys (untimed). A timed repetition then runs `iters` pairs of
 *     set(key a, value v)   -- overwrites an existing key
 *     get(key b)            -- a lookup that hits
 * where a and b walk a fixed pseudo-random permutation of the N keys (b half
 * a period behind a), so lookups land uniformly over the object and not only
 * near its front. Both sides get the same key order, the same values and the
 * same buffer (MPI_MAX_INFO_VAL + 1 bytes, valuelen MPI_MAX_INFO_VAL).
 *
 * The iteration count of each side is calibrated per size so that one
 * repetition lasts about TARGET_NS; results are reported per pair anyway.
 * Repetitions are interleaved, rmalab and MPI alternating over ROUNDS rounds
 * (with the order of the two flipped each round), and the median of each
 * side is reported, so that drift on a shared machine hits both alike.
 * A checksum of flags and value bytes is printed so nothing is optimised
 * away, and every get is checked to have found its key.
 *
 * The targets are printed with PASS/MISS; the exit status is 0 whatever
 * they say (it is non-zero only if an API call fails). */
#include <mpi.h>
#include <rmalab/rmalab.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_KEYS 10000
#define ROUNDS 5
#define TARGET_NS 40000000.0 /* about 40 ms per timed repetition */
#define CALIB_MIN_NS 5000000.0
#define GROWTH_TARGET 1.5 /* rmalab's 10,000-key cost over its 8-key cost (issue 13) */

_Static_assert(RMALAB_MAX_INFO_VAL == MPI_MAX_INFO_VAL,
               "the two sides must be handed the same buffer size");

static char keys[MAX_KEYS][16];
static char vals[MAX_KEYS][16];
static int order[MAX_KEYS];
static char buf[MPI_MAX_INFO_VAL + 1];

static unsigned long long checksum;
static unsigned long long misses;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void die(const char *what, int rc)
{
    fprintf(stderr, "bench-info: %s failed (%d)\n", what, rc);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

/* A fixed pseudo-random permutation of 0..n-1 (xorshift, fixed seed). */
static void make_order(int n)
{
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        int j = (int)(s % (uint64_t)(i + 1));
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

/* ------------------------------------------------------------------------ */
/* The two timed loops: identical but for the calls.                        */

static double run_rmalab(rmalab_info *info, int n, long start, long iters)
{
    unsigned long long sum = 0, found = 0;
    int bad = 0, half = n / 2;
    long c = start % n;
    double t0 = now_ns();
    for (long i = 0; i < iters; i++) {
        int a = order[c];
        int b = order[c >= half ? c - half : c + (n - half)];
        int v = order[c + 1 < n ? c + 1 : 0];
        int flag = 0;
        bad |= rmalab_info_set(info, keys[a], vals[v]);
        bad |= rmalab_info_get(info, keys[b], MPI_MAX_INFO_VAL, buf, &flag);
        found += (unsigned)flag;
        sum += (unsigned char)buf[9];
        if (++c == n)
            c = 0;
    }
    double t = now_ns() - t0;
    if (bad)
        die("rmalab_info_set/get", bad);
    checksum += sum + found;
    misses += (unsigned long long)iters - found;
    return t;
}

static double run_mpi(MPI_Info info, int n, long start, long iters)
{
    unsigned long long sum = 0, found = 0;
    int bad = 0, half = n / 2;
    long c = start % n;
    double t0 = now_ns();
    for (long i = 0; i < iters; i++) {
        int a = order[c];
        int b = order[c >= half ? c - half : c + (n - half)];
        int v = order[c + 1 < n ? c + 1 : 0];
        int flag = 0;
        bad |= MPI_Info_set(info, keys[a], vals[v]);
        bad |= MPI_Info_get(info, keys[b], MPI_MAX_INFO_VAL, buf, &flag);
        found += (unsigned)flag;
        sum += (unsigned char)buf[9];
        if (++c == n)
            c = 0;
    }
    double t = now_ns() - t0;
    if (bad)
        die("MPI_Info_set/get", bad);
    checksum += sum + found;
    misses += (unsigned long long)iters - found;
    return t;
}

/* ------------------------------------------------------------------------ */

enum { SIDE_RMALAB, SIDE_MPI };

struct objs {
    rmalab_info *r;
    MPI_Info m;
    int n;
};

static double run(int side, const struct objs *o, long start, long iters)
{
    return side == SIDE_RMALAB ? run_rmalab(o->r, o->n, start, iters)
                               : run_mpi(o->m, o->n, start, iters);
}

/* Iterations for a repetition of about TARGET_NS (also warms up). */
static long calibrate(int side, const struct objs *o, long *cursor)
{
    long iters = 16;
    double t;
    for (;;) {
        t = run(side, o, *cursor, iters);
        *cursor += iters;
        if (t >= CALIB_MIN_NS)
            break;
        iters *= 4;
    }
    double want = (double)iters * TARGET_NS / t;
    return want < 16 ? 16 : (long)want;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct result {
    int n;
    double r_med, r_min, r_max;
    double m_med, m_min, m_max;
    long r_iters, m_iters;
};

static void measure(int n, struct result *res)
{
    struct objs o = {NULL, MPI_INFO_NULL, n};
    int rc;
    make_order(n);

    /* Untimed fill. */
    if ((rc = rmalab_info_create(&o.r)))
        die("rmalab_info_create", rc);
    if ((rc = MPI_Info_create(&o.m)))
        die("MPI_Info_create", rc);
    for (int i = 0; i < n; i++) {
        if ((rc = rmalab_info_set(o.r, keys[i], vals[i])))
            die("rmalab_info_set (fill)", rc);
        if ((rc = MPI_Info_set(o.m, keys[i], vals[i])))
            die("MPI_Info_set (fill)", rc);
    }
    int nr = 0, nm = 0;
    if ((rc = rmalab_info_get_nkeys(o.r, &nr)))
        die("rmalab_info_get_nkeys", rc);
    if ((rc = MPI_Info_get_nkeys(o.m, &nm)))
        die("MPI_Info_get_nkeys", rc);
    if (nr != n || nm != n) {
        fprintf(stderr, "bench-info: fill gave %d/%d keys, wanted %d\n", nr, nm, n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    long rcur = 0, mcur = 0;
    long ri = calibrate(SIDE_RMALAB, &o, &rcur);
    long mi = calibrate(SIDE_MPI, &o, &mcur);

    double rt[ROUNDS], mt[ROUNDS];
    for (int k = 0; k < ROUNDS; k++) {
        if (k % 2 == 0) {
            rt[k] = run(SIDE_RMALAB, &o, rcur, ri) / (double)ri;
            mt[k] = run(SIDE_MPI, &o, mcur, mi) / (double)mi;
        } else {
            mt[k] = run(SIDE_MPI, &o, mcur, mi) / (double)mi;
            rt[k] = run(SIDE_RMALAB, &o, rcur, ri) / (double)ri;
        }
        rcur += ri;
        mcur += mi;
    }
    qsort(rt, ROUNDS, sizeof rt[0], cmp_double);
    qsort(mt, ROUNDS, sizeof mt[0], cmp_double);

    res->n = n;
    res->r_med = rt[ROUNDS / 2];
    res->r_min = rt[0];
    res->r_max = rt[ROUNDS - 1];
    res->m_med = mt[ROUNDS / 2];
    res->m_min = mt[0];
    res->m_max = mt[ROUNDS - 1];
    res->r_iters = ri;
    res->m_iters = mi;

    rmalab_info_destroy(&o.r);
    if ((rc = MPI_Info_free(&o.m)))
        die("MPI_Info_free", rc);
}

int main(int argc, char **argv)
{
    static const int sizes[] = {8, 1000, 10000};
    enum { NSIZES = (int)(sizeof sizes / sizeof sizes[0]) };
    struct result res[NSIZES];

    MPI_Init(&argc, &argv);

    for (int i = 0; i < MAX_KEYS; i++) {
        snprintf(keys[i], sizeof keys[i], "key%05d", i);
        snprintf(vals[i], sizeof vals[i], "value%05d", i);
    }

    double t0 = now_ns();
    for (int s = 0; s < NSIZES; s++)
        measure(sizes[s], &res[s]);
    double total = (now_ns() - t0) / 1e9;

    printf("bench-info: ns per (set + get) pair, median of %d interleaved repetitions\n",
           ROUNDS);
    printf("%6s  %14s  %16s  %19s\n", "keys", "rmalab ns/op", "MPI_Info ns/op",
           "ratio(rmalab/MPI)");
    for (int s = 0; s < NSIZES; s++)
        printf("%6d  %14.1f  %16.1f  %19.3f\n", res[s].n, res[s].r_med, res[s].m_med,
               res[s].r_med / res[s].m_med);

    printf("\nspread (min..max ns/op) and iterations per repetition:\n");
    for (int s = 0; s < NSIZES; s++)
        printf("%6d  rmalab %.1f..%.1f (%ld it)  MPI_Info %.1f..%.1f (%ld it)\n", res[s].n,
               res[s].r_min, res[s].r_max, res[s].r_iters, res[s].m_min, res[s].m_max,
               res[s].m_iters);

    const struct result *lo = &res[0], *hi = &res[NSIZES - 1];
    double r_small = lo->r_med / lo->m_med;
    double speedup = hi->m_med / hi->r_med;
    double growth = hi->r_med / lo->r_med;
    printf("\ntargets: within 1.5x of MPI_Info at %d keys; flat growth (rmalab %d-key "
           "cost <= %.1fx its %d-key cost) and >= 20x faster than MPI_Info at %d keys\n",
           lo->n, hi->n, GROWTH_TARGET, lo->n, hi->n);
    if (NSIZES == 3)
        printf("  (growth 1,000 -> 10,000 keys: rmalab %.2fx, MPI_Info %.2fx)\n",
               hi->r_med / res[1].r_med, hi->m_med / res[1].m_med);
    printf("  %-44s %s (ratio %.2f)\n", "within 1.5x of MPI_Info at 8 keys:",
           r_small <= 1.5 ? "PASS" : "MISS", r_small);
    printf("  %-44s %s (growth %.2fx; MPI_Info %.0fx)\n", "flat growth 8 -> 10,000 keys:",
           growth <= GROWTH_TARGET ? "PASS" : "MISS", growth, hi->m_med / lo->m_med);
    printf("  %-44s %s (%.1fx faster)\n", ">= 20x faster than MPI_Info at 10,000 keys:",
           speedup >= 20.0 ? "PASS" : "MISS", speedup);
    printf("\nchecksum %llu, missed lookups %llu, wall %.1f s\n", checksum, misses, total);

    MPI_Finalize();
    return 0;
}
