/* The race checker at each call (docs/races.md): what every
 * synchronisation carries, how records reach the rank whose memory they
 * touch, and where races are checked and reported. races.c holds the model.
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
 * Messages go out with MPI_Isend before the call that lets the peer go on,
 * so a receive never waits for a peer's progress beyond a message already
 * sent. Waits poll and sleep, as every deliberate wait in rmalab does.
 *
 * Every call on a window that the recorder and the checker see comes in
 * through one entry point at the end (rmalab__sync_* for synchronisation,
 * read from its kind's row in rmalab/sync.h; rmalab__op_* for operations):
 *   releases CLOCK: post;  EPOCH: complete;  TARGETS: unlock, flush and
 *            their _all;  ALL: fence;  LOCAL (flush_local): nothing, as
 *            the accesses stay with the origin until a flush or unlock
 *            completes them at their target;
 *   acquires EPOCH: wait, test;  otherwise the batches that arrived. */
#include "sync-event.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { TAG_POST = 1, TAG_DONE, TAG_PASSIVE, TAG_FENCE };

/* A message: this header, the sender's clock (W entries), then records. */
typedef struct {
    int32_t nrec, spare;
    int64_t pad;
} msg_hdr;

static size_t clock_bytes(void) { return (size_t)rmalab__clock_size() * sizeof(int64_t); }

/* ------------------------------------------------------------------------ */
/* Messages                                                                 */

/* Forget sends that finished; their buffers go with them. */
static void reap(struct rmalab__races *R)
{
    int j = 0;
    for (int i = 0; i < R->nreq; i++) {
        int done = 0;
        MPI_Test(&R->req[i], &done, MPI_STATUS_IGNORE);
        if (done) {
            rmalab__free(R->reqbuf[i]);
            continue;
        }
        R->req[j] = R->req[i];
        R->reqbuf[j++] = R->reqbuf[i];
    }
    R->nreq = j;
}

static int send_msg(rmalab_win *w, int to, int tag, const int64_t *clock,
                    const struct rmalab__rlist *recs)
{
    struct rmalab__races *R = w->races;
    reap(R);
    if (R->nreq == R->capreq) {
        int cap = R->capreq ? 2 * R->capreq : 8;
        MPI_Request *q = rmalab__realloc(R->req, (size_t)cap * sizeof *q);
        if (q)
            R->req = q;
        void **b = q ? rmalab__realloc(R->reqbuf, (size_t)cap * sizeof *b) : NULL;
        if (!b)
            return rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
        R->reqbuf = b;
        R->capreq = cap;
    }
    int n = recs ? recs->n : 0;
    size_t bytes = sizeof(msg_hdr) + clock_bytes() + (size_t)n * rmalab__racc_size();
    unsigned char *buf = rmalab__malloc(bytes);
    if (!buf)
        return rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    *(msg_hdr *)buf = (msg_hdr){.nrec = n};
    memcpy(buf + sizeof(msg_hdr), clock, clock_bytes());
    if (n)
        memcpy(buf + sizeof(msg_hdr) + clock_bytes(), recs->p, (size_t)n * rmalab__racc_size());
    int e = MPI_Isend(buf, (int)bytes, MPI_BYTE, to, tag, R->comm, &R->req[R->nreq]);
    if (e != MPI_SUCCESS) {
        rmalab__free(buf);
        return rmalab__mpi_fail(e, "MPI_Isend (race checker)");
    }
    R->reqbuf[R->nreq++] = buf;
    return RMALAB_OK;
}

/* A message from `from` (blocking: it was sent before the call that let
 * this rank get here). The caller frees *buf. */
