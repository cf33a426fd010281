/* RMA operations: the core's calls on the program's own buffers, which
 * MPI reads and writes until the operation completes (its ticket says
 * when: the access bridge watches the buffers' bytes until then). Any
 * datatypes: when every side is one run in order (a predefined type, a
 * contiguous run of one) the core's (type, count) _mem calls carry it;
 * else rmalab_win_typed hands MPI the program's own datatypes and the core
 * the bytes they touch (types.c, dtype.c). MPI_Type_free forgets a type's
 * description. On a window the core does not know, everything goes to
 * PMPI unchanged.
 *
 * The large-count forms (MPI_Put_c...) take the same path for counts that
 * fit in an int. The request forms (MPI_Rput...) hand back a request that
 * stands for the core's (requests.h): their buffers are in use until the
 * program's MPI_Wait (or a test) returns it, or a call of the window
 * completes the operation; remote completion comes with the epoch, as MPI
 * has it. */
#include "report.h"
#include "pmpi.h"
#include "requests.h"
#include "types.h"
#include "watch.h"

#include <limits.h>

#include <rmalab/coll.h>
#include <rmalab/error.h>
#include <rmalab/trace.h>

#define ON_WINDOW RUN_ON_WINDOW

/* The operation's buffers are watched until it is done. */
static int issued(run_win *s, const void *pc, const char *call, int rc, int target,
                  uint64_t ticket, const void *origin, void *result, size_t bytes)
{
    if (rc == RMALAB_OK && origin)
        run_watch_op(s, target, ticket, 0, origin, bytes, false, pc, call);
    if (rc == RMALAB_OK && result)
        run_watch_op(s, target, ticket, 0, result, bytes, true, pc, call);
    return run_win_done(s, pc, call, rc);
}

static int one_element(const char *call)
{
    return rmalab_set_error(RMALAB_ERR_TYPE, "%s takes one element of a predefined type", call);
}

/* An operation of put, get, accumulate or get_accumulate (its trace
 * kind), as the program called it: its buffers and its three sides
 * (types.h), any datatypes. */
typedef struct {
    int kind;
    const void *origin;
    void *result;
    run_side side[RUN_SIDES];
    int target;
    MPI_Aint disp;
    MPI_Op op;
} rma_call;

/* A count of the _c forms below INT_MIN stays negative (types.c refuses it). */
#define SIDE(count, type) {(count) < INT_MIN ? INT_MIN : (int)(count), (type), true}
#define NO_SIDE {0, MPI_DATATYPE_NULL, false}

static bool reads_origin(const rma_call *c)
{
    return c->kind == RMALAB_TRACE_PUT || c->kind == RMALAB_TRACE_ACCUMULATE ||
           (c->kind == RMALAB_TRACE_GET_ACCUMULATE && c->op != MPI_NO_OP);
}

/* Its layout (released by run_layout_free) and op; L->t filled but for
 * its datatypes and spans, which run_layout_of gave. A get_accumulate
 * with MPI_NO_OP reads no origin: MPI is handed the result's in its place. */
static int layout(const rma_call *c, run_layout *L)
{
    bool acc = c->kind == RMALAB_TRACE_ACCUMULATE || c->kind == RMALAB_TRACE_GET_ACCUMULATE;
    rmalab_op rop = RMALAB_OP_REPLACE;
    int rc = run_layout_of(c->side, acc, L);
    if (!rc && acc)
        rc = run_op_of(c->op, &rop);
    if (!rc && acc)
        rc = run_op_fits(rop, L);
    rmalab_typed_op *t = &L->t;
    t->kind = c->kind, t->target = c->target, t->disp = c->disp, t->op = rop;
    t->origin = c->origin, t->result = c->result;
    if (c->kind == RMALAB_TRACE_GET_ACCUMULATE && c->op == MPI_NO_OP) {
        t->otype = t->rtype, t->ocount = t->rcount;
        t->origin = c->origin ? c->origin : c->result;
    }
    return rc;
}

