/* Messages on communicators (rmalab/coll.h): send, receive, probe, and
 * requests.
 *
 * On the wire a message is an 8-byte header (a mark and flags) and the
 * caller's bytes. When the sender has the race checker's clock, the header
 * says so and the clock follows as a second message with the same tag,
 * which the receiver takes at once: MPI keeps two messages from one sender
 * with one tag in order, so it is that message's clock. Receives probe
 * first (MPI_Probe; a loop of MPI_Iprobe with the sleeping backoff in
 * SLEEP mode) and then receive the message probed, whole: a message that
 * does not fit the caller's memory stays queued. Short messages are copied
 * through the stack; long ones travel from and to the caller's memory in
 * one MPI type. */
#include "coll-private.h"

#include <stdlib.h>

#define MARK 0x726d6c62u /* "rmlb" */
#define F_CLOCK 1u
#define SHORT 4096

typedef struct {
    uint32_t mark, flags;
} mhdr;

struct rmalab_request {
    rmalab_comm *c;
    int is_recv, done, peer, tag;
    MPI_Request req[2];
    int nreq;
    unsigned char *buf; /* send: header, bytes, clock; receive: the message */
    size_t n;
    rmalab_msg_status st;
    struct rmalab_request *next; /* destroyed before its send ended */
};

static rmalab_request *orphans;

/* ------------------------------------------------------------------------ */
/* Arguments                                                                */

/* MPI_TAG_UB is MPI_COMM_WORLD's attribute, the same for every
 * communicator: read once. */
int rmalab_comm_tag_ub(rmalab_comm *c)
{
    static int tag_ub;
    (void)c;
    if (!tag_ub) {
        int *ub = NULL, flag = 0;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
        tag_ub = flag && ub ? *ub : 32767;
    }
    return tag_ub;
}

static int check_peer(rmalab_comm *c, const char *call, const char *what, int r, bool any)
{
    if ((any && r == RMALAB_ANY_SOURCE) || (r >= 0 && r < rmalab_comm_size(c)))
        return RMALAB_OK;
    return rmalab__fail(RMALAB_ERR_RANK, "%s: %s %d is not a rank of this communicator (0 to %d)",
                        call, what, r, rmalab_comm_size(c) - 1);
}

static int check_tag(rmalab_comm *c, const char *call, int tag, bool any)
{
    if ((any && tag == RMALAB_ANY_TAG) || (tag >= 0 && tag <= rmalab_comm_tag_ub(c)))
        return RMALAB_OK;
    return rmalab__fail(RMALAB_ERR_ARG, "%s: tag %d is outside 0 to %d", call, tag,
                        rmalab_comm_tag_ub(c));
}

/* Checks, then the call's record: its group is `peer` (NULL: any). */
static int begin(rmalab__block *b, const char *call, rmalab_comm *c, const int *peer, int tag,
                 bool recv)
{
    int rc = !c ? RMALAB_OK : check_peer(c, call, recv ? "source" : "destination", *peer, recv);
    if (!rc && c)
        rc = check_tag(c, call, tag, recv);
    if (rc)
        return rmalab__comm_refuse(call, c, rc);
    return rmalab__comm_begin(b, call, c, false, *peer >= 0 ? peer : NULL);
}

static int src(int r)
{
    return r == RMALAB_ANY_SOURCE ? MPI_ANY_SOURCE : r;
}

static int tg(int t)
{
    return t == RMALAB_ANY_TAG ? MPI_ANY_TAG : t;
}

static bool sleeping(void)
{
    return atomic_load_explicit(&rmalab__wait_mode, memory_order_relaxed) == RMALAB_WAIT_SLEEP;
}

/* ------------------------------------------------------------------------ */
/* Sending                                                                  */

static int send_wait(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm mc)
{
    if (!sleeping()) {
        int e = MPI_Send(buf, count, t, dest, tag, mc);
        return e == MPI_SUCCESS ? RMALAB_OK : rmalab__mpi_fail(e, "MPI_Send");
    }
    MPI_Request r;
    int e = MPI_Isend(buf, count, t, dest, tag, mc, &r);
    return e == MPI_SUCCESS ? rmalab__wait_request(&r, "MPI_Isend") : rmalab__mpi_fail(e, "MPI_Isend");
}

/* The header at h and the bytes at buf as one MPI type (MPI_BOTTOM). */
static int two_part(void *h, void *buf, size_t n, MPI_Datatype *t)
{
    MPI_Aint at[2];
    int len[2] = {sizeof(mhdr), (int)n};
    MPI_Get_address(h, &at[0]);
    MPI_Get_address(buf, &at[1]);
    if (MPI_Type_create_hindexed(2, len, at, MPI_BYTE, t) != MPI_SUCCESS ||
        MPI_Type_commit(t) != MPI_SUCCESS)
        return rmalab__fail(RMALAB_ERR_OTHER, "cannot make an MPI type for a message");
    return RMALAB_OK;
}