static int recv_msg(rmalab_win *w, int from, int tag, unsigned char **buf)
{
    struct rmalab__races *R = w->races;
    MPI_Status st;
    int flag = 0, count;
    for (unsigned spins = 0;; spins++) {
        int e = MPI_Iprobe(from, tag, R->comm, &flag, &st);
        if (e != MPI_SUCCESS)
            return rmalab__mpi_fail(e, "MPI_Iprobe (race checker)");
        if (flag)
            break;
        if (spins > 1000)
            nanosleep(&(struct timespec){0, 50000}, NULL);
    }
    MPI_Get_count(&st, MPI_BYTE, &count);
    *buf = rmalab__malloc((size_t)count);
    if (!*buf)
        return rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    int e = MPI_Recv(*buf, count, MPI_BYTE, st.MPI_SOURCE, tag, R->comm, MPI_STATUS_IGNORE);
    if (e != MPI_SUCCESS) {
        rmalab__free(*buf);
        return rmalab__mpi_fail(e, "MPI_Recv (race checker)");
    }
    return RMALAB_OK;
}

static const int64_t *msg_clock(const unsigned char *buf)
{
    return (const int64_t *)(buf + sizeof(msg_hdr));
}
static int msg_n(const unsigned char *buf) { return ((const msg_hdr *)buf)->nrec; }
static const rmalab__racc *msg_recs(const unsigned char *buf)
{
    return (const rmalab__racc *)(buf + sizeof(msg_hdr) + clock_bytes());
}

/* Receive one message and check its records. */
static int take(rmalab_win *w, int from, int tag, bool intra, const char *at, bool acquire)
{
    unsigned char *buf;
    int rc = recv_msg(w, from, tag, &buf);
    if (rc)
        return rc;
    rmalab__races_check(w, msg_recs(buf), msg_n(buf),
                        intra ? RMALAB__CK_INTRA | RMALAB__CK_PASSIVE : 0, at);
    if (acquire)
        rmalab__clock_acquire(msg_clock(buf));
    rmalab__free(buf);
    return RMALAB_OK;
}

/* Passive-target batches that have arrived. */
static int drain(rmalab_win *w, const char *at)
{
    struct rmalab__races *R = w->races;
    for (;;) {
        int flag = 0;
        MPI_Status st;
        int e = MPI_Iprobe(MPI_ANY_SOURCE, TAG_PASSIVE, R->comm, &flag, &st);
        if (e != MPI_SUCCESS)
            return rmalab__mpi_fail(e, "MPI_Iprobe (race checker)");
        if (!flag)
            return RMALAB_OK;
        int rc = take(w, st.MPI_SOURCE, TAG_PASSIVE, true, at, false);
        if (rc)
            return rc;
        R->recvd[st.MPI_SOURCE]++;
    }
}

/* ------------------------------------------------------------------------ */
/* Reporting                                                                */

/* "wait() at x.lua:31" */
static void where(char *buf, size_t size, const char *call)
{
    char site[48];
    rmalab__races_site(site, sizeof site, "");
    snprintf(buf, size, site[0] ? "%s() at %s" : "%s()", call, site);
}

/* What this rank found during `call`: raised, printed or kept. */
static int finish(rmalab_win *w, const char *call, int rc)
{
    struct rmalab__races *R = w->races;
    unsigned n = R->found_now;
    R->found_now = 0;
    if (rc || !n || R->mode == RMALAB_CHECK_QUIET)
        return rc;
    char more[96] = "";
    if (n > 1)
        snprintf(more, sizeof more, "\n(and %u more races: rmalab.races.list())", n - 1);
    if (R->mode == RMALAB_CHECK_WARN) {
        rmalab__warn("rmalab: %s%s\n(races:warn: continuing)", R->now_text, more);
        return RMALAB_OK;
    }
    return rmalab__fail(RMALAB_ERR_RMA_CONFLICT, "%s: %s%s", call, R->now_text, more);
}

/* Collective: the lowest rank that found a race tells the others, so that
 * in mode races every rank raises at the same fence or free. `S` holds
 * this rank's release clock and gets the join; NULL: no clock. */
