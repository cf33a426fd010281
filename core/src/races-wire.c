/* The race checker between ranks (docs/races.md): what each
 * synchronisation sends and receives, and the messages that carry it.
 * races-sync.c hands each call here by its kind's row; races.c checks the
 * records that arrive; races-report.c says what was found.
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
 *
 * A message is a header, the sender's clock (one int64 per world rank),
 * then records. Sends are MPI_Isend, made before the call that lets the
 * peer go on, so a receive never waits for a peer's progress beyond a
 * message already sent; receives poll and sleep. */
#include "races-private.h"
#include "races-report.h"
#include "races-wire.h"
#include "alloc.h"
#include "error-private.h"

#include <string.h>
#include <time.h>

enum { RMALAB__TAG_POST = 1, RMALAB__TAG_DONE, RMALAB__TAG_PASSIVE, RMALAB__TAG_FENCE };

typedef struct {
    int32_t nrec, spare;
    int64_t pad;
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
    *(msg_hdr *)buf = (msg_hdr){.nrec = n};
    memcpy(buf + sizeof(msg_hdr), clock, rmalab__clock_bytes());
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

/* Receive one message and check its records. */
static int take(struct rmalab__races *R, int from, int tag, bool intra,
                            const char *at, bool acquire)
{
    unsigned char *buf;
    int rc = recv_msg(R, from, tag, &buf);
    if (rc)
        return rc;
    struct rmalab__rlist recs = msg_recs(buf);
    rc = rmalab__races_check(R, &recs, intra ? RMALAB__CK_INTRA | RMALAB__CK_PASSIVE : 0,
                             &R->found_pairs);
    (void)at;
    if (acquire)
        rmalab__clock_acquire(msg_clock(buf));
    if (intra) /* a passive batch: what its origin's later ones know */
        rmalab__races_seen(R, from, msg_clock(buf));
    rmalab__mem_free(buf);
    return rc;
}

/* Passive-target batches that have arrived. */
int rmalab__races_wire_drain(struct rmalab__races *R, const char *at)
{
    for (;;) {
        int flag = 0;
        MPI_Status st;
        int e = MPI_Iprobe(MPI_ANY_SOURCE, RMALAB__TAG_PASSIVE, R->comm, &flag, &st);
        if (e != MPI_SUCCESS)
            return rmalab__err_mpi(e, "MPI_Iprobe (race checker)");
        if (!flag)
            return RMALAB_OK;
        int rc = take(R, st.MPI_SOURCE, RMALAB__TAG_PASSIVE, true, at, false);
        if (rc)
            return rc;
        R->recvd[st.MPI_SOURCE]++;
    }
}

/* Collective: every passive batch sent to this rank, and `fence` (per
 * origin: one FENCE message or none), received and checked. */
static int exchange(struct rmalab__races *R, const int64_t *fence, const char *at)
{
    int P = R->size, rc = RMALAB_OK;
    int64_t *mine = rmalab__mem_alloc(4 * (size_t)P * sizeof *mine);
    if (!mine)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    int64_t *theirs = mine + 2 * P;
    for (int t = 0; t < P; t++) {
        mine[2 * t] = (int64_t)R->sent[t];
        mine[2 * t + 1] = fence ? fence[t] : 0;
    }
    int e = MPI_Alltoall(mine, 2, MPI_INT64_T, theirs, 2, MPI_INT64_T, R->comm);
    if (e != MPI_SUCCESS)
        rc = rmalab__err_mpi(e, "MPI_Alltoall (race checker)");
    for (int o = 0; o < P && !rc; o++) {
        while (!rc && (int64_t)R->recvd[o] < theirs[2 * o]) {
            rc = take(R, o, RMALAB__TAG_PASSIVE, true, at, false);
            R->recvd[o]++;
        }
        if (!rc && theirs[2 * o + 1])
            rc = take(R, o, RMALAB__TAG_FENCE, false, at, false);
    }
    rmalab__mem_free(mine);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* What each synchronisation sends and receives                             */

int rmalab__races_wire_post(struct rmalab__races *R, const int *ranks, int n)
{
    int64_t *S = rmalab__mem_alloc(rmalab__clock_bytes());
    if (!S)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    rmalab__clock_release(S);
    R->exposing = true;
    int rc = RMALAB_OK;
    for (int i = 0; i < n && !rc; i++)
        rc = send_msg(R, ranks[i], RMALAB__TAG_POST, S, NULL);
    rmalab__mem_free(S);
    return rc;
}

/* MPI orders a target's accesses before its post only before the
 * operations of the access epoch that matches it: the post clock joins
 * those records, not this rank's clock. */
static int join_post(struct rmalab__races *R, int t)
{
    unsigned char *buf;
    int rc = recv_msg(R, t, RMALAB__TAG_POST, &buf);
    if (rc)
        return rc;
    rmalab__races_rlist_join(&R->out[t], msg_clock(buf));
    rmalab__mem_free(buf);
    return RMALAB_OK;
}

int rmalab__races_wire_complete(struct rmalab__races *R, const int *group, int n)
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
        rmalab__races_rlist_complete(&R->out[group[i]], S);
        rc = send_msg(R, group[i], RMALAB__TAG_DONE, S, &R->out[group[i]]);
        R->out[group[i]].n = 0;
    }
    rmalab__mem_free(S);
    return rc;
}

