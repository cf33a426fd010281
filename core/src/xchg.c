/* Strings of bytes across a communicator (rmalab_comm_exchange): bcast,
 * gather, allgather, scatter and alltoall of strings whose lengths only
 * their senders know.
 *
 * Each string travels as a packet (its length, the sender's status,
 * whether the sender's clock ends it, and its first INL bytes) in one MPI
 * collective of the call's shape; gather's packets go to every rank
 * (MPI_Allgather), so that every rank sees every status. The packets tell
 * every rank the same things: whether someone failed (then all stop
 * there), whether some string is longer than INL (then a second
 * collective, the v-form, moves the rest), and a bound on what any rank
 * receives. A bound over SCRATCH_KEEP bytes means memory that a rank may
 * not get: the ranks agree on it before the second collective; below it,
 * the thread's scratch, made before the first, holds everything. */
#include "coll-private.h"
#include "alloc.h"
#include "error-private.h"
#include "block.h"

#include <stdlib.h>

#define INL 48
#define SCRATCH_KEEP (256 * 1024)

typedef struct {
    int64_t n;     /* bytes of the string, the clock included */
    int64_t over;  /* the sender's bytes past INL, over all its strings */
    int32_t status;
    uint8_t clock; /* the string ends with the sender's clock */
    uint8_t pad[3];
    unsigned char inl[INL];
} xpacket;

typedef struct {
    rmalab_comm *c;
    MPI_Comm mc;
    rmalab_xchg_kind kind;
    int root, rank, size, status;
    int nout, nin;          /* strings this rank sends and receives */
    const rmalab_bytes *out; /* with the clock appended when it has one */
    xpacket *opk, *ipk;
    unsigned char *block;    /* what arrives, string after string */
    int64_t *off;            /* nin + 1 offsets into block */
    int *v;                  /* the v-form's counts and displacements */
    unsigned char *packed;   /* scatter's and alltoall's bytes past INL */
    bool own_block;
} xchg;

const char *rmalab_xchg_kind_name(rmalab_xchg_kind kind)
{
    static const char *const names[] = {
        [RMALAB_XCHG_BCAST] = "bcast", [RMALAB_XCHG_GATHER] = "gather",
        [RMALAB_XCHG_ALLGATHER] = "allgather", [RMALAB_XCHG_SCATTER] = "scatter",
        [RMALAB_XCHG_ALLTOALL] = "alltoall",
    };
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

static bool sends(const xchg *x)
{
    switch (x->kind) {
    case RMALAB_XCHG_BCAST:
    case RMALAB_XCHG_SCATTER: return x->rank == x->root;
    default: return true;
    }
}

static int receives(const xchg *x)
{
    switch (x->kind) {
    case RMALAB_XCHG_BCAST: return x->rank == x->root ? 0 : 1;
    case RMALAB_XCHG_SCATTER: return 1;
    case RMALAB_XCHG_GATHER: return x->rank == x->root ? x->size : 0;
    default: return x->size;
    }
}

/* ------------------------------------------------------------------------ */
/* Before the first collective                                              */

/* This rank's strings with its clock appended, when it has one: copies. */
static int with_clock(xchg *x, const rmalab_bytes *send, rmalab_bytes **staged)
{
    size_t W8 = rmalab__clock_wire();
    int64_t *S = rmalab__mem_alloc(W8);
    if (!S)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    if (!rmalab__clock_out(S)) {
        rmalab__mem_free(S);
        return RMALAB_OK;
    }
    size_t total = 0;
    for (int i = 0; i < x->nout; i++)
        total += send[i].n + W8;
    rmalab_bytes *b = rmalab__mem_alloc(x->nout * sizeof *b + total);
    int rc = b ? RMALAB_OK : rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory for a copy");
    unsigned char *p = b ? (unsigned char *)(b + x->nout) : NULL;
    for (int i = 0; !rc && i < x->nout; i++) {
        memcpy(p, send[i].p, send[i].n);
        memcpy(p + send[i].n, S, W8);
        b[i] = (rmalab_bytes){p, send[i].n + W8};
        p += b[i].n;
    }
    rmalab__mem_free(S);
    *staged = b;
    return rc;
}

/* The thread's scratch 1: out and in packets, offsets, the v-form's
 * arguments; scratch 0 (at least SCRATCH_KEEP): what arrives. */
static int packets(xchg *x)
{
    size_t P = (size_t)x->size, n = 2 * P * sizeof(xpacket);
    unsigned char *pk =
        rmalab__coll_scratch(1, n + (P + 1) * sizeof(int64_t) + 4 * P * sizeof(int));
    if (!pk || !rmalab__coll_scratch(0, SCRATCH_KEEP))
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "%s: out of memory",
                                rmalab_xchg_kind_name(x->kind));
    memset(pk, 0, n);
    x->opk = (xpacket *)pk;
    x->ipk = x->opk + P;
    x->off = (int64_t *)(pk + n);
    x->v = (int *)(x->off + P + 1);
    return RMALAB_OK;
}

