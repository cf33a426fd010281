/* Collectives on communicators (rmalab/coll.h): what every call shares
 * (its record in block.c, the thread's scratch, the clocks on the wire),
 * reductions of numbers, and split. xchg.c moves strings of bytes.
 *
 * A reduction is one MPI_Allreduce of a packet per rank: a header (count,
 * type, op, status, whether the rank has a clock) and the first
 * RMALAB_REDUCE_INLINE numbers, combined by an op of our own that checks the
 * headers agree, promotes int64 to double when the ranks differ, and reduces
 * the numbers. So one number costs one collective, and every rank learns of a
 * mismatch or a failure in the same call. Longer arrays (and every scan)
 * follow with MPI's own op on the agreed type, and the clocks with MPI_MAX in
 * the shape of the reduction, when some rank has one. rmalab_barrier is one
 * such reduction of the clocks alone. */
#include "coll-private.h"
#include "alloc.h"
#include "comm-private.h"
#include "types.h"

/* ------------------------------------------------------------------------ */
/* Calls                                                                    */

int rmalab__coll_refuse(const char *call, rmalab_comm *c, int rc)
{
    rmalab__block b = {0};
    if (c)
        rmalab__block_comm(&b, rmalab_comm_mpi(c));
    return rmalab__block_call_end(call, "comm", c ? b.id : UINT64_MAX, rc);
}

/* rmalab__coll_begin's body, inline in allreduce_one (out of line, with
 * its call and block.c's to forget the last failure, 68 instructions). */
static inline __attribute__((always_inline)) int coll_begin(rmalab__block *b, const char *call,
                                                            rmalab_comm *c, bool collective,
                                                            const int *peer)
{
    rmalab__block_call_begin();
    /* the fields that rmalab__block_comm and _enter leave, one by one (a new
     * field of the record is set here too): clearing it whole was 21-22 */
    b->call = call;
    b->collective = collective;
    b->interruptible = b->passive = false;
    atomic_init(&b->interrupted, false);
    b->win_prev = NULL;
    b->agree = NULL;
    b->dup = NULL;
    if (!c)
        return rmalab__block_call_end(
            call, "comm", UINT64_MAX,
            rmalab__err_fail(RMALAB_ERR_COMM, "%s: the communicator is NULL or freed", call));
    rmalab__block_comm(b, rmalab_comm_mpi(c));
    if (peer && b->n) {
        b->ranks = peer;
        b->n = 1;
    }
    int rc = rmalab__block_enter(b);
    return rc ? rmalab__block_call_end(call, "comm", b->id, rc) : RMALAB_OK;
}

int rmalab__coll_begin(rmalab__block *b, const char *call, rmalab_comm *c, bool collective,
                       const int *peer)
{
    return coll_begin(b, call, c, collective, peer);
}

void *rmalab__coll_scratch(int which, size_t n)
{
    static _Thread_local struct {
        void *p;
        size_t cap;
    } s[2];
    if (!n) /* as rmalab__mem_alloc: a first call for 0 bytes is no failure */
        n = 1;
    if (n > s[which].cap) {
        void *p = rmalab__mem_realloc(s[which].p, n);
        if (!p)
            return NULL;
        s[which].p = p;
        s[which].cap = n;
    }
    return s[which].p;
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first (MPI 4.0, 11.2.4):
 * each hook is one attribute, and runs there. */
static void (*hooks[4])(void);
static int nhooks;

static int run_hooks(MPI_Comm c, int keyval, void *value, void *extra)
{
    (void)c, (void)value, (void)extra;
    while (nhooks)
        hooks[--nhooks]();
    MPI_Comm_free_keyval(&keyval);
    return MPI_SUCCESS;
}

void rmalab__coll_at_finalize(void (*fn)(void))
{
    int kv;
    for (int i = 0; i < nhooks; i++)
        if (hooks[i] == fn)
            return;
    if (nhooks == 0 &&
        (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, run_hooks, &kv, NULL) != MPI_SUCCESS ||
         MPI_Comm_set_attr(MPI_COMM_SELF, kv, NULL) != MPI_SUCCESS))
        return;
    if (nhooks < 4)
        hooks[nhooks++] = fn;
}

