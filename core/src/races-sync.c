/* The race checker at each call (docs/races.md): what every
 * synchronisation carries, how records reach the rank whose memory they
 * touch, and where races are checked and reported. races.c holds the
 * model and the log.
 *
 * An origin keeps the records of its operations to each target until the
 * call that completes them, then ships them to the target as one message
 * on the checker's own communicator (a duplicate of the window's):
 *   post     sends its clock to each origin (tag POST) before the engine's post;
 *   complete takes each target's post clock into the epoch's records,
 *            releases, and sends them with its clock (DONE) before the
 *            engine's complete; wait and test receive one DONE per origin,
 *            check and acquire;
 *   unlock, flush  release and send (PASSIVE) after checking the batch's
 *            own pairs; the target checks what arrived at its next
 *            synchronisation call, and at fence and free at the latest,
 *            where the ranks first exchange how many each sent to each;
 *   fence    sends every record (FENCE), exchanges the counts, checks,
 *            and joins the clocks in an allreduce, which also says who
 *            found a race, so that every rank raises together;
 *   free     is the last such exchange.
 * races-wire.c carries the messages.
 *
 * Every call on a window that the checker sees comes in through the event
 * layer (observe.c), which calls the checker's part here (rmalab__races_sync_ahead
 * and _sync for synchronisation, read from its kind's row in rmalab/sync.h;
 * rmalab__races_sync_op, _local and _direct for operations and local accesses):
 *   releases CLOCK: post;  EPOCH: complete;  TARGETS: unlock, flush and
 *            their _all;  ALL: fence;  LOCAL (flush_local): nothing, as
 *            the accesses stay with the origin until a flush or unlock
 *            completes them at their target;
 *   acquires EPOCH: wait, test;  otherwise the batches that arrived.
 * An operation's event carries what the epoch state says of it (the lock
 * held, the call that opened its epoch: sync.c fills it), so the checker
 * never reads the state itself. */
#include "races-private.h"
#include "win-private.h"
#include "alloc.h"
#include "error-private.h"
#include "hints-private.h"
#include "races-sync.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rmalab/debug.h>

/* ------------------------------------------------------------------------ */
/* Accesses                                                                 */


/* A record of the access ev, with the epoch facts it carries. */
static rmalab__racc record_of(const struct rmalab__races *R, const rmalab__op_event *ev, bool local)
{
    rmalab__racc r = {0};
    MPI_Aint unit = R->dynamic || ev->in_bytes ? 1
                    : local                ? R->disp_unit
                                           : R->disp_units[ev->target];
    r.lo = (int64_t)ev->disp * unit;
    r.hi = r.lo + (int64_t)ev->count * rmalab_type_size(ev->type);
    r.issuer = R->rank;
    r.target = ev->target;
    r.count = (uint32_t)ev->count;
    r.op = (uint8_t)ev->op;
    r.type = (uint8_t)ev->type;
    r.lock = ev->lock;
    r.during = ev->during;
    r.local = local;
    return r;
}

int rmalab__races_sync_op(struct rmalab__races *R, const rmalab__op_event *ev, uint32_t *id)
{
    rmalab__racc r = record_of(R, ev, false);
    r.call = (uint8_t)ev->kind;
    r.kind = ev->kind == RMALAB_TRACE_PUT   ? RMALAB__RK_WRITE
             : ev->kind == RMALAB_TRACE_GET ? RMALAB__RK_READ
                                            : RMALAB__RK_ATOMIC;
    rmalab__races_report_site(r.site, sizeof r.site,
                              rmalab_trace_kind_name((rmalab_trace_kind)ev->kind));
    return rmalab__races_racc_add(&R->out[ev->target], &r, id);
}

/* A point access (a read or write, a load or store) as one record, alone
 * in `one` (emptied first); *id numbers it. `sites`: the site's name for a
 * read, then for a write. */
static int point_record(struct rmalab__races *R, const rmalab__op_event *ev, const char *const sites[2],
                        struct rmalab__rlist *one, uint32_t *id)
{
    bool write = ev->kind == RMALAB_TRACE_WRITE;
    rmalab__racc r = record_of(R, ev, true);
    r.kind = write ? RMALAB__RK_WRITE : RMALAB__RK_READ;
    r.call = write ? RMALAB__RC_WRITE : RMALAB__RC_READ;
    rmalab__races_report_site(r.site, sizeof r.site, sites[write]);
    one->n = 0;
    return rmalab__races_racc_add(one, &r, id);
}

