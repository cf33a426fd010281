/* The long run's shared vocabulary (stress.c says what the run does): its
 * sizes, the window's layout, the random numbers every rank draws alike,
 * failure, and the types the files pass each other. The files call each
 * other one way: stress.c (the driver: options, the engines' runs, the
 * verdict) calls stress-run.c (one engine's run: epochs, checkpoints, every
 * byte checked) and stress-report.c (memory samples, the tables and the
 * verdicts); stress-run.c calls stress-schedule.c (the program every rank
 * draws alike: graphs, operations, the model) and stress-report.c's
 * samples. */
#ifndef STRESS_H
#define STRESS_H

#include <mpi.h>
#include <rmalab/rmalab.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANKS 64         /* graphs are bit masks */
#define SLOT 256             /* put slot per origin, bytes */
#define ACC_CELLS 32         /* uint64 accumulate cells */
#define ID_BYTES 256         /* read-only identity region */
#define SIDE_SLOT 64         /* fence and lock slot per origin, bytes */
#define MAX_OPS 3            /* per origin-target pair and epoch */
#define RSS_TOLERANCE_KB 256
#define MAX_SAMPLES 16       /* warmed up, 10 tenths, end; with room to spare */
#define MAX_ENGINES 2

extern int rank, size; /* in MPI_COMM_WORLD (stress-schedule.c; main sets them) */

/* ------------------------------------------------------------------------ */
/* Failure                                                                  */

static inline void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static inline void die(const char *fmt, ...)
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

static inline uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15u;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static inline uint64_t next(rng *g)
{
    g->s += 0x9E3779B97F4A7C15u;
    return mix(g->s);
}

/* 0 .. n-1 */
static inline uint32_t below(rng *g, uint32_t n)
{
    return (uint32_t)(((next(g) >> 32) * n) >> 32);
}

/* The stream for (seed, a, b, c): the same on every rank. */
static inline rng rng_at(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
    return (rng){mix(seed ^ mix(a ^ mix(b ^ mix(c))))};
}

static inline void fill(rng g, unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = next(&g);
        memcpy(p + i, &v, n - i < 8 ? n - i : 8);
    }
}
/* ------------------------------------------------------------------------ */
/* The window's layout, in bytes                                            */

static inline MPI_Aint put_at(int o) { return (MPI_Aint)o * SLOT; }
static inline MPI_Aint acc_at(void) { return put_at(size); }
static inline MPI_Aint id_at(void) { return acc_at() + ACC_CELLS * 8; }
static inline MPI_Aint fence_at(int o) { return id_at() + ID_BYTES + (MPI_Aint)o * SIDE_SLOT; }
static inline MPI_Aint lock_at(int o) { return fence_at(size) + (MPI_Aint)o * SIDE_SLOT; }
static inline MPI_Aint win_bytes(void) { return lock_at(size); }

static inline unsigned char identity(int r, int i)
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
    mask after[MAX_RANKS]; /* see the top of stress.c */
    long barriers, edges, dropped;
};

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

/* ------------------------------------------------------------------------ */
/* Memory                                                                   */

struct sample {
    long epoch;
    long rss_kb, hwm_kb, heap_kb;
    long allocs;
};
#define SAMPLE_LONGS 5

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

/* stress-schedule.c: what every rank draws alike */
void schedule_reset(struct schedule *s);
/* The graph of epoch e, made safe for native. Every rank draws the same. */
void draw_graph(struct schedule *s, long e, struct graph *g);
/* The ranks of m in an order drawn from r (groups need not be sorted). */
int ranks_of(mask m, rng *r, int *out);
/* The operations origin o issues to target t in epoch e: their number. */
int draw_ops(uint64_t seed, long e, int o, int t, struct op *ops);
/* What an op does to the target's memory, applied to the model. */
void apply(unsigned char *model, const struct op *p);

/* stress-report.c: memory, and what the runs print */
struct sample take_sample(long epoch);
/* One run's table and verdicts, on rank 0; true when they hold. Collective. */
bool report_run(struct run *r);
/* Between the engines: what each free left, and what the windows held;
 * true when they agree. Collective. */
bool compare_engines(const struct run *runs, int nruns, long allocs_start);

/* stress-run.c: one engine's run, from its window's creation to its free. */
void run_engine(struct run *r);

#endif
