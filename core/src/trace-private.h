/* Private to the core: the recorder (trace.c; docs/trace.md): a window's
 * record and its events, and the recorder's calls. trace.c, trace-gather.c,
 * the event layer (observe.h) and the files that open, retire and report
 * to it include it. Never installed. */
#ifndef RMALAB_TRACE_PRIVATE_H
#define RMALAB_TRACE_PRIVATE_H

#include "win-private.h"

/* Owner trace.c: an event of a record (trace.c has the design). */
typedef struct {
    int64_t t0, t1;             /* ns, this rank's CLOCK_MONOTONIC */
    int64_t disp, bytes;
    int32_t peer, count, calls;
    uint32_t seq;               /* members and arrivals: the epoch index */
    uint8_t kind, flag;
} rmalab__tev;

/* Owner trace.c; trace-gather.c reads it under rmalab__trace_lock. */
struct rmalab__trace {
    struct rmalab__trace *next; /* the process's records, oldest first */
    rmalab_win *win;            /* NULL once the window is freed */
    char key[32], name[128], engine[8];
    int rank, size;
    int *world_ranks;           /* every rank's rank in MPI_COMM_WORLD */
    uint32_t *access_seq, *expose_seq; /* per peer: epochs opened so far */
    uint32_t *seen_post, *seen_complete; /* per peer: the epoch of the last arrival */
    double offset, uncert;      /* to the window's rank 0 clock, seconds */
    rmalab__tev *ring;
    uint32_t cap, head, count;
    uint64_t recorded, dropped;
    bool paused;
};

/* trace.c: recording. Each call costs a NULL test when the window does
 * not record. */
int64_t rmalab__trace_clock(void);
/* When a call starts: its time if the window records, else 0. */
int64_t rmalab__trace_t0(const rmalab_win *w);
/* A synchronisation call that succeeded: `peer` for kinds that name one,
 * else -1; `group` for kinds that name a group (rmalab/sync.h). */
void rmalab__trace_call(rmalab_win *w, int kind, int64_t t0, int peer, const int *group, int n,
                        int flag);
/* `seq`: the race checker's number of the access, or 0. */
void rmalab__trace_op(rmalab_win *w, int kind, int64_t t0, int target, MPI_Aint disp,
                      rmalab_type type, int count, uint32_t seq);
void rmalab__trace_race(rmalab_win *w, uint32_t race, int target, int64_t lo, int64_t hi,
                        const int issuer[2], const uint32_t id[2]);
/* An operation or a local access (win:read, win:write)? */
bool rmalab__trace_is_access(int kind);
/* The rma engine saw a peer's post or complete arrive. */
void rmalab__trace_arrival(rmalab_win *w, int kind, int peer);
/* Does this rank want the window recorded (its hints, RMALAB_TRACE,
 * rmalab_trace_default)? Local. */
bool rmalab__trace_wanted(const rmalab_win *w);
/* Collective over the window: start recording if any rank wants to, or
 * `force`; aligns clocks. */
int rmalab__trace_open(rmalab_win *w, bool force);
/* Local: the window is being freed; its record stays in the list. */
void rmalab__trace_retire(rmalab_win *w);
/* Collective: this rank's offset to rank 0's clock, and its uncertainty. */
int rmalab__trace_align(MPI_Comm comm, double *offset, double *uncert);
extern pthread_mutex_t rmalab__trace_lock;
extern rmalab__trace *rmalab__trace_list;

#endif
