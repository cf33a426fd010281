/* The race checker's messages (docs/races.md): records and a clock sent
 * from one rank to another on the checker's own communicator, received and
 * checked; the passive-target batches that arrived; and the collective
 * exchange of fence and free, where the ranks first say how many batches
 * each sent to each. races-sync.c decides what goes out when.
 *
 * A message is a header, the sender's clock (one int64 per world rank),
 * then records. Sends are MPI_Isend, made before the call that lets the
 * peer go on, so a receive never waits for a peer's progress beyond a
 * message already sent; receives poll and sleep. */
#include "races-private.h"
#include "alloc.h"
#include "error-private.h"

#include <string.h>
#include <time.h>

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

int rmalab__races_wire_send(struct rmalab__races *R, int to, int tag, const int64_t *clock,
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
int rmalab__races_wire_recv(struct rmalab__races *R, int from, int tag, unsigned char **buf)
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

const int64_t *rmalab__races_wire_msg_clock(const unsigned char *buf)
{
    return (const int64_t *)(buf + sizeof(msg_hdr));
}
static int msg_n(const unsigned char *buf) { return ((const msg_hdr *)buf)->nrec; }
static const rmalab__racc *msg_recs(const unsigned char *buf)
{
    return (const rmalab__racc *)(buf + sizeof(msg_hdr) + rmalab__clock_bytes());
}

/* Receive one message and check its records. */
int rmalab__races_wire_take(struct rmalab__races *R, int from, int tag, bool intra,
                            const char *at, bool acquire)
{
    unsigned char *buf;
    int rc = rmalab__races_wire_recv(R, from, tag, &buf);
    if (rc)
        return rc;
    rmalab__races_check(R, msg_recs(buf), msg_n(buf),
                        intra ? RMALAB__CK_INTRA | RMALAB__CK_PASSIVE : 0, at);
    if (acquire)
        rmalab__clock_acquire(rmalab__races_wire_msg_clock(buf));
    if (intra) /* a passive batch: what its origin's later ones know */
        rmalab__races_seen(R, from, rmalab__races_wire_msg_clock(buf));
    rmalab__mem_free(buf);
    return RMALAB_OK;
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
        int rc = rmalab__races_wire_take(R, st.MPI_SOURCE, RMALAB__TAG_PASSIVE, true, at, false);
        if (rc)
            return rc;
        R->recvd[st.MPI_SOURCE]++;
    }
}

/* Collective: every passive batch sent to this rank, and `fence` (per
 * origin: one FENCE message or none), received and checked. */
int rmalab__races_wire_exchange(struct rmalab__races *R, const int64_t *fence, const char *at)
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
            rc = rmalab__races_wire_take(R, o, RMALAB__TAG_PASSIVE, true, at, false);
            R->recvd[o]++;
        }
        if (!rc && theirs[2 * o + 1])
            rc = rmalab__races_wire_take(R, o, RMALAB__TAG_FENCE, false, at, false);
    }
    rmalab__mem_free(mine);
    return rc;
}