static int finish_together(rmalab_win *w, int64_t *S, const char *call)
{
    struct rmalab__races *R = w->races;
    int W = rmalab__clock_size();
    int64_t *v = rmalab__malloc(((size_t)W + 1) * sizeof *v);
    if (!v)
        return rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    if (S)
        memcpy(v, S, (size_t)W * sizeof *v);
    else
        memset(v, 0, (size_t)W * sizeof *v);
    v[W] = R->found_now ? w->size - w->rank : 0;
    int e = MPI_Allreduce(MPI_IN_PLACE, v, W + 1, MPI_INT64_T, MPI_MAX, R->comm);
    int64_t code = v[W];
    if (e == MPI_SUCCESS && S)
        rmalab__clock_acquire(v);
    rmalab__free(v);
    if (e != MPI_SUCCESS)
        return rmalab__mpi_fail(e, "joining the race checker's clocks");
    if (!code)
        return RMALAB_OK;
    int finder = w->size - (int)code;
    char first[sizeof R->now_text];
    memcpy(first, R->now_text, sizeof first);
    e = MPI_Bcast(first, sizeof first, MPI_CHAR, finder, R->comm);
    if (e != MPI_SUCCESS)
        return rmalab__mpi_fail(e, "sharing a race report");
    if (R->found_now) /* this rank's own report */
        return finish(w, call, RMALAB_OK);
    if (R->mode != RMALAB_CHECK_RACES)
        return RMALAB_OK;
    return rmalab__fail(RMALAB_ERR_RMA_CONFLICT, "%s: rank %d found a race on this window:\n%s",
                        call, finder, first);
}

/* ------------------------------------------------------------------------ */
/* Accesses                                                                 */


/* A record of the access ev, with the epoch facts it carries. */
static rmalab__racc record_of(const rmalab_win *w, const rmalab__op_event *ev, bool local)
{
    rmalab__racc r = {0};
    MPI_Aint unit = w->flavor == RMALAB_FLAVOR_DYNAMIC ? 1
                    : local                         ? w->disp_unit
                                                    : w->lay.disp_units[ev->target];
    r.lo = (int64_t)ev->disp * unit;
    r.hi = r.lo + (int64_t)ev->count * rmalab_type_size(ev->type);
    r.issuer = w->rank;
    r.target = ev->target;
    r.count = (uint32_t)ev->count;
    r.op = (uint8_t)ev->op;
    r.type = (uint8_t)ev->type;
    r.lock = ev->lock;
    r.during = ev->during;
    r.local = local;
    return r;
}

static int race_op(rmalab_win *w, const rmalab__op_event *ev, uint32_t *id)
{
    rmalab__racc r = record_of(w, ev, false);
    r.call = (uint8_t)ev->kind;
    r.kind = ev->kind == RMALAB_TRACE_PUT   ? RMALAB__RK_WRITE
             : ev->kind == RMALAB_TRACE_GET ? RMALAB__RK_READ
                                            : RMALAB__RK_ATOMIC;
    rmalab__races_site(r.site, sizeof r.site, rmalab_trace_kind_name((rmalab_trace_kind)ev->kind));
    return rmalab__racc_add(&w->races->out[ev->target], &r, id);
}

int rmalab__op_local(rmalab_win *w, const rmalab__op_event *ev)
{
    if (!w->races)
        return RMALAB_OK;
    static struct rmalab__rlist one;
    bool write = ev->kind == RMALAB_TRACE_WRITE;
    rmalab__racc r = record_of(w, ev, true);
    r.kind = write ? RMALAB__RK_WRITE : RMALAB__RK_READ;
    r.call = write ? RMALAB__RC_WRITE : RMALAB__RC_READ;
    rmalab__races_site(r.site, sizeof r.site, write ? "win:write" : "win:read");
    one.n = 0;
    uint32_t id;
    int rc = rmalab__racc_add(&one, &r, &id);
    if (rc)
        return rc;
    rmalab__trace_op(w, ev->kind, rmalab__trace_t0(w), w->rank, ev->disp, ev->type, ev->count,
                     id);
    rmalab__races_check(w, rmalab__rlist_at(&one, 0), 1, 0, NULL);
    return finish(w, write ? "write" : "read", RMALAB_OK);
}

/* Records to `t` are complete: the issuer's release S completed them. */
static void completed(const rmalab_win *w, struct rmalab__rlist *l, const int64_t *S)
{
    int64_t c = S[w->lay.world_ranks[w->rank]];
    for (int i = 0; i < l->n; i++)
        rmalab__rlist_at(l, i)->c = c;
}

/* ------------------------------------------------------------------------ */
/* Synchronisation                                                          */

