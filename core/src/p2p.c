/* Messages on communicators (rmalab/coll.h): send, receive, probe, and
 * the requests of isend and irecv. msg.c has the wire: every receive posts
 * its first part at once, so receives match in the order they were made;
 * this file has the calls, their checks and blocking records, and the
 * numbers of requests that buffers in flight ask about. */
#include "coll-private.h"
#include "msg.h"
#include "p2p.h"
#include "alloc.h"
#include "error-private.h"
#include "comm-private.h"
#include "block.h"
#include "types.h"

#include <stdlib.h>

static rmalab_request *orphans;

/* ------------------------------------------------------------------------ */
/* Arguments                                                                */

static int check_peer(rmalab_comm *c, const char *call, const char *what, int r, bool any)
{
    if ((any && r == RMALAB_ANY_SOURCE) || (r >= 0 && r < rmalab_comm_size(c)))
        return RMALAB_OK;
    return rmalab__err_fail(RMALAB_ERR_RANK,
                            "%s: %s %d is not a rank of this communicator (0 to %d)", call, what, r,
                            rmalab_comm_size(c) - 1);
}

static int check_tag(rmalab_comm *c, const char *call, int tag, bool any)
{
    if ((any && tag == RMALAB_ANY_TAG) || (tag >= 0 && tag <= rmalab_comm_tag_ub(c)))
        return RMALAB_OK;
    return rmalab__err_fail(RMALAB_ERR_ARG, "%s: tag %d is outside 0 to %d", call, tag,
                            rmalab_comm_tag_ub(c));
}

/* What a message call checks before anything: NULL, rank, tag, size. The
 * arguments that pass are told inline, an unsigned compare each (a tag
 * bound not read yet passes 0 alone: check_tag reads it). */
__attribute__((always_inline)) static inline int check_call(rmalab_comm *c, const char *call,
                                                            int peer, int tag, bool recv, size_t n)
{
    if (!c)
        return rmalab__err_fail(RMALAB_ERR_COMM, "%s: the communicator is NULL or freed", call);
    rmalab__comm_shadow_poll(c);
    if (((recv && peer == RMALAB_ANY_SOURCE) ||
         (unsigned)peer < (unsigned)rmalab__comm_nranks(c)) &&
        ((recv && tag == RMALAB_ANY_TAG) || (unsigned)tag <= (unsigned)rmalab__comm_tag_ub_read) &&
        n <= RMALAB_BYTES_MAX)
        return RMALAB_OK;
    int rc = check_peer(c, call, recv ? "source" : "destination", peer, recv);
    if (!rc)
        rc = check_tag(c, call, tag, recv);
    if (!rc && n > RMALAB_BYTES_MAX)
        rc = rmalab__err_fail(RMALAB_ERR_ARG, "%s: %zu bytes are more than a message may hold",
                              call, n);
    return rc;
}

/* Checks, then the call's record (rmalab__block_enter_p2p): its group is
 * `peer` (any: every rank). */
static inline int begin(rmalab__block *b, const char *call, rmalab_comm *c, const int *peer,
                        int tag, bool recv, size_t n)
{
    if (!c) /* coll_begin refuses it, in its words */
        return rmalab__coll_begin(b, call, c, false, NULL);
    rmalab__block_call_begin();
    int rc = check_call(c, call, *peer, tag, recv, n);
    if (rc)
        return rmalab__coll_refuse(call, c, rc);
    rmalab__block_enter_p2p(b, call, rmalab__comm_handle(c), peer);
    return RMALAB_OK;
}

/* The call of record b ends with rc. */
static int end(rmalab__block *b, int rc)
{
    rmalab__block_leave(b);
    return rc ? rmalab__block_call_end(b->call, "comm", b->id, rc) : rc;
}

static int typed_refused(const char *call, int type, int count)
{
    if (count < 0)
        return rmalab__err_fail(RMALAB_ERR_ARG, "%s: count %d is negative", call, count);
    return rmalab__err_fail(RMALAB_ERR_TYPE, "%s: unknown type %d", call, type);
}

/* The bytes of count elements of `type` in *n, after checking them: the
 * size as rmalab_type_size gives it (-1: unknown), read inline (types.h). */