/* ------------------------------------------------------------------------ */
/* Reductions                                                               */

enum { BAD_COUNT = 1, BAD_OP = 2, BAD_FORM = 4 };
/* One packet, one op, for the first collective of every reduction and of
 * every agreement on arguments: numbers to reduce (VALUES) or arguments to
 * compare (ARGS). A rank whose form differs (a buffer against numbers)
 * meets the others well-formed, and every rank fails (BAD_FORM). */
enum { FORM_VALUES, FORM_ARGS };

typedef struct {
    int32_t count, status, srank; /* srank: the lowest rank that failed */
    int8_t type, op, clock, bad, form;
    int64_t v[RMALAB_REDUCE_INLINE];
} rpacket;

static int64_t iop(int op, int64_t a, int64_t b)
{
    uint64_t x = (uint64_t)a, y = (uint64_t)b;
    switch (op) {
    case RMALAB_OP_SUM: return (int64_t)(x + y);
    case RMALAB_OP_PROD: return (int64_t)(x * y);
    case RMALAB_OP_MAX: return a > b ? a : b;
    case RMALAB_OP_MIN: return a < b ? a : b;
    case RMALAB_OP_BAND: return (int64_t)(x & y);
    case RMALAB_OP_BOR: return (int64_t)(x | y);
    case RMALAB_OP_BXOR: return (int64_t)(x ^ y);
    case RMALAB_OP_LAND: return a && b;
    case RMALAB_OP_LOR: return a || b;
    default: return !a != !b; /* lxor */
    }
}

static double fop(int op, double a, double b)
{
    switch (op) {
    case RMALAB_OP_SUM: return a + b;
    case RMALAB_OP_PROD: return a * b;
    case RMALAB_OP_MAX: return rmalab__type_fmax(a, b); /* NaN propagates */
    default: return rmalab__type_fmin(a, b); /* min: others are refused before */
    }
}

static void to_double(int64_t *v, int n)
{
    for (int i = 0; i < n; i++) {
        double d = (double)v[i];
        memcpy(&v[i], &d, 8);
    }
}

/* b's numbers reduced with a's, of one type. */
static inline void reduce_numbers(const rpacket *a, rpacket *b, int n)
{
    if (b->type == RMALAB_INT64) {
        for (int i = 0; i < n; i++)
            b->v[i] = iop(b->op, a->v[i], b->v[i]);
        return;
    }
    for (int i = 0; i < n; i++) {
        double x, y;
        memcpy(&x, &a->v[i], 8);
        memcpy(&y, &b->v[i], 8);
        y = fop(b->op, x, y);
        memcpy(&b->v[i], &y, 8);
    }
}

/* The usual case: two ranks' values alike, and no failure. */
static inline bool combine_alike(const rpacket *a, rpacket *b)
{
    if ((a->status | b->status | a->bad | b->bad | a->form | b->form) || a->count != b->count ||
        a->op != b->op || a->type != b->type)
        return false;
    b->clock |= a->clock;
    reduce_numbers(a, b, b->count < RMALAB_REDUCE_INLINE ? b->count : RMALAB_REDUCE_INLINE);
    return true;
}

/* Any other: kept out of packet_op, so that the usual case costs no more
 * than its own work. */
static void __attribute__((noinline)) combine(const rpacket *a, rpacket *b)
{
    if (a->status && (!b->status || a->srank < b->srank)) {
        b->status = a->status;
        b->srank = a->srank;
    }
    b->bad |= (int8_t)(a->bad | (a->count != b->count ? BAD_COUNT : 0) |
                       (a->op != b->op ? BAD_OP : 0) | (a->form != b->form ? BAD_FORM : 0));
    b->clock |= a->clock;
    if (a->form == FORM_ARGS && b->form == FORM_ARGS) {
        for (int i = 0; i < RMALAB_REDUCE_INLINE; i++)
            b->v[i] = a->v[i] > b->v[i] ? a->v[i] : b->v[i];
        return;
    }
    if (b->bad || b->status)
        return;
    rpacket a2 = *a;
    int n = b->count < RMALAB_REDUCE_INLINE ? b->count : RMALAB_REDUCE_INLINE;
    if (a2.type != b->type) { /* one of them is int64 */
        to_double(a2.type == RMALAB_INT64 ? a2.v : b->v, n);
        b->type = RMALAB_DOUBLE;
    }
    reduce_numbers(&a2, b, n);
}

