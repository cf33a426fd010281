/* The race checker between ranks (docs/races.md): what each
 * synchronisation sends and receives, and the messages that carry it.
 * races-sync.c runs each call's step (races-private.h): messages in here,
 * then races.c takes them in and checks what stays, then messages out
 * here; this file calls no other file of the checker.
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
 *            synchronisation call, and at fence and free at the latest;
 *   fence    sends one message (FENCE) to every other rank: its records to
 *            that rank as they are, with the clock and entry that complete
 *            them there, and how many PASSIVE batches went to it before;
 *            each rank takes those batches and the FENCE messages, checks,
 *            and joins the clocks the messages carried; when some rank of
 *            the window is in mode races, an allreduce then says who found
 *            a race, so that every rank raises together (races-report.c);
 *   free     is the last such exchange, its FENCE messages without records.
 *
 * A message is a header, the sender's clock (one int64 per world rank),
 * then records. Sends are MPI_Isend, made before the call that lets the
 * peer go on, so a receive never waits for a peer's progress beyond a
 * message already sent; receives poll and sleep.
 *
 * A message that this rank has no memory for is received all the same
 * (truncated, and dropped), and every other message the call expects is
 * received too, so that the wire stays in step: the next call pairs with
 * the next messages, not with stale ones. What was lost cannot be checked,
 * so the checker stops on this rank (R->lost), with a warning: it keeps
 * no record of its own and sends none, and messages that come in are
 * received and dropped, their clocks joined at a fence. */
#include "races-private.h"
#include "races-wire.h"
#include "alloc.h"
#include "error-private.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

enum { RMALAB__TAG_POST = 1, RMALAB__TAG_DONE, RMALAB__TAG_PASSIVE, RMALAB__TAG_FENCE };

typedef struct {
    int32_t nrec, entry; /* entry: the sender's clock entry (FENCE: completes the records) */
    int64_t passive;     /* FENCE: how many PASSIVE batches the sender sent the receiver */
    int64_t exchange;    /* FENCE: the sender's exchanges on the window before this one */
} msg_hdr;

/* A message lost for want of memory (peer: the rank it came from or went
 * to; `sent`: this rank had no memory for its own, `theirs`: the peer had
 * none for its message to this rank): the checker stops on this rank,
 * said once. The call that lost it fails with ERR_NO_MEM; a message the
 * peer lost fails nothing here. */
enum { LOST_IN, LOST_SENT, LOST_THEIRS };

static int lose(struct rmalab__races *R, int peer, int how)
{
    char why[96];
    if (how == LOST_IN)
        snprintf(why, sizeof why, "no memory for a message of the checker from rank %d", peer);
    else if (how == LOST_SENT)
        snprintf(why, sizeof why, "no memory for its message of the checker to rank %d", peer);
    else
        snprintf(why, sizeof why, "rank %d had no memory for its message of the checker", peer);
    if (!R->lost)
        rmalab__err_warn("rmalab: race checking of window \"%s\" stops on rank %d: %s; the "
                         "program goes on, with this window unchecked on this rank",
                         R->name[0] ? R->name : "(unnamed)", R->rank, why);
    R->lost = true;
    return how == LOST_THEIRS ? RMALAB_OK
                              : rmalab__err_fail(RMALAB_ERR_NO_MEM,
                                                 "out of memory in the race checker (%s): race "
                                                 "checking of this window stops on this rank",
                                                 why);
}

/* A FENCE message of another exchange than this one: a message was left
 * behind, or taken twice. Never seen, but what is checked then is wrong:
 * said, and checking stops. */
static void out_of_step(struct rmalab__races *R, int from, int64_t theirs)
{
    rmalab__err_warn("rmalab: race checking of window \"%s\" stops on rank %d: its messages "
                     "are out of step (rank %d's of exchange %lld came at exchange %lld)",
                     R->name[0] ? R->name : "(unnamed)", R->rank, from, (long long)theirs,
                     (long long)R->exchanges);
    R->lost = true;
}

