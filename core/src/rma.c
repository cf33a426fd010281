/* The typed RMA operations.
 *
 * Every operation passes rmalab__sync_check_op (rank, epoch, range: sync.c)
 * before MPI sees it, and the op/type pair is checked against what MPI
 * allows (types.c). In an access epoch of an engine with an access slot,
 * the engine is asked first: it waits for the target's post and may hand
 * back the target's memory for a plain copy. Origin data is staged and
 * results are tracked by results.c. Calls sync.c, the engines, results.c
 * and types.c; records what succeeded (trace.c). The window's own memory,
 * read and written in place, is win-local.c's. */
#include "observe.h"
#include "error-private.h"
#include "sync-kinds.h"
#include "types.h"
#include "layout.h"
#include "results.h"
#include "sync-private.h"
#include "rma.h"
#include "shape.h"

#include <stdio.h>
#include <string.h>

/* Through the engine, if it has a say in this epoch: *p is the target's
 * memory at disp when a plain copy may reach it (plain_ok), else NULL.
 * rmalab_interrupt may end its wait for the post: then the operation was
 * not issued and does not count in the epoch. */
static int engine_access(rmalab_win *w, const char *what, int target, MPI_Aint disp,
                         bool plain_ok, unsigned char **p)
{
    *p = NULL;
    int rc =
        rmalab__win_via_engine(w) ? w->eng->access(w, what, target, disp, plain_ok, p) : RMALAB_OK;
    if (rc != RMALAB_ERR_INTERRUPTED)
        return rc;
    rmalab__sync_epoch_set_ops(w, w->ep.ops_in_epoch - 1);
    return rmalab__err_fail(rc,
                            "%s to rank %d: interrupted while it waited for rank %d's post(); it "
                            "was not issued, and the access epoch stays open: call post() on "
                            "rank %d, then %s again",
                            what, target, target, target, what);
}

/* Which call completes an operation of the open access epoch. */
void rmalab_win_completer(const rmalab_win *w, int target, char *buf, size_t size)
{
    rmalab__kind_completer(w ? w->ep.access : RMALAB_ACCESS_NONE, target, buf, size);
}

/* A result for an operation about to be issued, created before MPI sees the
 * operation so that a failure leaves nothing behind. It keeps the access
 * epoch, and says which call completes it only if read too early. */
static int new_result(rmalab_win *w, int target, rmalab_type type, int count,
                      rmalab_result **out)
{
    return rmalab__results_new(w, target, type, count, w->ep.access, out);
}

/* The end of an operation that fills result r: on success the window
 * tracks r until the operation completes and *out gets it; else r goes. */
static int settle(rmalab_win *w, rmalab_result *r, int rc, rmalab_result **out)
{
    if (rc) {
        rmalab_result_release(r);
        return rc;
    }
    rmalab__results_track(w, r);
    *out = r;
    return RMALAB_OK;
}

/* After the MPI call `mpi_name` returned `e` for result r. */
static int issued(rmalab_win *w, rmalab_result *r, int e, const char *mpi_name,
                  rmalab_result **out)
{
    return settle(w, r, e == MPI_SUCCESS ? RMALAB_OK : rmalab__err_mpi(e, mpi_name), out);
}

static size_t bytes_of(rmalab_type type, int count)
{
    return (size_t)count * (size_t)rmalab_type_size(type);
}

/* ------------------------------------------------------------------------ */
/* One operation: its target side, its checks, and the memory it uses       */

/* An operation as the functions below carry it. Its sides are `count`
 * contiguous elements, or at the target a vector, or (ty) the caller's own
 * datatypes: `sh`, its shape (shape.h), says what MPI is handed. `copy`: stage the origin (the calls that promise
 * the caller its buffer back at once); else *ticket numbers the operation
 * for rmalab_win_done (0: it failed before it was issued). */
typedef struct {
    const char *what;
    rmalab__op_event *ev;   /* its target, disp, type; count: the footprint's */
    int target;
    MPI_Aint disp;
    rmalab_type type;
    int count;              /* elements at the origin */
    const rmalab_vector *vec;
    const rmalab_typed_op *ty;
    bool copy;
    uint64_t *ticket;
    MPI_Request *rreq;      /* request-based (rput...): MPI's request */
    rmalab__shape sh;
    const void *omem, *cmem; /* the caller's origin and compare, when MPI reads */
    void *rmem;             /* them in place; its result memory: or NULL */
    bool fresh;             /* rmem is new memory of the caller's (rmalab_win_get_fresh) */
} rma_op;

