/* Messages on the wire (rmalab/coll.h): how a message travels, how a
 * receive takes it in parts, and the messages taken but not yet wanted.
 *
 * A message is a header (a mark, flags, its type, the bytes of the race
 * checker's clock and of the payload, a sequence number) followed by the
 * stream clock || payload. Its first part, at most RMALAB__EAGER bytes,
 * goes on the communicator with the caller's tag, so that every receive
 * can post a fixed-size buffer at once and MPI matches receives in the
 * order they were posted (its non-overtaking rule). What does not fit
 * follows on the communicator's shadow (comm.c), from the sender's world
 * of tags numbered by `seq`: no receive on the communicator itself can
 * take it, whatever its tag, and each receive takes its own rest by that
 * number, whatever order receives complete in.
 *
 * A receive moves through stages: FIRST (its first part is posted),
 * REST (the first part came; the rest is posted), ARRIVED (all of it is
 * here) and DONE (taken: the clock acquired, the payload where the caller
 * wanted it). rmalab__msg_progress advances every posted receive from
 * FIRST to REST, so that a sender's rest is never left waiting for a
 * receive that its owner does not test; only the owner's own step takes
 * a message, and acquires its clock then.
 *
 * The stash: a message that does not fit where the caller wanted it
 * (ERR_TRUNCATE, ERR_TYPE), and a message that probe looked at, are taken
 * whole and kept, first in line for the next receive that matches, so
 * that they stay receivable and their order holds. They go with their
 * communicator: when its MPI communicator is freed (its last reference,
 * comm.c), its handle may be reused by a new one. */
#include "coll-private.h"
#include "msg.h"
#include "alloc.h"
#include "error-private.h"
#include "comm-private.h"
#include "block.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct rmalab__msg_kept {
    struct rmalab__msg_kept *next;
    MPI_Comm mc;
    rmalab_msg_status st;
    size_t nclock;
    _Alignas(16) unsigned char data[]; /* clock, then payload */
} stashed;

stashed *rmalab__msg_stash;
static stashed **stash_tail = &rmalab__msg_stash;
rmalab__msg_in *rmalab__msg_posted; /* receives in stage FIRST, for progress */

/* ------------------------------------------------------------------------ */
/* Sending                                                                  */

int rmalab__msg_pack(rmalab_comm *c, const void *buf, size_t n, int type, bool keep,
                     unsigned char *first, rmalab__msg_out *o)
{
    static uint32_t seq;
    size_t W8 = rmalab__clock_exists() ? rmalab__clock_wire() : 0;
    rmalab__msg_hdr h = rmalab__msg_header(type, W8, n);
    size_t room = RMALAB__EAGER - sizeof h, k = W8 + n < room ? W8 + n : room;
    *o = (rmalab__msg_out){.first = first, .nfirst = sizeof h + k};
    unsigned char *S = NULL;
    if (W8 && !(S = rmalab__mem_alloc(W8 + (k < W8 ? n : 0))))
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "send: out of memory in the race checker");
    if (W8)
        rmalab__clock_out((int64_t *)(void *)S);
    if (W8 + n > room) {
        h.seq = seq++ % ((uint32_t)rmalab_comm_tag_ub(c) + 1);
        o->nrest = W8 + n - k;
        if (k < W8) { /* a clock longer than the first part: the stream copied */
            memcpy(S + W8, buf, n);
            o->rest = S + k;
            o->copy = S;
            S = NULL;
        } else if (keep) {
            if (!(o->copy = rmalab__mem_alloc(o->nrest))) {
                rmalab__mem_free(S);
                return rmalab__err_fail(RMALAB_ERR_NO_MEM,
                                        "isend: out of memory for a copy of "
                                        "%zu bytes",
                                        n);
            }
            memcpy(o->copy, (const unsigned char *)buf + (k - W8), o->nrest);
            o->rest = o->copy;
        } else {
            o->rest = (const unsigned char *)buf + (k - W8);
        }
    }
    memcpy(first, &h, sizeof h);
    size_t kc = k < W8 ? k : W8;
    if (kc)
        memcpy(first + sizeof h, S ? S : o->copy, kc);
    if (k > kc)
        memcpy(first + sizeof h + kc, buf, k - kc);
    rmalab__mem_free(S);
    return RMALAB_OK;
}