/* Issued as the core's (type, count) call when every side is one run,
 * else with the program's datatypes. */
static int issue(run_win *s, const run_layout *L, uint64_t *ticket)
{
    const rmalab_typed_op *t = &L->t;
    if (!L->plain)
        return rmalab_win_typed(s->w, t, ticket);
    switch (t->kind) {
    case RMALAB_TRACE_PUT:
        return rmalab_win_put_mem(s->w, t->target, t->disp, t->type, t->count, t->origin, NULL,
                                  ticket);
    case RMALAB_TRACE_GET:
        return rmalab_win_get_mem(s->w, t->target, t->disp, t->type, t->count, t->result, NULL,
                                  ticket);
    case RMALAB_TRACE_ACCUMULATE:
        return rmalab_win_accumulate_mem(s->w, t->target, t->disp, t->type, t->count, t->origin,
                                         t->op, NULL, ticket);
    default:
        return rmalab_win_get_accumulate_mem(s->w, t->target, t->disp, t->type, t->count,
                                             t->origin, t->result, t->op, NULL, ticket);
    }
}

/* The operation, its buffers' bytes watched until it is done. */
static int rma(run_win *s, const char *pc, const char *call, const rma_call *c)
{
    if (c->target == MPI_PROC_NULL)
        return MPI_SUCCESS;
    run_layout L;
    uint64_t ticket = 0;
    int rc = layout(c, &L);
    run_site(s, pc);
    if (!rc)
        rc = issue(s, &L, &ticket);
    if (!rc && reads_origin(c))
        run_watch_spans(s, c->target, ticket, 0, c->origin, L.t.ospans, L.t.nospans, false, pc,
                        call);
    if (!rc && c->result)
        run_watch_spans(s, c->target, ticket, 0, c->result, L.t.rspans, L.t.nrspans, true, pc,
                        call);
    run_layout_free(&L);
    return run_win_done(s, pc, call, rc);
}

#define PUT_CALL(origin, ocount, otype, target, disp, tcount, ttype)                       \
    (rma_call){RMALAB_TRACE_PUT, (origin), NULL,                                         \
               {SIDE(ocount, otype), NO_SIDE, SIDE(tcount, ttype)}, (target), (disp), MPI_REPLACE}
#define GET_CALL(result, ocount, otype, target, disp, tcount, ttype)                       \
    (rma_call){RMALAB_TRACE_GET, NULL, (result),                                         \
               {NO_SIDE, SIDE(ocount, otype), SIDE(tcount, ttype)}, (target), (disp), MPI_NO_OP}
#define ACC_CALL(origin, ocount, otype, target, disp, tcount, ttype, op)                   \
    (rma_call){RMALAB_TRACE_ACCUMULATE, (origin), NULL,                                  \
               {SIDE(ocount, otype), NO_SIDE, SIDE(tcount, ttype)}, (target), (disp), (op)}
#define GACC_CALL(origin, ocount, otype, result, rcount, rtype, target, disp, tcount, ttype, op) \
    (rma_call){RMALAB_TRACE_GET_ACCUMULATE, (origin), (result),                          \
               {(op) == MPI_NO_OP ? (run_side)NO_SIDE : (run_side)SIDE(ocount, otype),     \
                SIDE(rcount, rtype), SIDE(tcount, ttype)},                                \
               (target), (disp), (op)}

RUN_API int run_MPI_Put(const void *origin, int ocount, MPI_Datatype otype, int target,
                        MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Win win)
{
    ON_WINDOW(win, PMPI_Put(origin, ocount, otype, target, disp, tcount, ttype, win));
    rma_call c = PUT_CALL(origin, ocount, otype, target, disp, tcount, ttype);
    return rma(s, pc, RUN_CALL, &c);
}

RUN_API int run_MPI_Get(void *result, int ocount, MPI_Datatype otype, int target, MPI_Aint disp,
                        int tcount, MPI_Datatype ttype, MPI_Win win)
{
    ON_WINDOW(win, PMPI_Get(result, ocount, otype, target, disp, tcount, ttype, win));
    rma_call c = GET_CALL(result, ocount, otype, target, disp, tcount, ttype);
    return rma(s, pc, RUN_CALL, &c);
}