static void fill_packets(xchg *x, bool clocked)
{
    int64_t over = 0; /* a rank that cannot take part has no strings to read */
    for (int i = 0; i < x->nout && !x->status; i++)
        over += x->out[i].n > INL ? (int64_t)(x->out[i].n - INL) : 0;
    for (int i = 0; i < x->nout; i++) {
        xpacket *p = &x->opk[i];
        p->status = x->status;
        if (x->status)
            continue;
        p->n = (int64_t)x->out[i].n;
        p->over = over;
        p->clock = clocked;
        memcpy(p->inl, x->out[i].p, x->out[i].n < INL ? x->out[i].n : INL);
    }
    for (int i = 0; x->status && i < x->size; i++)
        x->opk[i].status = x->status;
}

/* ------------------------------------------------------------------------ */
/* The collectives                                                          */

static int first(xchg *x)
{
    int e, P = (int)sizeof(xpacket);
    switch (x->kind) {
    case RMALAB_XCHG_BCAST:
        if (x->rank == x->root)
            x->ipk[0] = x->opk[0];
        e = MPI_Bcast(x->ipk, P, MPI_BYTE, x->root, x->mc);
        break;
    case RMALAB_XCHG_GATHER:
    case RMALAB_XCHG_ALLGATHER:
        e = MPI_Allgather(x->opk, P, MPI_BYTE, x->ipk, P, MPI_BYTE, x->mc);
        break;
    case RMALAB_XCHG_SCATTER:
        e = MPI_Scatter(x->opk, P, MPI_BYTE, x->ipk, P, MPI_BYTE, x->root, x->mc);
        break;
    default: e = MPI_Alltoall(x->opk, P, MPI_BYTE, x->ipk, P, MPI_BYTE, x->mc); break;
    }
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__err_mpi(e, rmalab_xchg_kind_name(x->kind));
}

/* Packets seen: the bcast's and scatter's one, every rank's otherwise. */
static int seen(const xchg *x)
{
    return x->kind == RMALAB_XCHG_BCAST || x->kind == RMALAB_XCHG_SCATTER ? 1 : x->size;
}

static int sender(const xchg *x, int i)
{
    return seen(x) == 1 ? x->root : i;
}

/* The same on every rank: a failure, the bytes past the packets, and a
 * bound on what any rank receives. */
static int verdict(xchg *x, int64_t *over, int64_t *bound)
{
    *over = *bound = 0;
    for (int i = 0; i < seen(x); i++) {
        const xpacket *p = &x->ipk[i];
        if (p->status)
            return x->status ? x->status
                             : rmalab__err_fail(p->status,
                                                "%s: rank %d could not take part (%s; "
                                                "its own error says why)",
                                                rmalab_xchg_kind_name(x->kind), sender(x, i),
                                                rmalab_err_name(p->status));
        *over += seen(x) == 1 || x->kind == RMALAB_XCHG_ALLTOALL ? p->over
                 : p->n > INL                                    ? p->n - INL
                                                                 : 0;
        *bound += x->kind == RMALAB_XCHG_BCAST ? p->n : p->over + x->size * INL;
    }
    if (*bound > RMALAB_BYTES_MAX)
        return rmalab__err_fail(RMALAB_ERR_ARG,
                                "%s: %lld bytes in all: more than one call can move",
                                rmalab_xchg_kind_name(x->kind), (long long)*bound);
    return RMALAB_OK;
}

