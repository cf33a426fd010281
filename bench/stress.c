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
 *     across the engines (both also equal the model). */
#include <mpi.h>
#include <rmalab/debug.h>
#include <rmalab/rmalab.h>

#include <inttypes.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_RANKS 64         /* graphs are bit masks */
#define SLOT 256             /* put slot per origin, bytes */
#define ACC_CELLS 32         /* uint64 accumulate cells */
#define ID_BYTES 256         /* read-only identity region */
#define SIDE_SLOT 64         /* fence and lock slot per origin, bytes */
#define MAX_OPS 3            /* per origin-target pair and epoch */
#define RSS_TOLERANCE_KB 256
#define MAX_SAMPLES 16       /* warmed up, 10 tenths, end; with room to spare */
#define MAX_ENGINES 2

static int rank, size;

/* ------------------------------------------------------------------------ */
/* Failure                                                                  */

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "stress: rank %d: ", rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

#define CHECK(call)                                                            \
    do {                                                                       \
        int rc_ = (call);                                                      \
        if (rc_)                                                               \
            die("%s: %s", #call, rmalab_errmsg());                             \
    } while (0)

/* ------------------------------------------------------------------------ */
/* Random numbers every rank draws alike (splitmix64)                       */

typedef struct {
    uint64_t s;
} rng;

static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15u;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static uint64_t next(rng *g)
{
    g->s += 0x9E3779B97F4A7C15u;
    return mix(g->s);
}

/* 0 .. n-1 */
static uint32_t below(rng *g, uint32_t n)
{
    return (uint32_t)(((next(g) >> 32) * n) >> 32);
}

/* The stream for (seed, a, b, c): the same on every rank. */
static rng rng_at(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
    return (rng){mix(seed ^ mix(a ^ mix(b ^ mix(c))))};
}

static void fill(rng g, unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = next(&g);
        memcpy(p + i, &v, n - i < 8 ? n - i : 8);
    }
}

/* ------------------------------------------------------------------------ */
/* The window's layout, in bytes                                            */

static MPI_Aint put_at(int o) { return (MPI_Aint)o * SLOT; }
static MPI_Aint acc_at(void) { return put_at(size); }
static MPI_Aint id_at(void) { return acc_at() + ACC_CELLS * 8; }
static MPI_Aint fence_at(int o) { return id_at() + ID_BYTES + (MPI_Aint)o * SIDE_SLOT; }
static MPI_Aint lock_at(int o) { return fence_at(size) + (MPI_Aint)o * SIDE_SLOT; }
static MPI_Aint win_bytes(void) { return lock_at(size); }

static unsigned char identity(int r, int i)
{
    return (unsigned char)mix((uint64_t)r << 32 | (uint64_t)i);
}

/* ------------------------------------------------------------------------ */
/* The schedule: one graph per epoch                                        */

typedef uint64_t mask;

struct graph {
    mask out[MAX_RANKS];   /* out[o]: the targets of o */
    mask in[MAX_RANKS];    /* in[t]: the origins of t */
    mask quiet[MAX_RANKS]; /* quiet[o]: targets o issues nothing to */
    bool barrier;          /* a barrier before the epoch */
};

struct schedule {
    uint64_t seed;
    bool unfiltered;       /* -u: keep unsafe edges (rma engine only) */
    mask after[MAX_RANKS]; /* see the top of the file */
    long barriers, edges, dropped;
};

static mask all_ranks(void)
{
    return size == 64 ? ~(mask)0 : ((mask)1 << size) - 1;
}

static void schedule_reset(struct schedule *s)
{
    for (int o = 0; o < size; o++)
        s->after[o] = all_ranks();
}

/* Who is known to post after each rank's last start, from the epoch after
 * g on (the top of the file says why). */
static void advance(struct schedule *s, const struct graph *g)
{
    mask next_after[MAX_RANKS];
    for (int o = 0; o < size; o++) {
        if (g->out[o]) {
            next_after[o] = (mask)1 << o | g->out[o];
            continue;
        }
        next_after[o] = s->after[o];
        for (int r = 0; r < size; r++)
            if (s->after[o] >> r & 1)
                next_after[o] |= g->out[r];
    }
    memcpy(s->after, next_after, sizeof(mask) * (size_t)size);
}