static void __attribute__((noinline)) combine_all(const rpacket *a, rpacket *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!combine_alike(a + i, b + i))
            combine(a + i, b + i);
}

/* One packet of one number, alike, costs no loop and no saved registers
 * (the loop's were 20 instructions of packet_op's 70). */
static void packet_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    rpacket *b = inout;
    if (*len == 1 && b->count == 1 && combine_alike(in, b))
        return;
    combine_all(in, b, *len);
}

/* The MPI type and op of ours that the packet is reduced with: one element
 * of a contiguous type under a commutative op, which MPICH reduces by
 * recursive doubling, about as fast as one double's MPI_SUM. Made when
 * first needed, freed at MPI_Finalize. */
static MPI_Datatype packet_type = MPI_DATATYPE_NULL;
static MPI_Op packet_mpi_op = MPI_OP_NULL;

static void packet_free(void)
{
    MPI_Type_free(&packet_type);
    MPI_Op_free(&packet_mpi_op);
}

static int packet_make(void)
{
    if (MPI_Type_contiguous((int)sizeof(rpacket), MPI_BYTE, &packet_type) != MPI_SUCCESS ||
        MPI_Type_commit(&packet_type) != MPI_SUCCESS ||
        MPI_Op_create(packet_op, 1, &packet_mpi_op) != MPI_SUCCESS)
        return rmalab__err_fail(RMALAB_ERR_OTHER, "cannot make a collective's MPI type and op");
    rmalab__coll_at_finalize(packet_free);
    return RMALAB_OK;
}

static inline int packet_ready(void)
{
    return packet_mpi_op != MPI_OP_NULL ? RMALAB_OK : packet_make();
}

static const char *const kind_names[] = {
    [RMALAB_REDUCE_ALL] = "allreduce", [RMALAB_REDUCE_ROOT] = "reduce",
    [RMALAB_REDUCE_SCAN] = "scan", [RMALAB_REDUCE_EXSCAN] = "exscan",
};

const char *rmalab_reduce_kind_name(rmalab_reduce_kind kind)
{
    return (unsigned)kind < sizeof kind_names / sizeof kind_names[0] ? kind_names[kind] : "?";
}

const char *rmalab__coll_kind_call(rmalab_reduce_kind kind)
{
    return (unsigned)kind <= RMALAB_REDUCE_EXSCAN ? kind_names[kind] : "reduce";
}

/* What one rank can tell alone, before the collective. */
static int reduce_local(rmalab_comm *c, const char *call, rmalab_reduce_kind kind, int root,
                        int count, rmalab_type type, rmalab_op op)
{
    if (kind == RMALAB_REDUCE_ROOT && (root < 0 || root >= rmalab_comm_size(c)))
        return rmalab__err_fail(RMALAB_ERR_RANK, "%s: root %d is not a rank of this communicator "
                                                 "(0 to %d)", call, root, rmalab_comm_size(c) - 1);
    if (count < 0)
        return rmalab__err_fail(RMALAB_ERR_ARG, "%s: count %d is negative", call, count);
    if (type != RMALAB_INT64 && type != RMALAB_DOUBLE)
        return rmalab__err_fail(RMALAB_ERR_TYPE, "%s: numbers are int64 or double", call);
    if ((unsigned)op > RMALAB_OP_LXOR)
        return rmalab__err_fail(RMALAB_ERR_OP, "%s: %s is not a reduction; use sum, prod, max, "
                                               "min, band, bor, bxor, land, lor or lxor",
                                call, rmalab_op_name(op) ? rmalab_op_name(op) : "this op");
    if (type == RMALAB_DOUBLE && op >= RMALAB_OP_BAND)
        return rmalab__err_fail(RMALAB_ERR_TYPE, "%s: %s takes integers, and a float was given",
                                call, rmalab_op_name(op));
    return RMALAB_OK;
}