/* The caller's memory that MPI uses in place must not overlap the target's
 * when that is this process's memory too (shape.c). */
static int op_overlap(rmalab_win *w, const rma_op *o)
{
    if (!o->ty && !o->omem && !o->cmem && (!o->rmem || o->fresh))
        return RMALAB_OK; /* the call copies, or its result memory is new: nothing of the
                           * caller's that could be the window's is used in place */
    if (!rmalab__layout_own(w, o->target))
        return RMALAB_OK; /* asked first: shape.c's roles and spans cost a get on the
                           * caller's memory 146 instructions */
    const void *const mem[3] = {o->omem, o->cmem, o->rmem};
    return rmalab__shape_overlap(w, &o->sh, o->what, o->target, o->disp, mem);
}

/* The checks every operation makes (count, rank, epoch, the footprint's
 * range, overlaps), and the target side. */
static int op_open(rmalab_win *w, rma_op *o)
{
    o->sh.ty = o->ty; /* the rest of sh is RMA_OP's, where both cleared it (12 a get) */
    if (o->ticket)
        *o->ticket = 0;
    int rc = rmalab__type_check_count(o->what, o->type, o->count);
    if (!rc && o->rreq)
        rc = rmalab__sync_check_passive(w, o->what, o->target);
    if (rc)
        return rc;
    if ((rc = rmalab__shape_open(&o->sh, o->what)))
        return rc;
    o->ev->type = o->sh.reach_type;
    o->ev->count = o->sh.reach;
    if ((rc = rmalab__shape_lead(w, &o->sh, o->what, o->target, o->disp)))
        return rc;
    return (rc = op_overlap(w, o)) ? rc : rmalab__sync_check_op(w, o->what, o->ev);
}

static void op_close(rma_op *o)
{
    rmalab__shape_close(&o->sh);
}

/* Through the engine (plain copies only for contiguous targets). */
static int op_engine(rmalab_win *w, rma_op *o, bool plain_ok, unsigned char **p)
{
    return engine_access(w, o->what, o->target, o->disp, plain_ok && rmalab__shape_plain(&o->sh), p);
}

/* The origin as MPI reads it: staged when the call copies. */
static int op_origin(rmalab_win *w, rma_op *o, const void **origin)
{
    return o->copy ? rmalab__results_stage(w, o->target, origin, bytes_of(o->type, o->count))
                   : RMALAB_OK;
}

/* After the MPI call `mpi_name` returned `e`. */
static int op_issued(rmalab_win *w, rma_op *o, int e, const char *mpi_name)
{
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, mpi_name);
    if (o->ticket)
        *o->ticket = rmalab__results_ticket(w);
    return RMALAB_OK;
}

/* After an engine's plain copy: done already, but MPI's rule holds the
 * caller's memory until the call that completes the epoch's operations,
 * and so does the ticket (a get's result may not be read before complete(),
 * whichever engine moved it). */
static int copied(rmalab_win *w, rma_op *o)
{
    return op_issued(w, o, MPI_SUCCESS, NULL);
}

static int put_(rmalab_win *w, rma_op *o, const void *origin)
{
    unsigned char *p;
    int rc = op_engine(w, o, true, &p);
    if (rc)
        return rc;
    if (p) {
        memcpy(p, origin, bytes_of(o->type, o->count));
        return copied(w, o);
    }
    if ((rc = op_origin(w, o, &origin)))
        return rc;
    int e = o->rreq ? MPI_Rput(origin, o->sh.ocount, o->sh.odt, o->target, o->disp, o->sh.tcount, o->sh.tdt,
                               rmalab__win_of_op(w), o->rreq)
                    : MPI_Put(origin, o->sh.ocount, o->sh.odt, o->target, o->disp, o->sh.tcount, o->sh.tdt,
                              rmalab__win_of_op(w));
    return op_issued(w, o, e, o->rreq ? "MPI_Rput" : "MPI_Put");
}