static int send_call(rmalab_comm *c, const void *buf, size_t n, int dest, int tag)
{
    MPI_Comm mc = rmalab_comm_mpi(c);
    mhdr h = {MARK, 0};
    int64_t *S = NULL;
    int rc = RMALAB_OK;
    if (rmalab__clock_exists()) {
        if (!(S = rmalab__malloc(rmalab__clock_wire())))
            return rmalab__fail(RMALAB_ERR_NO_MEM, "send: out of memory in the race checker");
        rmalab__clock_out(S);
        h.flags |= F_CLOCK;
    }
    if (n <= SHORT) {
        unsigned char tmp[sizeof h + SHORT];
        memcpy(tmp, &h, sizeof h);
        if (n)
            memcpy(tmp + sizeof h, buf, n);
        rc = send_wait(tmp, (int)(sizeof h + n), MPI_BYTE, dest, tag, mc);
    } else {
        MPI_Datatype t;
        if (!(rc = two_part(&h, (void *)buf, n, &t))) {
            rc = send_wait(MPI_BOTTOM, 1, t, dest, tag, mc);
            MPI_Type_free(&t);
        }
    }
    if (!rc && S)
        rc = send_wait(S, (int)rmalab__clock_wire(), MPI_BYTE, dest, tag, mc);
    rmalab__free(S);
    return rc;
}

int rmalab_comm_send(rmalab_comm *c, const void *buf, size_t n, int dest, int tag)
{
    rmalab__block b;
    int rc = n > RMALAB_BYTES_MAX
                 ? rmalab__comm_refuse("send", c, rmalab__fail(RMALAB_ERR_ARG, "send: %zu bytes "
                                                               "are more than a message may hold", n))
                 : begin(&b, "send", c, &dest, tag, false);
    if (rc)
        return rc;
    return rmalab__comm_end(&b, send_call(c, buf, n, dest, tag));
}

/* ------------------------------------------------------------------------ */
/* Receiving                                                                */

static int probe_wait(MPI_Comm mc, int source, int tag, MPI_Status *st)
{
    int e, flag = 0;
    if (!sleeping()) {
        e = MPI_Probe(src(source), tg(tag), mc, st);
        return e == MPI_SUCCESS ? RMALAB_OK : rmalab__mpi_fail(e, "MPI_Probe");
    }
    rmalab__backoff bo = RMALAB__BACKOFF_INIT;
    while ((e = MPI_Iprobe(src(source), tg(tag), mc, &flag, st)) == MPI_SUCCESS && !flag)
        rmalab__backoff_step(&bo);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__mpi_fail(e, "MPI_Iprobe");
}

static void fill_status(const MPI_Status *s, rmalab_msg_status *st)
{
    int n = 0;
    MPI_Get_count(s, MPI_BYTE, &n);
    st->source = s->MPI_SOURCE;
    st->tag = s->MPI_TAG;
    st->bytes = n >= (int)sizeof(mhdr) ? (size_t)n - sizeof(mhdr) : 0;
}

/* The header just received: the clock that follows, acquired. */
static int after(MPI_Comm mc, const mhdr *h, const rmalab_msg_status *st)
{
    if (h->mark != MARK)
        return rmalab__fail(RMALAB_ERR_ARG, "recv: a message from rank %d that rmalab did not "
                                            "send (received and dropped)", st->source);
    if (!(h->flags & F_CLOCK))
        return RMALAB_OK;
    void *S = rmalab__malloc(rmalab__clock_wire());
    int e = MPI_Recv(S ? S : (void *)h, S ? (int)rmalab__clock_wire() : 0, MPI_BYTE, st->source,
                     st->tag, mc, MPI_STATUS_IGNORE);
    int rc = e != MPI_SUCCESS ? rmalab__mpi_fail(e, "MPI_Recv (a message's clock)")
             : !S ? rmalab__fail(RMALAB_ERR_NO_MEM, "recv: out of memory for the race checker")
                  : rmalab__clock_in(S);
    rmalab__free(S);
    return rc;
}

/* The message probed (st), whole, into `to` (its size + header bytes). */
static int take(MPI_Comm mc, const rmalab_msg_status *st, unsigned char *to)
{
    int e = MPI_Recv(to, (int)(st->bytes + sizeof(mhdr)), MPI_BYTE, st->source, st->tag, mc,
                     MPI_STATUS_IGNORE);
    if (e != MPI_SUCCESS)
        return rmalab__mpi_fail(e, "MPI_Recv");
    mhdr h;
    memcpy(&h, to, sizeof h);
    return after(mc, &h, st);
}