static int mixed_forms(const char *call) /* a typed buffer against values */
{
    return rmalab__err_fail(RMALAB_ERR_TYPE, "%s: some ranks gave a buffer and others values; "
                            "every rank must give a buffer alike, or every rank values", call);
}

/* A failed rank's packet names it; a rank outside the communicator means
 * that a rank's packet was none: it made another collective call. */
static int failed_rank(const rmalab_comm *c, const rpacket *all, const char *call)
{
    if (all->srank < 0 || all->srank >= rmalab_comm_size(c))
        return rmalab__err_out_of_step(call);
    return rmalab__err_fail(all->status, "%s: rank %d could not take part (%s; its own error "
                                         "says why)",
                            call, all->srank, rmalab_err_name(all->status));
}

/* The verdict of the combined headers past reduce_verdict's usual case. */
static __attribute__((noinline)) int verdict_rest(const rmalab_comm *c, const rpacket *all,
                                                   int status, const char *call)
{
    if (all->status)
        return status ? status : failed_rank(c, all, call);
    if (all->bad & BAD_FORM)
        return mixed_forms(call);
    if (all->bad & BAD_COUNT)
        return rmalab__err_fail(RMALAB_ERR_ARG, "%s: the ranks gave different numbers of values; "
                                                "each must give as many", call);
    if (all->bad & BAD_OP)
        return rmalab__err_fail(RMALAB_ERR_OP, "%s: the ranks gave different ops", call);
    if (all->type == RMALAB_DOUBLE && all->op >= RMALAB_OP_BAND)
        return rmalab__err_fail(RMALAB_ERR_TYPE, "%s: %s takes integers, and a rank gave a float",
                                call, rmalab_op_name(all->op));
    return RMALAB_OK;
}

/* The verdict, the same on every rank: the usual case (nothing failed nor
 * mixed, an op the type takes) inline, the rest out of line. */
static inline int reduce_verdict(const rmalab_comm *c, const rpacket *all, int status,
                                 const char *call)
{
    if (!(all->status | all->bad) && (all->type == RMALAB_INT64 || all->op < RMALAB_OP_BAND))
        return RMALAB_OK;
    return verdict_rest(c, all, status, call);
}

/* The numbers past the packet, or all of them for scans. */
static int reduce_rest(rmalab_comm *c, rmalab_reduce_kind kind, int root, int64_t *buf,
                       int count, const rpacket *all, int64_t *tmp)
{
    int skip = kind <= RMALAB_REDUCE_ROOT ? RMALAB_REDUCE_INLINE : 0, n = count - skip, e;
    if (n <= 0) /* all of them were in the packet */
        return RMALAB_OK;
    MPI_Comm mc = rmalab_comm_mpi(c);
    MPI_Datatype t = all->type == RMALAB_INT64 ? MPI_INT64_T : MPI_DOUBLE;
    MPI_Op op = rmalab__type_reduce_op((rmalab_op)all->op, (rmalab_type)all->type);
    if (kind == RMALAB_REDUCE_ALL)
        e = MPI_Allreduce(MPI_IN_PLACE, buf + skip, n, t, op, mc);
    else if (kind == RMALAB_REDUCE_ROOT)
        e = MPI_Reduce(rmalab_comm_rank(c) == root ? MPI_IN_PLACE : buf + skip, buf + skip, n, t,
                       op, root, mc);
    else if (kind == RMALAB_REDUCE_SCAN)
        e = MPI_Scan(MPI_IN_PLACE, buf, n, t, op, mc);
    else if ((e = MPI_Exscan(buf, tmp, n, t, op, mc)) == MPI_SUCCESS && rmalab_comm_rank(c))
        memcpy(buf, tmp, (size_t)n * 8);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__err_mpi(e, rmalab_reduce_kind_name(kind));
}

