/* Requests of every kind (rmalab/coll.h, rmalab/win.h): the request-based
 * RMA operations (MPI_Rput, MPI_Rget, MPI_Raccumulate,
 * MPI_Rget_accumulate) and their requests, and waiting for any request,
 * a message's (p2p.c) or an operation's.
 *
 * An operation's request completes it locally: its origin buffer may be
 * reused, its result read. Remote completion stays with the epoch (a
 * flush, unlock, complete or fence): the race checker's row of
 * "request_wait" releases nothing at the target (rmalab/sync.h). A
 * window keeps its requests that were not waited for; its free completes
 * them and reports each, as a window never freed is reported. */
#include "msg.h"
#include "p2p.h"
#include "observe.h"
#include "alloc.h"
#include "error-private.h"
#include "block.h"
#include "sync-private.h"
#include "rma.h"
#include "request.h"
#include "shape.h"

#include <stdio.h>

static const char *const rma_names[] = {
    [RMALAB_TRACE_PUT] = "rput",
    [RMALAB_TRACE_GET] = "rget",
    [RMALAB_TRACE_ACCUMULATE] = "raccumulate",
    [RMALAB_TRACE_GET_ACCUMULATE] = "rget_accumulate",
};

/* ------------------------------------------------------------------------ */
/* Request-based operations                                                 */

static void link_win(rmalab_request *r)
{
    rmalab_win *w = r->win;
    r->wprev = NULL;
    r->wnext = w->requests;
    if (w->requests)
        w->requests->wprev = r;
    w->requests = r;
}

static void unlink_win(rmalab_request *r)
{
    if (!r->win)
        return;
    if (r->wprev)
        r->wprev->wnext = r->wnext;
    else
        r->win->requests = r->wnext;
    if (r->wnext)
        r->wnext->wprev = r->wprev;
    r->wprev = r->wnext = NULL;
}

static int rma_request(rmalab_win *w, int kind, int target, MPI_Aint disp, rmalab_type type,
                       int count, const void *origin, void *result, rmalab_op op,
                       const rmalab_vector *vec, const rmalab_typed_op *ty,
                       rmalab_request **out)
{
    const char *what = rma_names[kind];
    *out = NULL;
    rmalab_request *r = rmalab__mem_calloc(1, sizeof *r);
    if (!r || !(r->id = rmalab__p2p_rq_id())) {
        rmalab__mem_free(r);
        return rmalab__win_call_end(rmalab__win_id(w), what,
                                    rmalab__err_fail(RMALAB_ERR_NO_MEM, "%s: out of memory", what));
    }
    r->req[0] = r->req[1] = MPI_REQUEST_NULL;
    int rc = rmalab__rma_request(w, kind, what, target, disp, type, count, origin, result, op,
                                 vec, ty, &r->ticket, &r->req[0]);
    if (rc) {
        rmalab__p2p_rq_finished(r);
        rmalab__mem_free(r);
        return rc;
    }
    r->kind = RMALAB__RQ_RMA;
    r->win = w;
    r->peer = target;
    r->tag = -1;
    snprintf(r->what, sizeof r->what, "%s to rank %d", what, target);
    rmalab__p2p_rq_id_op(r->id, w, target, r->ticket);
    link_win(r);
    *out = r;
    return RMALAB_OK;
}

int rmalab_win_rput(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type, int count,
                    const void *origin, const rmalab_vector *vec, rmalab_request **out)
{
    return rma_request(w, RMALAB_TRACE_PUT, target, disp, type, count, origin, NULL,
                       RMALAB_OP_REPLACE, vec, NULL, out);
}

int rmalab_win_rget(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type, int count,
                    void *result, const rmalab_vector *vec, rmalab_request **out)
{
    return rma_request(w, RMALAB_TRACE_GET, target, disp, type, count, NULL, result,
                       RMALAB_OP_NO_OP, vec, NULL, out);
}

int rmalab_win_raccumulate(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type, int count,
                           const void *origin, rmalab_op op, const rmalab_vector *vec,
                           rmalab_request **out)
{
    return rma_request(w, RMALAB_TRACE_ACCUMULATE, target, disp, type, count, origin, NULL, op,
                       vec, NULL, out);
}

int rmalab_win_rget_accumulate(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type,
                               int count, const void *origin, void *result, rmalab_op op,
                               const rmalab_vector *vec, rmalab_request **out)
{
    return rma_request(w, RMALAB_TRACE_GET_ACCUMULATE, target, disp, type, count, origin,
                       result, op, vec, NULL, out);
}

int rmalab_win_typed_request(rmalab_win *w, const rmalab_typed_op *t, rmalab_request **out)
{
    if (!out)
        return rmalab__err_fail(RMALAB_ERR_ARG, "typed request: out is NULL");
    *out = NULL;
    int rc = rmalab__shape_typed_check(t, "typed request");
    return rc ? rc : rma_request(w, t->kind, t->target, t->disp, t->type, t->count, t->origin, t->result,
                       t->op, NULL, t, out);
}

