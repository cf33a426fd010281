/* stress: a long run of random-graph PSCW epochs on both engines, which
 * checks every byte that arrives and that memory stays flat (issue 12).
 *
 *     mpiexec -n 2 -bind-to core build/bench/stress [options] [epochs]
 *
 * options: -s SEED (1), -k CHECK (1000: epochs between checkpoints),
 * -w WARMUP (10000, at most a tenth of the run), -e ENGINES ("native,rma"),
 * -u (every drawn edge, no barriers: the rma engine only, see below).
 * `./do stress [epochs]` runs it on 2 ranks, one per core.
 *
 * Each engine in turn gets a fresh window (rmalab_win_allocate, disp_unit 1,
 * hint rmalab_pscw) and runs the same program, drawn from a seed all ranks
 * share. Epoch e is a random directed graph: every rank posts to the ranks
 * that access it (its origins, possibly none or itself), starts to the ones
 * it accesses (its targets), issues one to three operations to each target
 * (a put of 1 to 256 bytes of uint8, uint32 or uint64 into the slot that
 * belongs to it, an accumulate of uint64 sums into a region all origins
 * share, a get from the target's read-only identity region), completes,
 * and ends its exposure with wait or, one time in four, with test in a
 * loop. Some edges are quiet: the target is in the group and nothing is
 * issued to it. Every rank keeps a model of its own window, updated from
 * the same draws as its origins', and after every epoch compares the bytes
 * its origins touched with the model; the origin compares every get with
 * the identity it expects. A mismatch stops the run with the epoch, rank,
 * engine and byte.
 *
 * MPICH's native PSCW counts posts from any rank and any epoch
 * (docs/pscw.md): a post of a later epoch that reaches an origin still in
 * start() of an earlier one hangs it. The schedule therefore knows, for
 * each rank o, the ranks whose next post happens after o's last start
 * returned (after[o]: o itself; the targets of that start, whose wait ended
 * after o's complete; and, epoch by epoch, the targets of every rank already
 * in the set). An edge o -> t is safe on native when t is in after[o]. A
 * drawn graph with unsafe edges either loses them (7 times in 8) or, once
 * in 8, runs after a barrier, which makes every edge safe. So most epochs
 * run without a barrier and MPICH's count is never confused; both engines
 * run the same schedule, so their windows must end identical. With -u the
 * graphs are kept as drawn, with no barrier: native then hangs on 3 ranks
 * (measured), and the rma engine, which matches per peer, must not.
 *
 * Every CHECK epochs comes a checkpoint: a barrier, a fence epoch (each rank
 * puts into its fence slot of every rank), a passive-target epoch (each
 * rank locks one rank, shared or exclusive, puts into its lock slot there
 * and gets its identity; every other checkpoint lock_all with a flush
 * instead), a barrier, and a comparison of the whole window with the model.
 *
 * Beside it, a second window stays in one lock_all epoch for the whole run,
 * as MPI-3 programs keep one: after each epoch every rank puts the epoch's
 * number into its cell at a rank drawn for it and flushes that rank, and
 * each checkpoint checks that every cell holds the last epoch that wrote
 * it.
 *
 * Memory is sampled at checkpoints, where no epoch is open and no result is
 * held: VmRSS and VmHWM from /proc/self/status, the heap in use (glibc's
 * mallinfo2, MPI's allocations included) and the core's own live
 * allocations (rmalab_debug_live_allocs). Samples: once warmed up, at every
 * tenth of the run and at the end; and before each window is created and
 * after it is freed.
 *
 * Verdicts, exit status 1 if one fails:
 *   RSS flat: no rank's RSS grows by more than RSS_TOLERANCE_KB from the
 *     warmed-up sample to any later one. A leak of one small allocation
 *     (32 bytes with glibc's header) every 100 epochs grows a 1,000,000
 *     epoch run by 310 kB, so 256 kB catches it, while allowing for the
 *     allocator and MPI touching a few more pages once.
 *   core allocations flat: the core's count is the same at every sample of
 *     a run (exact: any leak of the core shows).
 *   final memory identical between engines: after freeing each engine's
 *     window the core's count is where it was before the first window, on
 *     every rank, and the RSS after each free differs by at most
 *     RSS_TOLERANCE_KB between the engines.
 *   window contents identical: every rank's final window checksums equal
 *     across the engines (both also equal the model).
 *
 * The files: this one, the driver (options, the engines' runs, the
 * verdict); stress-run.c, one engine's run; stress-schedule.c, the program
 * every rank draws alike; stress-report.c, memory and the report;
 * stress-shared.h, what they share. */