static int get_(rmalab_win *w, rma_op *o, void *result)
{
    unsigned char *p;
    int rc = op_engine(w, o, true, &p);
    if (rc)
        return rc;
    if (p) {
        memcpy(result, p, bytes_of(o->type, o->count));
        return copied(w, o);
    }
    int e = o->rreq ? MPI_Rget(result, o->sh.rcount, o->sh.rdt, o->target, o->disp, o->sh.tcount, o->sh.tdt,
                               rmalab__win_of_op(w), o->rreq)
                    : MPI_Get(result, o->sh.rcount, o->sh.rdt, o->target, o->disp, o->sh.tcount, o->sh.tdt,
                              rmalab__win_of_op(w));
    return op_issued(w, o, e, o->rreq ? "MPI_Rget" : "MPI_Get");
}

/* Atomics always go through MPI, which keeps them atomic with respect to
 * each other; in an engine's epoch they wait for the target's post first. */
static int atomic_engine(rmalab_win *w, rma_op *o)
{
    unsigned char *p;
    return op_engine(w, o, false, &p);
}

static int accumulate_(rmalab_win *w, rma_op *o, const void *origin, rmalab_op op)
{
    int rc = atomic_engine(w, o);
    if (rc || (rc = op_origin(w, o, &origin)))
        return rc;
    int e = o->rreq
                ? MPI_Raccumulate(origin, o->sh.ocount, o->sh.odt, o->target, o->disp, o->sh.tcount, o->sh.tdt,
                                  rmalab__type_mpi_op(op), rmalab__win_of_op(w), o->rreq)
                : MPI_Accumulate(origin, o->sh.ocount, o->sh.odt, o->target, o->disp, o->sh.tcount, o->sh.tdt,
                                 rmalab__type_mpi_op(op), rmalab__win_of_op(w));
    return op_issued(w, o, e, o->rreq ? "MPI_Raccumulate" : "MPI_Accumulate");
}

static int get_accumulate_(rmalab_win *w, rma_op *o, const void *origin, void *result,
                           rmalab_op op)
{
    int rc = atomic_engine(w, o);
    if (rc || (rc = op_origin(w, o, &origin)))
        return rc;
    int e = o->rreq ? MPI_Rget_accumulate(origin, o->sh.ocount, o->sh.odt, result, o->sh.rcount, o->sh.rdt,
                                          o->target, o->disp, o->sh.tcount, o->sh.tdt,
                                          rmalab__type_mpi_op(op), rmalab__win_of_op(w), o->rreq)
                    : MPI_Get_accumulate(origin, o->sh.ocount, o->sh.odt, result, o->sh.rcount, o->sh.rdt,
                                         o->target, o->disp, o->sh.tcount, o->sh.tdt,
                                         rmalab__type_mpi_op(op), rmalab__win_of_op(w));
    return op_issued(w, o, e, o->rreq ? "MPI_Rget_accumulate" : "MPI_Get_accumulate");
}

/* The caller's memory must be there for what the operation moves. */
static int mem_given(const rma_op *o, const void *origin, const void *result, bool needs_origin,
                     bool needs_result)
{
    if (o->count > 0 && !o->ty && ((needs_origin && !origin) || (needs_result && !result)))
        return rmalab__err_fail(RMALAB_ERR_ARG, "%s: the %s buffer is NULL", o->what,
                                needs_origin && !origin ? "origin" : "result");
    return RMALAB_OK;
}

/* An atomic operation of one element: to the caller's memory with a
 * ticket (the _mem calls), else its origin staged and a result made. */
#define ATOMIC_OP(name, e, tk)                                                          \
    (rma_op){.what = (name), .ev = (e), .target = (e)->target, .disp = (e)->disp,      \
             .type = (e)->type, .count = 1, .copy = !(tk), .ticket = (tk),                \
             .sh = {.type = (e)->type, .count = 1, .dt = MPI_DATATYPE_NULL}}

/* Its checks, its origin (and compare_and_swap's compare) as MPI reads
 * them, and where its result goes: the caller's memory, or a new result r
 * (when `out`). */
static int atomic_open(rmalab_win *w, rma_op *o, const void **origin, const void **compare,
                       void **result, rmalab_result **r, rmalab_result **out)
{
    *r = NULL;
    int rc = mem_given(o, *origin, *result, true, !out);
    if (!rc && compare && !*compare)
        rc = rmalab__err_fail(RMALAB_ERR_ARG, "%s: the compare buffer is NULL", o->what);
    o->omem = o->copy ? NULL : *origin;
    o->cmem = o->copy || !compare ? NULL : *compare;
    o->rmem = out ? NULL : *result;
    if (rc || (rc = op_open(w, o)) || (rc = atomic_engine(w, o)) ||
        (rc = op_origin(w, o, origin)))
        return rc;
    if (compare && o->copy &&
        (rc = rmalab__results_stage(w, o->target, compare, bytes_of(o->type, 1))))
        return rc;
    if (out && (rc = new_result(w, o->target, o->type, 1, r)))
        return rc;
    if (*r)
        *result = (*r)->data;
    return RMALAB_OK;
}