int rmalab__msg_post(rmalab_comm *c, const rmalab__msg_out *o, int dest, int tag,
                     MPI_Request req[2])
{
    req[0] = req[1] = MPI_REQUEST_NULL;
    MPI_Comm sh;
    int rc = o->nrest ? rmalab__comm_shadow(c, &sh) : RMALAB_OK;
    if (rc)
        return rc;
    int e = MPI_Isend(o->first, (int)o->nfirst, MPI_BYTE, dest, tag, rmalab_comm_mpi(c), &req[0]);
    if (e == MPI_SUCCESS && o->nrest) {
        rmalab__msg_hdr h;
        memcpy(&h, o->first, sizeof h);
        e = MPI_Isend(o->rest, (int)o->nrest, MPI_BYTE, dest, (int)h.seq, sh, &req[1]);
    }
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__err_mpi(e, "MPI_Isend");
}

/* ------------------------------------------------------------------------ */
/* The stash                                                                */

static bool matches(const rmalab__msg_in *m, MPI_Comm mc, const rmalab_msg_status *st)
{
    return mc == rmalab_comm_mpi(m->c) &&
           (m->source == RMALAB_ANY_SOURCE || m->source == st->source) &&
           (m->tag == RMALAB_ANY_TAG || m->tag == st->tag);
}

/* The first stashed message m matches, unlinked; NULL if none. */
static stashed *unstash(const rmalab__msg_in *m)
{
    for (stashed **p = &rmalab__msg_stash; *p; p = &(*p)->next) {
        stashed *s = *p;
        if (!matches(m, s->mc, &s->st))
            continue;
        *p = s->next;
        if (stash_tail == &s->next)
            stash_tail = p;
        return s;
    }
    return NULL;
}

bool rmalab__msg_stashed(rmalab_comm *c, int source, int tag, rmalab_msg_status *st)
{
    rmalab__msg_in m = {.c = c, .source = source, .tag = tag};
    for (stashed *s = rmalab__msg_stash; s; s = s->next)
        if (matches(&m, s->mc, &s->st)) {
            *st = s->st;
            return true;
        }
    return false;
}

/* The messages stashed for mc go: nothing can receive them any more. */
static void forget(MPI_Comm mc)
{
    for (stashed **p = &rmalab__msg_stash; *p;) {
        stashed *s = *p;
        if (s->mc != mc) {
            p = &s->next;
            continue;
        }
        *p = s->next;
        if (stash_tail == &s->next)
            stash_tail = p;
        rmalab__mem_free(s);
    }
}

int rmalab__msg_release(rmalab_comm *c, bool user)
{
    MPI_Comm mc = rmalab_comm_mpi(c);
    bool freed = false;
    int rc = rmalab__comm_release(c, user, &freed);
    if (freed)
        forget(mc);
    return rc;
}

/* Here, below comm.c, as the communicator's messages go with it. */
int rmalab_comm_free(rmalab_comm **comm)
{
    if (!comm || !*comm)
        return RMALAB_OK;
    rmalab_comm *c = *comm;
    *comm = NULL;
    return rmalab__msg_release(c, true);
}

/* ------------------------------------------------------------------------ */
/* Receiving                                                                */

static void unpost(rmalab__msg_in *m)
{
    for (rmalab__msg_in **p = &rmalab__msg_posted; *p; p = &(*p)->next_posted)
        if (*p == m) {
            *p = m->next_posted;
            return;
        }
}

static int opened(rmalab__msg_in *m, const MPI_Status *s);

/* A first part from source with tag on c into `first`, received now with
 * one MPI_Recv, without probing (a blocking receive with nothing else
 * posted). */
static int recv_first(rmalab_comm *c, int source, int tag, unsigned char *first, MPI_Status *st)
{
    int e = MPI_Recv(first, RMALAB__EAGER, MPI_BYTE, source < 0 ? MPI_ANY_SOURCE : source,
                     tag < 0 ? MPI_ANY_TAG : tag, rmalab__comm_handle(c), st);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__err_mpi(e, "MPI_Recv");
}

