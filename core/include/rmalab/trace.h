/* rmalab: the recorder of epochs (docs/trace.md).
 *
 * A window records its synchronisation calls and operations when its hint
 * rmalab_trace is "true", or, without the hint, when the environment
 * variable RMALAB_TRACE is "1" or rmalab_trace_default(true) was called
 * before it was created. Each window keeps a ring of its last
 * rmalab_trace_size events (hint; 4096 by default). When recording starts,
 * every rank measures its clock's offset to the window's rank 0 with 20
 * ping-pongs and keeps the one of smallest round trip; half of that round
 * trip is the uncertainty reported with the events. A rank on rank 0's host
 * (the same kernel boot id, and a measured offset within the uncertainty)
 * reads the same CLOCK_MONOTONIC: its offset and uncertainty are 0
 * (RMALAB_TRACE_CLOCK=measure keeps the measured ones, as across hosts).
 *
 * What a freed window recorded stays for rmalab_trace_gather, up to the
 * last RMALAB_TRACE_KEEP freed windows, until rmalab_trace_clear. */
#ifndef RMALAB_TRACE_H
#define RMALAB_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include <mpi.h>

#include <rmalab/export.h>
#include <rmalab/win.h>

#define RMALAB_TRACE_KEEP 64

typedef enum {
    RMALAB_TRACE_POST,
    RMALAB_TRACE_START,
    RMALAB_TRACE_COMPLETE,
    RMALAB_TRACE_WAIT,
    RMALAB_TRACE_TEST,        /* `calls` consecutive tests; flag: it returned true */
    RMALAB_TRACE_FENCE,
    RMALAB_TRACE_LOCK,        /* flag: exclusive */
    RMALAB_TRACE_UNLOCK,
    RMALAB_TRACE_LOCK_ALL,
    RMALAB_TRACE_UNLOCK_ALL,
    RMALAB_TRACE_FLUSH,
    RMALAB_TRACE_FLUSH_ALL,
    RMALAB_TRACE_PUT,
    RMALAB_TRACE_GET,
    RMALAB_TRACE_ACCUMULATE,
    RMALAB_TRACE_GET_ACCUMULATE,
    RMALAB_TRACE_FETCH_AND_OP,
    RMALAB_TRACE_COMPARE_AND_SWAP,
    /* Seen by the rma engine, an instant: a peer's post reached this
     * origin, or a peer's complete this target. */
    RMALAB_TRACE_POST_ARRIVED,
    RMALAB_TRACE_COMPLETE_ARRIVED,
    /* Windows the race checker checks (docs/races.md) also record the
     * rank's own win:read and win:write, and each race found, an instant
     * on the lane of the rank that found it (disp, bytes: the bytes of
     * `peer`, the target; seq: the race's number). */
    RMALAB_TRACE_READ,
    RMALAB_TRACE_WRITE,
    RMALAB_TRACE_RACE,
    /* Added later, so that the kinds above keep their values. */
    RMALAB_TRACE_FLUSH_LOCAL,
    RMALAB_TRACE_FLUSH_LOCAL_ALL,
    RMALAB_TRACE_SYNC,
    RMALAB_TRACE_REQUEST_WAIT,  /* a request-based operation's wait (or test: flag) */
    RMALAB_TRACE_NKINDS
} rmalab_trace_kind;

/* "post", "put", "post_arrived"...; NULL for an unknown kind. The
 * synchronisation calls among the kinds are described in rmalab/sync.h. */
RMALAB_API const char *rmalab_trace_kind_name(rmalab_trace_kind kind);

/* Times are seconds on the clock of rank 0 of the gathering communicator,
 * from the set's first event. */
