/* RMA operations: the core's _mem calls on the program's own buffers, which
 * MPI reads and writes until the operation completes (its ticket says
 * when: the access bridge watches the buffers until then). Datatypes the
 * core cannot express are refused with an error that says so; on a window
 * the core does not know, everything goes to PMPI unchanged.
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

static int put(run_win *s, const char *pc, const char *call, const void *origin, int ocount,
               MPI_Datatype otype, int target, MPI_Aint disp, int tcount, MPI_Datatype ttype)
{
    if (target == MPI_PROC_NULL)
        return MPI_SUCCESS;
    run_layout L;
    uint64_t ticket = 0;
    int rc = run_layout_of(ocount, otype, tcount, ttype, &L);
    run_site(s, pc);
    if (!rc)
        rc = rmalab_win_put_mem(s->w, target, disp, L.type, L.count, origin,
                                L.has_vec ? &L.vec : NULL, &ticket);
    return issued(s, pc, call, rc, target, ticket, origin, NULL, L.bytes);
}

RUN_API int MPI_Put(const void *origin, int ocount, MPI_Datatype otype, int target,
                    MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Win win)
{
    ON_WINDOW(win, PMPI_Put(origin, ocount, otype, target, disp, tcount, ttype, win));
    return put(s, pc, __func__, origin, ocount, otype, target, disp, tcount, ttype);
}

static int get(run_win *s, const char *pc, const char *call, void *result, int ocount,
               MPI_Datatype otype, int target, MPI_Aint disp, int tcount, MPI_Datatype ttype)
{
    if (target == MPI_PROC_NULL)
        return MPI_SUCCESS;
    run_layout L;
    uint64_t ticket = 0;
    int rc = run_layout_of(ocount, otype, tcount, ttype, &L);
    run_site(s, pc);
    if (!rc)
        rc = rmalab_win_get_mem(s->w, target, disp, L.type, L.count, result,
                                L.has_vec ? &L.vec : NULL, &ticket);
    return issued(s, pc, call, rc, target, ticket, NULL, result, L.bytes);
}

RUN_API int MPI_Get(void *result, int ocount, MPI_Datatype otype, int target, MPI_Aint disp,
                    int tcount, MPI_Datatype ttype, MPI_Win win)
{
    ON_WINDOW(win, PMPI_Get(result, ocount, otype, target, disp, tcount, ttype, win));
    return get(s, pc, __func__, result, ocount, otype, target, disp, tcount, ttype);
}

static int accumulate(run_win *s, const char *pc, const char *call, const void *origin,
                      int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount,
                      MPI_Datatype ttype, MPI_Op op)
{
    if (target == MPI_PROC_NULL)
        return MPI_SUCCESS;
    run_layout L;
    rmalab_op rop;
    uint64_t ticket = 0;
    int rc = run_layout_of(ocount, otype, tcount, ttype, &L);
    if (!rc)
        rc = run_op_of(op, &rop);
    run_site(s, pc);
    if (!rc)
        rc = rmalab_win_accumulate_mem(s->w, target, disp, L.type, L.count, origin, rop,
                                       L.has_vec ? &L.vec : NULL, &ticket);
    return issued(s, pc, call, rc, target, ticket, origin, NULL, L.bytes);
}

RUN_API int MPI_Accumulate(const void *origin, int ocount, MPI_Datatype otype, int target,
                           MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op,
                           MPI_Win win)
{
    ON_WINDOW(win,
              PMPI_Accumulate(origin, ocount, otype, target, disp, tcount, ttype, op, win));
    return accumulate(s, pc, __func__, origin, ocount, otype, target, disp, tcount, ttype, op);
}

static int get_accumulate(run_win *s, const char *pc, const char *call, const void *origin,
                          int ocount, MPI_Datatype otype, void *result, int rcount,
                          MPI_Datatype rtype, int target, MPI_Aint disp, int tcount,
                          MPI_Datatype ttype, MPI_Op op)
{
    if (target == MPI_PROC_NULL)
        return MPI_SUCCESS;
    run_layout L, R;
    rmalab_op rop;
    uint64_t ticket = 0;
    int rc = run_layout_of(rcount, rtype, tcount, ttype, &R);
    if (!rc && op != MPI_NO_OP)
        rc = run_layout_of(ocount, otype, tcount, ttype, &L);
    if (!rc)
        rc = run_op_of(op, &rop);
    run_site(s, pc);
    if (!rc)
        rc = rmalab_win_get_accumulate_mem(s->w, target, disp, R.type, R.count,
                                           op == MPI_NO_OP && !origin ? result : origin,
                                           result, rop,
                                           R.has_vec ? &R.vec : NULL, &ticket);
    rc = issued(s, pc, call, rc, target, ticket, NULL, result, R.bytes);
    if (rc == MPI_SUCCESS && op != MPI_NO_OP)
        run_watch_op(s, target, ticket, 0, origin, R.bytes, false, pc, call);
    return rc;
}

RUN_API int MPI_Get_accumulate(const void *origin, int ocount, MPI_Datatype otype, void *result,
                               int rcount, MPI_Datatype rtype, int target, MPI_Aint disp,
                               int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win)
{
    ON_WINDOW(win, PMPI_Get_accumulate(origin, ocount, otype, result, rcount, rtype, target,
                                       disp, tcount, ttype, op, win));
    return get_accumulate(s, pc, __func__, origin, ocount, otype, result, rcount, rtype, target,
                          disp, tcount, ttype, op);
}

RUN_API int MPI_Fetch_and_op(const void *origin, void *result, MPI_Datatype type, int target,
                             MPI_Aint disp, MPI_Op op, MPI_Win win)
{
    ON_WINDOW(win, PMPI_Fetch_and_op(origin, result, type, target, disp, op, win));
    if (target == MPI_PROC_NULL)
        return MPI_SUCCESS;
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

RUN_API int MPI_Compare_and_swap(const void *origin, const void *compare, void *result,
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
/* Large counts (MPI-4's _c forms): the same, for counts that fit in an
 * int; larger ones are refused (the core counts in ints). */