/* The one record of the local access that rmalab__races_sync_local made last. */
/* A list's records, as the checks take them. */
static const rmalab__racc *first(const struct rmalab__rlist *l)
{
    return (const rmalab__racc *)l->p;
}

static struct rmalab__rlist one_local;

int rmalab__races_sync_local(struct rmalab__races *R, const rmalab__op_event *ev, uint32_t *id)
{
    static const char *const sites[2] = {"win:read", "win:write"};
    return point_record(R, ev, sites, &one_local, id);
}

int rmalab__races_sync_local_check(struct rmalab__races *R, const rmalab__op_event *ev)
{
    rmalab__races_check(R, first(&one_local), 1, 0, NULL);
    return rmalab__races_report_finish(R, ev->kind == RMALAB_TRACE_WRITE ? "write" : "read",
                                       RMALAB_OK);
}

/* A load or store through a pointer to another rank's memory (a view of a
 * shared window): a point, as a win:read/win:write is, which the rank
 * whose memory it is checks as a passive batch of one record (its clock
 * is never acquired, so it carries none). */
int rmalab__races_sync_direct(struct rmalab__races *R, const rmalab__op_event *ev, uint32_t *id)
{
    static struct rmalab__rlist one;
    static const char *const sites[2] = {"a load", "a store"};
    int64_t *none = rmalab__mem_calloc(1, rmalab__clock_bytes());
    int rc = none ? point_record(R, ev, sites, &one, id)
                  : rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    if (!rc && !(rc = rmalab__races_wire_send(R, ev->target, RMALAB__TAG_PASSIVE, none, &one)))
        R->sent[ev->target]++;
    rmalab__mem_free(none);
    return rc;
}

/* Records to `t` are complete: the issuer's release S completed them. */
static void completed(const struct rmalab__races *R, struct rmalab__rlist *l, const int64_t *S)
{
    rmalab__races_rlist_complete(l, S[R->world[R->rank]]);
}

/* ------------------------------------------------------------------------ */
/* Synchronisation                                                          */

static int synced(struct rmalab__races *R, const char *call)
{
    char at[96];
    rmalab__races_report_where(at, sizeof at, call);
    return rmalab__races_report_finish(R, call, rmalab__races_wire_drain(R, at));
}

static int post_clock(struct rmalab__races *R, const int *ranks, int n)
{
    int64_t *S = rmalab__mem_alloc(rmalab__clock_bytes());
    if (!S)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    rmalab__clock_release(S);
    R->exposing = true;
    int rc = RMALAB_OK;
    for (int i = 0; i < n && !rc; i++)
        rc = rmalab__races_wire_send(R, ranks[i], RMALAB__TAG_POST, S, NULL);
    rmalab__mem_free(S);
    return rc;
}

/* MPI orders a target's accesses before its post only before the
 * operations of the access epoch that matches it: the post clock joins
 * those records, not this rank's clock. */
static int join_post(struct rmalab__races *R, int t)
{
    unsigned char *buf;
    int rc = rmalab__races_wire_recv(R, t, RMALAB__TAG_POST, &buf);
    if (rc)
        return rc;
    rmalab__races_rlist_join(&R->out[t], rmalab__races_wire_msg_clock(buf));
    rmalab__mem_free(buf);
    return RMALAB_OK;
}

static int complete_epoch(struct rmalab__races *R, const int *group, int n)
{
    int rc = RMALAB_OK;
    for (int i = 0; i < n && !rc; i++)
        rc = join_post(R, group[i]);
    int64_t *S = rc ? NULL : rmalab__mem_alloc(rmalab__clock_bytes());
    if (!rc && !S)
        rc = rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    if (rc)
        return rc;
    rmalab__clock_release(S);
    for (int i = 0; i < n && !rc; i++) {
        completed(R, &R->out[group[i]], S);
        rc = rmalab__races_wire_send(R, group[i], RMALAB__TAG_DONE, S, &R->out[group[i]]);
        R->out[group[i]].n = 0;
    }
    rmalab__mem_free(S);
    return rc;
}

static int exposed(struct rmalab__races *R, const int *xgroup, int n, const char *call)
{
    char at[96];
    rmalab__races_report_where(at, sizeof at, call);
    int rc = RMALAB_OK;
    for (int i = 0; i < n && !rc; i++)
        rc = rmalab__races_wire_take(R, xgroup[i], RMALAB__TAG_DONE, false, at, true);
    if (!rc) {
        R->exposing = false; /* every record of the epoch is in */
        rmalab__races_prune(R);
    }
    return rmalab__races_report_finish(R, call, rc ? rc : rmalab__races_wire_drain(R, at));
}

