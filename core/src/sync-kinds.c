/* The synchronisation kinds (rmalab/sync.h): one row per call, read by
 * the recorder, the gathering, the race checker, the blocking record and
 * the REPL. The rows follow rmalab_sync_id. */
#include "private.h"

#include <string.h>

#include <rmalab/sync.h>

/* rel: what it releases, acq: what it acquires (rmalab/sync.h). */
#define ROW(id, name, trace, coll, scope, rel, acq, partner)                  \
    [RMALAB_SYNC_##id] = {name, RMALAB_TRACE_##trace, coll, RMALAB_SYNC_##scope, \
                          RMALAB_RELEASE_##rel, RMALAB_ACQUIRE_##acq, partner}

const rmalab_sync_kind rmalab__sync_kinds[RMALAB_SYNC_NKINDS] = {
    /*  id               name               trace            coll   scope  rel      acq      partner */
    ROW(POST,            "post",            POST,            false, GROUP, CLOCK,   ARRIVED, NULL),
    ROW(START,           "start",           START,           false, GROUP, NONE,    ARRIVED, "post"),
    ROW(COMPLETE,        "complete",        COMPLETE,        false, GROUP, EPOCH,   ARRIVED, "post"),
    ROW(WAIT,            "wait",            WAIT,            false, GROUP, NONE,    EPOCH,   "complete"),
    ROW(TEST,            "test",            TEST,            false, GROUP, NONE,    EPOCH,   "complete"),
    ROW(FENCE,           "fence",           FENCE,           true,  EVERY, ALL,     ALL,     "fence"),
    ROW(LOCK,            "lock",            LOCK,            false, PEER,  NONE,    ARRIVED, "unlock"),
    ROW(UNLOCK,          "unlock",          UNLOCK,          false, PEER,  TARGETS, ARRIVED, NULL),
    ROW(LOCK_ALL,        "lock_all",        LOCK_ALL,        false, EVERY, NONE,    ARRIVED, "unlock"),
    ROW(UNLOCK_ALL,      "unlock_all",      UNLOCK_ALL,      false, EVERY, TARGETS, ARRIVED, NULL),
    ROW(FLUSH,           "flush",           FLUSH,           false, PEER,  TARGETS, ARRIVED, NULL),
    ROW(FLUSH_ALL,       "flush_all",       FLUSH_ALL,       false, EVERY, TARGETS, ARRIVED, NULL),
    ROW(FLUSH_LOCAL,     "flush_local",     FLUSH_LOCAL,     false, PEER,  LOCAL,   ARRIVED, NULL),
    ROW(FLUSH_LOCAL_ALL, "flush_local_all", FLUSH_LOCAL_ALL, false, EVERY, LOCAL,   ARRIVED, NULL),
};

const rmalab_sync_kind *rmalab_sync_kind_get(rmalab_sync_id id)
{
    return (unsigned)id < RMALAB_SYNC_NKINDS ? &rmalab__sync_kinds[id] : NULL;
}

const rmalab_sync_kind *rmalab_sync_kind_find(const char *name)
{
    for (int i = 0; name && i < RMALAB_SYNC_NKINDS; i++)
        if (strcmp(rmalab__sync_kinds[i].name, name) == 0)
            return &rmalab__sync_kinds[i];
    return NULL;
}

const rmalab_sync_kind *rmalab__sync_kind_of_trace(int trace)
{
    for (int i = 0; i < RMALAB_SYNC_NKINDS; i++)
        if ((int)rmalab__sync_kinds[i].trace == trace)
            return &rmalab__sync_kinds[i];
    return NULL;
}