int rmalab__msg_start(rmalab__msg_in *m, bool now)
{
    m->req = MPI_REQUEST_NULL;
    m->own = NULL;
    m->rc = 0;
    stashed *s = unstash(m);
    if (s) { /* its clock and payload are where `own` expects them */
        m->st = s->st;
        m->nclock = s->nclock;
        m->from_stash = s;
        m->stage = RMALAB__MSG_ARRIVED;
        return RMALAB_OK;
    }
    m->from_stash = NULL;
    if (now && !rmalab__msg_posted &&
        atomic_load_explicit(&rmalab__block_wait_mode, memory_order_relaxed) != RMALAB_WAIT_SLEEP) {
        MPI_Status st;
        int rc = recv_first(m->c, m->source, m->tag, m->first, &st);
        m->stage = RMALAB__MSG_DONE; /* taken, or its header refused */
        return rc ? rc : opened(m, &st);
    }
    int e = MPI_Irecv(m->first, RMALAB__EAGER, MPI_BYTE, m->source < 0 ? MPI_ANY_SOURCE : m->source,
                      m->tag < 0 ? MPI_ANY_TAG : m->tag, rmalab_comm_mpi(m->c), &m->req);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "MPI_Irecv");
    m->stage = RMALAB__MSG_FIRST;
    m->next_posted = rmalab__msg_posted;
    rmalab__msg_posted = m;
    return RMALAB_OK;
}

/* The first part came (status s): read its header, and post the rest. */
static int opened(rmalab__msg_in *m, const MPI_Status *s)
{
    int count = rmalab__msg_count(s);
    m->st.source = s->MPI_SOURCE;
    m->st.tag = s->MPI_TAG;
    rmalab__msg_hdr h = {0};
    if (count >= (int)sizeof h)
        memcpy(&h, m->first, sizeof h);
    size_t k = (size_t)count - sizeof h;
    if (h.mark != RMALAB__MSG_MARK || h.clock > RMALAB_BYTES_MAX || h.n > RMALAB_BYTES_MAX ||
        k > h.clock + h.n || (k < h.clock + h.n && count != RMALAB__EAGER))
        return rmalab__err_fail(RMALAB_ERR_ARG,
                                "recv: a message from rank %d that rmalab did not "
                                "send (received and dropped)",
                                m->st.source);
    m->st.bytes = h.n;
    m->st.type = (int)(h.flags >> RMALAB__MSG_TYPE_SHIFT & 0xff) - 1;
    m->nclock = h.flags & RMALAB__MSG_F_CLOCK ? h.clock : 0;
    m->nrest = h.clock + h.n - k;
    if (!m->nrest && m->scratch) { /* all in the first part, which lives as long as the
                                      scratch would (the thread's, until its next receive) */
        m->own = m->first + sizeof h;
        m->stage = RMALAB__MSG_ARRIVED;
        return RMALAB_OK;
    }
    /* clock and payload together, the rest received in place */
    m->own = m->scratch ? rmalab__coll_scratch(1, h.clock + h.n) : rmalab__mem_alloc(h.clock + h.n);
    if (!m->own)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM,
                                "recv: out of memory for a message of %zu "
                                "bytes",
                                (size_t)h.n);
    memcpy(m->own, m->first + sizeof h, k);
    if (!m->nrest) {
        m->stage = RMALAB__MSG_ARRIVED;
        return RMALAB_OK;
    }
    MPI_Comm sh;
    int rc = rmalab__comm_shadow(m->c, &sh);
    if (rc)
        return rc;
    int e = MPI_Irecv(m->own + k, (int)m->nrest, MPI_BYTE, m->st.source, (int)h.seq, sh, &m->req);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "MPI_Irecv (the rest of a message)");
    m->stage = RMALAB__MSG_REST;
    return RMALAB_OK;
}

int rmalab__msg_step(rmalab__msg_in *m, bool block)
{
    if (m->rc) /* progress found the message malformed */
        return rmalab__err_fail(m->rc, "recv: a message from rank %d could not be received (%s)",
                                m->st.source, rmalab_err_name(m->rc));
    while (m->stage == RMALAB__MSG_FIRST || m->stage == RMALAB__MSG_REST) {
        MPI_Status s;
        int flag = 0, first = m->stage == RMALAB__MSG_FIRST;
        int rc = block ? rmalab__msg_wait(&m->req, &s, m)
                       : (MPI_Test(&m->req, &flag, &s) == MPI_SUCCESS
                              ? RMALAB_OK
                              : rmalab__err_fail(RMALAB_ERR_OTHER, "recv: MPI_Test failed"));
        if (rc)
            return rc;
        if (!block && !flag)
            return RMALAB_OK;
        if (!first) {
            m->stage = RMALAB__MSG_ARRIVED;
            break;
        }
        unpost(m);
        if ((rc = opened(m, &s))) {
            m->stage = RMALAB__MSG_DONE;
            return rc;
        }
    }
    return RMALAB_OK;
}