#include <rmalab/debug.h>

#include <unistd.h>

#include "stress-shared.h"

static void usage(void)
{
    if (rank == 0)
        fprintf(stderr, "usage: mpiexec -n 2..%d stress [-s seed] [-k check] [-w warmup] "
                        "[-e native,rma] [-u] [epochs]\n",
                MAX_RANKS);
    MPI_Finalize();
    exit(2);
}

static long arg_long(const char *s, long lo)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || end == s || v < lo)
        usage();
    return v;
}

struct options {
    long seed, check, warmup, epochs;
    const char *engines;
    bool unfiltered;
};

static struct options parse_options(int argc, char **argv)
{
    struct options o = {.seed = 1, .check = 1000, .warmup = 10000, .epochs = 1000000,
                        .engines = "native,rma"};
    int c;
    while ((c = getopt(argc, argv, "s:k:w:e:u")) != -1) {
        switch (c) {
        case 's': o.seed = arg_long(optarg, 0); break;
        case 'k': o.check = arg_long(optarg, 1); break;
        case 'w': o.warmup = arg_long(optarg, 1); break;
        case 'e': o.engines = optarg; break;
        case 'u': o.unfiltered = true; break;
        default: usage();
        }
    }
    if (optind < argc)
        o.epochs = arg_long(argv[optind++], 1);
    if (optind < argc || size < 2 || size > MAX_RANKS)
        usage();
    if (o.warmup > o.epochs / 10)
        o.warmup = o.epochs / 10 > 0 ? o.epochs / 10 : 1;
    return o;
}

/* A run for each engine of -e, in its order; their number. */
static int make_runs(const struct options *o, struct run *runs)
{
    int nruns = 0;
    char list[64];
    snprintf(list, sizeof list, "%s", o->engines);
    for (char *save, *e = strtok_r(list, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
        if ((strcmp(e, "native") && strcmp(e, "rma")) || nruns == MAX_ENGINES ||
            (o->unfiltered && strcmp(e, "rma")))
            usage();
        runs[nruns++] = (struct run){.engine = strcmp(e, "rma") ? "native" : "rma",
                                     .seed = (uint64_t)o->seed, .epochs = o->epochs,
                                     .check = o->check, .warmup = o->warmup,
                                     .sched.unfiltered = o->unfiltered};
    }
    return nruns;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    struct options o = parse_options(argc, argv);
    struct run runs[MAX_ENGINES];
    int nruns = make_runs(&o, runs);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (rank == 0)
        printf("stress: %d ranks%s, %ld epochs per engine, seed %ld, checkpoint every %ld, "
               "warm-up %ld epochs; window of %ld bytes per rank%s\n",
               size, cores > 0 && size > cores ? " (more ranks than cores)" : "", o.epochs,
               o.seed, o.check, o.warmup, (long)win_bytes(),
               o.unfiltered ? "; graphs as drawn, no barriers (-u)" : "");
    fflush(stdout);

    /* MPICH allocates for good on first use (the first MPI_Comm_split_type,
     * which the rma engine makes, keeps 872 kB) and fills pools over its
     * first windows: a short run of each engine first, so that those land
     * before the baseline and not in one engine's account. */
    for (int i = 0; i < nruns; i++) {
        struct run warm = runs[i];
        warm.epochs = 2000;
        warm.check = warm.warmup = 1000;
        run_engine(&warm);
    }
    long allocs_start = rmalab_debug_live_allocs();
    bool ok = true;
    for (int i = 0; i < nruns; i++) /* reports after, so that they allocate nothing between */
        run_engine(&runs[i]);
    for (int i = 0; i < nruns; i++)
        ok &= report_run(&runs[i]);

    ok &= compare_engines(runs, nruns, allocs_start);
    int all_ok = 0, mine = ok;
    MPI_Allreduce(&mine, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("\nstress: %s\n", all_ok ? "PASS" : "FAIL");
    MPI_Finalize();
    return all_ok ? 0 : 1;
}