static int synced(rmalab_win *w, const char *call)
{
    char at[96];
    where(at, sizeof at, call);
    return finish(w, call, drain(w, at));
}

static int post_clock(rmalab_win *w, const int *ranks, int n)
{
    int64_t *S = rmalab__malloc(clock_bytes());
    if (!S)
        return rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    rmalab__clock_release(S);
    int rc = RMALAB_OK;
    for (int i = 0; i < n && !rc; i++)
        rc = send_msg(w, ranks[i], TAG_POST, S, NULL);
    rmalab__free(S);
    return rc;
}

/* MPI orders a target's accesses before its post only before the
 * operations of the access epoch that matches it: the post clock joins
 * those records, not this rank's clock. */
static int join_post(rmalab_win *w, int t)
{
    unsigned char *buf;
    int rc = recv_msg(w, t, TAG_POST, &buf);
    if (rc)
        return rc;
    const int64_t *P = msg_clock(buf);
    struct rmalab__rlist *l = &w->races->out[t];
    int W = rmalab__clock_size();
    for (int i = 0; i < l->n; i++) {
        rmalab__racc *r = rmalab__rlist_at(l, i);
        for (int k = 0; k < W; k++)
            r->vc[k] = P[k] > r->vc[k] ? P[k] : r->vc[k];
    }
    rmalab__free(buf);
    return RMALAB_OK;
}

static int complete_epoch(rmalab_win *w, const int *group, int n)
{
    struct rmalab__races *R = w->races;
    int rc = RMALAB_OK;
    for (int i = 0; i < n && !rc; i++)
        rc = join_post(w, group[i]);
    int64_t *S = rc ? NULL : rmalab__malloc(clock_bytes());
    if (!rc && !S)
        rc = rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    if (rc)
        return rc;
    rmalab__clock_release(S);
    for (int i = 0; i < n && !rc; i++) {
        completed(w, &R->out[group[i]], S);
        rc = send_msg(w, group[i], TAG_DONE, S, &R->out[group[i]]);
        R->out[group[i]].n = 0;
    }
    rmalab__free(S);
    return rc;
}

static int exposed(rmalab_win *w, const int *xgroup, int n, const char *call)
{
    char at[96];
    where(at, sizeof at, call);
    int rc = RMALAB_OK;
    for (int i = 0; i < n && !rc; i++)
        rc = take(w, xgroup[i], TAG_DONE, false, at, true);
    if (!rc)
        rmalab__races_prune(w);
    return finish(w, call, rc ? rc : drain(w, at));
}

/* Passive target: the records to t are complete. The origin checks the
 * batch's own pairs (the target may call nothing soon), then ships it. */
static int ship_passive(rmalab_win *w, int t, const int64_t *S, const char *at)
{
    struct rmalab__races *R = w->races;
    struct rmalab__rlist *l = &R->out[t];
    if (!l->n)
        return RMALAB_OK;
    completed(w, l, S);
    int rc = RMALAB_OK;
    if (t == w->rank) {
        rmalab__races_check(w, rmalab__rlist_at(l, 0), l->n, RMALAB__CK_PASSIVE, at);
    } else {
        rmalab__races_within(w, rmalab__rlist_at(l, 0), l->n, at);
        if (!(rc = send_msg(w, t, TAG_PASSIVE, S, l)))
            R->sent[t]++;
    }
    l->n = 0;
    return rc;
}

static int released(rmalab_win *w, int target, const char *call)
{
    char at[96];
    where(at, sizeof at, call);
    int64_t *S = rmalab__malloc(clock_bytes());
    if (!S)
        return rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    rmalab__clock_release(S);
    int rc = RMALAB_OK;
    for (int t = target < 0 ? 0 : target; t < (target < 0 ? w->size : target + 1) && !rc; t++)
        rc = ship_passive(w, t, S, at);
    rmalab__free(S);
    return finish(w, call, rc ? rc : drain(w, at));
}

/* Collective: every passive batch sent to this rank, and `fence` (per
 * origin: one FENCE message or none), received and checked. */
