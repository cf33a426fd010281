/* The race checker at each call (docs/races.md): its face to the rest
 * of the core, and the one file of the checker that sees the window.
 *
 * Every call on a window that the checker sees comes in through the event
 * layer (observe.c), which calls the checker's part here:
 *   operations and local accesses (rmalab__races_sync_op, _local,
 *            _direct): their records, with the epoch facts their event
 *            carries (the lock held, the call that opened the epoch:
 *            sync.c fills them), so the checker never reads the state;
 *   synchronisation (rmalab__races_sync_ahead and _sync), read from its
 *            kind's row in rmalab/sync.h, which races-wire.c carries out:
 *   releases CLOCK: post;  EPOCH: complete;  TARGETS: unlock, flush and
 *            their _all;  ALL: fence;  LOCAL (flush_local): nothing, as
 *            the accesses stay with the origin until a flush or unlock
 *            completes them at their target;
 *   acquires EPOCH: wait, test;  otherwise the batches that arrived;
 *            then what the call found is raised, warned of or kept
 *            (races-report.c).
 * Its life with a window (open, close, free) is the one place that sees
 * both the window and the checker's state. */
#include "races-private.h"
#include "races-rlist.h"
#include "races-report.h"
#include "races-wire.h"
#include "win-private.h"
#include "alloc.h"
#include "error-private.h"
#include "hints-private.h"
#include "races-sync.h"

#include <stdlib.h>
#include <string.h>

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

static uint32_t next_id; /* the last access record's number */

/* A record of an access by this rank, issued now, appended to `l` or merged
 * into its last record (an adjacent access of the same kind from the same
 * site in the same interval); *id: the record's number. */
static int add(struct rmalab__rlist *l, const rmalab__racc *proto, uint32_t *id)
{
    rmalab__racc *r = rmalab__races_rlist_push(l);
    if (!r)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory recording an access");
    memcpy(r, proto, sizeof *r);
    r->id = ++next_id;
    memcpy(r->vc, rmalab__clock_now(), rmalab__clock_bytes());
    r->entry = rmalab__clock_entry();
    if (r->local) /* a point: completed by the next release */
        r->c = rmalab__clock_mine() + 1;
    *id = rmalab__races_rlist_merge_last(l)->id;
    return RMALAB_OK;
}

int rmalab__races_sync_op(struct rmalab__races *R, const rmalab__op_event *ev, uint32_t *id)
{
    rmalab__racc r = record_of(R, ev, false);
    r.call = (uint8_t)ev->kind;
    r.kind = ev->kind == RMALAB_TRACE_PUT   ? RMALAB__RK_WRITE
             : ev->kind == RMALAB_TRACE_GET ? RMALAB__RK_READ
                                            : RMALAB__RK_ATOMIC;
    (ev->more ? rmalab__races_report_site_keep : rmalab__races_report_site)(
        r.site, sizeof r.site, rmalab_trace_kind_name((rmalab_trace_kind)ev->kind));
    return add(&R->out[ev->target], &r, id);
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
    return add(one, &r, id);
}

/* The one record of the local access that rmalab__races_sync_local made last. */
static struct rmalab__rlist one_local;

int rmalab__races_sync_local(struct rmalab__races *R, const rmalab__op_event *ev, uint32_t *id)
{
    static const char *const sites[2] = {"win:read", "win:write"};
    return point_record(R, ev, sites, &one_local, id);
}