/* What a rank without memory for a message sends instead, so that its peer
 * still gets one: a header alone (nrec -1), from static memory, the
 * request freed (MPI completes the send). */
static const msg_hdr no_msg = {.nrec = -1};

static int send_none(struct rmalab__races *R, int to, int tag)
{
    MPI_Request q;
    int e = MPI_Isend(&no_msg, (int)sizeof no_msg, MPI_BYTE, to, tag, R->comm, &q);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "MPI_Isend (race checker)");
    MPI_Request_free(&q);
    return lose(R, to, LOST_SENT);
}

/* Forget sends that finished; their buffers go with them. */
static void reap(struct rmalab__races *R)
{
    int j = 0;
    for (int i = 0; i < R->nreq; i++) {
        int done = 0;
        MPI_Test(&R->req[i], &done, MPI_STATUS_IGNORE);
        if (done) {
            rmalab__mem_free(R->reqbuf[i]);
            continue;
        }
        R->req[j] = R->req[i];
        R->reqbuf[j++] = R->reqbuf[i];
    }
    R->nreq = j;
}

static int send_msg(struct rmalab__races *R, int to, int tag, const int64_t *clock,
                    const struct rmalab__rlist *recs)
{
    reap(R);
    if (R->nreq == R->capreq) {
        int cap = R->capreq ? 2 * R->capreq : 8;
        MPI_Request *q = rmalab__mem_realloc(R->req, (size_t)cap * sizeof *q);
        if (q)
            R->req = q;
        void **b = q ? rmalab__mem_realloc(R->reqbuf, (size_t)cap * sizeof *b) : NULL;
        if (!b)
            return send_none(R, to, tag);
        R->reqbuf = b;
        R->capreq = cap;
    }
    int n = recs && !R->lost ? recs->n : 0; /* stopped: records are not sent */
    size_t bytes = sizeof(msg_hdr) + rmalab__clock_bytes() + (size_t)n * rmalab__races_racc_size();
    unsigned char *buf = rmalab__mem_alloc(bytes);
    if (!buf)
        return send_none(R, to, tag);
    *(msg_hdr *)buf =
        (msg_hdr){.nrec = n, .entry = rmalab__clock_entry(), .passive = (int64_t)R->sent[to],
                  .exchange = (int64_t)R->exchanges};
    if (clock)
        memcpy(buf + sizeof(msg_hdr), clock, rmalab__clock_bytes());
    else
        memset(buf + sizeof(msg_hdr), 0, rmalab__clock_bytes());
    if (n)
        memcpy(buf + sizeof(msg_hdr) + rmalab__clock_bytes(), recs->p,
               (size_t)n * rmalab__races_racc_size());
    int e = MPI_Isend(buf, (int)bytes, MPI_BYTE, to, tag, R->comm, &R->req[R->nreq]);
    if (e != MPI_SUCCESS) {
        rmalab__mem_free(buf);
        return rmalab__err_mpi(e, "MPI_Isend (race checker)");
    }
    R->reqbuf[R->nreq++] = buf;
    return RMALAB_OK;
}

/* A message from `from` (blocking: it was sent before the call that let
 * this rank get here). The caller frees *buf. Without memory for it, the
 * message is received into one byte (MPI_ERR_TRUNCATE, which the checker's
 * communicator returns: the message is consumed all the same) and *buf
 * is NULL. */