typedef struct {
    double t0, t1;
    int rank;             /* the rank that recorded it */
    int win;              /* index in the set's windows */
    rmalab_trace_kind kind;
    int peer;             /* target, origin or the peer that arrived; -1 */
    int flag;             /* test: returned true; lock: exclusive; post, start, fence,
                             lock_all: the assertion (RMALAB_MODE_* bits) */
    int count;            /* operations: elements; post/start/complete/wait/test: group size */
    int calls;            /* test: consecutive calls merged into the event; else 1 */
    int64_t disp, bytes;  /* operations */
    const int *group;     /* post/start/complete/wait/test(true): the group (count ranks) */
    uint32_t seq;         /* on a checked window: operations, read and write, the access's
                             number in the race checker; race, the race's; else 0 */
} rmalab_trace_event;

/* Arrows: a post to the call that its arrival released on the origin, and
 * a complete to the one it released on the target. The released event is
 * the rma engine's arrival (inside the operation or call that waited for
 * it), else the start, wait or test that matched. */
typedef enum { RMALAB_FLOW_POST, RMALAB_FLOW_COMPLETE, RMALAB_FLOW_RACE } rmalab_flow_kind;

/* "post", "complete" or "race"; "?" for others. */
RMALAB_API const char *rmalab_flow_kind_name(rmalab_flow_kind kind);

typedef struct {
    rmalab_flow_kind kind;
    int from, to;         /* indices in the set's events */
} rmalab_trace_flow;

typedef struct {
    char key[32];         /* the same on every rank of the window */
    char name[128];
    char engine[8];       /* "native" or "rma" */
    int size;             /* ranks in the window */
    bool freed;
} rmalab_trace_window;

typedef struct rmalab_trace_set {
    int nranks;
    double *uncertainty;  /* per rank: clock uncertainty, seconds */
    double max_uncertainty;
    uint64_t *dropped;    /* per rank: events the rings overwrote */
    int nwins;
    rmalab_trace_window *wins;
    int nevents;
    rmalab_trace_event *events; /* by rank, each rank's in the order recorded */
    int nflows;
    rmalab_trace_flow *flows;
    int *groups;          /* storage of the events' groups */
    bool shared_clock;    /* every rank read rank 0's clock itself (one host):
                             the uncertainties are 0 */
} rmalab_trace_set;

/* Collective over MPI_COMM_WORLD: every rank's record of every window it
 * traced, live or freed, with ranks and peers as MPI_COMM_WORLD ranks and
 * times aligned to rank 0's clock (measured now, with a few ping-pongs).
 * *out is the set on rank 0 and NULL on the others. */
RMALAB_API int rmalab_trace_gather(rmalab_trace_set **out);
/* Collective over the window: its record, ranks and peers as ranks of the
 * window, times aligned as measured when its recording started. *out on the
 * window's rank 0, NULL elsewhere. An error if the window records nothing. */
RMALAB_API int rmalab_win_trace_gather(rmalab_win *win, rmalab_trace_set **out);
RMALAB_API void rmalab_trace_set_destroy(rmalab_trace_set **set);

/* Whether windows created from now on record (as RMALAB_TRACE=1), for this
 * process; their hint rmalab_trace still decides. Local. */
RMALAB_API void rmalab_trace_default(bool on);
/* Collective over the window: start recording (a no-op if it records), or
 * pause and resume its recording (local). */
RMALAB_API int rmalab_win_trace_start(rmalab_win *win);
RMALAB_API int rmalab_win_trace_pause(rmalab_win *win, bool paused);
/* Collective over MPI_COMM_WORLD: every live window records (windows on
 * other communicators too: every process must call it), as do windows
 * created from now on. Pausing all is local, and makes the default off. */
RMALAB_API int rmalab_trace_start_all(void);
RMALAB_API void rmalab_trace_pause_all(void);
/* Local: forget what was recorded (freed windows' records, live rings). */
RMALAB_API void rmalab_trace_clear(void);

typedef struct {
    bool on, paused;
    int capacity;
    uint64_t recorded, dropped; /* events since recording started */
    double offset, uncertainty; /* to the window's rank 0, seconds */
} rmalab_trace_status;
/* Local: the window's recorder (all zero when it records nothing). */
RMALAB_API void rmalab_win_trace_status(const rmalab_win *win, rmalab_trace_status *out);

#endif