/* An operation's request, tested or waited for: one event of its window
 * (the row request_wait), a local completion. */
static int rma_step(rmalab_request *r, bool block)
{
    rmalab_win *w = r->win;
    rmalab__sync_event ev;
    rmalab__observe_sync_begin(w, &ev, RMALAB_SYNC_REQUEST_WAIT);
    int flag = 1, rc = RMALAB_OK, e;
    if (block) {
        rmalab__block b;
        rmalab__win_block_passive(w, &b, ev.k->name, &r->peer, 1);
        if (atomic_load_explicit(&rmalab__block_wait_mode, memory_order_relaxed) ==
            RMALAB_WAIT_SLEEP)
            rc = rmalab__block_wait_request(&r->req[0], "MPI_Wait (an RMA request)");
        else if ((e = MPI_Wait(&r->req[0], MPI_STATUS_IGNORE)) != MPI_SUCCESS)
            rc = rmalab__err_mpi(e, "MPI_Wait (an RMA request)");
        rmalab__win_unblock(w, &b);
    } else if ((e = MPI_Test(&r->req[0], &flag, MPI_STATUS_IGNORE)) != MPI_SUCCESS) {
        rc = rmalab__err_mpi(e, "MPI_Test (an RMA request)");
    }
    if (rc || !flag)
        return rmalab__sync_ended(w, RMALAB_SYNC_REQUEST_WAIT, rc);
    rmalab__p2p_rq_finished(r);
    unlink_win(r);
    r->win = NULL;
    ev.peer = r->peer;
    ev.flag = !block;
    return rmalab__sync_ended(w, RMALAB_SYNC_REQUEST_WAIT, rmalab__observe_sync_end(w, &ev));
}

void rmalab__request_close_win(rmalab_win *w)
{
    while (w->requests) {
        rmalab_request *r = w->requests;
        MPI_Wait(&r->req[0], MPI_STATUS_IGNORE); /* complete: the epoch was closed */
        const char *name = rmalab_win_get_name(w);
        rmalab__err_warn("rmalab: %s%s%s was freed with a request never waited for (%s); call "
                         "rq:wait() before win:free()",
                         name[0] ? "window \"" : "a window", name, name[0] ? "\"" : "", r->what);
        rmalab__p2p_rq_finished(r);
        unlink_win(r);
        r->win = NULL;
    }
    rmalab__p2p_rq_forget_win(w);
}

/* ------------------------------------------------------------------------ */
/* Any request                                                              */

static int step(rmalab_request *r, bool block)
{
    if (r->done)
        return RMALAB_OK;
    return r->kind == RMALAB__RQ_RMA ? rma_step(r, block) : rmalab__p2p_rq_step(r, block);
}

/* A receive's message (owned by the request) and status, once done. */
static void results(const rmalab_request *r, const void **p, size_t *n, rmalab_msg_status *st)
{
    bool recv = r->kind == RMALAB__RQ_RECV && r->done;
    if (p)
        *p = recv ? r->m.payload : NULL;
    if (n)
        *n = recv ? r->m.st.bytes : 0;
    if (st)
        *st = recv ? r->m.st : (rmalab_msg_status){.source = r->peer, .tag = r->tag, .type = -1};
}

int rmalab_request_test(rmalab_request *rq, int *done, const void **p, size_t *n,
                        rmalab_msg_status *st)
{
    *done = 0;
    if (!rq)
        return rmalab__err_fail(RMALAB_ERR_ARG, "test: the request is NULL");
    int rc = step(rq, false);
    *done = rq->done;
    results(rq, p, n, st);
    return rc;
}

int rmalab_request_wait(rmalab_request *rq, const void **p, size_t *n, rmalab_msg_status *st)
{
    if (!rq)
        return rmalab__err_fail(RMALAB_ERR_ARG, "wait: the request is NULL");
    int rc = step(rq, true);
    results(rq, p, n, st);
    return rc;
}

int rmalab_request_waitall(rmalab_request *const *rqs, int n)
{
    int rc = RMALAB_OK;
    for (int i = 0; i < n; i++) {
        int rc2 = rqs[i] ? step(rqs[i], true) : RMALAB_OK;
        rc = rc ? rc : rc2;
    }
    return rc;
}

/* A request's peer as a rank of MPI_COMM_WORLD; -1 for any source. */
static int peer_world(const rmalab_request *r)
{
    if (r->peer < 0)
        return -1;
    if (r->kind == RMALAB__RQ_RMA)
        return r->win ? r->win->lay.world_ranks[r->peer] : -1;
    rmalab__block c;
    rmalab__block_comm(&c, rmalab_comm_mpi(r->c));
    return c.map ? c.map[r->peer] : c.n ? r->peer : -1;
}

