/* The event layer (observe.h has the design): every call on a window that
 * the recorder (trace.c) or the race checker (races-sync.c) sees comes in
 * here, once, and this file hands it to each of them. Neither calls the
 * other for it. A synchronisation call is begun, handed on ahead of its MPI
 * call (the checker alone: post's clock, complete's records), and ended
 * (the recorder's event, then what the checker releases and acquires); an
 * operation is begun and ended with its record's number, which the
 * recorder's event carries. The window stops here: the checker is handed
 * its own state (w->races), and the races it found come back through
 * here to the recorder. */
#include "observe.h"

#include "clock.h"
#include "races-sync.h"

/* What the checker's call found (rc: its status, returned) goes to the
 * recorder from here: the checker never calls it. */
static int found(rmalab_win *w, int rc)
{
    const struct rmalab__races_found *f;
    int n = rmalab__races_sync_found(w->races, &f);
    for (int i = 0; i < n && w->trace; i++)
        rmalab__trace_race(w, f[i].seq, f[i].target, f[i].lo, f[i].hi, f[i].issuer, f[i].id);
    return rc;
}

void rmalab__observe_sync_begin_(rmalab_win *w, rmalab__sync_event *ev)
{
    if (w->races)
        rmalab__clock_jitter();
    ev->t0 = rmalab__trace_t0(w);
}

int rmalab__observe_sync_ahead_(rmalab_win *w, const rmalab__sync_event *ev)
{
    return rmalab__races_sync_ahead(w->races, ev);
}

int rmalab__observe_sync_end_(rmalab_win *w, const rmalab__sync_event *ev)
{
    rmalab__trace_call(w, (int)ev->k->trace, ev->t0, ev->peer, ev->group, ev->n, ev->flag);
    if (!w->races || ev->unfinished)
        return RMALAB_OK;
    int rc = rmalab__races_sync(w->races, ev);
    return found(w, rc);
}

void rmalab__observe_op_begin_(rmalab_win *w)
{
    rmalab__clock_jitter();
    (void)w;
}

int rmalab__observe_op_end_(rmalab_win *w, const rmalab__op_event *ev)
{
    uint32_t id = 0;
    int rc = w->races ? rmalab__races_sync_op(w->races, ev, &id) : RMALAB_OK;
    rmalab__trace_op(w, ev->kind, ev->t0, ev->target, ev->disp, ev->type, ev->count, id);
    return rc;
}

/* A local access is recorded after it happened: the checker's record
 * first, for its number; the recorder's event; then the checker's verdict,
 * so that a race's event follows the access in the record. */
int rmalab__observe_op_local(rmalab_win *w, const rmalab__op_event *ev)
{
    if (!w->races)
        return RMALAB_OK;
    uint32_t id;
    int rc = rmalab__races_sync_local(w->races, ev, &id);
    if (rc)
        return rc;
    rmalab__trace_op(w, ev->kind, rmalab__trace_t0(w), w->rank, ev->disp, ev->type, ev->count,
                     id);
    rc = rmalab__races_sync_local_check(w->races, ev);
    return found(w, rc);
}

/* A load or store of another rank's memory: its record goes to that rank. */
int rmalab__observe_op_direct(rmalab_win *w, const rmalab__op_event *ev)
{
    if (!w->races || ev->target == w->rank)
        return rmalab__observe_op_local(w, ev);
    uint32_t id;
    int rc = rmalab__races_sync_direct(w->races, ev, &id);
    if (!rc)
        rmalab__trace_op(w, ev->kind, rmalab__trace_t0(w), ev->target, ev->disp, ev->type,
                         ev->count, id);
    return rc;
}

/* Freeing (collective, before MPI_Win_free): the checker's last check. */
int rmalab__observe_win_close(rmalab_win *w)
{
    if (!w->races)
        return RMALAB_OK;
    int rc = rmalab__races_sync_close(w->races);
    return found(w, rc);
}