static int exchange(rmalab_win *w, const int64_t *fence, const char *at)
{
    struct rmalab__races *R = w->races;
    int P = w->size, rc = RMALAB_OK;
    int64_t *mine = rmalab__malloc(4 * (size_t)P * sizeof *mine);
    if (!mine)
        return rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    int64_t *theirs = mine + 2 * P;
    for (int t = 0; t < P; t++) {
        mine[2 * t] = (int64_t)R->sent[t];
        mine[2 * t + 1] = fence ? fence[t] : 0;
    }
    int e = MPI_Alltoall(mine, 2, MPI_INT64_T, theirs, 2, MPI_INT64_T, R->comm);
    if (e != MPI_SUCCESS)
        rc = rmalab__mpi_fail(e, "MPI_Alltoall (race checker)");
    for (int o = 0; o < P && !rc; o++) {
        while (!rc && (int64_t)R->recvd[o] < theirs[2 * o]) {
            rc = take(w, o, TAG_PASSIVE, true, at, false);
            R->recvd[o]++;
        }
        if (!rc && theirs[2 * o + 1])
            rc = take(w, o, TAG_FENCE, false, at, false);
    }
    rmalab__free(mine);
    return rc;
}

static int fenced(rmalab_win *w)
{
    struct rmalab__races *R = w->races;
    char at[96];
    where(at, sizeof at, "fence");
    int P = w->size, rc = RMALAB_OK;
    int64_t *S = rmalab__malloc(clock_bytes() + (size_t)P * sizeof(int64_t));
    if (!S)
        return rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    int64_t *sent = S + rmalab__clock_size();
    rmalab__clock_release(S);
    for (int t = 0; t < P; t++) {
        struct rmalab__rlist *l = &R->out[t];
        sent[t] = t != w->rank && l->n;
        completed(w, l, S);
        if (t == w->rank)
            rmalab__races_check(w, rmalab__rlist_at(l, 0), l->n, 0, at);
        else if (l->n && !rc)
            rc = send_msg(w, t, TAG_FENCE, S, l);
        l->n = 0;
    }
    /* Every rank goes through the collectives, whatever failed. */
    int rc2 = exchange(w, sent, at);
    int rc3 = finish_together(w, S, "fence");
    rmalab__free(S);
    rmalab__races_forget(w); /* the fence orders everything before it */
    return rc ? rc : rc2 ? rc2 : rc3;
}

/* ------------------------------------------------------------------------ */
/* The entry point of every call (win-private.h)                            */

void rmalab__sync_begin_(rmalab_win *w, rmalab__sync_event *ev)
{
    if (w->races)
        rmalab__races_jitter_now();
    ev->t0 = rmalab__trace_t0(w);
}

int rmalab__sync_ahead_(rmalab_win *w, const rmalab__sync_event *ev)
{
    switch (ev->k->releases) {
    case RMALAB_RELEASE_CLOCK: return post_clock(w, ev->group, ev->n);
    case RMALAB_RELEASE_EPOCH: return complete_epoch(w, ev->group, ev->n);
    default: return RMALAB_OK;
    }
}

int rmalab__sync_end_(rmalab_win *w, const rmalab__sync_event *ev)
{
    const rmalab_sync_kind *k = ev->k;
    rmalab__trace_call(w, (int)k->trace, ev->t0, ev->peer, ev->group, ev->n, ev->flag);
    if (!w->races || ev->unfinished)
        return RMALAB_OK;
    if (k->releases == RMALAB_RELEASE_ALL)
        return fenced(w);
    if (k->releases == RMALAB_RELEASE_TARGETS)
        return released(w, k->scope == RMALAB_SYNC_PEER ? ev->peer : -1, k->name);
    if (k->acquires == RMALAB_ACQUIRE_EPOCH)
        return ev->n ? exposed(w, ev->group, ev->n, k->name) : RMALAB_OK;
    return synced(w, k->name);
}

void rmalab__op_begin_(rmalab_win *w)
{
    rmalab__races_jitter_now();
    (void)w;
}