/* A matched probe (MPI_Mprobe; MPI_Improbe with the backoff in SLEEP
 * mode): one match in MPICH's UCX path where MPI_Probe and MPI_Recv make
 * two (bench-comm's ping-pong). */
static int mprobe_wait(MPI_Comm mc, int source, int tag, MPI_Message *m, MPI_Status *st)
{
    int e, flag = 0;
    if (!sleeping()) {
        e = MPI_Mprobe(src(source), tg(tag), mc, m, st);
        return e == MPI_SUCCESS ? RMALAB_OK : rmalab__mpi_fail(e, "MPI_Mprobe");
    }
    rmalab__backoff bo = RMALAB__BACKOFF_INIT;
    while ((e = MPI_Improbe(src(source), tg(tag), mc, &flag, m, st)) == MPI_SUCCESS && !flag)
        rmalab__backoff_step(&bo);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__mpi_fail(e, "MPI_Improbe");
}

static int recv_bytes_call(rmalab_comm *c, int source, int tag, const void **p, size_t *n,
                           rmalab_msg_status *st)
{
    MPI_Comm mc = rmalab_comm_mpi(c);
    MPI_Status s;
    MPI_Message m;
    int rc = mprobe_wait(mc, source, tag, &m, &s);
    if (rc)
        return rc;
    fill_status(&s, st);
    unsigned char *buf = rmalab__scratch(0, st->bytes + sizeof(mhdr));
    /* matched: it must be received, into nothing if there is no room */
    int e = MPI_Mrecv(buf, buf ? (int)(st->bytes + sizeof(mhdr)) : 0, MPI_BYTE, &m,
                      MPI_STATUS_IGNORE);
    if (!buf)
        return rmalab__fail(RMALAB_ERR_NO_MEM, "recv: out of memory for a message of %zu "
                                               "bytes (it was lost)", st->bytes);
    if (e != MPI_SUCCESS)
        return rmalab__mpi_fail(e, "MPI_Mrecv");
    mhdr h;
    memcpy(&h, buf, sizeof h);
    *p = buf + sizeof(mhdr);
    *n = st->bytes;
    return after(mc, &h, st);
}

int rmalab_comm_recv_bytes(rmalab_comm *c, int source, int tag, const void **p, size_t *n,
                           rmalab_msg_status *st)
{
    rmalab__block b;
    int rc = begin(&b, "recv", c, &source, tag, true);
    return rc ? rc : rmalab__comm_end(&b, recv_bytes_call(c, source, tag, p, n, st));
}

static int recv_call(rmalab_comm *c, void *buf, size_t cap, int source, int tag,
                     rmalab_msg_status *st)
{
    MPI_Comm mc = rmalab_comm_mpi(c);
    MPI_Status s;
    int rc = probe_wait(mc, source, tag, &s);
    if (rc)
        return rc;
    fill_status(&s, st);
    if (st->bytes > cap)
        return rmalab__fail(RMALAB_ERR_TRUNCATE, "recv: the message from rank %d (tag %d) has "
                                                 "%zu bytes, more than the %zu given for it; it "
                                                 "stays queued", st->source, st->tag, st->bytes,
                            cap);
    if (st->bytes <= SHORT) {
        unsigned char tmp[sizeof(mhdr) + SHORT];
        if (!(rc = take(mc, st, tmp)))
            memcpy(buf, tmp + sizeof(mhdr), st->bytes);
        return rc;
    }
    mhdr h;
    MPI_Datatype t;
    if ((rc = two_part(&h, buf, st->bytes, &t)))
        return rc;
    int e = MPI_Recv(MPI_BOTTOM, 1, t, st->source, st->tag, mc, MPI_STATUS_IGNORE);
    MPI_Type_free(&t);
    return e != MPI_SUCCESS ? rmalab__mpi_fail(e, "MPI_Recv") : after(mc, &h, st);
}

int rmalab_comm_recv(rmalab_comm *c, void *buf, size_t cap, int source, int tag,
                     rmalab_msg_status *st)
{
    rmalab__block b;
    int rc = begin(&b, "recv", c, &source, tag, true);
    return rc ? rc : rmalab__comm_end(&b, recv_call(c, buf, cap, source, tag, st));
}