/* After the MPI call: the result tracked, or the caller's ticket. */
static int atomic_issued(rmalab_win *w, rma_op *o, rmalab_result *r, int e, const char *mpi_name,
                         rmalab_result **out)
{
    return r ? issued(w, r, e, mpi_name, out) : op_issued(w, o, e, mpi_name);
}

static int fetch_and_op_(rmalab_win *w, rma_op *o, const void *origin, void *result,
                         rmalab_result **out)
{
    rmalab_result *r;
    int rc = rmalab__type_check_op(o->what, o->ev->op, o->type, true);
    if (rc || (rc = atomic_open(w, o, &origin, NULL, &result, &r, out)))
        return rc;
    int e = MPI_Fetch_and_op(origin, result, o->sh.dt, o->target, o->disp,
                             rmalab__type_mpi_op(o->ev->op), rmalab__win_of_op(w));
    return atomic_issued(w, o, r, e, "MPI_Fetch_and_op", out);
}

static int compare_and_swap_(rmalab_win *w, rma_op *o, const void *compare, const void *origin,
                             void *result, rmalab_result **out)
{
    rmalab_result *r;
    if (o->type == RMALAB_FLOAT || o->type == RMALAB_DOUBLE)
        return rmalab__err_fail(RMALAB_ERR_TYPE,
                                "compare_and_swap: MPI defines it on integer and byte types, not "
                                "on %s",
                                rmalab_type_name(o->type));
    int rc = atomic_open(w, o, &origin, &compare, &result, &r, out);
    if (rc)
        return rc;
    int e = MPI_Compare_and_swap(origin, compare, result, o->sh.dt, o->target, o->disp,
                                 rmalab__win_of_op(w));
    return atomic_issued(w, o, r, e, "MPI_Compare_and_swap", out);
}

/* ------------------------------------------------------------------------ */
/* The calls, recorded when the window records (trace.c)                    */

/* Each is one event of observe.h: an operation that succeeded goes in
 * the window's record, and in the race checker's, block by block when its
 * target is not contiguous (shape.c). */
static int op_end(rmalab_win *w, int rc, const rma_op *o)
{
    return rmalab__shape_end(w, &o->sh, o->ev, rc);
}

