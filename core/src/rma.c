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
    return RMALAB_OK;
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
    if (target < 0)
        w->done_all = w->op_seq;
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
    MPI_Datatype dt = rmalab__mpi_type(type);
    int e = MPI_Put(origin, count, dt, target, disp, count, dt, w->win);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__mpi_fail(e, "MPI_Put");
}

int rmalab_win_get(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type, int count,
                   rmalab_result **out)
{
    int rc = rmalab__check_op(w, "get", target, disp, type, count);
    if (rc)
        return rc;
    MPI_Datatype dt = rmalab__mpi_type(type);
    WITH_RESULT(w, target, type, count, out,
                MPI_Get(result_buf, count, dt, target, disp, count, dt, w->win), "MPI_Get");
}

int rmalab_win_accumulate(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type, int count,
                          const void *origin, rmalab_op op)
{
    int rc = check_op_type("accumulate", op, type, false);
    if (rc || (rc = rmalab__check_op(w, "accumulate", target, disp, type, count)))
        return rc;
    MPI_Datatype dt = rmalab__mpi_type(type);
    int e = MPI_Accumulate(origin, count, dt, target, disp, count, dt, rmalab__mpi_op(op),
                           w->win);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__mpi_fail(e, "MPI_Accumulate");
}

int rmalab_win_get_accumulate(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type,
                              int count, const void *origin, rmalab_op op, rmalab_result **out)
{
    int rc = check_op_type("get_accumulate", op, type, true);
    if (rc || (rc = rmalab__check_op(w, "get_accumulate", target, disp, type, count)))
        return rc;
    MPI_Datatype dt = rmalab__mpi_type(type);
    WITH_RESULT(w, target, type, count, out,
                MPI_Get_accumulate(origin, count, dt, result_buf, count, dt, target, disp,
                                   count, dt, rmalab__mpi_op(op), w->win),
                "MPI_Get_accumulate");
}

int rmalab_win_fetch_and_op(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type,
                            const void *origin, rmalab_op op, rmalab_result **out)
{
    int rc = check_op_type("fetch_and_op", op, type, true);
    if (rc || (rc = rmalab__check_op(w, "fetch_and_op", target, disp, type, 1)))
        return rc;
    MPI_Datatype dt = rmalab__mpi_type(type);
    WITH_RESULT(w, target, type, 1, out,
                MPI_Fetch_and_op(origin, result_buf, dt, target, disp, rmalab__mpi_op(op),
                                 w->win),
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
    if (rc)
        return rc;
    MPI_Datatype dt = rmalab__mpi_type(type);
    WITH_RESULT(w, target, type, 1, out,
                MPI_Compare_and_swap(origin, compare, result_buf, dt, target, disp, w->win),
                "MPI_Compare_and_swap");
}