int rmalab__op_end_(rmalab_win *w, const rmalab__op_event *ev)
{
    uint32_t id = 0;
    int rc = w->races ? race_op(w, ev, &id) : RMALAB_OK;
    rmalab__trace_op(w, ev->kind, ev->t0, ev->target, ev->disp, ev->type, ev->count, id);
    return rc;
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
    struct rmalab__races *R = rmalab__calloc(1, sizeof *R);
    if (!R)
        return rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory for the race checker");
    w->races = R;
    R->comm = comm;
    R->mode = mode ? mode : RMALAB_CHECK_QUIET; /* a rank that did not ask records */
    R->out = rmalab__calloc((size_t)w->size, sizeof *R->out);
    R->sent = rmalab__calloc((size_t)w->size, sizeof *R->sent);
    R->recvd = rmalab__calloc((size_t)w->size, sizeof *R->recvd);
    if (!R->out || !R->sent || !R->recvd)
        return rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory for the race checker");
    return rmalab__races_model_init(w, R);
}

int rmalab__races_open(rmalab_win *w)
{
    const char *v = rmalab__hint_value(w->at_create, RMALAB_KEY_CHECK);
    rmalab_check_mode mode = mode_of(v ? v : getenv("RMALAB_CHECK"));
    int want = mode != RMALAB_CHECK_OFF, any = 0;
    int e = MPI_Allreduce(&want, &any, 1, MPI_INT, MPI_MAX, w->comm);
    if (e != MPI_SUCCESS)
        return rmalab__mpi_fail(e, "deciding whether to check for races");
    if (!any)
        return RMALAB_OK;
    MPI_Comm comm;
    if ((e = MPI_Comm_dup(w->comm, &comm)) != MPI_SUCCESS)
        return rmalab__mpi_fail(e, "MPI_Comm_dup (race checker)");
    int rc = open_state(w, mode, comm);
    if (rc && !w->races)
        MPI_Comm_free(&comm);
    return rmalab__agree(w->comm, rc, "starting the race checker");
}

int rmalab__races_close(rmalab_win *w)
{
    struct rmalab__races *R = w->races;
    if (!R)
        return RMALAB_OK;
    char at[96];
    where(at, sizeof at, "free");
    int rc = exchange(w, NULL, at);
    int rc2 = finish_together(w, NULL, "free");
    /* Every peer has received what this rank sent: the sends end now. */
    for (int i = 0; i < R->nreq; i++) {
        MPI_Wait(&R->req[i], MPI_STATUS_IGNORE);
        rmalab__free(R->reqbuf[i]);
    }
    R->nreq = 0;
    return rc ? rc : rc2;
}

void rmalab__races_free(rmalab_win *w)
{
    struct rmalab__races *R = w->races;
    if (!R)
        return;
    w->races = NULL;
    /* Sends still in flight (a window abandoned on the way out) keep
     * their buffers: MPI may still read them. */
    for (int i = 0; i < R->nreq; i++)
        MPI_Request_free(&R->req[i]);
    rmalab__free(R->req);
    rmalab__free(R->reqbuf);
    for (int t = 0; R->out && t < w->size; t++)
        rmalab__rlist_free(&R->out[t]);
    rmalab__free(R->out);
    rmalab__free(R->sent);
    rmalab__free(R->recvd);
    rmalab__races_model_free(R);
    if (R->comm != MPI_COMM_NULL && R->comm != 0)
        MPI_Comm_free(&R->comm);
    rmalab__free(R);
}

/* ------------------------------------------------------------------------ */
/* Across a communicator                                                    */

static int barrier_call(MPI_Comm comm)
{
    rmalab__races_jitter_now();
    int active = rmalab__clock_exists(), any = 0;
    int e = MPI_Allreduce(&active, &any, 1, MPI_INT, MPI_MAX, comm);
    if (e != MPI_SUCCESS)
        return rmalab__mpi_fail(e, "MPI_Allreduce (barrier)");
    if (!any)
        return RMALAB_OK;
    int rc = rmalab__clock_ready();
    int64_t *S = rc ? NULL : rmalab__malloc(clock_bytes());
    if (!rc && !S)
        rc = rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    if ((rc = rmalab__agree(comm, rc, "carrying the race checker's clocks"))) {
        rmalab__free(S);
        return rc;
    }
    rmalab__clock_release(S);
    e = MPI_Allreduce(MPI_IN_PLACE, S, rmalab__clock_size(), MPI_INT64_T, MPI_MAX, comm);
    if (e == MPI_SUCCESS)
        rmalab__clock_acquire(S);
    rmalab__free(S);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__mpi_fail(e, "MPI_Allreduce (barrier)");
}