/* At most RMALAB_REDUCE_INLINE numbers, without the call of memcpy that a
 * loop becomes (12 instructions of one number's 8 bytes). */
static inline void copy_inline(int64_t *to, const int64_t *from, int n)
{
    _Static_assert(RMALAB_REDUCE_INLINE == 4, "copy_inline copies up to 4");
    switch (n) {
    case 4: to[3] = from[3]; /* fall through */
    case 3: to[2] = from[2]; /* fall through */
    case 2: to[1] = from[1]; /* fall through */
    case 1: to[0] = from[0]; /* fall through */
    default: break;
    }
}

static int reduce_call(rmalab_comm *c, const char *call, rmalab_reduce_kind kind, int root,
                       int64_t *buf, int count, rmalab_type *type, rmalab_op op, int status)
{
    rpacket p = {.count = count, .type = (int8_t)*type, .op = (int8_t)op};
    int inl = kind <= RMALAB_REDUCE_ROOT ? (count < RMALAB_REDUCE_INLINE ? count
                                                                         : RMALAB_REDUCE_INLINE)
                                         : 0;
    int64_t *tmp = NULL;
    if (!status && kind == RMALAB_REDUCE_EXSCAN &&
        !(tmp = rmalab__coll_scratch(0, (size_t)count * 8 + 8)))
        status = rmalab__err_fail(RMALAB_ERR_NO_MEM, "%s: out of memory", call);
    p.status = status;
    p.srank = status ? rmalab_comm_rank(c) : INT32_MAX;
    p.clock = rmalab__clock_exists();
    copy_inline(p.v, buf, inl);
    rpacket all;
    int e = MPI_Allreduce(&p, &all, 1, packet_type, packet_mpi_op,
                          rmalab_comm_mpi(c));
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, call);
    int rc = reduce_verdict(c, &all, status, call);
    if (rc)
        return rc;
    if (all.type == RMALAB_DOUBLE && *type == RMALAB_INT64)
        to_double(buf, count);
    if ((rc = reduce_rest(c, kind, root, buf, count, &all, tmp)))
        return rc;
    if (kind == RMALAB_REDUCE_ALL || (kind == RMALAB_REDUCE_ROOT && rmalab_comm_rank(c) == root))
        copy_inline(buf, all.v, inl);
    if (kind != RMALAB_REDUCE_EXSCAN || rmalab_comm_rank(c))
        *type = (rmalab_type)all.type;
    const char *why = "carrying the race checker's clocks";
    return all.clock ? rmalab__clock_reduce(rmalab_comm_mpi(c), kind, root, why) : RMALAB_OK;
}

/* The usual case: an allreduce of one number, of a type and op that
 * reduce_local passes, in one packet and nothing after it but the clocks
 * (reduce_call's branches for other kinds and counts were about 70
 * instructions of its 177). The verdict and errors are reduce_call's. */
static int __attribute__((noinline)) allreduce_one(rmalab_comm *c, int64_t *buf,
                                                   rmalab_type *type, rmalab_op op)
{
    rmalab__block b;
    int rc = coll_begin(&b, "allreduce", c, true, NULL);
    if (rc)
        return rc;
    rpacket p = {.count = 1, .srank = INT32_MAX, .type = (int8_t)*type, .op = (int8_t)op,
                 .clock = (int8_t)rmalab__clock_exists(), .v = {buf[0]}}, all;
    /* the record holds the MPI communicator: comm.c is not asked again */
    int e = MPI_Allreduce(&p, &all, 1, packet_type, packet_mpi_op, b.comm);
    if (e != MPI_SUCCESS)
        rc = rmalab__err_mpi(e, "allreduce");
    else if (!(rc = reduce_verdict(c, &all, RMALAB_OK, "allreduce"))) {
        buf[0] = all.v[0];
        *type = (rmalab_type)all.type;
        if (all.clock)
            rc = rmalab__clock_reduce(b.comm, RMALAB_REDUCE_ALL, 0,
                                      "carrying the race checker's clocks");
    }
    return rmalab__coll_end(&b, rc);
}