/* Passive target: the records to t are complete. The origin checks the
 * batch's own pairs (the target may call nothing soon), then ships it. */
static int ship_passive(struct rmalab__races *R, int t, const int64_t *S, const char *at)
{
    struct rmalab__rlist *l = &R->out[t];
    if (!l->n)
        return RMALAB_OK;
    completed(R, l, S);
    int rc = RMALAB_OK;
    if (t == R->rank) {
        rmalab__races_check(R, first(l), l->n, RMALAB__CK_PASSIVE, at);
    } else {
        rmalab__races_within(R, first(l), l->n, at);
        if (!(rc = rmalab__races_wire_send(R, t, RMALAB__TAG_PASSIVE, S, l)))
            R->sent[t]++;
    }
    l->n = 0;
    return rc;
}

static int released(struct rmalab__races *R, int target, const char *call)
{
    char at[96];
    rmalab__races_report_where(at, sizeof at, call);
    int64_t *S = rmalab__mem_alloc(rmalab__clock_bytes());
    if (!S)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    rmalab__clock_release(S);
    int rc = RMALAB_OK;
    for (int t = target < 0 ? 0 : target; t < (target < 0 ? R->size : target + 1) && !rc; t++)
        rc = ship_passive(R, t, S, at);
    rmalab__mem_free(S);
    return rmalab__races_report_finish(R, call, rc ? rc : rmalab__races_wire_drain(R, at));
}

static int fenced(struct rmalab__races *R)
{
    char at[96];
    rmalab__races_report_where(at, sizeof at, "fence");
    int P = R->size, rc = RMALAB_OK;
    int64_t *S = rmalab__mem_alloc(rmalab__clock_bytes() + (size_t)P * sizeof(int64_t));
    if (!S)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    int64_t *sent = S + rmalab__clock_size();
    rmalab__clock_release(S);
    for (int t = 0; t < P; t++) {
        struct rmalab__rlist *l = &R->out[t];
        sent[t] = t != R->rank && l->n;
        completed(R, l, S);
        if (t == R->rank)
            rmalab__races_check(R, first(l), l->n, 0, at);
        else if (l->n && !rc)
            rc = rmalab__races_wire_send(R, t, RMALAB__TAG_FENCE, S, l);
        l->n = 0;
    }
    /* Every rank goes through the collectives, whatever failed. */
    int rc2 = rmalab__races_wire_exchange(R, sent, at);
    int rc3 = rmalab__races_report_finish_together(R, S, "fence");
    rmalab__mem_free(S);
    /* The fence orders everything before it. */
    rmalab__races_forget(R, rc3 ? NULL : rmalab__clock_now());
    return rc ? rc : rc2 ? rc2 : rc3;
}

/* ------------------------------------------------------------------------ */
/* The checker's part of each call (observe.c)                              */

int rmalab__races_sync_ahead(struct rmalab__races *R, const rmalab__sync_event *ev)
{
    switch (ev->k->releases) {
    case RMALAB_RELEASE_CLOCK: return post_clock(R, ev->group, ev->n);
    case RMALAB_RELEASE_EPOCH: return complete_epoch(R, ev->group, ev->n);
    default: return RMALAB_OK;
    }
}

int rmalab__races_sync(struct rmalab__races *R, const rmalab__sync_event *ev)
{
    const rmalab_sync_kind *k = ev->k;
    if (k->releases == RMALAB_RELEASE_ALL)
        return fenced(R);
    if (k->releases == RMALAB_RELEASE_TARGETS)
        return released(R, k->scope == RMALAB_SYNC_PEER ? ev->peer : -1, k->name);
    if (k->acquires == RMALAB_ACQUIRE_EPOCH)
        return ev->n ? exposed(R, ev->group, ev->n, k->name) : RMALAB_OK;
    return synced(R, k->name);
}

/* ------------------------------------------------------------------------ */
/* The checker's life                                                       */

/* The hint's values (validated against the catalogue), and RMALAB_CHECK's:
 * anything else is off. */
static rmalab_check_mode mode_of(const char *v)
{
    for (rmalab_check_mode m = RMALAB_CHECK_RACES; v && m <= RMALAB_CHECK_QUIET; m++)
        if (strcmp(v, rmalab_check_mode_name(m)) == 0)
            return m;
    return RMALAB_CHECK_OFF;
}

rmalab_check_mode rmalab_win_check_mode(const rmalab_win *w)
{
    return w && w->races ? w->races->mode : RMALAB_CHECK_OFF;
}