/* The graph of epoch e, made safe for native. Every rank draws the same. */
static void draw_graph(struct schedule *s, long e, struct graph *g)
{
    rng r = rng_at(s->seed, (uint64_t)e, 1, 0);
    memset(g, 0, sizeof *g);
    mask unsafe = 0;
    for (int o = 0; o < size; o++) {
        for (int t = 0; t < size; t++)
            if (below(&r, 2)) {
                g->out[o] |= (mask)1 << t;
                if (below(&r, 8) == 0)
                    g->quiet[o] |= (mask)1 << t;
            }
        unsafe |= g->out[o] & ~s->after[o];
    }
    if (s->unfiltered) { /* -u: every edge as drawn */
        schedule_reset(s);
    } else if (unsafe && below(&r, 8) == 0) {
        g->barrier = true;
        s->barriers++;
        schedule_reset(s);
    }
    for (int o = 0; o < size; o++) {
        mask drop = g->out[o] & ~s->after[o];
        s->dropped += __builtin_popcountll(drop);
        g->out[o] &= ~drop;
        g->quiet[o] &= g->out[o];
        s->edges += __builtin_popcountll(g->out[o]);
        for (int t = 0; t < size; t++)
            if (g->out[o] >> t & 1)
                g->in[t] |= (mask)1 << o;
    }
    advance(s, g);
}

/* The ranks of m in an order drawn from r (groups need not be sorted). */
static int ranks_of(mask m, rng *r, int *out)
{
    int n = 0;
    for (int i = 0; i < size; i++)
        if (m >> i & 1)
            out[n++] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)below(r, (uint32_t)i + 1), x = out[i];
        out[i] = out[j];
        out[j] = x;
    }
    return n;
}

/* ------------------------------------------------------------------------ */
/* Operations: what origin o issues to target t in epoch e                  */

enum { OP_PUT, OP_ACC, OP_GET };

struct op {
    int kind;
    rmalab_type type;
    int count;
    MPI_Aint disp;
    rng data; /* the put or accumulate data */
};

static int draw_ops(uint64_t seed, long e, int o, int t, struct op *ops)
{
    rng r = rng_at(seed, (uint64_t)e, 2, (uint64_t)o * MAX_RANKS + (uint64_t)t);
    static const rmalab_type put_types[3] = {RMALAB_UINT8, RMALAB_UINT32, RMALAB_UINT64};
    static const rmalab_type get_types[2] = {RMALAB_UINT8, RMALAB_UINT64};
    int n = 1 + (int)below(&r, MAX_OPS);
    bool put_done = false; /* puts of one epoch must not overlap: one per pair */
    for (int k = 0; k < n; k++) {
        struct op *p = &ops[k];
        p->kind = (int)below(&r, 4); /* put twice as often as the others */
        p->kind = p->kind == 3 ? OP_PUT : p->kind;
        if (p->kind == OP_PUT && put_done)
            p->kind = OP_ACC;
        int unit, cells;
        if (p->kind == OP_PUT) {
            put_done = true;
            p->type = put_types[below(&r, 3)];
            unit = rmalab_type_size(p->type);
            cells = SLOT / unit;
        } else if (p->kind == OP_ACC) {
            p->type = RMALAB_UINT64;
            unit = 8;
            cells = ACC_CELLS;
        } else {
            p->type = get_types[below(&r, 2)];
            unit = rmalab_type_size(p->type);
            cells = ID_BYTES / unit;
        }
        p->count = 1 + (int)below(&r, p->kind == OP_ACC ? 8 : (uint32_t)cells);
        MPI_Aint first = (MPI_Aint)below(&r, (uint32_t)(cells - p->count + 1)) * unit;
        p->disp = first + (p->kind == OP_PUT ? put_at(o) : p->kind == OP_ACC ? acc_at() : id_at());
        p->data = rng_at(seed, (uint64_t)e, 3 + (uint64_t)k,
                         (uint64_t)o * MAX_RANKS + (uint64_t)t);
    }
    return n;
}