/* waitany's record: the peers of the requests not done (none known when a
 * receive takes any source), and the object they share, if they do. */
static void waitany_record(rmalab__block *b, int *world, rmalab_request *const *rqs, int n)
{
    *b = (rmalab__block){.call = "waitany", .object = "comm", .id = UINT64_MAX,
                         .interruptible = true};
    const rmalab_request *first = NULL;
    bool one = true, known = true;
    for (int i = 0; i < n; i++) {
        const rmalab_request *r = rqs[i];
        if (!r || r->done)
            continue;
        one = one && (!first || (r->win == first->win && r->c == first->c));
        first = first ? first : r;
        int wr = peer_world(r), k = 0;
        known = known && wr >= 0;
        b->passive = b->passive || r->kind == RMALAB__RQ_RMA; /* needs its target's progress */
        while (k < b->n && world[k] != wr)
            k++;
        if (known && k == b->n && b->n < RMALAB_STATE_MAX_RANKS)
            world[b->n++] = wr;
    }
    b->ranks = world;
    b->n = known ? b->n : 0;
    if (first && one && first->kind == RMALAB__RQ_RMA && first->win) {
        b->object = "win";
        b->id = first->win->id;
    } else if (first && one && first->kind != RMALAB__RQ_RMA) {
        rmalab__block c;
        rmalab__block_comm(&c, rmalab_comm_mpi(first->c));
        b->id = c.id;
    }
}

int rmalab_request_waitany(rmalab_request *const *rqs, int n, int *index)
{
    *index = -1;
    int live = 0, world[RMALAB_STATE_MAX_RANKS];
    for (int i = 0; i < n; i++)
        live += rqs[i] != NULL;
    if (!live)
        return RMALAB_OK;
    rmalab__block b;
    waitany_record(&b, world, rqs, n);
    (void)rmalab__block_enter(&b); /* not collective: cannot fail */
    rmalab__backoff bo = RMALAB__BACKOFF_INIT;
    int rc = RMALAB_OK;
    while (*index < 0 && !rmalab__block_interrupted(&b)) {
        for (int i = 0; i < n && *index < 0; i++) {
            if (rqs[i] && ((rc = step(rqs[i], false)) || rqs[i]->done))
                *index = i;
        }
        if (*index < 0) {
            rmalab__msg_progress(NULL);
            rmalab__block_backoff(&bo);
        }
    }
    rmalab__block_leave(&b);
    if (*index < 0)
        rc = rmalab__err_fail(RMALAB_ERR_INTERRUPTED, "waitany: interrupted before any request "
                                                      "completed; each can still be waited for");
    return rc;
}

uint64_t rmalab_request_ticket(const rmalab_request *rq)
{
    return rq && rq->kind == RMALAB__RQ_RMA ? rq->ticket : 0;
}

rmalab_request_kind rmalab_request_get_kind(const rmalab_request *rq)
{
    return rq ? (rmalab_request_kind)rq->kind : RMALAB_REQUEST_SEND;
}

int rmalab_request_is_recv(const rmalab_request *rq)
{
    return rq && rq->kind == RMALAB__RQ_RECV;
}

int rmalab_request_done(const rmalab_request *rq)
{
    return rq && rq->done;
}

void rmalab_request_describe(const rmalab_request *rq, char *buf, size_t size)
{
    if (!rq) {
        snprintf(buf, size, "no request");
        return;
    }
    if (rq->kind == RMALAB__RQ_RMA) {
        snprintf(buf, size, "%s", rq->what);
        return;
    }
    bool recv = rq->kind == RMALAB__RQ_RECV;
    char peer[24], tag[16];
    snprintf(peer, sizeof peer, rq->peer < 0 ? "any rank" : "rank %d", rq->peer);
    snprintf(tag, sizeof tag, rq->tag < 0 ? "any" : "%d", rq->tag);
    snprintf(buf, size, "%s %s %s, tag %s", recv ? "irecv" : "isend", recv ? "from" : "to", peer,
             tag);
}

void rmalab_request_destroy(rmalab_request **rq)
{
    rmalab_request *r = rq ? *rq : NULL;
    if (!r)
        return;
    *rq = NULL;
    if (r->kind != RMALAB__RQ_RMA) {
        rmalab__p2p_rq_destroy(r);
        return;
    }
    if (r->win && !r->done) {
        /* Completed locally here: MPICH 4.0.2's MPI_Request_free refuses
         * an RMA request ("The supplied request was invalid") and ends the
         * job, though MPI lets any request be freed. The wait is local:
         * the operation reaches its target at the epoch's completion. */
        MPI_Wait(&r->req[0], MPI_STATUS_IGNORE);
        unlink_win(r);
        r->win = NULL;
    }
    if (r->done || !r->win)
        rmalab__p2p_rq_finished(r);
    rmalab__mem_free(r);
}