/* m, made for a receive from source with tag on c into `first`. */
static void make(rmalab__msg_in *m, rmalab_comm *c, int source, int tag, unsigned char *first)
{
    *m = (rmalab__msg_in){.c = c, .source = source, .tag = tag, .first = first, .scratch = true};
}

int rmalab__msg_recv_queued(rmalab__msg_in *m, rmalab_comm *c, int source, int tag,
                            unsigned char *first, int type, void *into, size_t cap,
                            rmalab_msg_status *st)
{
    int rc;
    make(m, c, source, tag, first);
    if (!(rc = rmalab__msg_start(m, true)) && !(rc = rmalab__msg_step(m, true)) &&
        !(rc = rmalab__msg_take(m, type, into, cap)))
        *st = m->st;
    return rc;
}

int rmalab__msg_recv_opened(rmalab__msg_in *m, rmalab_comm *c, int source, int tag,
                            unsigned char *first, const MPI_Status *s, int type, void *into,
                            size_t cap, rmalab_msg_status *st)
{
    int rc;
    make(m, c, source, tag, first);
    m->stage = RMALAB__MSG_DONE; /* taken, or its header refused */
    if (!(rc = opened(m, s)) && !(rc = rmalab__msg_step(m, true)) &&
        !(rc = rmalab__msg_take(m, type, into, cap)))
        *st = m->st;
    return rc;
}

void rmalab__msg_progress(const rmalab__msg_in *self)
{
    for (rmalab__msg_in *m = rmalab__msg_posted, *next; m; m = next) {
        next = m->next_posted;
        MPI_Status s;
        int flag = 0;
        if (m != self && MPI_Test(&m->req, &flag, &s) == MPI_SUCCESS && flag) {
            unpost(m);
            int rc = opened(m, &s);
            if (rc) { /* the owner's step reports it */
                m->rc = rc;
                m->stage = RMALAB__MSG_DONE;
            }
        }
    }
}

int rmalab__msg_wait(MPI_Request *r, MPI_Status *s, rmalab__msg_in *self)
{
    bool sleep =
        atomic_load_explicit(&rmalab__block_wait_mode, memory_order_relaxed) == RMALAB_WAIT_SLEEP;
    bool others = rmalab__msg_posted && (rmalab__msg_posted != self || self->next_posted);
    if (!sleep && !others) {
        int e = MPI_Wait(r, s);
        return e == MPI_SUCCESS ? RMALAB_OK : rmalab__err_mpi(e, "MPI_Wait");
    }
    rmalab__backoff bo = RMALAB__BACKOFF_INIT;
    for (int flag = 0;;) {
        int e = MPI_Test(r, &flag, s);
        if (e != MPI_SUCCESS)
            return rmalab__err_mpi(e, "MPI_Test");
        if (flag)
            return RMALAB_OK;
        rmalab__msg_progress(self);
        if (sleep)
            rmalab__block_backoff(&bo);
    }
}

/* The message, all here, goes to the stash as it is (its clock not
 * acquired). */
static int to_stash(rmalab__msg_in *m)
{
    stashed *s = (stashed *)m->from_stash;
    size_t all = m->nclock + m->st.bytes;
    if (!s) {
        if (!(s = rmalab__mem_alloc(sizeof *s + all)))
            return rmalab__err_fail(RMALAB_ERR_NO_MEM,
                                    "recv: out of memory keeping a message of "
                                    "%zu bytes (it was lost)",
                                    m->st.bytes);
        memcpy(s->data, m->own, all);
        if (!m->scratch)
            rmalab__mem_free(m->own);
        m->own = NULL;
        s->mc = rmalab_comm_mpi(m->c);
        s->st = m->st;
        s->nclock = m->nclock;
        s->next = NULL;
        *stash_tail = s;
        stash_tail = &s->next;
    } else { /* back where it was: first in line */
        s->next = rmalab__msg_stash;
        if (!rmalab__msg_stash)
            stash_tail = &s->next;
        rmalab__msg_stash = s;
    }
    m->from_stash = NULL;
    m->stage = RMALAB__MSG_DONE;
    return RMALAB_OK;
}