/* The operation's event, begun (observe.h). */
#define OP_EVENT(kind, o, op)                                                   \
    (rmalab__op_event) { RMALAB_TRACE_##kind, (o)->target, (o)->disp, (o)->type, (o)->count, op }

static void op_begin(rmalab_win *w, rma_op *o, rmalab__op_event *ev)
{
    o->ev = ev;
    rmalab__observe_op_begin(w, ev);
}

static int run_put(rmalab_win *w, rma_op *o, const void *origin)
{
    rmalab__op_event ev = OP_EVENT(PUT, o, RMALAB_OP_REPLACE);
    op_begin(w, o, &ev);
    int rc = mem_given(o, origin, NULL, true, false);
    o->omem = o->copy ? NULL : origin;
    if (!rc && !(rc = op_open(w, o)))
        rc = put_(w, o, origin);
    op_close(o);
    return op_end(w, rc, o);
}

/* A result to fill when `out` asks for one (the copying calls), else the
 * caller's memory. */
static int run_get(rmalab_win *w, rma_op *o, void *result, rmalab_result **out)
{
    rmalab__op_event ev = OP_EVENT(GET, o, RMALAB_OP_NO_OP);
    op_begin(w, o, &ev);
    rmalab_result *r = NULL;
    int rc = out ? RMALAB_OK : mem_given(o, NULL, result, false, true);
    o->rmem = result;
    if (!rc && !(rc = op_open(w, o)) && out &&
        !(rc = new_result(w, o->target, o->type, o->count, &r)))
        result = r->data;
    if (!rc)
        rc = get_(w, o, result);
    if (r)
        rc = settle(w, r, rc, out);
    op_close(o);
    return op_end(w, rc, o);
}

/* The op against the elements; a typed operation whose elements are none
 * of the core's types (its element bytes: MPI's pair types, long double,
 * complex...) may take any op, which MPI checks against its datatypes. */
static int op_check(const rma_op *o, rmalab_op op, bool fetching)
{
    if (o->ty && o->type == RMALAB_BYTE && (op != RMALAB_OP_NO_OP || fetching))
        return RMALAB_OK;
    return rmalab__type_check_op(o->what, op, o->type, fetching);
}

static int run_accumulate(rmalab_win *w, rma_op *o, const void *origin, rmalab_op op)
{
    rmalab__op_event ev = OP_EVENT(ACCUMULATE, o, op);
    op_begin(w, o, &ev);
    int rc = op_check(o, op, false);
    o->omem = o->copy ? NULL : origin;
    if (!rc && !(rc = mem_given(o, origin, NULL, true, false)) && !(rc = op_open(w, o)))
        rc = accumulate_(w, o, origin, op);
    op_close(o);
    return op_end(w, rc, o);
}

static int run_get_accumulate(rmalab_win *w, rma_op *o, const void *origin, void *result,
                              rmalab_op op, rmalab_result **out)
{
    rmalab__op_event ev = OP_EVENT(GET_ACCUMULATE, o, op);
    op_begin(w, o, &ev);
    rmalab_result *r = NULL;
    int rc = op_check(o, op, true);
    o->omem = o->copy ? NULL : origin;
    o->rmem = result;
    if (!rc && !(rc = mem_given(o, origin, result, true, !out)) && !(rc = op_open(w, o)) &&
        out && !(rc = new_result(w, o->target, o->type, o->count, &r)))
        result = r->data;
    if (!rc)
        rc = get_accumulate_(w, o, origin, result, op);
    if (r)
        rc = settle(w, r, rc, out);
    op_close(o);
    return op_end(w, rc, o);
}

#define RMA_OP(name, t, d, ty, n, v, c, tk)                                     \
    (rma_op){.what = (name), .target = (t), .disp = (d), .type = (ty), .count = (n),  \
             .vec = (v), .copy = (c), .ticket = (tk), .rreq = NULL,                    \
             .sh = {.type = (ty), .count = (n), .vec = (v), .dt = MPI_DATATYPE_NULL}}

int rmalab_win_put(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type, int count,
                   const void *origin)
{
    rma_op o = RMA_OP("put", target, disp, type, count, NULL, true, NULL);
    return run_put(w, &o, origin);
}

int rmalab_win_get(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type, int count,
                   rmalab_result **out)
{
    rma_op o = RMA_OP("get", target, disp, type, count, NULL, false, NULL);
    return run_get(w, &o, NULL, out);
}

int rmalab_win_accumulate(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type, int count,
                          const void *origin, rmalab_op op)
{
    rma_op o = RMA_OP("accumulate", target, disp, type, count, NULL, true, NULL);
    return run_accumulate(w, &o, origin, op);
}

int rmalab_win_get_accumulate(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type,
                              int count, const void *origin, rmalab_op op, rmalab_result **out)
{
    rma_op o = RMA_OP("get_accumulate", target, disp, type, count, NULL, true, NULL);
    return run_get_accumulate(w, &o, origin, NULL, op, out);
}

int rmalab_win_put_mem(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type, int count,
                       const void *origin, const rmalab_vector *vec, uint64_t *ticket)
{
    rma_op o = RMA_OP("put", target, disp, type, count, vec, false, ticket);
    return run_put(w, &o, origin);
}

int rmalab_win_get_mem(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type, int count,
                       void *result, const rmalab_vector *vec, uint64_t *ticket)
{
    rma_op o = RMA_OP("get", target, disp, type, count, vec, false, ticket);
    return run_get(w, &o, result, NULL);
}

int rmalab_win_get_fresh(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type, int count,
                         void *result, uint64_t *ticket)
{
    rma_op o = RMA_OP("get", target, disp, type, count, NULL, false, ticket);
    o.fresh = true;
    return run_get(w, &o, result, NULL);
}

int rmalab_win_accumulate_mem(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type,
                              int count, const void *origin, rmalab_op op,
                              const rmalab_vector *vec, uint64_t *ticket)
{
    rma_op o = RMA_OP("accumulate", target, disp, type, count, vec, false, ticket);
    return run_accumulate(w, &o, origin, op);
}

int rmalab_win_get_accumulate_mem(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type,
                                  int count, const void *origin, void *result, rmalab_op op,
                                  const rmalab_vector *vec, uint64_t *ticket)
{
    rma_op o = RMA_OP("get_accumulate", target, disp, type, count, vec, false, ticket);
    return run_get_accumulate(w, &o, origin, result, op, NULL);
}

int rmalab_win_fetch_and_op(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type,
                            const void *origin, rmalab_op op, rmalab_result **out)
{
    rmalab__op_event ev = {RMALAB_TRACE_FETCH_AND_OP, target, disp, type, 1, op};
    rma_op o = ATOMIC_OP("fetch_and_op", &ev, NULL);
    rmalab__observe_op_begin(w, &ev);
    return rmalab__observe_op_end(w, &ev, fetch_and_op_(w, &o, origin, NULL, out));
}

int rmalab_win_compare_and_swap(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type,
                                const void *compare, const void *origin, rmalab_result **out)
{
    rmalab__op_event ev = {RMALAB_TRACE_COMPARE_AND_SWAP, target, disp, type, 1, RMALAB_NOPS};
    rma_op o = ATOMIC_OP("compare_and_swap", &ev, NULL);
    rmalab__observe_op_begin(w, &ev);
    return rmalab__observe_op_end(w, &ev, compare_and_swap_(w, &o, compare, origin, NULL, out));
}

int rmalab_win_fetch_and_op_mem(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type,
                                const void *origin, void *result, rmalab_op op,
                                uint64_t *ticket)
{
    rmalab__op_event ev = {RMALAB_TRACE_FETCH_AND_OP, target, disp, type, 1, op};
    rma_op o = ATOMIC_OP("fetch_and_op", &ev, ticket);
    rmalab__observe_op_begin(w, &ev);
    return rmalab__observe_op_end(w, &ev, fetch_and_op_(w, &o, origin, result, NULL));
}

int rmalab_win_compare_and_swap_mem(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type,
                                    const void *compare, const void *origin, void *result,
                                    uint64_t *ticket)
{
    rmalab__op_event ev = {RMALAB_TRACE_COMPARE_AND_SWAP, target, disp, type, 1, RMALAB_NOPS};
    rma_op o = ATOMIC_OP("compare_and_swap", &ev, ticket);
    rmalab__observe_op_begin(w, &ev);
    return rmalab__observe_op_end(w, &ev, compare_and_swap_(w, &o, compare, origin, result, NULL));
}

/* ------------------------------------------------------------------------ */
/* Request-based operations (request.c makes their requests)                */

/* One operation of its kind (a trace kind), with o's request if any. */
static int run_kind(rmalab_win *w, rma_op *o, int kind, const void *origin, void *result,
                    rmalab_op op)
{
    switch (kind) {
    case RMALAB_TRACE_PUT: return run_put(w, o, origin);
    case RMALAB_TRACE_GET: return run_get(w, o, result, NULL);
    case RMALAB_TRACE_ACCUMULATE: return run_accumulate(w, o, origin, op);
    default: return run_get_accumulate(w, o, origin, result, op, NULL);
    }
}

int rmalab__rma_request(rmalab_win *w, int kind, const char *what, int target, MPI_Aint disp,
                        rmalab_type type, int count, const void *origin, void *result,
                        rmalab_op op, const rmalab_vector *vec, const rmalab_typed_op *ty,
                        uint64_t *ticket, MPI_Request *rreq)
{
    rma_op o = RMA_OP(what, target, disp, type, count, vec, false, ticket);
    o.ty = ty;
    o.rreq = rreq;
    return run_kind(w, &o, kind, origin, result, op);
}

int rmalab_win_typed(rmalab_win *w, const rmalab_typed_op *t, uint64_t *ticket)
{
    static const char *const names[] = {"put", "get", "accumulate", "get_accumulate"};
    int rc = rmalab__shape_typed_check(t, "typed operation");
    if (rc)
        return rc;
    int k = t->kind - RMALAB_TRACE_PUT; /* the kinds follow each other (rmalab/trace.h) */
    rma_op o = RMA_OP(names[k], t->target, t->disp, t->type, t->count, NULL, false, ticket);
    o.ty = t;
    return run_kind(w, &o, t->kind, t->origin, t->result, t->op);
}