int rmalab__races_sync_local_check(struct rmalab__races *R, const rmalab__op_event *ev)
{
    int rc = rmalab__races_check(R, &one_local, 0, &R->found_pairs);
    rmalab__races_report(R, &R->found_pairs, NULL);
    return rmalab__races_report_finish(R, ev->kind == RMALAB_TRACE_WRITE ? "write" : "read", rc);
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
    if (!rc)
        rc = rmalab__races_wire_passive(R, ev->target, none, &one);
    rmalab__mem_free(none);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* The checker's part of each call (observe.c)                              */

/* The checker's step for a call on R's window, from its kind's row: ahead
 * of its MPI call (post's clock, complete's records; else nothing), or
 * once it ended. */
static struct rmalab__races_step step_of(const struct rmalab__races *R,
                                         const rmalab__sync_event *ev, bool ahead)
{
    const rmalab_sync_kind *k = ev->k;
    struct rmalab__races_step st = {.group = ev->group, .n = ev->n, .lo = 0, .hi = R->size};
    if (ahead)
        st.what = k->releases == RMALAB_RELEASE_CLOCK   ? RMALAB__DO_POST
                  : k->releases == RMALAB_RELEASE_EPOCH ? RMALAB__DO_COMPLETE
                                                        : RMALAB__DO_ARRIVED;
    else if (k->releases == RMALAB_RELEASE_ALL)
        st.what = RMALAB__DO_FENCE;
    else if (k->releases == RMALAB_RELEASE_TARGETS)
        st.what = RMALAB__DO_RELEASED;
    else if (k->acquires == RMALAB_ACQUIRE_EPOCH)
        st.what = RMALAB__DO_EXPOSED;
    else
        st.what = RMALAB__DO_ARRIVED;
    if (st.what == RMALAB__DO_RELEASED && k->scope == RMALAB_SYNC_PEER)
        st.lo = ev->peer, st.hi = ev->peer + 1;
    return st;
}

/* One step through the checker's files, each once: messages in
 * (races-wire.c), the model's part (races.c), which returns the races it
 * found in R->found_pairs, messages out (races-wire.c). The caller reports.
 * Once the wire lost a message (R->lost) the model checks nothing and keeps
 * no log: what the message carried could make ordered accesses seem to
 * race; the messages still go in and out, which the other ranks wait for. */
static int run(struct rmalab__races *R, struct rmalab__races_step *st)
{
    int rc = rmalab__races_wire_in(R, st), rc2 = RMALAB_OK;
    if (R->lost)
        rmalab__races_forget(R, false);
    else
        rc2 = rmalab__races_take(R, st, &R->found_pairs);
    int rc3 = rmalab__races_wire_out(R, st);
    return rc ? rc : rc2 ? rc2 : rc3;
}

/* A message lost ahead of the engine's call (complete's POST) fails
 * nothing: its DONE messages went out, and the targets wait for the call;
 * the wire warned that checking stops. */
int rmalab__races_sync_ahead(struct rmalab__races *R, const rmalab__sync_event *ev)
{
    struct rmalab__races_step st = step_of(R, ev, true);
    int rc = st.what == RMALAB__DO_ARRIVED ? RMALAB_OK : run(R, &st);
    return rc == RMALAB_ERR_NO_MEM && R->lost ? RMALAB_OK : rc;
}

/* Where the call is, for reports; then its step once it ended, and what
 * was found on the way, reported once, then raised, warned of or kept; at
 * a fence every rank raises together, and the log is forgotten. */
int rmalab__races_sync(struct rmalab__races *R, const rmalab__sync_event *ev)
{
    const rmalab_sync_kind *k = ev->k;
    struct rmalab__races_step st = step_of(R, ev, false);
    if (st.what == RMALAB__DO_EXPOSED && !ev->n)
        return RMALAB_OK; /* a wait or test that ends no exposure epoch */
    char at[96];
    rmalab__races_report_where(at, sizeof at, k->name);
    int rc = run(R, &st), rc2 = RMALAB_OK;
    rmalab__races_report(R, &R->found_pairs, at);
    if (st.what == RMALAB__DO_FENCE)
        rc2 = rmalab__races_report_finish_together(R, R->S, "fence");
    int rc3 = rmalab__races_report_finish(R, k->name, rc ? rc : rc2);
    if (st.what == RMALAB__DO_FENCE)
        rmalab__races_forget(R, !rc2); /* the fence orders everything before it */
    return rc3;
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
    /* The rule's hints, from the window's at creation. */
    const char *ops = rmalab__hints_lookup(w->at_create, RMALAB_KEY_ACCUMULATE_OPS);
    const char *ord = rmalab__hints_lookup(w->at_create, RMALAB_KEY_ACCUMULATE_ORDERING);
    R->same_op_no_op = !ops || strcmp(ops, "same_op") != 0;
    R->acc_ordered = !ord || strcmp(ord, "none") != 0;
    int rc = rmalab__clock_ready();
    if (!rc && (!(R->S = rmalab__mem_alloc(rmalab__clock_bytes())) ||
                !(R->together = rmalab__mem_alloc(rmalab__clock_bytes() + sizeof(int64_t)))))
        rc = rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory for the race checker");
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
    int want[2] = {mode != RMALAB_CHECK_OFF, mode == RMALAB_CHECK_RACES}, any[2] = {0, 0};
    int e = MPI_Allreduce(want, any, 2, MPI_INT, MPI_MAX, w->comm);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "deciding whether to check for races");
    if (!any[0])
        return RMALAB_OK;
    MPI_Comm comm;
    if ((e = MPI_Comm_dup(w->comm, &comm)) != MPI_SUCCESS)
        return rmalab__err_mpi(e, "MPI_Comm_dup (race checker)");
    int rc = open_state(w, mode, comm);
    if (w->races)
        w->races->raise_together = any[1];
    if (rc && !w->races)
        MPI_Comm_free(&comm);
    return rmalab__err_agree(w->comm, rc, "starting the race checker");
}

int rmalab__races_sync_close(struct rmalab__races *R)
{
    char at[96];
    rmalab__races_report_where(at, sizeof at, "free");
    struct rmalab__races_step st = {.what = RMALAB__DO_CLOSE};
    int rc = run(R, &st);
    rmalab__races_report(R, &R->found_pairs, at);
    int rc2 = rmalab__races_report_finish_together(R, NULL, "free");
    return rc ? rc : rc2;
}

void rmalab__races_sync_free(rmalab_win *w)
{
    struct rmalab__races *R = w->races;
    if (!R)
        return;
    w->races = NULL;
    rmalab__races_wire_free(R);
    for (int t = 0; R->out && t < w->size; t++)
        rmalab__races_rlist_free(&R->out[t]);
    rmalab__mem_free(R->out);
    rmalab__mem_free(R->sent);
    rmalab__mem_free(R->recvd);
    rmalab__mem_free(R->found);
    rmalab__mem_free(R->S);
    rmalab__mem_free(R->together);
    rmalab__races_rlist_free(&R->found_pairs);
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
