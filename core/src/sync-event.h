/* Private to the core: the inline front of the entry point at the end of
 * races-sync.c, through which every call on a window reaches the recorder
 * and the race checker. A level of its own after races-sync.c
 * (win-private.h): sync.c and rma.c include it.
 *
 * A synchronisation call reports one event, described by its row of
 * rmalab__sync_kinds: begun before its checks, ahead of its MPI call for
 * what its kind hands on first (post's clock, complete's accesses), ended
 * once it succeeded (its trace event; what it releases and acquires). Each
 * costs a NULL test or two when the window neither records nor is checked.
 * A call that finds a race returns RMALAB_ERR_RMA_CONFLICT (mode races)
 * after the call's own work. */
#ifndef RMALAB_SYNC_EVENT_H
#define RMALAB_SYNC_EVENT_H

#include "win-private.h"

struct rmalab__sync_event {
    const rmalab_sync_kind *k;
    int64_t t0;
    int peer;               /* scope PEER: the target; else -1 */
    const int *group;       /* scope GROUP: the group, n ranks */
    int n;
    int flag;               /* the trace's flag: assertion, exclusive, test's result */
    bool unfinished;        /* a test that returned false: traced, nothing acquired */
};

static inline void rmalab__sync_begin(rmalab_win *w, rmalab__sync_event *ev, rmalab_sync_id id)
{
    *ev = (rmalab__sync_event){.k = &rmalab__sync_kinds[id], .peer = -1};
    if (w->races || w->trace)
        rmalab__sync_begin_(w, ev);
}

static inline int rmalab__sync_ahead(rmalab_win *w, const rmalab__sync_event *ev)
{
    return w->races && ev->n ? rmalab__sync_ahead_(w, ev) : RMALAB_OK;
}

static inline int rmalab__sync_end(rmalab_win *w, const rmalab__sync_event *ev)
{
    return w->races || w->trace ? rmalab__sync_end_(w, ev) : RMALAB_OK;
}

/* An RMA operation (w may be NULL): begun (its time if the window records,
 * else 0), and ended once issued (rc: its own status, returned unless the
 * checker fails). */
static inline int64_t rmalab__op_begin(rmalab_win *w)
{
    if (w && w->races)
        rmalab__op_begin_(w);
    return w && w->trace ? rmalab__trace_clock() : 0;
}

static inline int rmalab__op_end(rmalab_win *w, int kind, int64_t t0, int rc, int target,
                                 MPI_Aint disp, rmalab_type type, int count, rmalab_op op)
{
    if (rc || !(w->races || w->trace))
        return rc;
    return rmalab__op_end_(w, kind, t0, target, disp, type, count, op);
}

#endif
