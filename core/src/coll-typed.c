/* Collectives on typed buffers in place (rmalab/coll.h): one MPI
 * collective on the caller's memory, after the ranks agree on its count,
 * type, root and op (rmalab__coll_agree_args, coll.c), so that a mismatch
 * fails on every rank where MPI would truncate, reinterpret bytes or hang. */
#include "coll-private.h"
#include "alloc.h"
#include "types.h"

/* The root's clock to every rank (bcast's order), when this rank has one. */
static int bcast_clock(rmalab_comm *c, int root)
{
    if (!rmalab__clock_exists())
        return RMALAB_OK;
    size_t W8 = rmalab__clock_wire();
    int64_t *S = rmalab__mem_alloc(W8);
    if (!S)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "bcast: out of memory in the race checker");
    bool here = rmalab_comm_rank(c) == root;
    if (here)
        rmalab__clock_out(S);
    int e = MPI_Bcast(S, (int)W8, MPI_BYTE, root, rmalab_comm_mpi(c));
    int rc = e != MPI_SUCCESS ? rmalab__err_mpi(e, "bcast (the race checker's clock)")
             : here           ? RMALAB_OK
                              : rmalab__clock_in(S);
    rmalab__mem_free(S);
    return rc;
}

static int check_typed(rmalab_comm *c, const char *call, int root, int count, rmalab_type type)
{
    if (c && (root < 0 || root >= rmalab_comm_size(c)))
        return rmalab__err_fail(RMALAB_ERR_RANK, "%s: root %d is not a rank of this communicator "
                                                 "(0 to %d)", call, root, rmalab_comm_size(c) - 1);
    if (count < 0)
        return rmalab__err_fail(RMALAB_ERR_ARG, "%s: count %d is negative", call, count);
    if (!rmalab_type_name(type))
        return rmalab__err_fail(RMALAB_ERR_TYPE, "%s: unknown type %d", call, (int)type);
    return RMALAB_OK;
}

int rmalab_comm_bcast_typed(rmalab_comm *c, void *buf, int count, rmalab_type type, int root)
{
    return rmalab_comm_bcast_typed_status(c, buf, count, type, root, RMALAB_OK);
}

int rmalab_comm_bcast_typed_status(rmalab_comm *c, void *buf, int count, rmalab_type type,
                                   int root, int status)
{
    rmalab__block_call_begin();
    int rc;
    if (!status)
        status = check_typed(c, "bcast", root, count, type);
    rmalab__block b; /* a NULL communicator fails here, with ERR_COMM */
    if ((rc = rmalab__coll_begin(&b, "bcast", c, true, NULL)))
        return rc;
    if (!(rc = rmalab__coll_agree_args(c, "bcast", status, count, (int)type, root, -1))) {
        int e = MPI_Bcast(buf, count, rmalab__type_mpi(type), root, rmalab_comm_mpi(c));
        rc = e == MPI_SUCCESS ? bcast_clock(c, root) : rmalab__err_mpi(e, "MPI_Bcast");
    }
    return rmalab__coll_end(&b, rc);
}

static int reduce_typed_call(rmalab_comm *c, rmalab_reduce_kind kind, int root, void *buf,
                             int count, rmalab_type type, rmalab_op op)
{
    MPI_Comm mc = rmalab_comm_mpi(c);
    MPI_Datatype t = rmalab__type_mpi(type);
    MPI_Op o = rmalab__type_reduce_op(op, type);
    int me = rmalab_comm_rank(c), e;
    size_t bytes = (size_t)count * (size_t)rmalab_type_size(type);
    void *keep = NULL;
    if (kind == RMALAB_REDUCE_EXSCAN && me == 0 && !(keep = rmalab__coll_scratch(0, bytes)))
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "exscan: out of memory");
    if (keep) /* MPI leaves rank 0's buffer undefined: it keeps its values */
        memcpy(keep, buf, bytes);
    if (kind == RMALAB_REDUCE_ALL)
        e = MPI_Allreduce(MPI_IN_PLACE, buf, count, t, o, mc);
    else if (kind == RMALAB_REDUCE_ROOT)
        e = MPI_Reduce(me == root ? MPI_IN_PLACE : buf, buf, count, t, o, root, mc);
    else if (kind == RMALAB_REDUCE_SCAN)
        e = MPI_Scan(MPI_IN_PLACE, buf, count, t, o, mc);
    else
        e = MPI_Exscan(MPI_IN_PLACE, buf, count, t, o, mc);
    if (keep)
        memcpy(buf, keep, bytes);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, rmalab_reduce_kind_name(kind));
    if (!rmalab__clock_exists())
        return RMALAB_OK;
    return rmalab__clock_reduce(mc, kind, root, rmalab__coll_kind_call(kind));
}

int rmalab_comm_reduce_typed(rmalab_comm *c, rmalab_reduce_kind kind, int root, void *buf,
                             int count, rmalab_type type, rmalab_op op)
{
    return rmalab_comm_reduce_typed_status(c, kind, root, buf, count, type, op, RMALAB_OK);
}

int rmalab_comm_reduce_typed_status(rmalab_comm *c, rmalab_reduce_kind kind, int root,
                                    void *buf, int count, rmalab_type type, rmalab_op op,
                                    int status)
{
    rmalab__block_call_begin();
    const char *call = rmalab__coll_kind_call(kind);
    if (kind != RMALAB_REDUCE_ROOT)
        root = 0;
    if ((unsigned)kind > RMALAB_REDUCE_EXSCAN)
        return rmalab__coll_refuse(
            call, c, rmalab__err_fail(RMALAB_ERR_ARG, "reduce: unknown kind %d", (int)kind));
    int rc;
    if (!status)
        status = check_typed(c, call, root, count, type);
    if (!status)
        status = rmalab__type_check_reduce(call, type, op);
    rmalab__block b; /* a NULL communicator fails here, with ERR_COMM */
    if ((rc = rmalab__coll_begin(&b, call, c, true, NULL)))
        return rc;
    if (!(rc = rmalab__coll_agree_args(c, call, status, count, (int)type, root, (int)op)))
        rc = reduce_typed_call(c, kind, root, buf, count, type, op);
    return rmalab__coll_end(&b, rc);
}