#define FITS(c) ((c) >= 0 && (c) <= INT_MAX)

static int too_large(run_win *s, const char *pc, const char *call)
{
    return run_win_done(s, pc, call, rmalab_set_error(RMALAB_ERR_ARG, "rmalab run "
                        "checks counts up to %d elements", INT_MAX));
}

RUN_API int MPI_Put_c(const void *origin, MPI_Count ocount, MPI_Datatype otype, int target,
                      MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win)
{
    ON_WINDOW(win, PMPI_Put_c(origin, ocount, otype, target, disp, tcount, ttype, win));
    if (!FITS(ocount) || !FITS(tcount))
        return too_large(s, pc, __func__);
    return put(s, pc, __func__, origin, (int)ocount, otype, target, disp, (int)tcount, ttype);
}

RUN_API int MPI_Get_c(void *result, MPI_Count ocount, MPI_Datatype otype, int target,
                      MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win)
{
    ON_WINDOW(win, PMPI_Get_c(result, ocount, otype, target, disp, tcount, ttype, win));
    if (!FITS(ocount) || !FITS(tcount))
        return too_large(s, pc, __func__);
    return get(s, pc, __func__, result, (int)ocount, otype, target, disp, (int)tcount, ttype);
}

RUN_API int MPI_Accumulate_c(const void *origin, MPI_Count ocount, MPI_Datatype otype,
                             int target, MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype,
                             MPI_Op op, MPI_Win win)
{
    ON_WINDOW(win,
              PMPI_Accumulate_c(origin, ocount, otype, target, disp, tcount, ttype, op, win));
    if (!FITS(ocount) || !FITS(tcount))
        return too_large(s, pc, __func__);
    return accumulate(s, pc, __func__, origin, (int)ocount, otype, target, disp, (int)tcount,
                      ttype, op);
}