RUN_API int run_MPI_Accumulate(const void *origin, int ocount, MPI_Datatype otype, int target,
                               MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op,
                               MPI_Win win)
{
    ON_WINDOW(win,
              PMPI_Accumulate(origin, ocount, otype, target, disp, tcount, ttype, op, win));
    rma_call c = ACC_CALL(origin, ocount, otype, target, disp, tcount, ttype, op);
    return rma(s, pc, RUN_CALL, &c);
}

RUN_API int run_MPI_Get_accumulate(const void *origin, int ocount, MPI_Datatype otype, void *result,
                                   int rcount, MPI_Datatype rtype, int target, MPI_Aint disp,
                                   int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win)
{
    ON_WINDOW(win, PMPI_Get_accumulate(origin, ocount, otype, result, rcount, rtype, target,
                                       disp, tcount, ttype, op, win));
    rma_call c =
        GACC_CALL(origin, ocount, otype, result, rcount, rtype, target, disp, tcount, ttype, op);
    return rma(s, pc, RUN_CALL, &c);
}

static bool is_core_type(MPI_Datatype type)
{
    rmalab_type t;
    return run_type_of(type, &t) == RMALAB_OK;
}

RUN_API int run_MPI_Fetch_and_op(const void *origin, void *result, MPI_Datatype type, int target,
                                 MPI_Aint disp, MPI_Op op, MPI_Win win)
{
    ON_WINDOW(win, PMPI_Fetch_and_op(origin, result, type, target, disp, op, win));
    if (target == MPI_PROC_NULL)
        return MPI_SUCCESS;
    run_dtype d;
    if (!is_core_type(type) && run_dtype_of(type, &d) == RMALAB_OK && d.elem != MPI_DATATYPE_NULL) {
        /* none of the core's (a pair type, long double...): as the get_accumulate of one */
        rma_call c = GACC_CALL(origin, 1, type, result, 1, type, target, disp, 1, type, op);
        return rma(s, pc, RUN_CALL, &c);
    }
    rmalab_type t;
    rmalab_op rop;
    uint64_t ticket = 0;
    int rc = run_type_of(type, &t) ? one_element("MPI_Fetch_and_op") : run_op_of(op, &rop);
    run_site(s, pc);
    if (!rc)
        rc = rmalab_win_fetch_and_op_mem(s->w, target, disp, t,
                                         op == MPI_NO_OP && !origin ? result : origin, result,
                                         rop, &ticket);
    return issued(s, pc, "MPI_Fetch_and_op", rc, target, ticket, origin, result,
                  rc ? 0 : (size_t)rmalab_type_size(t));
}

RUN_API int run_MPI_Compare_and_swap(const void *origin, const void *compare, void *result,
                                     MPI_Datatype type, int target, MPI_Aint disp, MPI_Win win)
{
    ON_WINDOW(win, PMPI_Compare_and_swap(origin, compare, result, type, target, disp, win));
    if (target == MPI_PROC_NULL)
        return MPI_SUCCESS;
    rmalab_type t;
    uint64_t ticket = 0;
    int rc = run_type_of(type, &t) ? one_element("MPI_Compare_and_swap") : RMALAB_OK;
    run_site(s, pc);
    if (!rc)
        rc = rmalab_win_compare_and_swap_mem(s->w, target, disp, t, compare, origin, result,
                                             &ticket);
    if (!rc) /* the compare buffer is read as the origin is */
        run_watch_op(s, target, ticket, 0, compare, (size_t)rmalab_type_size(t), false, pc,
                     "MPI_Compare_and_swap");
    return issued(s, pc, "MPI_Compare_and_swap", rc, target, ticket, origin, result,
                  rc ? 0 : (size_t)rmalab_type_size(t));
}

