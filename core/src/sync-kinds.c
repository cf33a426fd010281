/* The synchronisation kinds (rmalab/sync.h): one row per call, read by
 * the recorder, the gathering, the race checker, the blocking record and
 * the REPL. The rows follow rmalab_sync_id. */
#include "private.h"
#include "sync-kinds.h"

#include <stdio.h>
#include <string.h>

#include <rmalab/sync.h>

/* The epochs, in the words of race reports and the state's description. */
static const rmalab_sync_epoch fence_epoch = {
    .access = RMALAB_ACCESS_FENCE, .exposure = RMALAB_EXPOSURE_FENCE,
    .ended_by = RMALAB_SYNC_FENCE,
    .access_text = "in a fence epoch", .completed_by = "the fence that ends its epoch",
    .together = "both in one fence epoch",
    .together_fix = "give each origin its own bytes, or a fence between them",
    .exposure_text = "during a fence epoch", .landed_by = RMALAB_SYNC_FENCE,
    .landing_when = "during a fence epoch",
    .landing_until = " at any time until the fence that ends it",
    .landing_fix = "before the fence that opens the epoch or after the one that ends it",
};
static const rmalab_sync_epoch start_epoch = {
    .access = RMALAB_ACCESS_START, .ended_by = RMALAB_SYNC_COMPLETE,
    .access_text = "in a start() epoch", .completed_by = "complete()",
    .together = "both in one exposure epoch",
    .together_fix = "give each origin its own bytes, or expose them in different epochs",
    .landed_by = RMALAB_SYNC_NKINDS,
};
static const rmalab_sync_epoch post_epoch = {
    .exposure = RMALAB_EXPOSURE_POST, .ended_by = RMALAB_SYNC_WAIT,
    .exposure_text = "during its exposure epoch", .landed_by = RMALAB_SYNC_START,
    .landing_when = "during its exposure epoch (after post(), before wait())",
    .landing_until = "", .landing_fix = "before post() or after wait()",
};
static const rmalab_sync_epoch lock_epoch = {
    .access = RMALAB_ACCESS_LOCK, .ended_by = RMALAB_SYNC_UNLOCK,
    .access_text = "under lock", .completed_by = "flush or unlock",
    .landed_by = RMALAB_SYNC_NKINDS,
};
static const rmalab_sync_epoch lock_all_epoch = {
    .access = RMALAB_ACCESS_LOCK_ALL, .ended_by = RMALAB_SYNC_UNLOCK_ALL,
    .access_text = "under lock_all (shared)", .completed_by = "flush or unlock_all()",
    .landed_by = RMALAB_SYNC_NKINDS,
};

/* The arrows of a trace. */
static const rmalab_sync_arrow post_arrow = {
    RMALAB_FLOW_POST, RMALAB_TRACE_POST_ARRIVED, {RMALAB_SYNC_START, RMALAB_SYNC_NKINDS}, true};
static const rmalab_sync_arrow complete_arrow = {
    RMALAB_FLOW_COMPLETE, RMALAB_TRACE_COMPLETE_ARRIVED, {RMALAB_SYNC_WAIT, RMALAB_SYNC_TEST},
    false};

/* rel: what it releases, acq: what it acquires (rmalab/sync.h); opens: the
 * epoch it opens; arrow: its arrow in a trace. */