/* The refusal of a message that stays receivable. */
static int refuse(rmalab__msg_in *m, int code, const char *why)
{
    int rc = to_stash(m);
    if (rc)
        return rc;
    return rmalab__err_fail(code,
                            "%s: the message from rank %d (tag %d) %s; it stays queued for a "
                            "receive that fits it",
                            m->scratch ? "recv" : "irecv", m->st.source, m->st.tag, why);
}

int rmalab__msg_take(rmalab__msg_in *m, int type, void *into, size_t cap)
{
    if (m->stage != RMALAB__MSG_ARRIVED)
        return RMALAB_OK;
    if (type != RMALAB__ANY_FORM && m->st.type != type) {
        char why[96];
        snprintf(why, sizeof why, m->st.type < 0 ? "holds a value, not %s elements"
                                                 : "holds %s elements, not %s",
                 m->st.type < 0 ? rmalab_type_name((rmalab_type)type)
                                : rmalab_type_name((rmalab_type)m->st.type),
                 type < 0 ? "a value" : rmalab_type_name((rmalab_type)type));
        return refuse(m, RMALAB_ERR_TYPE, why);
    }
    if (into && m->st.bytes > cap) {
        char why[96];
        snprintf(why, sizeof why, "has %zu bytes, more than the %zu given for it", m->st.bytes,
                 cap);
        return refuse(m, RMALAB_ERR_TRUNCATE, why);
    }
    const unsigned char *data = m->from_stash ? ((stashed *)m->from_stash)->data : m->own;
    int rc = m->nclock ? rmalab__clock_in(data) : RMALAB_OK;
    if (into && m->st.bytes)
        memcpy(into, data + m->nclock, m->st.bytes);
    m->payload = data + m->nclock;
    m->stage = RMALAB__MSG_DONE;
    return rc;
}

void rmalab__msg_close(rmalab__msg_in *m)
{
    if (m->stage == RMALAB__MSG_FIRST || m->stage == RMALAB__MSG_REST) {
        unpost(m);
        MPI_Cancel(&m->req); /* nobody wants it any more */
        MPI_Wait(&m->req, MPI_STATUS_IGNORE);
    }
    if (!m->scratch)
        rmalab__mem_free(m->own);
    rmalab__mem_free(m->from_stash);
    m->own = NULL;
    m->from_stash = NULL;
    m->payload = NULL;
    m->stage = RMALAB__MSG_DONE;
}

int rmalab__msg_peek(rmalab_comm *c, int source, int tag, bool block, int *flag,
                     rmalab_msg_status *st)
{
    *flag = 1;
    if (rmalab__msg_stashed(c, source, tag, st))
        return RMALAB_OK;
    MPI_Comm mc = rmalab_comm_mpi(c);
    MPI_Status s;
    MPI_Message msg;
    int e, f = 0;
    rmalab__backoff bo = RMALAB__BACKOFF_INIT;
    while ((e = MPI_Improbe(source < 0 ? MPI_ANY_SOURCE : source, tag < 0 ? MPI_ANY_TAG : tag, mc,
                            &f, &msg, &s)) == MPI_SUCCESS && !f && block) {
        rmalab__msg_progress(NULL);
        rmalab__block_backoff(&bo);
    }
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "MPI_Improbe");
    if (!(*flag = f))
        return RMALAB_OK;
    /* the message probed is taken whole, and stashed */
    unsigned char first[RMALAB__EAGER];
    rmalab__msg_in m = {.c = c, .source = source, .tag = tag, .first = first};
    e = MPI_Mrecv(first, RMALAB__EAGER, MPI_BYTE, &msg, &s);
    int rc = e != MPI_SUCCESS ? rmalab__err_mpi(e, "MPI_Mrecv") : opened(&m, &s);
    if (!rc)
        rc = rmalab__msg_step(&m, true);
    if (!rc)
        rc = to_stash(&m);
    rmalab__msg_close(&m);
    if (!rc)
        *st = m.st;
    return rc;
}