static int recv_msg(struct rmalab__races *R, int from, int tag, unsigned char **buf)
{
    MPI_Status st;
    int flag = 0, count;
    for (unsigned spins = 0;; spins++) {
        int e = MPI_Iprobe(from, tag, R->comm, &flag, &st);
        if (e != MPI_SUCCESS)
            return rmalab__err_mpi(e, "MPI_Iprobe (race checker)");
        if (flag)
            break;
        if (spins > 1000)
            nanosleep(&(struct timespec){0, 50000}, NULL);
    }
    MPI_Get_count(&st, MPI_BYTE, &count);
    *buf = rmalab__mem_alloc((size_t)count);
    if (!*buf) {
        unsigned char byte;
        MPI_Comm_set_errhandler(R->comm, MPI_ERRORS_RETURN);
        MPI_Recv(&byte, 1, MPI_BYTE, st.MPI_SOURCE, tag, R->comm, MPI_STATUS_IGNORE);
        return lose(R, st.MPI_SOURCE, LOST_IN);
    }
    int e = MPI_Recv(*buf, count, MPI_BYTE, st.MPI_SOURCE, tag, R->comm, MPI_STATUS_IGNORE);
    if (e != MPI_SUCCESS) {
        rmalab__mem_free(*buf);
        *buf = NULL;
        return rmalab__err_mpi(e, "MPI_Recv (race checker)");
    }
    if (((const msg_hdr *)*buf)->nrec < 0) { /* the peer's send_none */
        rmalab__mem_free(*buf);
        *buf = NULL;
        return lose(R, st.MPI_SOURCE, LOST_THEIRS);
    }
    return RMALAB_OK;
}

static const int64_t *msg_clock(const unsigned char *buf)
{
    return (const int64_t *)(buf + sizeof(msg_hdr));
}
/* The records in a message, as a list to check (the message's bytes). */
static struct rmalab__rlist msg_recs(unsigned char *buf)
{
    int n = ((const msg_hdr *)buf)->nrec;
    return (struct rmalab__rlist){buf + sizeof(msg_hdr) + rmalab__clock_bytes(), n, n};
}

/* A message that came in joins R->in, for races.c; the step's end frees it.
 * Once the checker stopped it is dropped (a FENCE message's clock joined). */
static int keep_in(struct rmalab__races *R, unsigned char *buf, int from, int kind)
{
    if (R->lost) {
        if (kind == RMALAB__RB_FENCE)
            rmalab__clock_acquire(msg_clock(buf));
        rmalab__mem_free(buf);
        return RMALAB_OK;
    }
    if (R->nin == R->capin) {
        int cap = R->capin ? 2 * R->capin : 8;
        struct rmalab__rbatch *in = rmalab__mem_realloc(R->in, (size_t)cap * sizeof *in);
        if (!in) {
            rmalab__mem_free(buf);
            return lose(R, from, LOST_IN);
        }
        R->in = in;
        R->capin = cap;
    }
    R->in[R->nin++] = (struct rmalab__rbatch){
        .from = from, .kind = kind, .entry = ((const msg_hdr *)buf)->entry,
        .clock = msg_clock(buf), .recs = msg_recs(buf), .msg = buf};
    return RMALAB_OK;
}

/* Receive one message (blocking), kept as a batch of `kind`. */
static int receive(struct rmalab__races *R, int from, int tag, int kind)
{
    unsigned char *buf = NULL;
    int rc = recv_msg(R, from, tag, &buf);
    return rc || !buf ? rc : keep_in(R, buf, from, kind);
}

/* One message from each rank of `group`, all of them whatever failed. */
static int receive_each(struct rmalab__races *R, const int *group, int n, int tag, int kind)
{
    int rc = RMALAB_OK;
    for (int i = 0; i < n; i++) {
        int e = receive(R, group[i], tag, kind);
        rc = rc ? rc : e;
    }
    return rc;
}

/* Passive-target batches that have arrived; one without memory is
 * received all the same, and counted. */
static int drain(struct rmalab__races *R)
{
    int rc = RMALAB_OK;
    for (;;) {
        int flag = 0;
        MPI_Status st;
        int e = MPI_Iprobe(MPI_ANY_SOURCE, RMALAB__TAG_PASSIVE, R->comm, &flag, &st);
        if (e != MPI_SUCCESS)
            return rmalab__err_mpi(e, "MPI_Iprobe (race checker)");
        if (!flag)
            return rc;
        e = receive(R, st.MPI_SOURCE, RMALAB__TAG_PASSIVE, RMALAB__RB_PASSIVE);
        if (e && e != RMALAB_ERR_NO_MEM)
            return e; /* MPI's: the message may still be there */
        rc = rc ? rc : e;
        R->recvd[st.MPI_SOURCE]++;
    }
}