#define ROW(id, name, trace, coll, scope, rel, acq, partner, opens, arrow)          \
    [RMALAB_SYNC_##id] = {name, RMALAB_TRACE_##trace, coll, RMALAB_SYNC_##scope,     \
                          RMALAB_RELEASE_##rel, RMALAB_ACQUIRE_##acq, partner, opens, arrow}

const rmalab_sync_kind rmalab__kind_rows[RMALAB_SYNC_NKINDS] = {
    /*  id               name               trace            coll   scope  rel      acq      partner
       opens            arrow */
    ROW(POST, "post", POST, false, GROUP, CLOCK, ARRIVED, NULL, &post_epoch, &post_arrow),
    ROW(START, "start", START, false, GROUP, NONE, ARRIVED, "post", &start_epoch, NULL),
    ROW(COMPLETE, "complete", COMPLETE, false, GROUP, EPOCH, ARRIVED, "post", NULL,
        &complete_arrow),
    ROW(WAIT, "wait", WAIT, false, GROUP, NONE, EPOCH, "complete", NULL, NULL),
    ROW(TEST, "test", TEST, false, GROUP, NONE, EPOCH, "complete", NULL, NULL),
    ROW(FENCE, "fence", FENCE, true, EVERY, ALL, ALL, "fence", &fence_epoch, NULL),
    ROW(LOCK, "lock", LOCK, false, PEER, NONE, ARRIVED, "unlock", &lock_epoch, NULL),
    ROW(UNLOCK, "unlock", UNLOCK, false, PEER, TARGETS, ARRIVED, NULL, NULL, NULL),
    ROW(LOCK_ALL, "lock_all", LOCK_ALL, false, EVERY, NONE, ARRIVED, "unlock", &lock_all_epoch,
        NULL),
    ROW(UNLOCK_ALL, "unlock_all", UNLOCK_ALL, false, EVERY, TARGETS, ARRIVED, NULL, NULL, NULL),
    ROW(FLUSH, "flush", FLUSH, false, PEER, TARGETS, ARRIVED, NULL, NULL, NULL),
    ROW(FLUSH_ALL, "flush_all", FLUSH_ALL, false, EVERY, TARGETS, ARRIVED, NULL, NULL, NULL),
    ROW(FLUSH_LOCAL, "flush_local", FLUSH_LOCAL, false, PEER, LOCAL, ARRIVED, NULL, NULL, NULL),
    ROW(FLUSH_LOCAL_ALL, "flush_local_all", FLUSH_LOCAL_ALL, false, EVERY, LOCAL, ARRIVED, NULL,
        NULL, NULL),
    /* sync: the public and private copies agree; a target takes what reached it */
    ROW(SYNC, "sync", SYNC, false, NOBODY, NONE, ARRIVED, NULL, NULL, NULL),
    /* a request's completion is local: its accesses stay with the origin
       until a flush, unlock, complete or fence completes them at the target */
    ROW(REQUEST_WAIT, "request_wait", REQUEST_WAIT, false, PEER, LOCAL, ARRIVED, NULL, NULL, NULL),
};

const rmalab_sync_kind *rmalab_sync_kind_get(rmalab_sync_id id)
{
    return (unsigned)id < RMALAB_SYNC_NKINDS ? &rmalab__kind_rows[id] : NULL;
}

const rmalab_sync_kind *rmalab_sync_kind_find(const char *name)
{
    for (int i = 0; name && i < RMALAB_SYNC_NKINDS; i++)
        if (strcmp(rmalab__kind_rows[i].name, name) == 0)
            return &rmalab__kind_rows[i];
    return NULL;
}

const rmalab_sync_kind *rmalab__kind_of_trace(int trace)
{
    for (int i = 0; i < RMALAB_SYNC_NKINDS; i++)
        if ((int)rmalab__kind_rows[i].trace == trace)
            return &rmalab__kind_rows[i];
    return NULL;
}

int rmalab__kind_opener(rmalab_access a, rmalab_exposure x)
{
    for (int i = 0; i < RMALAB_SYNC_NKINDS; i++) {
        const rmalab_sync_epoch *e = rmalab__kind_rows[i].opens;
        if (e && (a != RMALAB_ACCESS_NONE ? e->access == a
                                          : x != RMALAB_EXPOSURE_NONE && e->exposure == x))
            return i;
    }
    return RMALAB_SYNC_NKINDS;
}

void rmalab__kind_completer(rmalab_access a, int target, char *buf, size_t size)
{
    int opener = rmalab__kind_opener(a, RMALAB_EXPOSURE_NONE);
    if (opener == RMALAB_SYNC_NKINDS) {
        snprintf(buf, size, "the end of its epoch");
        return;
    }
    const rmalab_sync_kind *end = &rmalab__kind_rows[rmalab__kind_rows[opener].opens->ended_by];
    char peer[16] = "", flush[32] = "";
    if (end->scope == RMALAB_SYNC_PEER)
        snprintf(peer, sizeof peer, "%d", target);
    if (end->releases == RMALAB_RELEASE_TARGETS) /* what a flush also completes */
        snprintf(flush, sizeof flush, " or flush(%d)", target);
    snprintf(buf, size, "%s%s(%s)%s", end->collective ? "the next " : "", end->name, peer, flush);
}

const char *rmalab_sync_name(rmalab_sync_id id)
{
    return (unsigned)id < RMALAB_SYNC_NKINDS ? rmalab__kind_rows[id].name : "?";
}

#define NAME_OF(table, v) ((unsigned)(v) < sizeof table / sizeof table[0] ? table[v] : "?")

const char *rmalab_sync_scope_name(rmalab_sync_scope scope)
{
    static const char *const names[] = {
        [RMALAB_SYNC_NOBODY] = "nobody", [RMALAB_SYNC_PEER] = "peer",
        [RMALAB_SYNC_GROUP] = "group", [RMALAB_SYNC_EVERY] = "every",
    };
    return NAME_OF(names, scope);
}

const char *rmalab_sync_release_name(rmalab_sync_release release)
{
    static const char *const names[] = {
        [RMALAB_RELEASE_NONE] = "none", [RMALAB_RELEASE_CLOCK] = "clock",
        [RMALAB_RELEASE_EPOCH] = "epoch", [RMALAB_RELEASE_TARGETS] = "targets",
        [RMALAB_RELEASE_LOCAL] = "local", [RMALAB_RELEASE_ALL] = "all",
    };
    return NAME_OF(names, release);
}

const char *rmalab_sync_acquire_name(rmalab_sync_acquire acquire)
{
    static const char *const names[] = {
        [RMALAB_ACQUIRE_ARRIVED] = "arrived", [RMALAB_ACQUIRE_EPOCH] = "epoch",
        [RMALAB_ACQUIRE_ALL] = "all",
    };
    return NAME_OF(names, acquire);
}
