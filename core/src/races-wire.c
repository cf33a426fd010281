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
 * message already sent; receives poll and sleep. */
#include "races-private.h"
#include "races-wire.h"
#include "alloc.h"
#include "error-private.h"

#include <string.h>
#include <time.h>

enum { RMALAB__TAG_POST = 1, RMALAB__TAG_DONE, RMALAB__TAG_PASSIVE, RMALAB__TAG_FENCE };

typedef struct {
    int32_t nrec, entry; /* entry: the sender's clock entry (FENCE: completes the records) */
    int64_t passive;     /* FENCE: how many PASSIVE batches the sender sent the receiver */
} msg_hdr;

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
            return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
        R->reqbuf = b;
        R->capreq = cap;
    }
    int n = recs ? recs->n : 0;
    size_t bytes = sizeof(msg_hdr) + rmalab__clock_bytes() + (size_t)n * rmalab__races_racc_size();
    unsigned char *buf = rmalab__mem_alloc(bytes);
    if (!buf)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    *(msg_hdr *)buf =
        (msg_hdr){.nrec = n, .entry = rmalab__clock_entry(), .passive = (int64_t)R->sent[to]};
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
 * this rank get here). The caller frees *buf. */
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
    if (!*buf)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    int e = MPI_Recv(*buf, count, MPI_BYTE, st.MPI_SOURCE, tag, R->comm, MPI_STATUS_IGNORE);
    if (e != MPI_SUCCESS) {
        rmalab__mem_free(*buf);
        return rmalab__err_mpi(e, "MPI_Recv (race checker)");
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

/* A message that came in joins R->in, for races.c; the step's end frees it. */
static int keep_in(struct rmalab__races *R, unsigned char *buf, int from, int kind)
{
    if (R->nin == R->capin) {
        int cap = R->capin ? 2 * R->capin : 8;
        struct rmalab__rbatch *in = rmalab__mem_realloc(R->in, (size_t)cap * sizeof *in);
        if (!in) {
            rmalab__mem_free(buf);
            return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
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
    return rc ? rc : keep_in(R, buf, from, kind);
}

/* Passive-target batches that have arrived. */
static int drain(struct rmalab__races *R)
{
    for (;;) {
        int flag = 0;
        MPI_Status st;
        int e = MPI_Iprobe(MPI_ANY_SOURCE, RMALAB__TAG_PASSIVE, R->comm, &flag, &st);
        if (e != MPI_SUCCESS)
            return rmalab__err_mpi(e, "MPI_Iprobe (race checker)");
        if (!flag)
            return RMALAB_OK;
        int rc = receive(R, st.MPI_SOURCE, RMALAB__TAG_PASSIVE, RMALAB__RB_PASSIVE);
        if (rc)
            return rc;
        R->recvd[st.MPI_SOURCE]++;
    }
}

/* Collective in effect: one FENCE message to every other rank, with this
 * rank's records to it at a fence (as they are: their target completes
 * them), none at free, and how many passive batches went to it before; then
 * each origin's passive batches, and its FENCE message after them. The
 * messages carry the clocks that the fence joins (rmalab__races_wire_out),
 * so that no collective is needed here. Every message is sent, whatever
 * failed, so that no peer waits for one that never comes. */
static int exchange(struct rmalab__races *R, bool fence)
{
    int rc = RMALAB_OK, rc2 = RMALAB_OK;
    for (int t = 0; t < R->size; t++) {
        int e = t == R->rank ? RMALAB_OK
                             : send_msg(R, t, RMALAB__TAG_FENCE, fence ? R->S : NULL,
                                        fence ? &R->out[t] : NULL);
        rc = rc ? rc : e;
    }
    for (int o = 0; o < R->size && !rc2; o++) {
        unsigned char *buf = NULL;
        int64_t n = (int64_t)R->sent[o]; /* to itself */
        if (o != R->rank && !(rc2 = recv_msg(R, o, RMALAB__TAG_FENCE, &buf)))
            n = ((const msg_hdr *)buf)->passive;
        while (!rc2 && (int64_t)R->recvd[o] < n) {
            rc2 = receive(R, o, RMALAB__TAG_PASSIVE, RMALAB__RB_PASSIVE);
            R->recvd[o]++;
        }
        if (buf && !rc2 && fence)
            rc2 = keep_in(R, buf, o, RMALAB__RB_FENCE);
        else
            rmalab__mem_free(buf);
    }
    return rc ? rc : rc2;
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
        for (int i = 0; i < st->n && !rc; i++)
            rc = receive(R, st->group[i], RMALAB__TAG_POST, RMALAB__RB_POST);
        if (!rc)
            release(R, st);
        return rc;
    case RMALAB__DO_EXPOSED:
        for (int i = 0; i < st->n && !rc; i++)
            rc = receive(R, st->group[i], RMALAB__TAG_DONE, RMALAB__RB_EPOCH);
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
    if (!rc)
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