/* ------------------------------------------------------------------------ */
/* Large counts (MPI-4's _c forms): the same, for counts up to INT_MAX;
 * larger ones are refused (the core counts in ints). A negative one is
 * MPI_ERR_COUNT, as in the int forms. */

#define FITS(c) ((c) <= INT_MAX)

static int too_large(run_win *s, const char *pc, const char *call)
{
    return run_win_done(s, pc, call, rmalab_set_error(RMALAB_ERR_ARG, "rmalab run "
                        "checks counts up to %d elements", INT_MAX));
}

RUN_API int run_MPI_Put_c(const void *origin, MPI_Count ocount, MPI_Datatype otype, int target,
                          MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win)
{
    ON_WINDOW(win, PMPI_Put_c(origin, ocount, otype, target, disp, tcount, ttype, win));
    if (!FITS(ocount) || !FITS(tcount))
        return too_large(s, pc, RUN_CALL);
    rma_call c = PUT_CALL(origin, ocount, otype, target, disp, tcount, ttype);
    return rma(s, pc, RUN_CALL, &c);
}

RUN_API int run_MPI_Get_c(void *result, MPI_Count ocount, MPI_Datatype otype, int target,
                          MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win)
{
    ON_WINDOW(win, PMPI_Get_c(result, ocount, otype, target, disp, tcount, ttype, win));
    if (!FITS(ocount) || !FITS(tcount))
        return too_large(s, pc, RUN_CALL);
    rma_call c = GET_CALL(result, ocount, otype, target, disp, tcount, ttype);
    return rma(s, pc, RUN_CALL, &c);
}

RUN_API int run_MPI_Accumulate_c(const void *origin, MPI_Count ocount, MPI_Datatype otype,
                                 int target, MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype,
                                 MPI_Op op, MPI_Win win)
{
    ON_WINDOW(win,
              PMPI_Accumulate_c(origin, ocount, otype, target, disp, tcount, ttype, op, win));
    if (!FITS(ocount) || !FITS(tcount))
        return too_large(s, pc, RUN_CALL);
    rma_call c = ACC_CALL(origin, ocount, otype, target, disp, tcount, ttype, op);
    return rma(s, pc, RUN_CALL, &c);
}

RUN_API int run_MPI_Get_accumulate_c(const void *origin, MPI_Count ocount, MPI_Datatype otype,
                                     void *result, MPI_Count rcount, MPI_Datatype rtype, int target,
                                     MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op op,
                                     MPI_Win win)
{
    ON_WINDOW(win, PMPI_Get_accumulate_c(origin, ocount, otype, result, rcount, rtype, target,
                                         disp, tcount, ttype, op, win));
    if (!FITS(ocount) || !FITS(rcount) || !FITS(tcount))
        return too_large(s, pc, RUN_CALL);
    rma_call c =
        GACC_CALL(origin, ocount, otype, result, rcount, rtype, target, disp, tcount, ttype, op);
    return rma(s, pc, RUN_CALL, &c);
}

/* ------------------------------------------------------------------------ */
/* Request forms                                                            */

/* Issued as the core's request, plain or typed as above. */
static int rissue(run_win *s, const run_layout *L, rmalab_request **rq)
{
    const rmalab_typed_op *t = &L->t;
    if (!L->plain)
        return rmalab_win_typed_request(s->w, t, rq);
    switch (t->kind) {
    case RMALAB_TRACE_PUT:
        return rmalab_win_rput(s->w, t->target, t->disp, t->type, t->count, t->origin, NULL, rq);
    case RMALAB_TRACE_GET:
        return rmalab_win_rget(s->w, t->target, t->disp, t->type, t->count, t->result, NULL, rq);
    case RMALAB_TRACE_ACCUMULATE:
        return rmalab_win_raccumulate(s->w, t->target, t->disp, t->type, t->count, t->origin,
                                      t->op, NULL, rq);
    default:
        return rmalab_win_rget_accumulate(s->w, t->target, t->disp, t->type, t->count,
                                          t->origin, t->result, t->op, NULL, rq);
    }
}