int rmalab_comm_probe(rmalab_comm *c, int source, int tag, rmalab_msg_status *st)
{
    rmalab__block b;
    MPI_Status s;
    int rc = begin(&b, "probe", c, &source, tag, true);
    if (rc)
        return rc;
    if (!(rc = probe_wait(rmalab_comm_mpi(c), source, tag, &s)))
        fill_status(&s, st);
    return rmalab__comm_end(&b, rc);
}

int rmalab_comm_iprobe(rmalab_comm *c, int source, int tag, int *flag, rmalab_msg_status *st)
{
    MPI_Status s;
    rmalab__call_begin();
    int rc = c ? check_peer(c, "iprobe", "source", source, true)
               : rmalab__fail(RMALAB_ERR_COMM, "iprobe: the communicator is NULL or freed");
    if (!rc)
        rc = check_tag(c, "iprobe", tag, true);
    if (rc)
        return rmalab__comm_refuse("iprobe", c, rc);
    int e = MPI_Iprobe(src(source), tg(tag), rmalab_comm_mpi(c), flag, &s);
    if (e != MPI_SUCCESS)
        return rmalab__comm_refuse("iprobe", c, rmalab__mpi_fail(e, "MPI_Iprobe"));
    if (*flag)
        fill_status(&s, st);
    return RMALAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Requests                                                                 */

static int new_request(rmalab_comm *c, const char *call, int peer, int tag, bool recv,
                       rmalab_request **out)
{
    *out = NULL;
    rmalab__call_begin();
    int rc = !c ? rmalab__fail(RMALAB_ERR_COMM, "%s: the communicator is NULL or freed", call)
                : check_peer(c, call, recv ? "source" : "destination", peer, recv);
    if (!rc)
        rc = check_tag(c, call, tag, recv);
    rmalab_request *r = rc ? NULL : rmalab__calloc(1, sizeof *r);
    if (!rc && !r)
        rc = rmalab__fail(RMALAB_ERR_NO_MEM, "%s: out of memory", call);
    if (rc)
        return rmalab__comm_refuse(call, c, rc);
    *r = (rmalab_request){.c = c, .is_recv = recv, .peer = peer, .tag = tag};
    *out = r;
    return RMALAB_OK;
}

int rmalab_comm_isend(rmalab_comm *c, const void *buf, size_t n, int dest, int tag,
                      rmalab_request **out)
{
    rmalab_request *r;
    int rc = n > RMALAB_BYTES_MAX
                 ? rmalab__comm_refuse("isend", c, rmalab__fail(RMALAB_ERR_ARG, "isend: %zu "
                                       "bytes are more than a message may hold", n))
                 : new_request(c, "isend", dest, tag, false, &r);
    if (rc)
        return rc;
    size_t W8 = rmalab__clock_exists() ? rmalab__clock_wire() : 0;
    mhdr h = {MARK, W8 ? F_CLOCK : 0};
    MPI_Comm mc = rmalab_comm_mpi(c);
    if (!(r->buf = rmalab__malloc(sizeof h + n + W8)))
        rc = rmalab__fail(RMALAB_ERR_NO_MEM, "isend: out of memory for a copy of %zu bytes", n);
    int e = MPI_SUCCESS;
    if (!rc) {
        memcpy(r->buf, &h, sizeof h);
        memcpy(r->buf + sizeof h, buf, n);
        int64_t *S = W8 ? rmalab__malloc(W8) : NULL;
        if (S) {
            rmalab__clock_out(S);
            memcpy(r->buf + sizeof h + n, S, W8);
            rmalab__free(S);
        } else if (W8) {
            rc = rmalab__fail(RMALAB_ERR_NO_MEM, "isend: out of memory in the race checker");
        }
    }
    if (!rc) {
        e = MPI_Isend(r->buf, (int)(sizeof h + n), MPI_BYTE, dest, tag, mc, &r->req[r->nreq++]);
    }
    if (!rc && e == MPI_SUCCESS && W8)
        e = MPI_Isend(r->buf + sizeof h + n, (int)W8, MPI_BYTE, dest, tag, mc, &r->req[r->nreq++]);
    if (!rc && e != MPI_SUCCESS)
        rc = rmalab__mpi_fail(e, "MPI_Isend");
    if (rc) { /* a first send that started cannot be taken back: it is left to end */
        rmalab_request_destroy(&r);
        return rmalab__comm_refuse("isend", c, rc);
    }
    *out = r;
    return RMALAB_OK;
}

int rmalab_comm_irecv(rmalab_comm *c, int source, int tag, rmalab_request **out)
{
    return new_request(c, "irecv", source, tag, true, out);
}

/* A receive's message, when one has come (or, when `block`, once it has). */
static int recv_step(rmalab_request *r, bool block)
{
    MPI_Comm mc = rmalab_comm_mpi(r->c);
    MPI_Status s;
    int flag = 1, rc = RMALAB_OK, e;
    if (block)
        rc = probe_wait(mc, r->peer, r->tag, &s);
    else if ((e = MPI_Iprobe(src(r->peer), tg(r->tag), mc, &flag, &s)) != MPI_SUCCESS)
        rc = rmalab__mpi_fail(e, "MPI_Iprobe");
    if (rc || !flag)
        return rc;
    fill_status(&s, &r->st);
    if (!(r->buf = rmalab__malloc(r->st.bytes + sizeof(mhdr))))
        return rmalab__fail(RMALAB_ERR_NO_MEM, "recv: out of memory for a message of %zu bytes "
                                               "(it stays queued)", r->st.bytes);
    r->done = 1; /* whatever follows, the message is this request's */
    r->n = r->st.bytes;
    return take(mc, &r->st, r->buf);
}

static int send_step(rmalab_request *r, bool block)
{
    int e;
    MPI_Status sts[2]; /* not MPI_STATUSES_IGNORE, which GCC takes for an empty array */
    if (block && !sleeping())
        e = MPI_Waitall(r->nreq, r->req, sts);
    else {
        rmalab__backoff bo = RMALAB__BACKOFF_INIT;
        while ((e = MPI_Testall(r->nreq, r->req, &r->done, sts)) ==
                   MPI_SUCCESS && !r->done && block)
            rmalab__backoff_step(&bo);
    }
    if (e != MPI_SUCCESS)
        return rmalab__mpi_fail(e, "completing an isend");
    if (block)
        r->done = 1;
    if (r->done) {
        rmalab__free(r->buf);
        r->buf = NULL;
    }
    return RMALAB_OK;
}

static int step(rmalab_request *r, bool block, int *done, const void **p, size_t *n,
                rmalab_msg_status *st)
{
    const char *call = r->is_recv ? "recv" : "send";
    int rc = RMALAB_OK;
    if (!r->done) {
        rmalab__block b = {0};
        if (block && (rc = rmalab__comm_begin(&b, call, r->c, false, r->peer >= 0 ? &r->peer
                                                                                 : NULL)))
            return rc;
        if (!block)
            rmalab__call_begin();
        rc = r->is_recv ? recv_step(r, block) : send_step(r, block);
        rc = block ? rmalab__comm_end(&b, rc) : rmalab__comm_refuse(call, r->c, rc);
    }
    *done = r->done;
    if (r->done && p) {
        *p = r->is_recv && r->buf ? r->buf + sizeof(mhdr) : NULL;
        *n = r->is_recv ? r->n : 0;
    }
    if (r->done && st)
        *st = r->st;
    return rc;
}

int rmalab_request_test(rmalab_request *rq, int *done, const void **p, size_t *n,
                        rmalab_msg_status *st)
{
    *done = 0;
    if (!rq)
        return rmalab__fail(RMALAB_ERR_ARG, "test: the request is NULL");
    return step(rq, false, done, p, n, st);
}

int rmalab_request_wait(rmalab_request *rq, const void **p, size_t *n, rmalab_msg_status *st)
{
    int done;
    if (!rq)
        return rmalab__fail(RMALAB_ERR_ARG, "wait: the request is NULL");
    return step(rq, true, &done, p, n, st);
}

int rmalab_request_is_recv(const rmalab_request *rq)
{
    return rq && rq->is_recv;
}

int rmalab_request_done(const rmalab_request *rq)
{
    return rq && rq->done;
}

static void release_orphans(void)
{
    while (orphans) {
        rmalab_request *r = orphans;
        int done = 0;
        MPI_Status sts[2];
        orphans = r->next;
        MPI_Testall(r->nreq, r->req, &done, sts);
        for (int i = 0; !done && i < r->nreq; i++) {
            if (r->req[i] == MPI_REQUEST_NULL)
                continue;
            MPI_Cancel(&r->req[i]); /* nobody received it */
            MPI_Wait(&r->req[i], MPI_STATUS_IGNORE);
        }
        rmalab__free(r->buf);
        rmalab__free(r);
    }
}

void rmalab_request_destroy(rmalab_request **rq)
{
    rmalab_request *r = rq ? *rq : NULL;
    if (!r)
        return;
    *rq = NULL;
    if (!r->is_recv && !r->done && r->nreq) {
        if (!orphans)
            rmalab__at_finalize(release_orphans);
        r->next = orphans; /* MPI may still read its copy */
        orphans = r;
        return;
    }
    rmalab__free(r->buf);
    rmalab__free(r);
}