/* What an op does to the target's memory, applied to the model. */
static void apply(unsigned char *model, const struct op *p)
{
    size_t bytes = (size_t)p->count * (size_t)rmalab_type_size(p->type);
    unsigned char data[SLOT];
    if (p->kind == OP_GET)
        return;
    fill(p->data, data, bytes);
    if (p->kind == OP_PUT) {
        memcpy(model + p->disp, data, bytes);
        return;
    }
    for (int i = 0; i < p->count; i++) {
        uint64_t a, b;
        memcpy(&a, model + p->disp + 8 * i, 8);
        memcpy(&b, data + 8 * i, 8);
        a += b;
        memcpy(model + p->disp + 8 * i, &a, 8);
    }
}

/* ------------------------------------------------------------------------ */
/* Memory                                                                   */

struct sample {
    long epoch;
    long rss_kb, hwm_kb, heap_kb;
    long allocs;
};
#define SAMPLE_LONGS 5

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

static struct sample take_sample(long epoch)
{
    struct mallinfo2 mi = mallinfo2();
    return (struct sample){epoch, status_kb("VmRSS"), status_kb("VmHWM"),
                           (long)((mi.uordblks + mi.hblkhd) / 1024), rmalab_debug_live_allocs()};
}

/* ------------------------------------------------------------------------ */
/* One engine's run                                                         */

struct run {
    const char *engine;
    uint64_t seed;
    long epochs, check, warmup;
    struct schedule sched;
    rmalab_win *w;
    unsigned char *base, *model;
    rmalab_win *side;       /* in lock_all for the whole run */
    int64_t side_last[MAX_RANKS]; /* the last epoch each rank put into this one's side */
    long epoch;             /* the epoch running */
    long ops, polled, checkpoints;
    double seconds;
    struct sample samples[MAX_SAMPLES];
    int nsamples;
    long next_tenth;        /* the next tenth of the run to sample at */
    struct sample before, after_free;
    struct sample ends[MAX_RANKS][2]; /* rank 0: every rank's before and after_free */
    uint64_t checksum;      /* of this rank's window at the end */
};

static void compare(const struct run *r, MPI_Aint at, MPI_Aint n, const char *what)
{
    for (MPI_Aint i = at; i < at + n; i++)
        if (r->base[i] != r->model[i])
            die("%s engine, epoch %ld: %s: byte %ld of the window holds 0x%02x, expected 0x%02x",
                r->engine, r->epoch, what, (long)i, r->base[i], r->model[i]);
}

/* An access epoch's results: gets, checked after complete. */
struct pending_get {
    rmalab_result *res;
    int target;
    MPI_Aint disp;
};

static void check_get(const struct run *r, const struct pending_get *g)
{
    const void *data;
    rmalab_type type;
    int count;
    CHECK(rmalab_result_data(g->res, &data, &type, &count));
    const unsigned char *p = data;
    MPI_Aint off = g->disp - id_at();
    for (int i = 0; i < count * rmalab_type_size(type); i++)
        if (p[i] != identity(g->target, (int)off + i))
            die("%s engine, epoch %ld: get from rank %d, byte %ld of its identity: 0x%02x, "
                "expected 0x%02x",
                r->engine, r->epoch, g->target, (long)off + i, p[i],
                identity(g->target, (int)off + i));
    rmalab_result_release(g->res);
}

/* Issue one op; a get adds to gets. */
static void issue(struct run *r, int t, const struct op *p, struct pending_get *gets, int *ngets)
{
    unsigned char data[SLOT];
    size_t bytes = (size_t)p->count * (size_t)rmalab_type_size(p->type);
    r->ops++;
    if (p->kind == OP_GET) {
        struct pending_get *g = &gets[(*ngets)++];
        g->target = t;
        g->disp = p->disp;
        CHECK(rmalab_win_get(r->w, t, p->disp, p->type, p->count, &g->res));
        return;
    }
    fill(p->data, data, bytes);
    if (p->kind == OP_PUT)
        CHECK(rmalab_win_put(r->w, t, p->disp, p->type, p->count, data));
    else
        CHECK(rmalab_win_accumulate(r->w, t, p->disp, p->type, p->count, data, RMALAB_OP_SUM));
}

