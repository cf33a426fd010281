/* bench-wait: what sleeping while blocked (RMALAB_WAIT_SLEEP, rmalab/block.h)
 * adds to a fence, against rmalab in SPIN mode and raw MPICH, side by side
 * in one run.
 *
 *     mpiexec -n 2 -bind-to core build/bench/bench-wait [fences [rounds]]
 *
 * Method. Each variant fences `fences` times (10000 by default) in a loop on
 * its own window of 16 bytes, one put of 8 bytes to the other rank between
 * fences so that every fence closes an epoch:
 *   raw    MPI_Win_allocate, MPI_Put, MPI_Win_fence;
 *   spin   rmalab_win_allocate, rmalab_win_put, rmalab_win_fence, SPIN mode;
 *   sleep  the same in SLEEP mode: an MPI_Ibarrier waited for with the
 *          sleeping backoff before every MPI_Win_fence.
 * `rounds` rounds (7) run each variant once, the order rotated by one each
 * round, after a barrier; a run counts as the slower rank's time. Reported:
 * the median µs per fence of each variant, the ratio of each to raw as the
 * median of per-round ratios, and what sleep adds per fence over spin (the
 * median of per-round differences), against the goal of at most 20 µs. The
 * exit status is non-zero only if a call fails. */
#include <mpi.h>
#include <rmalab/rmalab.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { RAW, SPIN, SLEEP, NVAR };
static const char *const names[NVAR] = {"raw MPICH", "rmalab spin", "rmalab sleep"};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One timed run: seconds per fence, the slower rank's. */
static double run(int var, int fences, MPI_Win raw, rmalab_win *w, int peer, int *bad)
{
    int64_t v = 0;
    rmalab_wait_set_mode(var == SLEEP ? RMALAB_WAIT_SLEEP : RMALAB_WAIT_SPIN);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    for (int i = 0; i < fences; i++) {
        v++;
        if (var == RAW) {
            MPI_Put(&v, 1, MPI_INT64_T, peer, 0, 1, MPI_INT64_T, raw);
            MPI_Win_fence(0, raw);
        } else if (rmalab_win_put(w, peer, 0, RMALAB_INT64, 1, &v) ||
                   rmalab_win_fence(w, 0)) {
            fprintf(stderr, "bench-wait: %s\n", rmalab_errmsg());
            *bad = 1;
            break;
        }
    }
    double t = (now() - t0) / fences, tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax;
}

int main(int argc, char **argv)
{
    int rank, size, bad = 0;
    int fences = argc > 1 ? atoi(argv[1]) : 10000, rounds = argc > 2 ? atoi(argv[2]) : 7;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || fences < 1 || rounds < 1 || rounds > 100) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiexec -n 2 -bind-to core bench-wait [fences [rounds]]\n");
        MPI_Finalize();
        return 2;
    }
    int peer = 1 - rank;
    MPI_Win raw;
    void *base;
    MPI_Win_allocate(16, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &raw);
    MPI_Win_fence(0, raw);
    rmalab_win *w = NULL;
    rmalab_win_opts o = {.size = 16, .disp_unit = 8};
    if (rmalab_win_allocate(&o, &w, NULL) || rmalab_win_fence(w, 0)) {
        fprintf(stderr, "bench-wait: %s\n", rmalab_errmsg());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int var = 0; var < NVAR; var++) /* warm-up */
        run(var, fences / 10 + 1, raw, w, peer, &bad);
    double t[NVAR][100], ratio[NVAR][100], added[100];
    for (int r = 0; r < rounds && !bad; r++) {
        for (int k = 0; k < NVAR; k++) {
            int var = (r + k) % NVAR;
            t[var][r] = run(var, fences, raw, w, peer, &bad);
        }
        for (int var = 0; var < NVAR; var++)
            ratio[var][r] = t[var][r] / t[RAW][r];
        added[r] = t[SLEEP][r] - t[SPIN][r];
    }
    rmalab_wait_set_mode(RMALAB_WAIT_SPIN);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, raw);
    MPI_Win_free(&raw);
    if (rmalab_win_fence(w, RMALAB_MODE_NOSUCCEED) || rmalab_win_free(&w))
        bad = 1;
    if (rank == 0 && !bad) {
        printf("bench-wait: %d fences (a put before each), %d rounds, 2 ranks\n", fences,
               rounds);
        printf("%-14s %12s %10s\n", "variant", "us/fence", "x raw");
        for (int var = 0; var < NVAR; var++) {
            double us = 1e6 * median(t[var], rounds), x = median(ratio[var], rounds);
            printf("%-14s %12.2f %10.2f\n", names[var], us, x);
        }
        double add = 1e6 * median(added, rounds);
        printf("sleep adds %.2f us per fence over spin (goal: at most 20 us): %s\n", add,
               add <= 20 ? "PASS" : "MISS");
    }
    MPI_Finalize();
    return bad;
}
