/* rmalab: the synchronisation kinds, described once (docs/core.md,
 * "Synchronisation kinds").
 *
 * Each synchronisation call of a window is one row of a table: its name,
 * its trace event, whether it is collective, whom it names, what it hands
 * on for happens-before and what it takes, and which call of another rank
 * ends a wait in it. The recorder, the gathering of traces, the race
 * checker, the blocking record and a REPL's deadlock analysis all read the
 * table; adding a kind is one row plus the code that is truly new. */
#ifndef RMALAB_SYNC_H
#define RMALAB_SYNC_H

#include <stdbool.h>

#include <rmalab/export.h>
#include <rmalab/trace.h>

typedef enum {
    RMALAB_SYNC_POST,
    RMALAB_SYNC_START,
    RMALAB_SYNC_COMPLETE,
    RMALAB_SYNC_WAIT,
    RMALAB_SYNC_TEST,
    RMALAB_SYNC_FENCE,
    RMALAB_SYNC_LOCK,
    RMALAB_SYNC_UNLOCK,
    RMALAB_SYNC_LOCK_ALL,
    RMALAB_SYNC_UNLOCK_ALL,
    RMALAB_SYNC_FLUSH,
    RMALAB_SYNC_FLUSH_ALL,
    RMALAB_SYNC_FLUSH_LOCAL,
    RMALAB_SYNC_FLUSH_LOCAL_ALL,
    RMALAB_SYNC_SYNC,         /* win:sync (MPI_Win_sync) */
    RMALAB_SYNC_REQUEST_WAIT, /* rq:wait or rq:test of an rput, rget... */
    RMALAB_SYNC_NKINDS
} rmalab_sync_id;

/* Whom a call names: nobody, one target (`peer`), a group (post, start,
 * complete, wait, test), or every rank of the window. */
typedef enum {
    RMALAB_SYNC_NOBODY,
    RMALAB_SYNC_PEER,
    RMALAB_SYNC_GROUP,
    RMALAB_SYNC_EVERY,
} rmalab_sync_scope;

/* What a call hands on for happens-before (docs/races.md). */
typedef enum {
    RMALAB_RELEASE_NONE,
    RMALAB_RELEASE_CLOCK,     /* its clock to each rank of its group (post) */
    RMALAB_RELEASE_EPOCH,     /* the epoch's accesses and its clock to each
                                 target of the epoch (complete) */
    RMALAB_RELEASE_TARGETS,   /* the accesses to the ranks it names, completed
                                 at them (unlock, flush and their _all) */
    RMALAB_RELEASE_LOCAL,     /* completes operations at the origin only: the
                                 origin's buffers, nothing at the target
                                 (flush_local, a request's wait) */
    RMALAB_RELEASE_ALL,       /* every access, every rank (fence: collective) */
} rmalab_sync_release;

/* What a call takes for happens-before. Every call also checks the
 * passive-target accesses that reached this rank. */
typedef enum {
    RMALAB_ACQUIRE_ARRIVED,   /* only that */
    RMALAB_ACQUIRE_EPOCH,     /* the accesses and clock of each origin of the
                                 exposure epoch (wait; test when it returns true) */
    RMALAB_ACQUIRE_ALL,       /* every rank's clock (fence: collective) */
} rmalab_sync_acquire;

/* An epoch that a call opens (fence, start, post, lock, lock_all), and the
 * words rmalab's messages use for it: race reports (docs/races.md) and the
 * epoch state's description. */
typedef struct {
    rmalab_access access;      /* the access epoch it opens, or RMALAB_ACCESS_NONE */
    rmalab_exposure exposure;  /* the exposure epoch it opens, or RMALAB_EXPOSURE_NONE */
    rmalab_sync_id ended_by;   /* the call of this rank that ends it ("wait" for post) */
    /* An operation of its access epoch: "in a start() epoch". For a kind
     * that names one target (lock), reports add the target and the mode. */
    const char *access_text;
    const char *completed_by;  /* what completes such an operation: "complete()" */
    /* Two origins' operations in one such epoch of a target ("both in one
     * fence epoch"), and the fix; NULL: other rules speak of them (locks). */
    const char *together, *together_fix;
    /* A local access in its exposure epoch: "during a fence epoch". */
    const char *exposure_text;
    /* The call whose operations land in its exposure epoch (start for post),
     * and what a report says of a local access and such an operation: when
     * it happened, how long they may land, the fix. */
    rmalab_sync_id landed_by;
    const char *landing_when, *landing_until, *landing_fix;
} rmalab_sync_epoch;

/* A trace's arrow from a call to each rank of its group (post, complete;
 * docs/trace.md): it ends at the event with which an engine that sees
 * arrivals records it, else at the first call of that rank in `to` that
 * pairs with it. */
typedef struct {
    rmalab_flow_kind kind;     /* RMALAB_FLOW_POST */
    rmalab_trace_kind arrival; /* RMALAB_TRACE_POST_ARRIVED */
    rmalab_sync_id to[2];      /* start; wait, then test (RMALAB_SYNC_NKINDS: none) */
    /* An engine that sees arrivals does not wait for it in `to` (the rma
     * engine's start returns at once): no arrow there but from the arrival. */
    bool to_native_only;
} rmalab_sync_arrow;

typedef struct {
    const char *name;          /* "fence": the call, as rmalab_blocked names it */
    rmalab_trace_kind trace;   /* its event in a trace */
    bool collective;           /* every rank of the window makes it together */
    rmalab_sync_scope scope;
    rmalab_sync_release releases;
    rmalab_sync_acquire acquires;
    /* The call of another rank that ends a wait in this one ("complete"
     * for wait), or NULL: it waits for no call of another rank (a lock,
     * a flush wait for MPI alone). */
    const char *partner;
    const rmalab_sync_epoch *opens;  /* the epoch it opens, or NULL */
    const rmalab_sync_arrow *arrow;  /* its arrow in a trace, or NULL */
} rmalab_sync_kind;

/* The row of a kind; NULL for an unknown id. */
RMALAB_API const rmalab_sync_kind *rmalab_sync_kind_get(rmalab_sync_id id);
/* The row of the call named `name` ("wait"); NULL when it is no
 * synchronisation call (an RMA operation, "free", "barrier"...). */
RMALAB_API const rmalab_sync_kind *rmalab_sync_kind_find(const char *name);
/* Names: the call's ("wait"); the scope's ("nobody", "peer", "group",
 * "every"); what a call releases and acquires, as docs/races.md words them.
 * "?" outside the enum. */
RMALAB_API const char *rmalab_sync_name(rmalab_sync_id id);
RMALAB_API const char *rmalab_sync_scope_name(rmalab_sync_scope scope);
RMALAB_API const char *rmalab_sync_release_name(rmalab_sync_release release);
RMALAB_API const char *rmalab_sync_acquire_name(rmalab_sync_acquire acquire);

#endif
