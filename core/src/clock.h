/* Private to the core: the process's vector clock, which the race checker
 * orders accesses by and which collectives and messages carry between
 * processes (docs/races.md), and the jitter of rmalab_races_jitter.
 * clock.c has the bodies. Never installed. */
#ifndef RMALAB_CLOCK_H
#define RMALAB_CLOCK_H

#include "private.h"

#include <rmalab/coll.h>

/* The process's clock, world-indexed: made at the first checked window,
 * barrier or message that needs it (rmalab__clock_ready). Read it through
 * the calls below; clock.c alone writes it. */
struct rmalab__clock {
    int W, me;              /* the world's size, this process's rank in it */
    int64_t *vc;            /* NULL until made */
};
extern struct rmalab__clock rmalab__clock_proc;

/* Make the clock if it is not made yet. */
int rmalab__clock_ready(void);
/* Tick this rank's entry and copy the clock into S (a release). */
void rmalab__clock_release(int64_t *S);
/* Element-wise max into the clock (an acquire). */
void rmalab__clock_acquire(const int64_t *V);

/* This thread's view of the clock while it hands over an access of its own
 * (rmalab_clock_view); NULL: the process's. */
extern _Thread_local const int64_t *rmalab__clock_seen;

/* Whether this process has made its clock. */
static inline bool rmalab__clock_exists(void) { return rmalab__clock_proc.vc != NULL; }
/* The clock as it is now; its entries; this rank's entry; its bytes (once
 * made). */
static inline const int64_t *rmalab__clock_now(void)
{
    return rmalab__clock_seen ? rmalab__clock_seen : rmalab__clock_proc.vc;
}
static inline int rmalab__clock_size(void) { return rmalab__clock_proc.W; }
static inline int64_t rmalab__clock_mine(void)
{
    return rmalab__clock_proc.vc[rmalab__clock_proc.me];
}
static inline size_t rmalab__clock_bytes(void)
{
    return (size_t)rmalab__clock_proc.W * sizeof(int64_t);
}

/* The clock on the wire: W int64, W the world's size (known before the
 * clock is made). */
size_t rmalab__clock_wire(void);
/* This rank's clock, released (ticked) into S (rmalab__clock_wire bytes),
 * if it has one: true; false, S untouched, if not. */
bool rmalab__clock_out(int64_t *S);
/* A clock that came with a message or a collective: acquired. */
int rmalab__clock_in(const void *S);
/* The clocks of every member of mc, in the shape of a reduction of `kind`
 * (rmalab/coll.h: all, to root, scan, exscan), with MAX: each member that
 * the reduction gives a result acquires it (rmalab_clock_coll, which C
 * programs' collectives share). Collective; each member makes its clock
 * here if it has none, and a failure to is every member's. */
int rmalab__clock_reduce(MPI_Comm mc, rmalab_reduce_kind kind, int root, const char *what);

/* Sleep as rmalab_races_jitter asked, before a synchronising call. */
void rmalab__clock_jitter(void);

#endif
