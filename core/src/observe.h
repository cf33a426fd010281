/* Private to the core: the event layer, through which every call on a
 * window reaches the recorder (trace.c) and the race checker (races-*.c),
 * as two equals. The inline fronts below cost a NULL test or two when the
 * window neither records nor is checked; observe.c has the bodies. This
 * header is a level of its own after observe.c (win-private.h): sync.c,
 * sync-passive.c, rma.c, win-local.c, request.c and win-free.c include it.
 *
 * A synchronisation call reports one event, described by its row of
 * rmalab__kind_rows: begun before its checks, ahead of its MPI call for
 * what its kind hands on first (post's clock, complete's accesses), ended
 * once it succeeded (its trace event; what it releases and acquires). Each
 * costs a NULL test or two when the window neither records nor is checked.
 * A call that finds a race returns RMALAB_ERR_RMA_CONFLICT (mode races)
 * after the call's own work. */
#ifndef RMALAB_OBSERVE_H
#define RMALAB_OBSERVE_H

#include "trace-private.h"
#include "sync-kinds.h"

/* observe.c: the bodies of the fronts below. */
void rmalab__observe_sync_begin_(rmalab_win *w, rmalab__sync_event *ev);
int rmalab__observe_sync_ahead_(rmalab_win *w, const rmalab__sync_event *ev);
int rmalab__observe_sync_end_(rmalab_win *w, const rmalab__sync_event *ev);
void rmalab__observe_op_begin_(rmalab_win *w);
int rmalab__observe_op_end_(rmalab_win *w, const rmalab__op_event *ev);
/* win:read / win:write, after the access. */
int rmalab__observe_op_local(rmalab_win *w, const rmalab__op_event *ev);
/* A direct load or store of ev->target's memory (rmalab_win_direct). */
int rmalab__observe_op_direct(rmalab_win *w, const rmalab__op_event *ev);
/* Freeing, before MPI_Win_free (collective): the race checker's last
 * check, whose report the call returns. */
int rmalab__observe_win_close(rmalab_win *w);

/* A synchronisation call (its event: win-private.h). */
static inline void rmalab__observe_sync_begin(rmalab_win *w, rmalab__sync_event *ev,
                                              rmalab_sync_id id)
{
    *ev = (rmalab__sync_event){.k = &rmalab__kind_rows[id], .peer = -1};
    if (w->races || w->trace)
        rmalab__observe_sync_begin_(w, ev);
}

static inline int rmalab__observe_sync_ahead(rmalab_win *w, const rmalab__sync_event *ev)
{
    return w->races && ev->n ? rmalab__observe_sync_ahead_(w, ev) : RMALAB_OK;
}

static inline int rmalab__observe_sync_end(rmalab_win *w, const rmalab__sync_event *ev)
{
    return w->races || w->trace ? rmalab__observe_sync_end_(w, ev) : RMALAB_OK;
}

/* An operation begins (w may be NULL); its event (win-private.h) is
 * checked by sync.c, which adds the epoch facts, and ended once issued. */
static inline void rmalab__observe_op_begin(rmalab_win *w, rmalab__op_event *ev)
{
    if (w && w->races)
        rmalab__observe_op_begin_(w);
    ev->t0 = w && w->trace ? rmalab__trace_clock() : 0;
}

/* ... and ends with rc, its own status, returned unless the checker fails. */
static inline int rmalab__observe_op_end(rmalab_win *w, const rmalab__op_event *ev, int rc)
{
    if (rc || !(w->races || w->trace))
        return rc;
    return rmalab__observe_op_end_(w, ev);
}

#endif