static inline int check_typed(const char *call, int type, int count, size_t *n)
{
    int size = (unsigned)type < RMALAB_NTYPES ? rmalab__type_bytes[type] : -1;
    if (count < 0 || size < 0)
        return typed_refused(call, type, count);
    *n = (size_t)count * (size_t)size;
    return RMALAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Request numbers: pending until MPI is done with the request              */

typedef struct {
    uint64_t id;
    rmalab_win *w; /* an RMA operation's: done also when its window completes it */
    int target;
    uint64_t ticket;
} pending;

static pending *pend;
static uint64_t next_id;
static int npend, cappend;

uint64_t rmalab__p2p_rq_id(void)
{
    if (npend == cappend) {
        int cap = cappend ? 2 * cappend : 64;
        pending *p = rmalab__mem_realloc(pend, (size_t)cap * sizeof *p);
        if (!p) {
            rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory for a request");
            return 0;
        }
        pend = p;
        cappend = cap;
    }
    pend[npend] = (pending){.id = ++next_id};
    return pend[npend++].id;
}

static int find_pending(uint64_t id)
{
    int lo = 0, hi = npend;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (pend[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < npend && pend[lo].id == id ? lo : -1;
}

static void drop(int i)
{
    memmove(pend + i, pend + i + 1, (size_t)(--npend - i) * sizeof *pend);
}

void rmalab__p2p_rq_id_op(uint64_t id, rmalab_win *w, int target, uint64_t ticket)
{
    int i = find_pending(id);
    if (i >= 0)
        pend[i] = (pending){id, w, target, ticket};
}

void rmalab__p2p_rq_finished(rmalab_request *r)
{
    r->done = 1;
    int i = r->id ? find_pending(r->id) : -1;
    if (i >= 0)
        drop(i);
}

void rmalab__p2p_rq_forget_win(rmalab_win *w)
{
    for (int i = npend - 1; i >= 0; i--)
        if (pend[i].w == w)
            drop(i);
}

bool rmalab_request_id_done(uint64_t id)
{
    int i = find_pending(id);
    if (i < 0)
        return true;
    const pending *p = &pend[i];
    return p->w && rmalab_win_done(p->w, p->target, p->ticket);
}

uint64_t rmalab_request_id(const rmalab_request *rq)
{
    return rq ? rq->id : 0;
}

/* ------------------------------------------------------------------------ */
/* Sending                                                                  */

static int isend_(rmalab_comm *c, const void *buf, size_t n, int type, bool keep, int dest,
                  int tag, rmalab_request **out);

/* A send to this very rank goes from a copy, nonblocking, and is left to
 * end (an orphan), as an eager send would: in a job of one process MPICH
 * 4.0.2 blocks MPI_Send to self until the receive is posted, and that
 * receive can only come later on this thread. */
static int send_self(rmalab_comm *c, const void *buf, size_t n, int type, int tag)
{
    rmalab_request *r = NULL;
    int rc = isend_(c, buf, n, type, true, rmalab_comm_rank(c), tag, &r);
    if (!rc)
        rmalab__p2p_rq_destroy(r);
    return rc;
}

/* A message that is not the common one (send_call's): packed, and sent in
 * parts, or waited for with the sleeping backoff. */
static int send_packed(rmalab_comm *c, const void *buf, size_t n, int type, int dest, int tag,
                       bool spin)
{
    unsigned char first[RMALAB__EAGER];
    rmalab__msg_out o;
    MPI_Request req[2];
    int rc = rmalab__msg_pack(c, buf, n, type, false, first, &o);
    if (rc)
        return rc;
    if (!o.nrest && spin) {
        int e = MPI_Send(first, (int)o.nfirst, MPI_BYTE, dest, tag, rmalab_comm_mpi(c));
        rc = e == MPI_SUCCESS ? RMALAB_OK : rmalab__err_mpi(e, "MPI_Send");
    } else if (!(rc = rmalab__msg_post(c, &o, dest, tag, req))) {
        for (int i = 0; i < 2 && !rc; i++)
            rc = rmalab__msg_wait(&req[i], MPI_STATUS_IGNORE, NULL);
    }
    rmalab__mem_free(o.copy);
    return rc;
}

/* Inline: the common message goes in one call (rmalab__msg_send_whole). */
__attribute__((always_inline)) static inline int
send_call(rmalab_comm *c, const void *buf, size_t n, int type, int dest, int tag)
{
    if (dest == rmalab__comm_me(c))
        return send_self(c, buf, n, type, tag);
    bool spin =
        atomic_load_explicit(&rmalab__block_wait_mode, memory_order_relaxed) != RMALAB_WAIT_SLEEP;
    int rc = spin ? rmalab__msg_send_whole(c, buf, n, type, dest, tag) : RMALAB__MSG_PACK;
    return rc != RMALAB__MSG_PACK ? rc : send_packed(c, buf, n, type, dest, tag, spin);
}

/* Inline in both sends: a call of its own was 20 instructions a send. */
__attribute__((always_inline)) static inline int send_(const char *call, rmalab_comm *c,
                                                       const void *buf, size_t n, int type,
                                                       int dest, int tag)
{
    rmalab__block b;
    int rc = begin(&b, call, c, &dest, tag, false, n);
    return rc ? rc : end(&b, send_call(c, buf, n, type, dest, tag));
}

int rmalab_comm_send(rmalab_comm *c, const void *buf, size_t n, int dest, int tag)
{
    return send_("send", c, buf, n, -1, dest, tag);
}

int rmalab_comm_send_typed(rmalab_comm *c, const void *buf, int count, rmalab_type type,
                           int dest, int tag)
{
    size_t n = 0;
    int rc = check_typed("send", (int)type, count, &n);
    if (rc) { /* a call that passes forgets the last failure in begin */
        rmalab__block_call_begin();
        return rmalab__coll_refuse("send", c, rc);
    }
    return send_("send", c, buf, n, (int)type, dest, tag);
}

/* ------------------------------------------------------------------------ */
/* Receiving                                                                */

/* m made closed (rmalab__msg_close does nothing to it; its own and payload
 * are not read then), before a receive that may leave it so. */
static inline void msg_closed(rmalab__msg_in *m)
{
    m->stage = RMALAB__MSG_DONE;
    m->scratch = true;
    m->from_stash = NULL;
}

/* m closed, unless it is closed already (a call less for the common
 * message, which leaves it so). */
static inline void msg_close(rmalab__msg_in *m)
{
    if (m->stage != RMALAB__MSG_DONE || m->from_stash || !m->scratch)
        rmalab__msg_close(m);
}

/* m is left closed or for the caller to close, even for a call refused;
 * `first` as rmalab__msg_recv's. */
__attribute__((always_inline)) static inline int
recv_(rmalab_comm *c, int source, int tag, int type, void *into, size_t cap, unsigned char *first,
      rmalab__msg_in *m, rmalab_msg_status *st)
{
    msg_closed(m);
    rmalab__block b;
    int rc = begin(&b, "recv", c, &source, tag, true, 0);
    if (rc)
        return rc;
    return end(&b, rmalab__msg_recv(m, c, source, tag, first, type, into, cap, st));
}

int rmalab_comm_recv_bytes(rmalab_comm *c, int source, int tag, const void **p, size_t *n,
                           rmalab_msg_status *st)
{
    /* kept until this thread's next call, with the first part the message
     * may be in (aligned as malloc's memory: a message all in it is taken
     * from it); one thread-local, found once: each access to one in this
     * shared object is a call of __tls_get_addr, which GCC makes again at
     * each use unless the address is opaque to it */
    static _Thread_local struct {
        rmalab__msg_in m;
        _Alignas(16) unsigned char first[RMALAB__EAGER];
    } kept;
    __typeof__(kept) *k = &kept;
    __asm__("" : "+r"(k));
    msg_close(&k->m);
    int rc = recv_(c, source, tag, RMALAB__ANY_FORM, NULL, 0, k->first, &k->m, st);
    if (!rc) {
        *p = k->m.payload;
        *n = st->bytes;
    }
    return rc;
}

int rmalab_comm_recv(rmalab_comm *c, void *buf, size_t cap, int source, int tag,
                     rmalab_msg_status *st)
{
    _Alignas(16) unsigned char first[RMALAB__EAGER];
    rmalab__msg_in m;
    int rc = recv_(c, source, tag, RMALAB__ANY_FORM, buf, cap, first, &m, st);
    msg_close(&m);
    return rc;
}

int rmalab_comm_recv_typed(rmalab_comm *c, void *buf, int count, rmalab_type type, int source,
                           int tag, rmalab_msg_status *st)
{
    size_t n = 0;
    int rc = check_typed("recv", (int)type, count, &n);
    if (rc) { /* a call that passes forgets the last failure in begin */
        rmalab__block_call_begin();
        return rmalab__coll_refuse("recv", c, rc);
    }
    _Alignas(16) unsigned char first[RMALAB__EAGER];
    rmalab__msg_in m;
    rc = recv_(c, source, tag, (int)type, buf, n, first, &m, st);
    msg_close(&m);
    return rc;
}

static int probe_(const char *call, rmalab_comm *c, int source, int tag, bool block, int *flag,
                  rmalab_msg_status *st)
{
    rmalab__block b;
    int rc;
    if (block) {
        if ((rc = begin(&b, call, c, &source, tag, true, 0)))
            return rc;
        return end(&b, rmalab__msg_peek(c, source, tag, true, flag, st));
    }
    rmalab__block_call_begin();
    if ((rc = check_call(c, call, source, tag, true, 0)) ||
        (rc = rmalab__msg_peek(c, source, tag, false, flag, st)))
        return rmalab__coll_refuse(call, c, rc);
    return RMALAB_OK;
}

int rmalab_comm_probe(rmalab_comm *c, int source, int tag, rmalab_msg_status *st)
{
    int flag;
    return probe_("probe", c, source, tag, true, &flag, st);
}

int rmalab_comm_iprobe(rmalab_comm *c, int source, int tag, int *flag, rmalab_msg_status *st)
{
    *flag = 0;
    return probe_("iprobe", c, source, tag, false, flag, st);
}

/* ------------------------------------------------------------------------ */
/* Requests                                                                 */

static int new_request(rmalab_comm *c, const char *call, int peer, int tag, bool recv, size_t n,
                       rmalab_request **out)
{
    *out = NULL;
    rmalab__block_call_begin();
    int rc = check_call(c, call, peer, tag, recv, n);
    rmalab_request *r = rc ? NULL : rmalab__mem_calloc(1, sizeof *r);
    if (!rc && !r)
        rc = rmalab__err_fail(RMALAB_ERR_NO_MEM, "%s: out of memory", call);
    if (!rc && !(r->first = rmalab__mem_alloc(RMALAB__EAGER)))
        rc = rmalab__err_fail(RMALAB_ERR_NO_MEM, "%s: out of memory", call);
    if (!rc && !(r->id = rmalab__p2p_rq_id()))
        rc = RMALAB_ERR_NO_MEM;
    if (rc) {
        if (r)
            rmalab__mem_free(r->first);
        rmalab__mem_free(r);
        return rmalab__coll_refuse(call, c, rc);
    }
    r->kind = recv ? RMALAB__RQ_RECV : RMALAB__RQ_SEND;
    r->c = c;
    rmalab__comm_retain(c); /* until it is done, whenever c is freed */
    r->peer = peer;
    r->tag = tag;
    r->req[0] = r->req[1] = MPI_REQUEST_NULL;
    *out = r;
    return RMALAB_OK;
}

static int isend_(rmalab_comm *c, const void *buf, size_t n, int type, bool keep, int dest,
                  int tag, rmalab_request **out)
{
    rmalab_request *r;
    int rc = new_request(c, "isend", dest, tag, false, n, &r);
    if (rc)
        return rc;
    rmalab__msg_out o;
    if (!(rc = rmalab__msg_pack(c, buf, n, type, keep, r->first, &o))) {
        r->copy = o.copy;
        rc = rmalab__msg_post(c, &o, dest, tag, r->req);
    }
    if (rc) { /* a first part that started cannot be taken back: it is left to end */
        rmalab__p2p_rq_destroy(r);
        return rmalab__coll_refuse("isend", c, rc);
    }
    *out = r;
    return RMALAB_OK;
}

int rmalab_comm_isend(rmalab_comm *c, const void *buf, size_t n, int dest, int tag,
                      rmalab_request **out)
{
    return isend_(c, buf, n, -1, true, dest, tag, out);
}

int rmalab_comm_isend_typed(rmalab_comm *c, const void *buf, int count, rmalab_type type,
                            int dest, int tag, rmalab_request **out)
{
    rmalab__block_call_begin();
    *out = NULL;
    size_t n = 0;
    int rc = check_typed("isend", (int)type, count, &n);
    if (rc)
        return rmalab__coll_refuse("isend", c, rc);
    return isend_(c, buf, n, (int)type, false, dest, tag, out);
}

static int irecv_(rmalab_comm *c, int source, int tag, int type, void *into, size_t cap,
                  rmalab_request **out)
{
    rmalab_request *r;
    int rc = new_request(c, "irecv", source, tag, true, 0, &r);
    if (rc)
        return rc;
    r->type = type;
    r->into = into;
    r->cap = cap;
    r->m = (rmalab__msg_in){.c = c, .source = source, .tag = tag, .first = r->first};
    if ((rc = rmalab__msg_start(&r->m, false))) {
        rmalab__p2p_rq_destroy(r);
        return rmalab__coll_refuse("irecv", c, rc);
    }
    *out = r;
    return RMALAB_OK;
}

int rmalab_comm_irecv(rmalab_comm *c, int source, int tag, rmalab_request **out)
{
    return irecv_(c, source, tag, RMALAB__ANY_FORM, NULL, 0, out);
}

int rmalab_comm_irecv_typed(rmalab_comm *c, void *buf, int count, rmalab_type type, int source,
                            int tag, rmalab_request **out)
{
    rmalab__block_call_begin();
    *out = NULL;
    size_t n = 0;
    int rc = check_typed("irecv", (int)type, count, &n);
    if (rc)
        return rmalab__coll_refuse("irecv", c, rc);
    return irecv_(c, source, tag, (int)type, buf, n, out);
}

static int send_step(rmalab_request *r, bool block)
{
    MPI_Status sts[2]; /* not MPI_STATUSES_IGNORE, which GCC takes for an empty array */
    int done = 0, rc = RMALAB_OK;
    if (block) {
        for (int i = 0; i < 2 && !rc; i++)
            rc = rmalab__msg_wait(&r->req[i], &sts[i], NULL);
        done = !rc;
    } else if (MPI_Testall(2, r->req, &done, sts) != MPI_SUCCESS) {
        rc = rmalab__err_fail(RMALAB_ERR_OTHER, "isend: MPI_Testall failed");
    }
    if (done) {
        rmalab__mem_free(r->copy);
        r->copy = NULL;
        rmalab__p2p_rq_finished(r);
    }
    return rc;
}

static int recv_step(rmalab_request *r, bool block)
{
    int rc = rmalab__msg_step(&r->m, block);
    if (!rc && r->m.stage == RMALAB__MSG_ARRIVED)
        rc = rmalab__msg_take(&r->m, r->type, r->into, r->cap);
    if (r->m.stage == RMALAB__MSG_DONE)
        rmalab__p2p_rq_finished(r);
    return rc;
}

/* The request is done: its hold on its communicator goes, which frees a
 * communicator freed while it was pending. A failure of that free can
 * only be told (the request's own result stands). */
static void let_go(rmalab_request *r)
{
    rmalab_comm *c = r->c;
    r->c = r->m.c = NULL;
    if (c && rmalab__msg_release(c, false))
        rmalab__err_warn("rmalab: a communicator freed while a request was pending: %s",
                         rmalab_errmsg());
}

int rmalab__p2p_rq_step(rmalab_request *r, bool block)
{
    const char *call = r->kind == RMALAB__RQ_RECV ? "recv" : "send";
    rmalab__block b = {0};
    int rc;
    if (block && (rc = rmalab__coll_begin(&b, call, r->c, false, r->peer >= 0 ? &r->peer : NULL)))
        return rc;
    if (!block)
        rmalab__block_call_begin();
    rc = r->kind == RMALAB__RQ_RECV ? recv_step(r, block) : send_step(r, block);
    rc = block ? rmalab__coll_end(&b, rc) : rc ? rmalab__coll_refuse(call, r->c, rc) : rc;
    if (r->done)
        let_go(r);
    return rc;
}

static void free_request(rmalab_request *r)
{
    rmalab__p2p_rq_finished(r);
    let_go(r);
    rmalab__mem_free(r->copy);
    rmalab__mem_free(r->first);
    rmalab__mem_free(r);
}

/* The orphans whose sends ended are freed (each new orphan sweeps, so a
 * loop of sends to self keeps only the unreceived ones). */
static void sweep_orphans(void)
{
    for (rmalab_request **at = &orphans; *at;) {
        rmalab_request *r = *at;
        int done = 0;
        MPI_Status sts[2];
        MPI_Testall(2, r->req, &done, sts);
        if (done) {
            *at = r->next;
            free_request(r);
        } else {
            at = &r->next;
        }
    }
}

static void release_orphans(void)
{
    while (orphans) {
        rmalab_request *r = orphans;
        int done = 0;
        MPI_Status sts[2];
        orphans = r->next;
        MPI_Testall(2, r->req, &done, sts);
        for (int i = 0; !done && i < 2; i++) {
            if (r->req[i] == MPI_REQUEST_NULL)
                continue;
            MPI_Cancel(&r->req[i]); /* nobody received it */
            MPI_Wait(&r->req[i], MPI_STATUS_IGNORE);
        }
        free_request(r);
    }
}

void rmalab__p2p_rq_destroy(rmalab_request *r)
{
    if (r->kind == RMALAB__RQ_SEND && !r->done &&
        (r->req[0] != MPI_REQUEST_NULL || r->req[1] != MPI_REQUEST_NULL)) {
        rmalab__coll_at_finalize(release_orphans);
        sweep_orphans();
        r->next = orphans; /* MPI may still read its parts: its id stays pending */
        orphans = r;
        return;
    }
    if (r->kind == RMALAB__RQ_RECV)
        rmalab__msg_close(&r->m);
    free_request(r);
}