/* Collective in effect: one FENCE message to every other rank, with this
 * rank's records to it at a fence (as they are: their target completes
 * them), none at free, and how many passive batches went to it before; then
 * each origin's passive batches, and its FENCE message after them. The
 * messages carry the clocks that the fence joins (rmalab__races_wire_out),
 * so that no collective is needed here. Every message is sent, and every
 * one expected received, whatever failed, so that no peer waits for one
 * that never comes and the next exchange pairs with the next messages. A
 * FENCE message lost for want of memory took its count of passive batches
 * with it: those that arrived are received now, and any later one at the
 * next call, whose counts are totals. */
static int exchange(struct rmalab__races *R, bool fence)
{
    int rc = RMALAB_OK, rc2 = RMALAB_OK;
    for (int t = 0; t < R->size; t++) {
        int e = t == R->rank ? RMALAB_OK
                             : send_msg(R, t, RMALAB__TAG_FENCE, fence ? R->S : NULL,
                                        fence ? &R->out[t] : NULL);
        rc = rc ? rc : e;
    }
    bool counted = true;
    for (int o = 0; o < R->size; o++) {
        unsigned char *buf = NULL;
        int64_t n = (int64_t)R->sent[o]; /* to itself */
        int e = o == R->rank ? RMALAB_OK : recv_msg(R, o, RMALAB__TAG_FENCE, &buf);
        rc2 = rc2 ? rc2 : e;
        if (o != R->rank)
            n = buf ? ((const msg_hdr *)buf)->passive : (int64_t)R->recvd[o];
        if (buf && ((const msg_hdr *)buf)->exchange != (int64_t)R->exchanges)
            out_of_step(R, o, ((const msg_hdr *)buf)->exchange);
        counted = counted && (buf || o == R->rank);
        while ((int64_t)R->recvd[o] < n) {
            e = receive(R, o, RMALAB__TAG_PASSIVE, RMALAB__RB_PASSIVE);
            rc2 = rc2 ? rc2 : e;
            R->recvd[o]++;
        }
        e = buf && fence ? keep_in(R, buf, o, RMALAB__RB_FENCE) : RMALAB_OK;
        rc2 = rc2 ? rc2 : e;
        if (!fence)
            rmalab__mem_free(buf);
    }
    int rc3 = counted ? RMALAB_OK : drain(R);
    R->exchanges++;
    return rc ? rc : rc2 ? rc2 : rc3;
}

/* ------------------------------------------------------------------------ */
/* What each synchronisation receives, then sends                           */

/* This rank's clock, released for the call's records and messages. */
static void release(struct rmalab__races *R, struct rmalab__races_step *st)
{
    rmalab__clock_release(R->S);
    st->released = true;
}

int rmalab__races_wire_in(struct rmalab__races *R, struct rmalab__races_step *st)
{
    int rc = RMALAB_OK;
    switch (st->what) {
    case RMALAB__DO_POST: release(R, st); return RMALAB_OK;
    case RMALAB__DO_COMPLETE:
        /* MPI orders a target's accesses before its post only before the
         * operations of the access epoch that matches it: the post clock
         * joins those records (races.c), not this rank's clock. */
        rc = receive_each(R, st->group, st->n, RMALAB__TAG_POST, RMALAB__RB_POST);
        if (!rc || R->lost) /* a lost POST: the targets wait for its DONE all the same */
            release(R, st);
        return rc;
    case RMALAB__DO_EXPOSED:
        rc = receive_each(R, st->group, st->n, RMALAB__TAG_DONE, RMALAB__RB_EPOCH);
        return rc ? rc : drain(R);
    case RMALAB__DO_RELEASED: release(R, st); return drain(R);
    case RMALAB__DO_FENCE: release(R, st); return exchange(R, true);
    case RMALAB__DO_CLOSE: return exchange(R, false);
    default: return drain(R);
    }
}