int rmalab__races_wire_exposed(struct rmalab__races *R, const int *xgroup, int n, const char *at)
{
    int rc = RMALAB_OK;
    for (int i = 0; i < n && !rc; i++)
        rc = take(R, xgroup[i], RMALAB__TAG_DONE, false, at, true);
    if (!rc) {
        R->exposing = false; /* every record of the epoch is in */
        rmalab__races_prune(R);
    }
    return rc ? rc : rmalab__races_wire_drain(R, at);
}

int rmalab__races_wire_passive(struct rmalab__races *R, int t, const int64_t *S,
                               const struct rmalab__rlist *l)
{
    int rc = send_msg(R, t, RMALAB__TAG_PASSIVE, S, l);
    if (!rc)
        R->sent[t]++;
    return rc;
}

/* Passive target: the records to t are complete. The origin checks the
 * batch's own pairs (the target may call nothing soon), then ships it. */
static int ship_passive(struct rmalab__races *R, int t, const int64_t *S, const char *at)
{
    struct rmalab__rlist *l = &R->out[t];
    if (!l->n)
        return RMALAB_OK;
    rmalab__races_rlist_complete(l, S);
    int rc = RMALAB_OK;
    if (t == R->rank) {
        rc = rmalab__races_check(R, l, RMALAB__CK_PASSIVE, &R->found_pairs);
    } else {
        rc = rmalab__races_within(R, l, &R->found_pairs);
        if (!rc)
            rc = rmalab__races_wire_passive(R, t, S, l);
    }
    l->n = 0;
    return rc;
}

int rmalab__races_wire_released(struct rmalab__races *R, int target, const char *at)
{
    int64_t *S = rmalab__mem_alloc(rmalab__clock_bytes());
    if (!S)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    rmalab__clock_release(S);
    int rc = RMALAB_OK;
    for (int t = target < 0 ? 0 : target; t < (target < 0 ? R->size : target + 1) && !rc; t++)
        rc = ship_passive(R, t, S, at);
    rmalab__mem_free(S);
    return rc ? rc : rmalab__races_wire_drain(R, at);
}

int rmalab__races_wire_fence(struct rmalab__races *R, const char *at)
{
    int P = R->size, rc = RMALAB_OK;
    int64_t *S = rmalab__mem_alloc(rmalab__clock_bytes() + (size_t)P * sizeof(int64_t));
    if (!S)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    int64_t *sent = S + rmalab__clock_size();
    rmalab__clock_release(S);
    for (int t = 0; t < P; t++) {
        struct rmalab__rlist *l = &R->out[t];
        sent[t] = t != R->rank && l->n;
        rmalab__races_rlist_complete(l, S);
        if (t == R->rank)
            rc = rmalab__races_check(R, l, 0, &R->found_pairs);
        else if (l->n && !rc)
            rc = send_msg(R, t, RMALAB__TAG_FENCE, S, l);
        l->n = 0;
    }
    /* Every rank goes through the collectives, whatever failed. */
    int rc2 = exchange(R, sent, at);
    rmalab__races_report(R, &R->found_pairs, at);
    int rc3 = rmalab__races_report_finish_together(R, S, "fence");
    rmalab__mem_free(S);
    /* The fence orders everything before it. */
    rmalab__races_forget(R, rc3 ? NULL : rmalab__clock_now());
    return rc ? rc : rc2 ? rc2 : rc3;
}

int rmalab__races_wire_close(struct rmalab__races *R, const char *at)
{
    int rc = exchange(R, NULL, at);
    rmalab__races_report(R, &R->found_pairs, at);
    int rc2 = rmalab__races_report_finish_together(R, NULL, "free");
    /* Every peer has received what this rank sent: the sends end now. */
    for (int i = 0; i < R->nreq; i++) {
        MPI_Wait(&R->req[i], MPI_STATUS_IGNORE);
        rmalab__mem_free(R->reqbuf[i]);
    }
    R->nreq = 0;
    return rc ? rc : rc2;
}

void rmalab__races_wire_free(struct rmalab__races *R)
{
    /* Sends still in flight (a window abandoned on the way out) keep
     * their buffers: MPI may still read them. */
    for (int i = 0; i < R->nreq; i++)
        MPI_Request_free(&R->req[i]);
    rmalab__mem_free(R->req);
    rmalab__mem_free(R->reqbuf);
}