/* Issue, and hand back the request that stands for the core's until the
 * program's completion call returns it (requests.h); its buffers watched
 * until then. An Rget_accumulate with MPI_NO_OP reads no origin. */
static int rcall(run_win *s, const void *pc, const char *call, const rma_call *c,
                 MPI_Request *request)
{
    rmalab_request *rq = NULL;
    run_layout L;
    *request = MPI_REQUEST_NULL;
    int rc = layout(c, &L);
    run_site(s, pc);
    if (!rc && c->target != MPI_PROC_NULL)
        rc = rissue(s, &L, &rq);
    if (!rc) {
        run_request_bufs b = {reads_origin(c) ? c->origin : NULL, c->result, L.t.ospans,
                              L.t.rspans, L.t.nospans, L.t.nrspans, c->target};
        rc = run_requests_add(s, pc, call, rq, &b, request);
    }
    run_layout_free(&L);
    return run_win_done(s, pc, call, rc);
}

RUN_API int run_MPI_Rput(const void *origin, int ocount, MPI_Datatype otype, int target,
                         MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Win win,
                         MPI_Request *request)
{
    ON_WINDOW(win, PMPI_Rput(origin, ocount, otype, target, disp, tcount, ttype, win, request));
    rma_call c = PUT_CALL(origin, ocount, otype, target, disp, tcount, ttype);
    return rcall(s, pc, "MPI_Rput", &c, request);
}

RUN_API int run_MPI_Rget(void *result, int ocount, MPI_Datatype otype, int target, MPI_Aint disp,
                         int tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request *request)
{
    ON_WINDOW(win, PMPI_Rget(result, ocount, otype, target, disp, tcount, ttype, win, request));
    rma_call c = GET_CALL(result, ocount, otype, target, disp, tcount, ttype);
    return rcall(s, pc, "MPI_Rget", &c, request);
}

RUN_API int run_MPI_Raccumulate(const void *origin, int ocount, MPI_Datatype otype, int target,
                                MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op,
                                MPI_Win win, MPI_Request *request)
{
    ON_WINDOW(win, PMPI_Raccumulate(origin, ocount, otype, target, disp, tcount, ttype, op, win,
                                    request));
    rma_call c = ACC_CALL(origin, ocount, otype, target, disp, tcount, ttype, op);
    return rcall(s, pc, "MPI_Raccumulate", &c, request);
}

RUN_API int run_MPI_Rget_accumulate(const void *origin, int ocount, MPI_Datatype otype,
                                    void *result, int rcount, MPI_Datatype rtype, int target,
                                    MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op,
                                    MPI_Win win, MPI_Request *request)
{
    ON_WINDOW(win, PMPI_Rget_accumulate(origin, ocount, otype, result, rcount, rtype, target,
                                        disp, tcount, ttype, op, win, request));
    rma_call c =
        GACC_CALL(origin, ocount, otype, result, rcount, rtype, target, disp, tcount, ttype, op);
    return rcall(s, pc, "MPI_Rget_accumulate", &c, request);
}

/* The large-count request forms, for counts that fit in an int. */
static int rcall_c(run_win *s, const void *pc, const char *call, const rma_call *c,
                   bool fits, MPI_Request *request)
{
    *request = MPI_REQUEST_NULL;
    if (!fits)
        return too_large(s, pc, call);
    return rcall(s, pc, call, c, request);
}

RUN_API int run_MPI_Rput_c(const void *origin, MPI_Count ocount, MPI_Datatype otype, int target,
                           MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win,
                           MPI_Request *request)
{
    ON_WINDOW(win,
              PMPI_Rput_c(origin, ocount, otype, target, disp, tcount, ttype, win, request));
    rma_call c = PUT_CALL(origin, ocount, otype, target, disp, tcount, ttype);
    return rcall_c(s, pc, RUN_CALL, &c, FITS(ocount) && FITS(tcount), request);
}