RUN_API int MPI_Get_accumulate_c(const void *origin, MPI_Count ocount, MPI_Datatype otype,
                                 void *result, MPI_Count rcount, MPI_Datatype rtype, int target,
                                 MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op op,
                                 MPI_Win win)
{
    ON_WINDOW(win, PMPI_Get_accumulate_c(origin, ocount, otype, result, rcount, rtype, target,
                                         disp, tcount, ttype, op, win));
    if (!FITS(ocount) || !FITS(rcount) || !FITS(tcount))
        return too_large(s, pc, __func__);
    return get_accumulate(s, pc, __func__, origin, (int)ocount, otype, result, (int)rcount,
                          rtype, target, disp, (int)tcount, ttype, op);
}

/* ------------------------------------------------------------------------ */
/* Request forms                                                            */

typedef struct {
    int kind; /* 0 rput, 1 rget, 2 raccumulate, 3 rget_accumulate */
    const void *origin;
    void *result;
    int target;
    MPI_Aint disp;
    MPI_Op op;
} rform;

static int rissue(run_win *s, const rform *f, const run_layout *L, rmalab_request **rq)
{
    rmalab_op rop = RMALAB_OP_REPLACE;
    const rmalab_vector *vec = L->has_vec ? &L->vec : NULL;
    int rc = f->kind >= 2 ? run_op_of(f->op, &rop) : RMALAB_OK;
    if (rc)
        return rc;
    switch (f->kind) {
    case 0:
        return rmalab_win_rput(s->w, f->target, f->disp, L->type, L->count, f->origin, vec, rq);
    case 1:
        return rmalab_win_rget(s->w, f->target, f->disp, L->type, L->count, f->result, vec, rq);
    case 2:
        return rmalab_win_raccumulate(s->w, f->target, f->disp, L->type, L->count, f->origin,
                                      rop, vec, rq);
    default:
        return rmalab_win_rget_accumulate(s->w, f->target, f->disp, L->type, L->count,
                                          f->op == MPI_NO_OP && !f->origin ? f->result : f->origin,
                                          f->result, rop,
                                          vec, rq);
    }
}

/* Issue, and hand back the request that stands for the core's until the
 * program's completion call returns it (requests.h); its buffers watched
 * until then. An Rget_accumulate with MPI_NO_OP reads no origin. */
static int rcall(run_win *s, const void *pc, const char *call, const rform *f,
                 const run_layout *L, int rc, MPI_Request *request)
{
    rmalab_request *rq = NULL;
    *request = MPI_REQUEST_NULL;
    run_site(s, pc);
    if (!rc && f->target != MPI_PROC_NULL)
        rc = rissue(s, f, L, &rq);
    if (!rc) {
        bool reads = f->kind == 0 || f->kind == 2 || (f->kind == 3 && f->op != MPI_NO_OP);
        run_request_bufs b = {reads ? f->origin : NULL, f->result, L->bytes, f->target};
        rc = run_requests_add(s, pc, call, rq, &b, request);
    }
    return run_win_done(s, pc, call, rc);
}

RUN_API int MPI_Rput(const void *origin, int ocount, MPI_Datatype otype, int target,
                     MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Win win,
                     MPI_Request *request)
{
    ON_WINDOW(win, PMPI_Rput(origin, ocount, otype, target, disp, tcount, ttype, win, request));
    run_layout L;
    rform f = {0, origin, NULL, target, disp, MPI_REPLACE};
    return rcall(s, pc, "MPI_Rput", &f, &L, run_layout_of(ocount, otype, tcount, ttype, &L),
                 request);
}

RUN_API int MPI_Rget(void *result, int ocount, MPI_Datatype otype, int target, MPI_Aint disp,
                     int tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request *request)
{
    ON_WINDOW(win, PMPI_Rget(result, ocount, otype, target, disp, tcount, ttype, win, request));
    run_layout L;
    rform f = {1, NULL, result, target, disp, MPI_REPLACE};
    return rcall(s, pc, "MPI_Rget", &f, &L, run_layout_of(ocount, otype, tcount, ttype, &L),
                 request);
}