static void pscw_epoch(struct run *r, const struct graph *g)
{
    rng order = rng_at(r->seed, (uint64_t)r->epoch, 4, (uint64_t)rank);
    int origins[MAX_RANKS], targets[MAX_RANKS];
    int norigins = ranks_of(g->in[rank], &order, origins);
    int ntargets = ranks_of(g->out[rank], &order, targets);
    struct pending_get gets[MAX_RANKS * MAX_OPS];
    int ngets = 0;
    struct op ops[MAX_OPS];

    if (g->barrier)
        MPI_Barrier(MPI_COMM_WORLD);
    CHECK(rmalab_win_post(r->w, origins, norigins, 0));
    CHECK(rmalab_win_start(r->w, targets, ntargets, 0));
    for (int i = 0; i < ntargets; i++) {
        int t = targets[i];
        if (g->quiet[rank] >> t & 1)
            continue;
        int n = draw_ops(r->seed, r->epoch, rank, t, ops);
        for (int k = 0; k < n; k++)
            issue(r, t, &ops[k], gets, &ngets);
    }
    CHECK(rmalab_win_complete(r->w));
    for (int i = 0; i < ngets; i++)
        check_get(r, &gets[i]);
    if (below(&order, 4) == 0) {
        bool done = false;
        r->polled++;
        while (!done)
            CHECK(rmalab_win_test(r->w, &done));
    } else {
        CHECK(rmalab_win_wait(r->w));
    }
    /* What the origins wrote, against the model. */
    for (int i = 0; i < norigins; i++) {
        int o = origins[i];
        if (g->quiet[o] >> rank & 1)
            continue;
        int n = draw_ops(r->seed, r->epoch, o, rank, ops);
        for (int k = 0; k < n; k++)
            apply(r->model, &ops[k]);
        compare(r, put_at(o), SLOT, "the put slot of an origin");
    }
    if (norigins)
        compare(r, acc_at(), ACC_CELLS * 8, "the accumulate region");
}

/* A fence epoch: every rank puts into its fence slot of every rank. */
static void fence_epoch(struct run *r)
{
    unsigned char data[SIDE_SLOT];
    CHECK(rmalab_win_fence(r->w, RMALAB_MODE_NOPRECEDE));
    for (int t = 0; t < size; t++) {
        fill(rng_at(r->seed, (uint64_t)r->epoch, 5, (uint64_t)rank * MAX_RANKS + (uint64_t)t),
             data, SIDE_SLOT);
        CHECK(rmalab_win_put(r->w, t, fence_at(rank), RMALAB_UINT8, SIDE_SLOT, data));
    }
    CHECK(rmalab_win_fence(r->w, RMALAB_MODE_NOSUCCEED));
    for (int o = 0; o < size; o++)
        fill(rng_at(r->seed, (uint64_t)r->epoch, 5, (uint64_t)o * MAX_RANKS + (uint64_t)rank),
             r->model + fence_at(o), SIDE_SLOT);
}

/* A passive-target epoch: each rank writes its lock slot at one rank drawn
 * for it and gets that rank's identity; lock/unlock, or lock_all with a
 * flush on every other checkpoint. */
