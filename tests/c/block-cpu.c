/* block-cpu: the CPU that ranks blocked in a fence burn while the last rank
 * is late, in each wait mode (rmalab/block.h).
 *
 *     mpiexec -n 4 build/tests/c/block-cpu [seconds]
 *
 * For RMALAB_WAIT_SPIN, then RMALAB_WAIT_SLEEP: every rank creates a
 * window; the last rank sleeps `seconds` (3 by default) and then fences;
 * the others fence at once and measure their own CPU time
 * (CLOCK_PROCESS_CPUTIME_ID, which counts MPI's threads too) against the
 * wall time of their fence. Rank 0 prints each rank's share of one core and
 * the sum. Verdict (exit status 1 when it fails): in SLEEP mode every
 * blocked rank uses less than 10% of one core; in SPIN mode the blocked
 * ranks together use more than half a core and more than five times what
 * they use in SLEEP mode, so the test fails when sleeping does nothing.
 * The run oversubscribes a two-core machine (4 ranks), as a REPL session
 * does. */
#include <mpi.h>
#include <rmalab/rmalab.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The blocked ranks' CPU shares, summed on rank 0 (*max: the largest). */
static int blocked_share(int mode, double seconds, int rank, int size, double *sum, double *max)
{
    rmalab_win *w = NULL;
    rmalab_win_opts o = {.size = 16, .disp_unit = 1};
    rmalab_wait_set_mode(mode);
    if (rmalab_win_allocate(&o, &w, NULL)) {
        fprintf(stderr, "rank %d: %s\n", rank, rmalab_errmsg());
        return 1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double share = 0;
    if (rank == size - 1) {
        struct timespec ts = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
        nanosleep(&ts, NULL);
    }
    double c0 = now(CLOCK_PROCESS_CPUTIME_ID), t0 = now(CLOCK_MONOTONIC);
    int rc = rmalab_win_fence(w, 0);
    double c1 = now(CLOCK_PROCESS_CPUTIME_ID), t1 = now(CLOCK_MONOTONIC);
    if (rank != size - 1)
        share = (c1 - c0) / (t1 - t0);
    rc = rc ? rc : rmalab_win_free(&w);
    if (rc)
        fprintf(stderr, "rank %d: %s\n", rank, rmalab_errmsg());
    double *all = rank == 0 ? malloc((size_t)size * sizeof *all) : NULL;
    MPI_Gather(&share, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        *sum = *max = 0;
        printf("%-5s", rmalab_wait_mode_name(mode));
        for (int r = 0; r < size - 1; r++) {
            printf("  rank %d %5.1f%%", r, 100 * all[r]);
            *sum += all[r];
            *max = all[r] > *max ? all[r] : *max;
        }
        printf("  together %5.1f%% of one core\n", 100 * *sum);
        free(all);
    }
    return rc != 0;
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    double seconds = argc > 1 ? atof(argv[1]) : 3.0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || seconds <= 0 || seconds > 60) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiexec -n 4 block-cpu [seconds, up to 60]\n");
        MPI_Finalize();
        return 2;
    }
    if (rank == 0)
        printf("block-cpu: %d ranks blocked %.1f s in a fence for rank %d, CPU per rank "
               "(%% of one core):\n",
               size - 1, seconds, size - 1);
    double spin_sum = 0, spin_max = 0, sleep_sum = 0, sleep_max = 0;
    int bad = blocked_share(RMALAB_WAIT_SPIN, seconds, rank, size, &spin_sum, &spin_max);
    bad |= blocked_share(RMALAB_WAIT_SLEEP, seconds, rank, size, &sleep_sum, &sleep_max);
    if (rank == 0) {
        int ok_sleep = sleep_max < 0.10;
        int ok_spin = spin_sum > 0.5 && spin_sum > 5 * sleep_sum;
        printf("sleep: every blocked rank under 10%% of a core: %s (max %.1f%%)\n",
               ok_sleep ? "yes" : "NO", 100 * sleep_max);
        printf("spin: over half a core and 5x sleep: %s (%.1f%% vs %.1f%%, %.0fx)\n",
               ok_spin ? "yes" : "NO", 100 * spin_sum, 100 * sleep_sum,
               sleep_sum > 0 ? spin_sum / sleep_sum : 0.0);
        bad |= !ok_sleep || !ok_spin;
    }
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return bad ? 1 : 0;
}
