/* The long run's memory and report (stress.c): samples of each rank's
 * memory, and on rank 0 the table and verdicts of each engine's run, then
 * the comparison between the engines. */
#include <rmalab/debug.h>

#include <malloc.h>

#include "stress-shared.h"

/* ------------------------------------------------------------------------ */
/* Memory                                                                   */

static long status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0 && line[n] == ':') {
            v = strtol(line + n + 1, NULL, 10);
            break;
        }
    if (f)
        fclose(f);
    return v;
}

struct sample take_sample(long epoch)
{
    struct mallinfo2 mi = mallinfo2();
    return (struct sample){epoch, status_kb("VmRSS"), status_kb("VmHWM"),
                           (long)((mi.uordblks + mi.hblkhd) / 1024), rmalab_debug_live_allocs()};
}

/* ------------------------------------------------------------------------ */
/* Report                                                                   */

/* Every rank's samples of one run, on rank 0: all[rank][i]. */
static void gather_samples(const struct sample *mine, int n, struct sample *all)
{
    MPI_Gather(mine, n * SAMPLE_LONGS, MPI_LONG, all, n * SAMPLE_LONGS, MPI_LONG, 0,
               MPI_COMM_WORLD);
}

/* The table of samples: a row per sample, the ranks side by side. */
static void print_samples(const struct sample *all, int n)
{
    printf("  %9s", "epoch");
    for (int p = 0; p < size; p++)
        printf(" | rank %-2d %7s %7s %7s %6s", p, "RSS kB", "HWM kB", "heap kB", "allocs");
    printf("\n");
    for (int i = 0; i < n; i++) {
        printf("  %9ld", all[i].epoch);
        for (int p = 0; p < size; p++) {
            const struct sample *x = &all[p * n + i];
            printf(" | %7s %7ld %7ld %7ld %6ld", "", x->rss_kb, x->hwm_kb, x->heap_kb,
                   x->allocs);
        }
        printf("\n");
    }
}

/* The verdicts on every rank's samples; prints them. */
static bool judge_samples(const struct sample *all, int n)
{
    int worst = 0, moved = -1; /* the rank whose RSS grew most; one whose count moved */
    long worst_growth = -1, low = 0, high = 0;
    for (int p = 0; p < size; p++) {
        const struct sample *x = &all[p * n];
        long growth = 0;
        for (int i = 0; i < n; i++) {
            if (x[i].rss_kb - x[0].rss_kb > growth)
                growth = x[i].rss_kb - x[0].rss_kb;
            if (x[i].allocs != x[0].allocs && moved < 0) {
                moved = p;
                low = x[0].allocs;
                high = x[n - 1].allocs;
            }
        }
        if (growth > worst_growth) {
            worst_growth = growth;
            worst = p;
        }
    }
    bool flat = worst_growth <= RSS_TOLERANCE_KB;
    printf("  RSS flat: %s (start %ld kB, end %ld kB, max growth %ld kB; rank %d, the worst, "
           "from epoch %ld; tolerance %d kB)\n",
           flat ? "yes" : "no", all[worst * n].rss_kb, all[worst * n + n - 1].rss_kb,
           worst_growth, worst, all[0].epoch, RSS_TOLERANCE_KB);
    if (moved < 0)
        printf("  core allocations flat: yes (%ld on rank 0, the same at every sample on "
               "every rank)\n",
               all[0].allocs);
    else
        printf("  core allocations flat: no (rank %d: %ld at epoch %ld, %ld at the end)\n",
               moved, low, all[0].epoch, high);
    return flat && moved < 0;
}

bool report_run(struct run *r)
{
    static struct sample all[MAX_RANKS * MAX_SAMPLES];
    struct sample ends[MAX_RANKS * 2], mine[2] = {r->before, r->after_free};
    long totals[2] = {r->ops, r->polled}, sums[2];
    MPI_Reduce(totals, sums, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int n = r->nsamples; /* the same on every rank: checkpoints are collective */
    gather_samples(r->samples, n, all);
    gather_samples(mine, 2, ends);
    if (rank != 0)
        return true;
    const struct schedule *s = &r->sched;
    printf("\n%s engine: %d ranks, %ld epochs in %.1f s: %.0f epochs/s (%.2f us/epoch)\n",
           r->engine, size, r->epochs, r->seconds, (double)r->epochs / r->seconds,
           r->seconds / (double)r->epochs * 1e6);
    printf("  %.2f edges and %.2f operations per epoch; %.1f%% of epochs after a barrier, "
           "%.2f unsafe edges dropped per epoch;\n  %.1f%% of exposures ended by test() in a "
           "loop; %ld checkpoints (fence, lock or lock_all, whole window compared)\n",
           (double)s->edges / (double)r->epochs, (double)sums[0] / (double)r->epochs,
           100.0 * (double)s->barriers / (double)r->epochs,
           (double)s->dropped / (double)r->epochs,
           100.0 * (double)sums[1] / ((double)r->epochs * size), r->checkpoints);
    print_samples(all, n);
    memcpy(r->ends, ends, sizeof(struct sample) * 2 * (size_t)size);
    return judge_samples(all, n);
}

/* Between the engines: what each free left, and what the windows held. */
bool compare_engines(const struct run *runs, int nruns, long allocs_start)
{
    uint64_t sums[MAX_ENGINES][MAX_RANKS];
    for (int i = 0; i < nruns; i++)
        MPI_Gather(&runs[i].checksum, 1, MPI_UINT64_T, sums[i], 1, MPI_UINT64_T, 0,
                   MPI_COMM_WORLD);
    long start_all[MAX_RANKS];
    MPI_Gather(&allocs_start, 1, MPI_LONG, start_all, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0 && nruns == MAX_ENGINES) {
        printf("\nbefore each window and after its free (per rank)\n");
        printf("  %-7s %4s %14s %14s %12s %12s %14s\n", "engine", "rank", "RSS before kB",
               "RSS after kB", "heap after", "core before", "core after");
        bool same = true, contents = true;
        long worst_rss = 0;
        for (int p = 0; p < size; p++) {
            for (int i = 0; i < nruns; i++) {
                const struct sample *b = &runs[i].ends[p][0], *a = &runs[i].ends[p][1];
                printf("  %-7s %4d %14ld %14ld %12ld %12ld %14ld\n", runs[i].engine, p,
                       b->rss_kb, a->rss_kb, a->heap_kb, b->allocs, a->allocs);
                if (a->allocs != start_all[p])
                    same = false;
            }
            long d = runs[1].ends[p][1].rss_kb - runs[0].ends[p][1].rss_kb;
            if (labs(d) > labs(worst_rss))
                worst_rss = d;
            if (sums[0][p] != sums[1][p])
                contents = false;
        }
        same = same && labs(worst_rss) <= RSS_TOLERANCE_KB;
        printf("final memory identical between engines: %s (core allocations after each free "
               "= %ld before the first window; RSS after %s's free minus after %s's: %+ld kB "
               "worst rank, tolerance %d kB)\n",
               same ? "yes" : "no", start_all[0], runs[1].engine, runs[0].engine, worst_rss,
               RSS_TOLERANCE_KB);
        printf("window contents identical between engines: %s\n", contents ? "yes" : "no");
        return same && contents;
    }
    return true;
}