RUN_API int MPI_Raccumulate(const void *origin, int ocount, MPI_Datatype otype, int target,
                            MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op,
                            MPI_Win win, MPI_Request *request)
{
    ON_WINDOW(win, PMPI_Raccumulate(origin, ocount, otype, target, disp, tcount, ttype, op, win,
                                    request));
    run_layout L;
    rform f = {2, origin, NULL, target, disp, op};
    return rcall(s, pc, "MPI_Raccumulate", &f, &L,
                 run_layout_of(ocount, otype, tcount, ttype, &L), request);
}

RUN_API int MPI_Rget_accumulate(const void *origin, int ocount, MPI_Datatype otype,
                                void *result, int rcount, MPI_Datatype rtype, int target,
                                MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op,
                                MPI_Win win, MPI_Request *request)
{
    ON_WINDOW(win, PMPI_Rget_accumulate(origin, ocount, otype, result, rcount, rtype, target,
                                        disp, tcount, ttype, op, win, request));
    run_layout L;
    rform f = {3, origin, result, target, disp, op};
    return rcall(s, pc, "MPI_Rget_accumulate", &f, &L,
                 run_layout_of(rcount, rtype, tcount, ttype, &L), request);
}

/* The large-count request forms: the layout of counts that fit in an int. */
static int layout_c(MPI_Count ocount, MPI_Datatype otype, MPI_Count tcount,
                    MPI_Datatype ttype, run_layout *L)
{
    if (!FITS(ocount) || !FITS(tcount))
        return rmalab_set_error(RMALAB_ERR_ARG, "rmalab run checks counts up to %d elements",
                                INT_MAX);
    return run_layout_of((int)ocount, otype, (int)tcount, ttype, L);
}

RUN_API int MPI_Rput_c(const void *origin, MPI_Count ocount, MPI_Datatype otype, int target,
                       MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win,
                       MPI_Request *request)
{
    ON_WINDOW(win,
              PMPI_Rput_c(origin, ocount, otype, target, disp, tcount, ttype, win, request));
    run_layout L;
    rform f = {0, origin, NULL, target, disp, MPI_REPLACE};
    return rcall(s, pc, __func__, &f, &L, layout_c(ocount, otype, tcount, ttype, &L), request);
}

RUN_API int MPI_Rget_c(void *result, MPI_Count ocount, MPI_Datatype otype, int target,
                       MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win,
                       MPI_Request *request)
{
    ON_WINDOW(win,
              PMPI_Rget_c(result, ocount, otype, target, disp, tcount, ttype, win, request));
    run_layout L;
    rform f = {1, NULL, result, target, disp, MPI_REPLACE};
    return rcall(s, pc, __func__, &f, &L, layout_c(ocount, otype, tcount, ttype, &L), request);
}

RUN_API int MPI_Raccumulate_c(const void *origin, MPI_Count ocount, MPI_Datatype otype,
                              int target, MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype,
                              MPI_Op op, MPI_Win win, MPI_Request *request)
{
    ON_WINDOW(win, PMPI_Raccumulate_c(origin, ocount, otype, target, disp, tcount, ttype, op,
                                      win, request));
    run_layout L;
    rform f = {2, origin, NULL, target, disp, op};
    return rcall(s, pc, __func__, &f, &L, layout_c(ocount, otype, tcount, ttype, &L), request);
}

RUN_API int MPI_Rget_accumulate_c(const void *origin, MPI_Count ocount, MPI_Datatype otype,
                                  void *result, MPI_Count rcount, MPI_Datatype rtype,
                                  int target, MPI_Aint disp, MPI_Count tcount,
                                  MPI_Datatype ttype, MPI_Op op, MPI_Win win,
                                  MPI_Request *request)
{
    ON_WINDOW(win, PMPI_Rget_accumulate_c(origin, ocount, otype, result, rcount, rtype, target,
                                          disp, tcount, ttype, op, win, request));
    run_layout L;
    rform f = {3, origin, result, target, disp, op};
    return rcall(s, pc, __func__, &f, &L, layout_c(rcount, rtype, tcount, ttype, &L), request);
}