/* Any other reduction (allreduce_one's test failed). */
static int __attribute__((noinline)) reduce_any(rmalab_comm *c, rmalab_reduce_kind kind, int root,
                                                void *buf, int count, rmalab_type *type,
                                                rmalab_op op, int status)
{
    const char *call = rmalab__coll_kind_call(kind);
    int rc = (unsigned)kind > RMALAB_REDUCE_EXSCAN
                 ? rmalab__err_fail(RMALAB_ERR_ARG, "reduce: unknown kind %d", (int)kind)
                 : packet_ready(); /* MPI_Type_contiguous and MPI_Op_create: no reason to fail */
    if (rc)
        return rmalab__coll_refuse(call, c, rc);
    /* one rank's bad argument: the others fail with it, not wait */
    int bad = !c ? RMALAB_OK : !status ? reduce_local(c, call, kind, root, count, *type, op)
            : kind == RMALAB_REDUCE_ROOT && (root < 0 || root >= rmalab_comm_size(c))
                  ? status /* its message kept */
                  : RMALAB_OK;
    if (!status)
        status = bad;
    rmalab__block b;
    if ((rc = rmalab__coll_begin(&b, call, c, true, NULL)))
        return rc;
    if (kind == RMALAB_REDUCE_ROOT) /* the rest agrees in reduce_call's packets */
        rc = rmalab__coll_agree_args(c, call, bad, 0, -1, root, -1);
    if (!rc)
        rc = reduce_call(c, call, kind, root, buf, count, type, op, status);
    return rmalab__coll_end(&b, rc);
}

/* The test and two tail calls: the frame of both inline was 22
 * instructions of one number's allreduce. */
int rmalab_comm_reduce(rmalab_comm *c, rmalab_reduce_kind kind, int root, void *buf, int count,
                       rmalab_type *type, rmalab_op op, int status)
{
    if (kind == RMALAB_REDUCE_ALL && count == 1 && !status && c && packet_mpi_op != MPI_OP_NULL &&
        (*type == RMALAB_INT64 ? (unsigned)op <= RMALAB_OP_LXOR
                               : *type == RMALAB_DOUBLE && (unsigned)op < RMALAB_OP_BAND))
        return allreduce_one(c, buf, type, op);
    return reduce_any(c, kind, root, buf, count, type, op, status);
}

/* ------------------------------------------------------------------------ */
/* Split                                                                    */

int rmalab_comm_split_status(rmalab_comm *c, int color, int key, rmalab_comm **out, int status)
{
    rmalab__block b;
    int rc = rmalab__coll_begin(&b, "split", c, true, NULL);
    if (rc)
        return rc;
    *out = NULL;
    MPI_Comm nc = MPI_COMM_NULL;
    if (!(rc = rmalab__coll_agree_args(c, "split", status, 0, 0, 0, -1))) {
        int e = MPI_Comm_split(rmalab_comm_mpi(c), color < 0 ? MPI_UNDEFINED : color, key, &nc);
        if (e != MPI_SUCCESS)
            rc = rmalab__err_mpi(e, "MPI_Comm_split");
        else if (nc != MPI_COMM_NULL && (rc = rmalab__comm_adopt(nc, out)))
            MPI_Comm_free(&nc);
    }
    return rmalab__coll_end(&b, rc);
}

int rmalab_comm_split(rmalab_comm *c, int color, int key, rmalab_comm **out)
{
    return rmalab_comm_split_status(c, color, key, out, RMALAB_OK);
}

/* ------------------------------------------------------------------------ */
/* The agreement on arguments (coll-typed.c's calls, reduce's root)         */

/* What every rank must give alike, which MPI leaves unchecked (a count
 * that differs truncates on some ranks, a type reinterprets bytes, a root
 * hangs): one MPI_Allreduce of the packet in its ARGS form, v the maxima
 * of the count, of the type and root packed, and of their negations.
 * Arguments a call does not have are given alike (0, op -1; type -1 for a
 * call on values). */