static void lock_epoch(struct run *r)
{
    rng g = rng_at(r->seed, (uint64_t)r->epoch, 6, 0);
    int target_of[MAX_RANKS];
    bool exclusive[MAX_RANKS];
    for (int o = 0; o < size; o++) {
        target_of[o] = (int)below(&g, (uint32_t)size);
        exclusive[o] = below(&g, 2);
    }
    bool all = r->checkpoints % 2 == 1;
    int t = target_of[rank];
    unsigned char data[SIDE_SLOT];
    fill(rng_at(r->seed, (uint64_t)r->epoch, 7, (uint64_t)rank), data, SIDE_SLOT);
    struct pending_get get = {.target = t, .disp = id_at() + 8};
    if (all)
        CHECK(rmalab_win_lock_all(r->w, 0));
    else
        CHECK(rmalab_win_lock(r->w, t, exclusive[rank], 0));
    CHECK(rmalab_win_put(r->w, t, lock_at(rank), RMALAB_UINT8, SIDE_SLOT, data));
    CHECK(rmalab_win_get(r->w, t, get.disp, RMALAB_UINT64, 4, &get.res));
    if (all) {
        CHECK(rmalab_win_flush(r->w, t));
        check_get(r, &get);
        CHECK(rmalab_win_unlock_all(r->w));
    } else {
        CHECK(rmalab_win_unlock(r->w, t));
        check_get(r, &get);
    }
    for (int o = 0; o < size; o++)
        if (target_of[o] == rank)
            fill(rng_at(r->seed, (uint64_t)r->epoch, 7, (uint64_t)o), r->model + lock_at(o),
                 SIDE_SLOT);
}

/* Where rank o puts into the side window in epoch e. */
static int side_target(const struct run *r, long e, int o)
{
    rng g = rng_at(r->seed, (uint64_t)e, 8, (uint64_t)o);
    return (int)below(&g, (uint32_t)size);
}

static void side_epoch(struct run *r)
{
    int64_t e = r->epoch;
    int t = side_target(r, r->epoch, rank);
    CHECK(rmalab_win_put(r->side, t, rank, RMALAB_INT64, 1, &e));
    CHECK(rmalab_win_flush(r->side, t));
    for (int o = 0; o < size; o++)
        if (side_target(r, r->epoch, o) == rank)
            r->side_last[o] = e;
}

/* After a barrier: every put into the side window has been flushed. */
static void side_check(const struct run *r)
{
    const int64_t *cell = rmalab_win_base(r->side);
    for (int o = 0; o < size; o++)
        if (cell[o] != r->side_last[o])
            die("%s engine, epoch %ld: the side window's cell of rank %d holds %lld, "
                "expected %lld",
                r->engine, r->epoch, o, (long long)cell[o], (long long)r->side_last[o]);
}

static void checkpoint(struct run *r)
{
    r->checkpoints++;
    MPI_Barrier(MPI_COMM_WORLD);
    side_check(r);
    fence_epoch(r);
    lock_epoch(r);
    MPI_Barrier(MPI_COMM_WORLD); /* every unlock has returned */
    compare(r, 0, win_bytes(), "the whole window at a checkpoint");
    schedule_reset(&r->sched); /* the barriers made every edge safe */
    long e = r->epoch;
    bool warm = e == r->warmup, tenth = e >= r->next_tenth;
    if ((warm || tenth) && r->nsamples < MAX_SAMPLES) {
        if (r->nsamples == 0 || r->samples[r->nsamples - 1].epoch != e)
            r->samples[r->nsamples++] = take_sample(e);
    }
    while (r->next_tenth <= e)
        r->next_tenth += r->epochs / 10 > 0 ? r->epochs / 10 : 1;
}