RUN_API int run_MPI_Rget_c(void *result, MPI_Count ocount, MPI_Datatype otype, int target,
                           MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win,
                           MPI_Request *request)
{
    ON_WINDOW(win,
              PMPI_Rget_c(result, ocount, otype, target, disp, tcount, ttype, win, request));
    rma_call c = GET_CALL(result, ocount, otype, target, disp, tcount, ttype);
    return rcall_c(s, pc, RUN_CALL, &c, FITS(ocount) && FITS(tcount), request);
}

RUN_API int run_MPI_Raccumulate_c(const void *origin, MPI_Count ocount, MPI_Datatype otype,
                                  int target, MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype,
                                  MPI_Op op, MPI_Win win, MPI_Request *request)
{
    ON_WINDOW(win, PMPI_Raccumulate_c(origin, ocount, otype, target, disp, tcount, ttype, op,
                                      win, request));
    rma_call c = ACC_CALL(origin, ocount, otype, target, disp, tcount, ttype, op);
    return rcall_c(s, pc, RUN_CALL, &c, FITS(ocount) && FITS(tcount), request);
}

RUN_API int run_MPI_Rget_accumulate_c(const void *origin, MPI_Count ocount, MPI_Datatype otype,
                                      void *result, MPI_Count rcount, MPI_Datatype rtype,
                                      int target, MPI_Aint disp, MPI_Count tcount,
                                      MPI_Datatype ttype, MPI_Op op, MPI_Win win,
                                      MPI_Request *request)
{
    ON_WINDOW(win, PMPI_Rget_accumulate_c(origin, ocount, otype, result, rcount, rtype, target,
                                          disp, tcount, ttype, op, win, request));
    rma_call c =
        GACC_CALL(origin, ocount, otype, result, rcount, rtype, target, disp, tcount, ttype, op);
    return rcall_c(s, pc, RUN_CALL, &c, FITS(ocount) && FITS(rcount) && FITS(tcount), request);
}

/* ------------------------------------------------------------------------ */
/* Datatypes                                                                */

/* The datatypes the program commits are those rmalab asks MPI about
 * (dtype.c): MPICH crashes on a bogus or freed handle. A free makes the
 * description go, as MPICH gives its handle to the next type made. */
RUN_API int run_MPI_Type_commit(MPI_Datatype *type)
{
    int rc = PMPI_Type_commit(type);
    if (rc == MPI_SUCCESS)
        run_dtype_commit(*type);
    return rc;
}

/* A duplicate has the committed state of its original. */
RUN_API int run_MPI_Type_dup(MPI_Datatype old, MPI_Datatype *type)
{
    int rc = PMPI_Type_dup(old, type);
    if (rc == MPI_SUCCESS && run_dtype_known(old))
        run_dtype_commit(*type);
    return rc;
}

/* Fortran 90's parameterised types are predefined ones, committed. */
RUN_API int run_MPI_Type_create_f90_integer(int r, MPI_Datatype *type)
{
    int rc = PMPI_Type_create_f90_integer(r, type);
    if (rc == MPI_SUCCESS)
        run_dtype_commit(*type);
    return rc;
}

RUN_API int run_MPI_Type_create_f90_real(int p, int r, MPI_Datatype *type)
{
    int rc = PMPI_Type_create_f90_real(p, r, type);
    if (rc == MPI_SUCCESS)
        run_dtype_commit(*type);
    return rc;
}

RUN_API int run_MPI_Type_create_f90_complex(int p, int r, MPI_Datatype *type)
{
    int rc = PMPI_Type_create_f90_complex(p, r, type);
    if (rc == MPI_SUCCESS)
        run_dtype_commit(*type);
    return rc;
}

RUN_API int run_MPI_Type_free(MPI_Datatype *type)
{
    MPI_Datatype was = type ? *type : MPI_DATATYPE_NULL;
    int rc = PMPI_Type_free(type);
    if (rc == MPI_SUCCESS)
        run_dtype_forget(was, RUN_PC);
    return rc;
}