/* Where each string arriving here goes, and its first INL bytes. */
static int place(xchg *x, int64_t bound)
{
    int64_t total = 0;
    for (int i = 0; i < x->nin; i++) {
        x->off[i] = total;
        total += x->ipk[seen(x) == 1 ? 0 : i].n;
    }
    x->off[x->nin] = total;
    int rc = RMALAB_OK;
    if (bound > SCRATCH_KEEP) {
        x->block = x->nin ? rmalab__mem_alloc((size_t)total) : NULL;
        x->own_block = true;
        if (x->nin && !x->block)
            rc = rmalab__err_fail(RMALAB_ERR_NO_MEM, "%s: out of memory for %lld bytes",
                                  rmalab_xchg_kind_name(x->kind), (long long)total);
        if ((rc = rmalab__err_agree(x->mc, rc, rmalab_xchg_kind_name(x->kind))))
            return rc;
    } else {
        x->block = rmalab__coll_scratch(0, SCRATCH_KEEP);
    }
    for (int i = 0; i < x->nin; i++) {
        const xpacket *p = &x->ipk[seen(x) == 1 ? 0 : i];
        memcpy(x->block + x->off[i], p->inl, p->n < INL ? (size_t)p->n : INL);
    }
    return RMALAB_OK;
}

static int past(int64_t n)
{
    return n > INL ? (int)(n - INL) : 0;
}

/* The v-form's counts and displacements: sent, then received. */
static void vargs(xchg *x)
{
    int *v = x->v, *rc = v + 2 * x->size, *rd = v + 3 * x->size, d = 0;
    for (int i = 0; i < x->size; i++) {
        v[i] = x->nout > i ? past((int64_t)x->out[i].n) : 0;
        v[x->size + i] = d;
        d += v[i];
        rc[i] = x->nin > i ? past(x->ipk[i].n) : 0;
        rd[i] = x->nin > i ? (int)x->off[i] + INL : 0;
    }
}

/* Scatter's and alltoall's senders: their bytes past INL, one string after
 * another (before the first collective, so that a failure travels). */
static int pack(xchg *x)
{
    size_t total = 0;
    for (int i = 0; i < x->nout; i++)
        total += x->out[i].n > INL ? x->out[i].n - INL : 0;
    if (x->nout < x->size || !total)
        return RMALAB_OK;
    unsigned char *p = x->packed = rmalab__mem_alloc(total);
    if (!p)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "%s: out of memory",
                                rmalab_xchg_kind_name(x->kind));
    for (int i = 0; i < x->nout; i++)
        if (x->out[i].n > INL) {
            memcpy(p, (const unsigned char *)x->out[i].p + INL, x->out[i].n - INL);
            p += x->out[i].n - INL;
        }
    return RMALAB_OK;
}

static int second(xchg *x)
{
    int e = MPI_SUCCESS;
    if (x->kind == RMALAB_XCHG_BCAST) {
        int64_t n = x->ipk[0].n;
        void *p = x->rank == x->root ? (unsigned char *)x->out[0].p + INL : x->block + INL;
        return (e = MPI_Bcast(p, past(n), MPI_BYTE, x->root, x->mc)) == MPI_SUCCESS
                   ? RMALAB_OK
                   : rmalab__err_mpi(e, "bcast");
    }
    vargs(x);
    int *sc = x->v, *sd = sc + x->size, *rcn = sc + 2 * x->size, *rd = sc + 3 * x->size;
    const void *mine = x->nout ? (const unsigned char *)x->out[0].p + INL : NULL;
    if (x->size == 1) { /* MPICH 4.0.2's MPI_Allgatherv ignores displs on one rank */
        memcpy(x->block + rd[0], mine, (size_t)sc[0]);
        return RMALAB_OK;
    }
    unsigned char *packed = x->packed;
    switch (x->kind) {
    case RMALAB_XCHG_GATHER:
        e = MPI_Gatherv(mine, sc[0], MPI_BYTE, x->block, rcn, rd, MPI_BYTE, x->root, x->mc);
        break;
    case RMALAB_XCHG_ALLGATHER:
        e = MPI_Allgatherv(mine, sc[0], MPI_BYTE, x->block, rcn, rd, MPI_BYTE, x->mc);
        break;
    case RMALAB_XCHG_SCATTER:
        e = MPI_Scatterv(packed, sc, sd, MPI_BYTE, x->block + INL, past(x->ipk[0].n), MPI_BYTE,
                         x->root, x->mc);
        break;
    default:
        e = MPI_Alltoallv(packed, sc, sd, MPI_BYTE, x->block, rcn, rd, MPI_BYTE, x->mc);
        break;
    }
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__err_mpi(e, rmalab_xchg_kind_name(x->kind));
}

/* ------------------------------------------------------------------------ */
/* After                                                                    */