#define ARG_PACK(type, root) ((int64_t)(type) * ((int64_t)1 << 32) + (int64_t)(uint32_t)(root))
#define ARG_TYPE(p) ((int)((p) >> 32))

static int args_verdict(const rmalab_comm *c, const rpacket *all, const char *call, int count,
                        int type, int root, int op)
{
    const int64_t *v = all->v;
    if (all->status)
        return failed_rank(c, all, call);
    if ((all->bad & BAD_FORM) || (ARG_TYPE(v[2]) != ARG_TYPE(-v[3]) &&
                                  (ARG_TYPE(-v[3]) < 0) != (ARG_TYPE(v[2]) < 0)))
        return mixed_forms(call);
    if (v[0] != -v[1])
        return rmalab__err_fail(RMALAB_ERR_TRUNCATE,
                                "%s: the ranks give %lld to %lld elements (%d here); every rank "
                                "must give the same count", call, (long long)-v[1],
                                (long long)v[0], count);
    if (ARG_TYPE(v[2]) != ARG_TYPE(-v[3]))
        return rmalab__err_fail(RMALAB_ERR_TYPE, "%s: the ranks give different types (%s here); "
                                                 "every rank must give the same type",
                                call, rmalab_type_name((rmalab_type)type));
    if (v[2] != -v[3])
        return rmalab__err_fail(RMALAB_ERR_RANK, "%s: the ranks name roots %d to %d (%d here); "
                                                 "every rank must name the same root",
                                call, (int)(uint32_t)(-v[3]), (int)(uint32_t)v[2], root);
    if (all->bad & BAD_OP)
        return rmalab__err_fail(RMALAB_ERR_OP, "%s: the ranks give different ops (%s here); every "
                                               "rank must give the same op",
                                call, op < 0 ? "none" : rmalab_op_name((rmalab_op)op));
    return RMALAB_OK;
}

int rmalab__coll_agree_args(rmalab_comm *c, const char *call, int status, int count, int type,
                            int root, int op)
{
    rpacket p = {.count = count, .status = status, .op = (int8_t)op, .form = FORM_ARGS,
                 .srank = status ? rmalab_comm_rank(c) : INT32_MAX};
    int64_t tr = status ? ARG_PACK(0, 0) : ARG_PACK(type, root);
    p.v[0] = count, p.v[1] = -(int64_t)count, p.v[2] = tr, p.v[3] = -tr;
    int rc = packet_ready();
    if (rc)
        return rc; /* MPI_Type_contiguous and MPI_Op_create: no reason to fail */
    rpacket all;
    int e = MPI_Allreduce(&p, &all, 1, packet_type, packet_mpi_op,
                          rmalab_comm_mpi(c));
    if (status || e != MPI_SUCCESS)
        return status ? status : rmalab__err_mpi(e, "MPI_Allreduce (the ranks' arguments)");
    return args_verdict(c, &all, call, count, type, root, op);
}

/* Barrier: it carries the clocks when any member has one. */
static int barrier_call(MPI_Comm comm)
{
    rmalab__clock_jitter();
    int active = rmalab__clock_exists(), any = 0;
    int e = MPI_Allreduce(&active, &any, 1, MPI_INT, MPI_MAX, comm);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "MPI_Allreduce (barrier)");
    return any ? rmalab__clock_reduce(comm, RMALAB_REDUCE_ALL, 0, "MPI_Allreduce (barrier)")
               : RMALAB_OK;
}

int rmalab_barrier(MPI_Comm comm)
{
    rmalab__block b = {.call = "barrier", .collective = true};
    rmalab__block_call_begin();
    if (comm == MPI_COMM_NULL)
        return rmalab__block_call_end("barrier", "comm", UINT64_MAX,
            rmalab__err_fail(RMALAB_ERR_COMM, "barrier: the communicator is MPI_COMM_NULL"));
    rmalab__block_comm(&b, comm);
    int rc = rmalab__block_enter(&b);
    if (!rc) {
        rc = barrier_call(comm);
        rmalab__block_leave(&b);
    }
    return rmalab__block_call_end("barrier", "comm", b.id, rc);
}