static uint64_t checksum(const unsigned char *p, MPI_Aint n)
{
    uint64_t h = 1469598103934665603u;
    for (MPI_Aint i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211u;
    return h;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void run_engine(struct run *r)
{
    MPI_Barrier(MPI_COMM_WORLD);
    r->before = take_sample(0);
    rmalab_info *info;
    CHECK(rmalab_info_create(&info));
    CHECK(rmalab_info_set(info, "rmalab_pscw", r->engine));
    rmalab_win_opts o = {.size = win_bytes(), .disp_unit = 1, .info = info, .name = "stress"};
    CHECK(rmalab_win_allocate(&o, &r->w, NULL));
    rmalab_win_opts side = {.size = 8 * size, .disp_unit = 8, .info = info,
                            .name = "stress-side"};
    CHECK(rmalab_win_allocate(&side, &r->side, NULL));
    rmalab_info_destroy(&info);
    CHECK(rmalab_win_lock_all(r->side, 0));
    r->base = rmalab_win_base(r->w);
    r->model = calloc((size_t)win_bytes(), 1);
    if (!r->model)
        die("out of memory for the model");
    for (int i = 0; i < ID_BYTES; i++)
        r->base[id_at() + i] = r->model[id_at() + i] = identity(rank, i);
    r->sched.seed = r->seed;
    schedule_reset(&r->sched);
    r->next_tenth = r->epochs / 10 > 0 ? r->epochs / 10 : 1;
    MPI_Barrier(MPI_COMM_WORLD); /* identities written before anyone gets them */

    double t0 = now_s();
    struct graph g;
    for (r->epoch = 1; r->epoch <= r->epochs; r->epoch++) {
        draw_graph(&r->sched, r->epoch, &g);
        pscw_epoch(r, &g);
        side_epoch(r);
        if (r->epoch % r->check == 0 || r->epoch == r->epochs || r->epoch == r->warmup)
            checkpoint(r);
    }
    r->epoch = r->epochs;
    r->seconds = now_s() - t0;
    double slowest;
    MPI_Allreduce(&r->seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    r->seconds = slowest;
    r->checksum = checksum(r->base, win_bytes());
    CHECK(rmalab_win_unlock_all(r->side));
    CHECK(rmalab_win_free(&r->side));
    CHECK(rmalab_win_free(&r->w));
    free(r->model);
    r->model = r->base = NULL;
    MPI_Barrier(MPI_COMM_WORLD);
    r->after_free = take_sample(r->epochs);
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

static bool report_run(struct run *r)
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

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long seed = 1, check = 1000, warmup = 10000, epochs = 1000000;
    const char *engines = "native,rma";
    bool unfiltered = false;
    int c;
    while ((c = getopt(argc, argv, "s:k:w:e:u")) != -1) {
        switch (c) {
        case 's': seed = arg_long(optarg, 0); break;
        case 'k': check = arg_long(optarg, 1); break;
        case 'w': warmup = arg_long(optarg, 1); break;
        case 'e': engines = optarg; break;
        case 'u': unfiltered = true; break;
        default: usage();
        }
    }
    if (optind < argc)
        epochs = arg_long(argv[optind++], 1);
    if (optind < argc || size < 2 || size > MAX_RANKS)
        usage();
    if (warmup > epochs / 10)
        warmup = epochs / 10 > 0 ? epochs / 10 : 1;

    struct run runs[MAX_ENGINES];
    int nruns = 0;
    char list[64];
    snprintf(list, sizeof list, "%s", engines);
    for (char *save, *e = strtok_r(list, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
        if ((strcmp(e, "native") && strcmp(e, "rma")) || nruns == MAX_ENGINES ||
            (unfiltered && strcmp(e, "rma")))
            usage();
        runs[nruns++] = (struct run){.engine = strcmp(e, "rma") ? "native" : "rma",
                                     .seed = (uint64_t)seed, .epochs = epochs,
                                     .check = check, .warmup = warmup,
                                     .sched.unfiltered = unfiltered};
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (rank == 0)
        printf("stress: %d ranks%s, %ld epochs per engine, seed %ld, checkpoint every %ld, "
               "warm-up %ld epochs; window of %ld bytes per rank%s\n",
               size, cores > 0 && size > cores ? " (more ranks than cores)" : "", epochs, seed,
               check, warmup, (long)win_bytes(),
               unfiltered ? "; graphs as drawn, no barriers (-u)" : "");
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

    /* Between the engines: what each free left, and what the windows held. */
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
        ok = ok && same && contents;
    }
    int all_ok = 0, mine = ok;
    MPI_Allreduce(&mine, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("\nstress: %s\n", all_ok ? "PASS" : "FAIL");
    MPI_Finalize();
    return all_ok ? 0 : 1;
}