int rmalab__races_wire_passive(struct rmalab__races *R, int t, const int64_t *S,
                               const struct rmalab__rlist *l)
{
    int rc = send_msg(R, t, RMALAB__TAG_PASSIVE, S, l);
    if (!rc || rc == RMALAB_ERR_NO_MEM) /* send_none's went out, and counts */
        R->sent[t]++;
    return rc;
}

/* The records to each of ranks [lo, hi) leave, once completed and checked
 * (races.c): complete's to the epoch's targets (`group`: theirs), unlock's
 * as passive batches (their records to this rank stay: checked), a
 * fence's already sent. */
static int ship(struct rmalab__races *R, const struct rmalab__races_step *st, int lo, int hi)
{
    int rc = RMALAB_OK;
    for (int i = lo; i < hi && !rc; i++) {
        int t = st->what == RMALAB__DO_COMPLETE ? st->group[i] : i;
        struct rmalab__rlist *l = &R->out[t];
        if (st->what == RMALAB__DO_COMPLETE)
            rc = send_msg(R, t, RMALAB__TAG_DONE, R->S, l);
        else if (st->what == RMALAB__DO_RELEASED && t != R->rank && l->n)
            rc = rmalab__races_wire_passive(R, t, R->S, l);
        l->n = 0;
    }
    return rc;
}

/* Free: every peer has received what this rank sent: the sends end. */
static void end_sends(struct rmalab__races *R)
{
    for (int i = 0; i < R->nreq; i++) {
        MPI_Wait(&R->req[i], MPI_STATUS_IGNORE);
        rmalab__mem_free(R->reqbuf[i]);
    }
    R->nreq = 0;
}

/* A fence joins every rank's clock once the checks are done: each other
 * rank's came in its FENCE message, this rank's is R->S. */
static void join_fence(struct rmalab__races *R)
{
    for (int i = 0; i < R->nin; i++)
        if (R->in[i].kind == RMALAB__RB_FENCE)
            rmalab__clock_acquire(R->in[i].clock);
    rmalab__clock_acquire(R->S);
}

int rmalab__races_wire_out(struct rmalab__races *R, const struct rmalab__races_step *st)
{
    int rc = RMALAB_OK;
    if (st->what == RMALAB__DO_FENCE && st->released)
        join_fence(R);
    for (int i = 0; i < R->nin; i++)
        rmalab__mem_free(R->in[i].msg);
    R->nin = 0;
    if (st->what == RMALAB__DO_POST && st->released)
        for (int i = 0; i < st->n && !rc; i++)
            rc = send_msg(R, st->group[i], RMALAB__TAG_POST, R->S, NULL);
    else if (st->what == RMALAB__DO_COMPLETE && st->released)
        rc = ship(R, st, 0, st->n);
    else if (st->what == RMALAB__DO_RELEASED && st->released)
        rc = ship(R, st, st->lo, st->hi);
    else if (st->what == RMALAB__DO_FENCE && st->released)
        rc = ship(R, st, 0, R->size);
    else if (st->what == RMALAB__DO_CLOSE)
        end_sends(R);
    return rc;
}

void rmalab__races_wire_free(struct rmalab__races *R)
{
    /* Sends still in flight (a window abandoned on the way out) keep
     * their buffers: MPI may still read them. */
    for (int i = 0; i < R->nreq; i++)
        MPI_Request_free(&R->req[i]);
    rmalab__mem_free(R->req);
    rmalab__mem_free(R->reqbuf);
    for (int i = 0; i < R->nin; i++)
        rmalab__mem_free(R->in[i].msg);
    rmalab__mem_free(R->in);
}