int rmalab_barrier(MPI_Comm comm)
{
    rmalab__block b = {.call = "barrier", .collective = true};
    rmalab__call_begin();
    if (comm == MPI_COMM_NULL)
        return rmalab__call_end("barrier", "comm", UINT64_MAX,
                                rmalab__fail(RMALAB_ERR_COMM, "barrier: the communicator "
                                                              "is MPI_COMM_NULL"));
    rmalab__block_comm(&b, comm);
    int rc = rmalab__block_enter(&b);
    if (!rc) {
        rc = barrier_call(comm);
        rmalab__block_leave(&b);
    }
    return rmalab__call_end("barrier", "comm", b.id, rc);
}

int rmalab_races_total(MPI_Comm comm, uint64_t *total)
{
    const rmalab_race *l;
    int n;
    uint64_t found;
    rmalab_races(&l, &n, &found);
    int e = MPI_Allreduce(&found, total, 1, MPI_UINT64_T, MPI_SUM, comm);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__mpi_fail(e, "MPI_Allreduce (races total)");
}

/* This rank's reports, one after the other. */
static char *own_text(void)
{
    const rmalab_race *l;
    int n;
    uint64_t found;
    rmalab_races(&l, &n, &found);
    size_t size = 1;
    for (int i = 0; i < n; i++)
        size += strlen(l[i].text) + 2;
    size += 128;
    char *s = rmalab__malloc(size), *p = s;
    if (!s)
        return NULL;
    *p = 0;
    for (int i = 0; i < n; i++)
        p += sprintf(p, "%s\n\n", l[i].text);
    if (found > (uint64_t)n)
        sprintf(p, "(%llu more races were found than kept)\n\n",
                (unsigned long long)(found - (uint64_t)n));
    return s;
}

/* Rank 0 gets every rank's text; lens has 2 * size ints on rank 0. */
static int gather_text(MPI_Comm comm, int rank, int size, const char *mine, int *lens,
                       char **text)
{
    int len = (int)strlen(mine), total = 0, *offs = lens ? lens + size : NULL;
    int e = MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, comm);
    if (e != MPI_SUCCESS)
        return rmalab__mpi_fail(e, "gathering race reports");
    for (int i = 0; rank == 0 && i < size; i++) {
        offs[i] = total;
        total += lens[i];
    }
    char *all = rank == 0 ? malloc((size_t)total + 32) : NULL; /* the caller's: free() */
    int rc = rank == 0 && !all
                 ? rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory gathering race reports")
                 : RMALAB_OK;
    rc = rmalab__agree(comm, rc, "gathering race reports");
    if (!rc && (e = MPI_Gatherv(mine, len, MPI_CHAR, all, lens, offs, MPI_CHAR, 0, comm)) !=
                   MPI_SUCCESS)
        rc = rmalab__mpi_fail(e, "gathering race reports");
    if (rc) {
        free(all);
        return rc;
    }
    if (rank == 0) {
        while (total > 0 && all[total - 1] == '\n')
            total--;
        all[total] = 0;
        if (!total)
            strcpy(all, "no races found");
        *text = all;
    }
    return RMALAB_OK;
}

int rmalab_races_text(MPI_Comm comm, char **text)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    *text = NULL;
    char *mine = own_text();
    int *lens = rank == 0 ? rmalab__calloc(2 * (size_t)size, sizeof *lens) : NULL;
    int rc = !mine || (rank == 0 && !lens)
                 ? rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory gathering race reports")
                 : RMALAB_OK;
    if (!(rc = rmalab__agree(comm, rc, "gathering race reports")))
        rc = gather_text(comm, rank, size, mine, lens, text);
    rmalab__free(mine);
    rmalab__free(lens);
    return rc;
}
