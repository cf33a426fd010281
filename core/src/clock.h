/* Private to the core: the process's vector clock, which the race checker
 * orders accesses by and which collectives and messages carry between
 * processes (docs/races.md), and the jitter of rmalab_races_jitter.
 * clock.c has the bodies. Never installed. */
#ifndef RMALAB_CLOCK_H
#define RMALAB_CLOCK_H

#include "private.h"

#include <rmalab/coll.h>

/* The process's clock: made at the first checked window, barrier or
 * message that needs it (rmalab__clock_ready). Each world rank has T
 * entries, one per thread slot (rmalab_clock_threads; 1 unless a caller
 * with threads of its own asks for more): rank r's slot s is entry
 * r * T + s, and a record's completion is on the entry of the thread that
 * completed it. Read it through the calls below; clock.c alone writes it. */
struct rmalab__clock {
    int W, me;              /* the world's size, this process's rank in it */
    int T;                  /* entries per rank, 1 or more */
    int N;                  /* W * T once made, 0 before */
    int64_t *vc;            /* NULL until made; N entries */
};
extern struct rmalab__clock rmalab__clock_proc;

/* Make the clock if it is not made yet. */
int rmalab__clock_ready(void);
/* Tick the calling thread's entry and copy its clock into S (a release). */
void rmalab__clock_release(int64_t *S);
/* Element-wise max into the clock, and the thread's view (an acquire). */
void rmalab__clock_acquire(const int64_t *V);

/* This thread's view of the clock (rmalab_clock_view, rmalab_clock_thread);
 * NULL: the process's. With T > 1 the thread's releases tick its own entry
 * (its slot, rmalab__clock_slot) in it and send it, and its acquires join
 * into it as into the process's clock, which stays the max of all. */
extern _Thread_local int64_t *rmalab__clock_seen;
extern _Thread_local int rmalab__clock_slot;

/* Whether this process has made its clock. */
static inline bool rmalab__clock_exists(void) { return rmalab__clock_proc.vc != NULL; }
/* The clock as it is now; its entries (W * T); the calling thread's own
 * entry's index, and its value; its bytes (once made). */
static inline const int64_t *rmalab__clock_now(void)
{
    return rmalab__clock_seen ? rmalab__clock_seen : rmalab__clock_proc.vc;
}
static inline int rmalab__clock_size(void) { return rmalab__clock_proc.N; }
static inline int rmalab__clock_threads(void) { return rmalab__clock_proc.T; }
static inline int rmalab__clock_entry(void)
{
    return rmalab__clock_proc.me * rmalab__clock_proc.T + rmalab__clock_slot;
}
static inline int64_t rmalab__clock_mine(void)
{
    return rmalab__clock_now()[rmalab__clock_entry()];
}
/* Element-wise max of the clock V into `to` (a record's clock, what a rank
 * is known to have seen). */
static inline void rmalab__clock_max(int64_t *to, const int64_t *V)
{
    for (int i = 0; i < rmalab__clock_size(); i++)
        to[i] = V[i] > to[i] ? V[i] : to[i];
}
static inline size_t rmalab__clock_bytes(void)
{
    return (size_t)rmalab__clock_size() * sizeof(int64_t);
}

/* The clock on the wire: W * T int64, W the world's size (known before
 * the clock is made). */
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