static int open_state(rmalab_win *w, rmalab_check_mode mode, MPI_Comm comm)
{
    struct rmalab__races *R = rmalab__mem_calloc(1, sizeof *R);
    if (!R)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory for the race checker");
    w->races = R;
    R->comm = comm;
    R->mode = mode ? mode : RMALAB_CHECK_QUIET; /* a rank that did not ask records */
    /* What the checker knows of its window: from here on it is handed its
     * own state, never the window. */
    R->rank = w->rank;
    R->size = w->size;
    R->world = w->lay.world_ranks;
    R->dynamic = w->flavor == RMALAB_FLAVOR_DYNAMIC;
    R->disp_unit = w->disp_unit;
    R->disp_units = w->lay.disp_units;
    R->name = w->name;
    R->out = rmalab__mem_calloc((size_t)w->size, sizeof *R->out);
    R->sent = rmalab__mem_calloc((size_t)w->size, sizeof *R->sent);
    R->recvd = rmalab__mem_calloc((size_t)w->size, sizeof *R->recvd);
    if (!R->out || !R->sent || !R->recvd)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory for the race checker");
    int rc = rmalab__races_model_init(R, w->at_create);
    return rc ? rc : rmalab__races_log_init(R);
}

static rmalab_check_mode mode_asked(const rmalab_win *w)
{
    const char *v = rmalab__hints_lookup(w->at_create, RMALAB_KEY_CHECK);
    return mode_of(v ? v : getenv("RMALAB_CHECK"));
}

bool rmalab__races_sync_wanted(const rmalab_win *w) { return mode_asked(w) != RMALAB_CHECK_OFF; }
rmalab_check_mode rmalab__races_sync_asked(const rmalab_win *w) { return mode_asked(w); }

int rmalab__races_sync_open(rmalab_win *w)
{
    rmalab_check_mode mode = mode_asked(w);
    int want = mode != RMALAB_CHECK_OFF, any = 0;
    int e = MPI_Allreduce(&want, &any, 1, MPI_INT, MPI_MAX, w->comm);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "deciding whether to check for races");
    if (!any)
        return RMALAB_OK;
    MPI_Comm comm;
    if ((e = MPI_Comm_dup(w->comm, &comm)) != MPI_SUCCESS)
        return rmalab__err_mpi(e, "MPI_Comm_dup (race checker)");
    int rc = open_state(w, mode, comm);
    if (rc && !w->races)
        MPI_Comm_free(&comm);
    return rmalab__err_agree(w->comm, rc, "starting the race checker");
}

int rmalab__races_sync_close(struct rmalab__races *R)
{
    char at[96];
    rmalab__races_report_where(at, sizeof at, "free");
    int rc = rmalab__races_wire_exchange(R, NULL, at);
    int rc2 = rmalab__races_report_finish_together(R, NULL, "free");
    /* Every peer has received what this rank sent: the sends end now. */
    for (int i = 0; i < R->nreq; i++) {
        MPI_Wait(&R->req[i], MPI_STATUS_IGNORE);
        rmalab__mem_free(R->reqbuf[i]);
    }
    R->nreq = 0;
    return rc ? rc : rc2;
}

void rmalab__races_sync_free(rmalab_win *w)
{
    struct rmalab__races *R = w->races;
    if (!R)
        return;
    w->races = NULL;
    /* Sends still in flight (a window abandoned on the way out) keep
     * their buffers: MPI may still read them. */
    for (int i = 0; i < R->nreq; i++)
        MPI_Request_free(&R->req[i]);
    rmalab__mem_free(R->req);
    rmalab__mem_free(R->reqbuf);
    for (int t = 0; R->out && t < w->size; t++)
        rmalab__races_rlist_free(&R->out[t]);
    rmalab__mem_free(R->out);
    rmalab__mem_free(R->sent);
    rmalab__mem_free(R->recvd);
    rmalab__mem_free(R->found);
    rmalab__races_log_free(R);
    if (R->comm != MPI_COMM_NULL && R->comm != 0)
        MPI_Comm_free(&R->comm);
    rmalab__mem_free(R);
}

int rmalab__races_sync_found(struct rmalab__races *R, const struct rmalab__races_found **list)
{
    int n = R->nfound;
    R->nfound = 0;
    *list = R->found;
    return n;
}

int rmalab_debug_races_log(const rmalab_win *w, long *log, long *past)
{
    if (!w)
        return rmalab__err_fail(RMALAB_ERR_WIN, "rmalab_debug_races_log: the window is NULL");
    const struct rmalab__races *R = w->races;
    *log = R ? R->log.l.n - R->log.dead : 0;
    *past = R ? R->past.l.n - R->past.dead : 0;
    return RMALAB_OK;
}