/* Take the clocks off the strings that carry one, acquiring the others'. */
static int unclock(xchg *x, rmalab_bytes *recv)
{
    size_t W8 = rmalab__clock_wire();
    int rc = RMALAB_OK;
    for (int i = 0; i < x->nin && !rc; i++) {
        const xpacket *p = &x->ipk[seen(x) == 1 ? 0 : i];
        recv[i] = (rmalab_bytes){x->block + x->off[i], (size_t)p->n};
        if (!p->clock)
            continue;
        if (recv[i].n < W8)
            return rmalab__err_fail(RMALAB_ERR_ARG, "%s: a string too short for its clock",
                                    rmalab_xchg_kind_name(x->kind));
        recv[i].n -= W8;
        if (sender(x, i) != x->rank)
            rc = rmalab__clock_in((const unsigned char *)recv[i].p + recv[i].n);
    }
    return rc;
}

static int run(xchg *x, const rmalab_bytes *send, rmalab_bytes *recv)
{
    rmalab_bytes *staged = NULL;
    int64_t over, bound;
    x->out = send;
    if (!x->status && x->nout && rmalab__clock_exists())
        x->status = with_clock(x, send, &staged);
    if (staged)
        x->out = staged;
    for (int i = 0; !x->status && i < x->nout; i++)
        if (x->out[i].n > RMALAB_BYTES_MAX)
            x->status = rmalab__err_fail(RMALAB_ERR_ARG,
                                         "%s: %zu bytes are more than one string "
                                         "may hold",
                                         rmalab_xchg_kind_name(x->kind), x->out[i].n);
    if (!x->status)
        x->status = pack(x);
    int rc = packets(x); /* with no memory for the packets, nothing can be sent */
    if (rc) {
        rmalab__mem_free(staged);
        rmalab__mem_free(x->packed);
        return rc;
    }
    fill_packets(x, staged != NULL);
    if (!(rc = first(x)) && !(rc = verdict(x, &over, &bound)) && !(rc = place(x, bound)) && over)
        rc = second(x);
    if (!rc)
        rc = unclock(x, recv);
    if (!rc && x->kind == RMALAB_XCHG_BCAST && x->rank == x->root)
        recv[0] = send[0];
    rmalab__mem_free(staged);
    rmalab__mem_free(x->packed);
    return rc;
}

int rmalab_comm_exchange(rmalab_comm *c, rmalab_xchg_kind kind, int root,
                         const rmalab_bytes *send, rmalab_bytes *recv, int status)
{
    static _Thread_local unsigned char *big; /* the last call's block, if its own */
    rmalab__mem_free(big);
    big = NULL;
    const char *call = (unsigned)kind <= RMALAB_XCHG_ALLTOALL ? rmalab_xchg_kind_name(kind) : "exchange";
    xchg x = {.c = c, .kind = kind, .root = root, .status = status};
    bool rooted = kind != RMALAB_XCHG_ALLGATHER && kind != RMALAB_XCHG_ALLTOALL;
    int rc = RMALAB_OK;
    if ((unsigned)kind > RMALAB_XCHG_ALLTOALL)
        return rmalab__coll_refuse(call, c,
                                   rmalab__err_fail(RMALAB_ERR_ARG,
                                                    "exchange: unknown "
                                                    "kind %d",
                                                    (int)kind));
    int bad = RMALAB_OK; /* this rank's root: the others fail with it, not wait */
    if (c && rooted && (root < 0 || root >= rmalab_comm_size(c)))
        bad = status ? status /* its message kept */
                     : rmalab__err_fail(RMALAB_ERR_RANK,
                                        "%s: root %d is not a rank of this "
                                        "communicator (0 to %d)",
                                        call, root, rmalab_comm_size(c) - 1);
    rmalab__block b;
    if ((rc = rmalab__coll_begin(&b, call, c, true, NULL)))
        return rc;
    x.mc = rmalab_comm_mpi(c);
    x.rank = rmalab_comm_rank(c);
    x.size = rmalab_comm_size(c);
    x.nout = !sends(&x) ? 0
             : kind == RMALAB_XCHG_SCATTER || kind == RMALAB_XCHG_ALLTOALL ? x.size
                                                                          : 1;
    x.nin = receives(&x);
    /* a root-shaped first collective with different roots would not meet;
     * a failed status travels in the packets */
    if (rooted)
        rc = rmalab__coll_agree_args(c, call, bad, 0, -1, root, -1);
    if (!rc)
        rc = run(&x, send, recv);
    if (x.own_block)
        big = x.block;
    return rmalab__coll_end(&b, rc);
}
