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
                                 (flush_local) */
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
} rmalab_sync_kind;

/* The row of a kind; NULL for an unknown id. */
RMALAB_API const rmalab_sync_kind *rmalab_sync_kind_get(rmalab_sync_id id);
/* The row of the call named `name` ("wait"); NULL when it is no
 * synchronisation call (an RMA operation, "free", "barrier"...). */
RMALAB_API const rmalab_sync_kind *rmalab_sync_kind_find(const char *name);

#endif
