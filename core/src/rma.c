/* Typed RMA operations and their results.
 *
 * Every operation passes rmalab__check_op (rank, epoch, range) before MPI
 * sees it, and the op/type pair is checked against what MPI allows.
 * Operations that return data fill a reference-counted result: the window
 * holds one reference until the epoch that carries the operation completes
 * at the origin, so MPI never writes into freed memory whatever the caller
 * does with its own reference. */
#include "win-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_float(rmalab_type t)
{
    return t == RMALAB_FLOAT || t == RMALAB_DOUBLE;
}

/* The op/type pairs MPI defines for accumulate (as for MPI_Reduce). */
static int check_op_type(const char *what, rmalab_op op, rmalab_type type, bool fetching)
{
    if ((unsigned)op >= RMALAB_NOPS)
        return rmalab__fail(RMALAB_ERR_OP, "%s: unknown op", what);
    if (op == RMALAB_OP_NO_OP && !fetching)
        return rmalab__fail(RMALAB_ERR_OP,
                            "%s: no_op only makes sense for operations that fetch "
                            "(get_accumulate, fetch_and_op)",
                            what);
    bool ok = true;
    switch (op) {
    case RMALAB_OP_SUM: case RMALAB_OP_PROD: case RMALAB_OP_MAX: case RMALAB_OP_MIN:
        ok = type != RMALAB_BYTE;
        break;
    case RMALAB_OP_BAND: case RMALAB_OP_BOR: case RMALAB_OP_BXOR:
        ok = !is_float(type);
        break;
    case RMALAB_OP_LAND: case RMALAB_OP_LOR: case RMALAB_OP_LXOR:
        ok = !is_float(type) && type != RMALAB_BYTE;
        break;
    default:
        break;
    }
    if (!ok)
        return rmalab__fail(RMALAB_ERR_OP, "%s: the op \"%s\" is not defined on %s values",
                            what, rmalab_op_name(op), rmalab_type_name(type));
    bool is_unsigned = type == RMALAB_UINT8 || type == RMALAB_UINT16 || type == RMALAB_UINT32 ||
                       type == RMALAB_UINT64;
    if (is_unsigned && (op == RMALAB_OP_MAX || op == RMALAB_OP_MIN))
        return rmalab__fail(RMALAB_ERR_OP,
                            "%s: MPICH 4.0.2 computes \"%s\" on unsigned types as if they were "
                            "signed (max(254, 3) on uint8 gives 3), so rmalab refuses it; use "
                            "the signed type of the next size up",
                            what, rmalab_op_name(op));
    return RMALAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Staging: MPI reads origin buffers until the operation completes, which
 * can be long after the call returns. The core copies origin data into a
 * per-window arena that lives until every operation has completed, so the
 * caller may reuse or free its buffer at once (the Lua binding's buffers
 * are temporaries). The arena is a list of chunks, bump-allocated, and
 * emptied when an epoch completes everything. */

struct rmalab__chunk {
    struct rmalab__chunk *next;
    size_t cap, used;
    _Alignas(16) unsigned char data[];
};

static void *stage(rmalab_win *w, const void *src, size_t n)
{
    struct rmalab__chunk *c = w->stage;
    size_t need = (n + 15) & ~(size_t)15;
    if (!c || c->used + need > c->cap) {
        size_t cap = c ? 2 * c->cap : 4096;
        while (cap < need)
            cap *= 2;
        struct rmalab__chunk *nc = malloc(sizeof *nc + cap);
        if (!nc)
            return NULL;
        nc->next = c;
        nc->cap = cap;
        nc->used = 0;
        w->stage = c = nc;
    }
    void *p = c->data + c->used;
    c->used += need;
    if (n)
        memcpy(p, src, n);
    return p;
}

/* Every operation has completed: keep the newest (largest) chunk, empty. */
static void stage_reset(rmalab_win *w)
{
    struct rmalab__chunk *c = w->stage;
    if (!c)
        return;
    c->used = 0;
    for (struct rmalab__chunk *o = c->next, *next; o; o = next) {
        next = o->next;
        free(o);
    }
    c->next = NULL;
}

void rmalab__stage_free(rmalab_win *w)
{
    stage_reset(w);
    free(w->stage);
    w->stage = NULL;
}

#define STAGE(w, ptr, bytes)                                                   \
    do {                                                                       \
        if (!((ptr) = stage((w), (ptr), (bytes))))                             \
            return rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory staging RMA data"); \
    } while (0)

/* Atomic operations always go through MPI, which keeps them atomic with
 * respect to each other; under the rma engine they wait for the target's
 * post first and are flushed at complete. */
static int through_mpi(rmalab_win *w, const char *what, int target, MPI_Aint disp)
{
    unsigned char *p;
    return rmalab__via_engine(w) ? rmalab__rma_access(w, what, target, disp, false, &p)
                                 : RMALAB_OK;
}

static int new_result(rmalab_win *w, int target, rmalab_type type, int count,
                      rmalab_result **out)
{
    size_t bytes = (size_t)count * (size_t)rmalab_type_size(type);
    rmalab_result *r = calloc(1, sizeof *r + (bytes ? bytes : 1));
    if (!r)
        return rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory for an RMA result");
    r->refs = 1;
    r->target = target;
    r->type = type;
    r->count = count;
    switch (w->access) {
    case RMALAB_ACCESS_FENCE: snprintf(r->completer, sizeof r->completer, "the next win:fence()"); break;
    case RMALAB_ACCESS_START: snprintf(r->completer, sizeof r->completer, "win:complete()"); break;
    case RMALAB_ACCESS_LOCK:
        snprintf(r->completer, sizeof r->completer, "win:unlock(%d) or win:flush(%d)", target, target);
        break;
    default:
        snprintf(r->completer, sizeof r->completer, "win:unlock_all() or win:flush(%d)", target);
        break;
    }
    *out = r;
    return RMALAB_OK;
}

int rmalab__result_track(rmalab_win *w, rmalab_result *r)
{
    if (w->npending == w->cappending) {
        int cap = w->cappending ? 2 * w->cappending : 16;
        rmalab_result **p = realloc(w->pending, (size_t)cap * sizeof *p);
        if (!p)
            return rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory tracking an RMA result");
        w->pending = p;
        w->cappending = cap;
    }
    r->win = w;
    r->seq = ++w->op_seq;
    r->refs++;
    w->pending[w->npending++] = r;
    return RMALAB_OK;
}

void rmalab__results_complete(rmalab_win *w, int target)
{
    if (target < 0) {
        w->done_all = w->op_seq;
        stage_reset(w);
    }
    else
        w->done[target] = w->op_seq;
    int j = 0;
    for (int i = 0; i < w->npending; i++) {
        rmalab_result *r = w->pending[i];
        if (r->seq <= w->done_all || r->seq <= w->done[r->target]) {
            r->ready = true;
            r->win = NULL;
            rmalab_result_release(r);
        } else {
            w->pending[j++] = r;
        }
    }
    w->npending = j;
}

bool rmalab_result_ready(const rmalab_result *r)
{
    return r && r->ready;
}

int rmalab_result_data(const rmalab_result *r, const void **data, rmalab_type *type, int *count)
{
    if (!r)
        return rmalab__fail(RMALAB_ERR_ARG, "result is NULL");
    if (!r->ready)
        return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                            "the data from rank %d has not arrived yet: an RMA result may only "
                            "be read once the epoch that carries it has completed, here at %s",
                            r->target, r->completer);
    if (data)
        *data = r->data;
    if (type)
        *type = r->type;
    if (count)
        *count = r->count;
    return RMALAB_OK;
}

void rmalab_result_release(rmalab_result *r)
{
    if (r && --r->refs == 0)
        free(r);
}

/* Issue an operation that returns data: the result is created and tracked
 * first, so a failing MPI call leaves nothing behind. */
#define WITH_RESULT(w, target, type, count, out, mpi_call, what)                \
    do {                                                                        \
        rmalab_result *r_;                                                      \
        int rc_ = new_result(w, target, type, count, &r_);                      \
        if (rc_)                                                                \
            return rc_;                                                         \
        void *result_buf = r_->data;                                            \
        int e_ = (mpi_call);                                                    \
        if (e_ != MPI_SUCCESS) {                                                \
            rmalab_result_release(r_);                                          \
            return rmalab__mpi_fail(e_, what);                                  \
        }                                                                       \
        if ((rc_ = rmalab__result_track(w, r_))) {                              \
            rmalab_result_release(r_);                                          \
            return rc_;                                                         \
        }                                                                       \
        *(out) = r_;                                                            \
        return RMALAB_OK;                                                       \
    } while (0)

int rmalab_win_put(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type, int count,
                   const void *origin)
{
    int rc = rmalab__check_op(w, "put", target, disp, type, count);
    if (rc)
        return rc;
    if (rmalab__via_engine(w)) {
        unsigned char *p;
        if ((rc = rmalab__rma_access(w, "put", target, disp, true, &p)))
            return rc;
        if (p) {
            memcpy(p, origin, (size_t)count * (size_t)rmalab_type_size(type));
            return RMALAB_OK;
        }
    }
    MPI_Datatype dt = rmalab__mpi_type(type);
    STAGE(w, origin, (size_t)count * (size_t)rmalab_type_size(type));
    int e = MPI_Put(origin, count, dt, target, disp, count, dt, rmalab__op_win(w));
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__mpi_fail(e, "MPI_Put");
}

int rmalab_win_get(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type, int count,
                   rmalab_result **out)
{
    int rc = rmalab__check_op(w, "get", target, disp, type, count);
    if (rc)
        return rc;
    unsigned char *p = NULL;
    if (rmalab__via_engine(w) && (rc = rmalab__rma_access(w, "get", target, disp, true, &p)))
        return rc;
    MPI_Datatype dt = rmalab__mpi_type(type);
    WITH_RESULT(w, target, type, count, out,
                p ? (memcpy(result_buf, p, (size_t)count * (size_t)rmalab_type_size(type)),
                     MPI_SUCCESS)
                  : MPI_Get(result_buf, count, dt, target, disp, count, dt, rmalab__op_win(w)),
                "MPI_Get");
}

int rmalab_win_accumulate(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type, int count,
                          const void *origin, rmalab_op op)
{
    int rc = check_op_type("accumulate", op, type, false);
    if (rc || (rc = rmalab__check_op(w, "accumulate", target, disp, type, count)) ||
        (rc = through_mpi(w, "accumulate", target, disp)))
        return rc;
    MPI_Datatype dt = rmalab__mpi_type(type);
    STAGE(w, origin, (size_t)count * (size_t)rmalab_type_size(type));
    int e = MPI_Accumulate(origin, count, dt, target, disp, count, dt, rmalab__mpi_op(op),
                           rmalab__op_win(w));
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__mpi_fail(e, "MPI_Accumulate");
}

int rmalab_win_get_accumulate(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type,
                              int count, const void *origin, rmalab_op op, rmalab_result **out)
{
    int rc = check_op_type("get_accumulate", op, type, true);
    if (rc || (rc = rmalab__check_op(w, "get_accumulate", target, disp, type, count)) ||
        (rc = through_mpi(w, "get_accumulate", target, disp)))
        return rc;
    MPI_Datatype dt = rmalab__mpi_type(type);
    STAGE(w, origin, (size_t)count * (size_t)rmalab_type_size(type));
    WITH_RESULT(w, target, type, count, out,
                MPI_Get_accumulate(origin, count, dt, result_buf, count, dt, target, disp,
                                   count, dt, rmalab__mpi_op(op), rmalab__op_win(w)),
                "MPI_Get_accumulate");
}

int rmalab_win_fetch_and_op(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type,
                            const void *origin, rmalab_op op, rmalab_result **out)
{
    int rc = check_op_type("fetch_and_op", op, type, true);
    if (rc || (rc = rmalab__check_op(w, "fetch_and_op", target, disp, type, 1)) ||
        (rc = through_mpi(w, "fetch_and_op", target, disp)))
        return rc;
    MPI_Datatype dt = rmalab__mpi_type(type);
    STAGE(w, origin, (size_t)rmalab_type_size(type));
    WITH_RESULT(w, target, type, 1, out,
                MPI_Fetch_and_op(origin, result_buf, dt, target, disp, rmalab__mpi_op(op),
                                 rmalab__op_win(w)),
                "MPI_Fetch_and_op");
}

int rmalab_win_compare_and_swap(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type,
                                const void *compare, const void *origin, rmalab_result **out)
{
    if (is_float(type))
        return rmalab__fail(RMALAB_ERR_TYPE,
                            "compare_and_swap: MPI defines it on integer and byte types, not "
                            "on %s",
                            rmalab_type_name(type));
    int rc = rmalab__check_op(w, "compare_and_swap", target, disp, type, 1);
    if (rc || (rc = through_mpi(w, "compare_and_swap", target, disp)))
        return rc;
    MPI_Datatype dt = rmalab__mpi_type(type);
    STAGE(w, origin, (size_t)rmalab_type_size(type));
    STAGE(w, compare, (size_t)rmalab_type_size(type));
    WITH_RESULT(w, target, type, 1, out,
                MPI_Compare_and_swap(origin, compare, result_buf, dt, target, disp, rmalab__op_win(w)),
                "MPI_Compare_and_swap");
}
