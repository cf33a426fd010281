/* The typed RMA operations.
 *
 * Every operation passes rmalab__check_op (rank, epoch, range: sync.c)
 * before MPI sees it, and the op/type pair is checked against what MPI
 * allows (types.c). In an access epoch of an engine with an access slot,
 * the engine is asked first: it waits for the target's post and may hand
 * back the target's memory for a plain copy. Origin data is staged and
 * results are tracked by results.c. Calls sync.c, the engines, results.c
 * and types.c; records what succeeded (trace.c). */
#include "sync-event.h"

#include <stdio.h>
#include <string.h>

/* Through the engine, if it has a say in this epoch: *p is the target's
 * memory at disp when a plain copy may reach it (plain_ok), else NULL. */
static int engine_access(rmalab_win *w, const char *what, int target, MPI_Aint disp,
                         bool plain_ok, unsigned char **p)
{
    *p = NULL;
    return rmalab__via_engine(w) ? w->eng->access(w, what, target, disp, plain_ok, p)
                                 : RMALAB_OK;
}

/* Which call completes an operation of the open access epoch. */
static void completer(const rmalab_win *w, int target, char *buf, size_t size)
{
    switch (w->ep.access) {
    case RMALAB_ACCESS_FENCE: snprintf(buf, size, "the next fence()"); break;
    case RMALAB_ACCESS_START: snprintf(buf, size, "complete()"); break;
    case RMALAB_ACCESS_LOCK:
        snprintf(buf, size, "unlock(%d) or flush(%d)", target, target);
        break;
    default: snprintf(buf, size, "unlock_all() or flush(%d)", target); break;
    }
}

/* A result for an operation about to be issued, created before MPI sees the
 * operation so that a failure leaves nothing behind. */
static int new_result(rmalab_win *w, const rmalab__op_event *ev, rmalab_result **out)
{
    char by[96];
    completer(w, ev->target, by, sizeof by);
    return rmalab__result_new(w, ev->target, ev->type, ev->count, by, out);
}

/* After the MPI call `mpi_name` returned `e` for result r. */
static int issued(rmalab_win *w, rmalab_result *r, int e, const char *mpi_name,
                  rmalab_result **out)
{
    if (e != MPI_SUCCESS) {
        rmalab_result_release(r);
        return rmalab__mpi_fail(e, mpi_name);
    }
    rmalab__result_track(w, r);
    *out = r;
    return RMALAB_OK;
}

static size_t bytes_of(rmalab_type type, int count)
{
    return (size_t)count * (size_t)rmalab_type_size(type);
}

static int put_(rmalab_win *w, rmalab__op_event *ev, const void *origin)
{
    unsigned char *p;
    int rc = rmalab__check_op(w, "put", ev);
    if (rc || (rc = engine_access(w, "put", ev->target, ev->disp, true, &p)))
        return rc;
    if (p) {
        memcpy(p, origin, bytes_of(ev->type, ev->count));
        return RMALAB_OK;
    }
    if ((rc = rmalab__stage(w, ev->target, &origin, bytes_of(ev->type, ev->count))))
        return rc;
    MPI_Datatype dt = rmalab__mpi_type(ev->type);
    int e = MPI_Put(origin, ev->count, dt, ev->target, ev->disp, ev->count, dt,
                    rmalab__op_win(w));
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__mpi_fail(e, "MPI_Put");
}

static int get_(rmalab_win *w, rmalab__op_event *ev, rmalab_result **out)
{
    unsigned char *p;
    rmalab_result *r;
    int rc = rmalab__check_op(w, "get", ev);
    if (rc || (rc = engine_access(w, "get", ev->target, ev->disp, true, &p)) ||
        (rc = new_result(w, ev, &r)))
        return rc;
    MPI_Datatype dt = rmalab__mpi_type(ev->type);
    int e = MPI_SUCCESS;
    if (p)
        memcpy(r->data, p, bytes_of(ev->type, ev->count));
    else
        e = MPI_Get(r->data, ev->count, dt, ev->target, ev->disp, ev->count, dt,
                    rmalab__op_win(w));
    return issued(w, r, e, "MPI_Get", out);
}

/* The checks of an atomic operation, and its origin data staged. Atomics
 * always go through MPI, which keeps them atomic with respect to each
 * other; in an engine's epoch they wait for the target's post first. */
static int atomic_checks(rmalab_win *w, const char *what, rmalab__op_event *ev,
                         const void **origin)
{
    unsigned char *p;
    int rc = rmalab__check_op(w, what, ev);
    if (rc || (rc = engine_access(w, what, ev->target, ev->disp, false, &p)))
        return rc;
    return rmalab__stage(w, ev->target, origin, bytes_of(ev->type, ev->count));
}

static int accumulate_(rmalab_win *w, rmalab__op_event *ev, const void *origin)
{
    int rc = rmalab__check_op_type("accumulate", ev->op, ev->type, false);
    if (rc || (rc = atomic_checks(w, "accumulate", ev, &origin)))
        return rc;
    MPI_Datatype dt = rmalab__mpi_type(ev->type);
    int e = MPI_Accumulate(origin, ev->count, dt, ev->target, ev->disp, ev->count, dt,
                           rmalab__mpi_op(ev->op), rmalab__op_win(w));
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__mpi_fail(e, "MPI_Accumulate");
}

static int get_accumulate_(rmalab_win *w, rmalab__op_event *ev, const void *origin,
                           rmalab_result **out)
{
    rmalab_result *r;
    int rc = rmalab__check_op_type("get_accumulate", ev->op, ev->type, true);
    if (rc || (rc = atomic_checks(w, "get_accumulate", ev, &origin)) ||
        (rc = new_result(w, ev, &r)))
        return rc;
    MPI_Datatype dt = rmalab__mpi_type(ev->type);
    int e = MPI_Get_accumulate(origin, ev->count, dt, r->data, ev->count, dt, ev->target,
                               ev->disp, ev->count, dt, rmalab__mpi_op(ev->op),
                               rmalab__op_win(w));
    return issued(w, r, e, "MPI_Get_accumulate", out);
}

static int fetch_and_op_(rmalab_win *w, rmalab__op_event *ev, const void *origin,
                         rmalab_result **out)
{
    rmalab_result *r;
    int rc = rmalab__check_op_type("fetch_and_op", ev->op, ev->type, true);
    if (rc || (rc = atomic_checks(w, "fetch_and_op", ev, &origin)) ||
        (rc = new_result(w, ev, &r)))
        return rc;
    int e = MPI_Fetch_and_op(origin, r->data, rmalab__mpi_type(ev->type), ev->target, ev->disp,
                             rmalab__mpi_op(ev->op), rmalab__op_win(w));
    return issued(w, r, e, "MPI_Fetch_and_op", out);
}

static int compare_and_swap_(rmalab_win *w, rmalab__op_event *ev, const void *compare,
                             const void *origin, rmalab_result **out)
{
    rmalab_result *r;
    if (ev->type == RMALAB_FLOAT || ev->type == RMALAB_DOUBLE)
        return rmalab__fail(RMALAB_ERR_TYPE,
                            "compare_and_swap: MPI defines it on integer and byte types, not "
                            "on %s",
                            rmalab_type_name(ev->type));
    int rc = atomic_checks(w, "compare_and_swap", ev, &origin);
    if (rc || (rc = rmalab__stage(w, ev->target, &compare, bytes_of(ev->type, 1))) ||
        (rc = new_result(w, ev, &r)))
        return rc;
    int e = MPI_Compare_and_swap(origin, compare, r->data, rmalab__mpi_type(ev->type),
                                 ev->target, ev->disp, rmalab__op_win(w));
    return issued(w, r, e, "MPI_Compare_and_swap", out);
}

/* ------------------------------------------------------------------------ */
/* The calls, recorded when the window records (trace.c)                    */

/* Each is one event of sync-event.h: an operation that succeeded goes in
 * the window's record, and in the race checker's. */
#define OP_EVENT(kind, target, disp, type, count, op)                          \
    (rmalab__op_event) { RMALAB_TRACE_##kind, target, disp, type, count, op }

int rmalab_win_put(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type, int count,
                   const void *origin)
{
    rmalab__op_event ev = OP_EVENT(PUT, target, disp, type, count, RMALAB_OP_REPLACE);
    rmalab__op_begin(w, &ev);
    return rmalab__op_end(w, &ev, put_(w, &ev, origin));
}

int rmalab_win_get(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type, int count,
                   rmalab_result **out)
{
    rmalab__op_event ev = OP_EVENT(GET, target, disp, type, count, RMALAB_OP_NO_OP);
    rmalab__op_begin(w, &ev);
    return rmalab__op_end(w, &ev, get_(w, &ev, out));
}

int rmalab_win_accumulate(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type, int count,
                          const void *origin, rmalab_op op)
{
    rmalab__op_event ev = OP_EVENT(ACCUMULATE, target, disp, type, count, op);
    rmalab__op_begin(w, &ev);
    return rmalab__op_end(w, &ev, accumulate_(w, &ev, origin));
}

int rmalab_win_get_accumulate(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type,
                              int count, const void *origin, rmalab_op op, rmalab_result **out)
{
    rmalab__op_event ev = OP_EVENT(GET_ACCUMULATE, target, disp, type, count, op);
    rmalab__op_begin(w, &ev);
    return rmalab__op_end(w, &ev, get_accumulate_(w, &ev, origin, out));
}

int rmalab_win_fetch_and_op(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type,
                            const void *origin, rmalab_op op, rmalab_result **out)
{
    rmalab__op_event ev = OP_EVENT(FETCH_AND_OP, target, disp, type, 1, op);
    rmalab__op_begin(w, &ev);
    return rmalab__op_end(w, &ev, fetch_and_op_(w, &ev, origin, out));
}

int rmalab_win_compare_and_swap(rmalab_win *w, int target, MPI_Aint disp, rmalab_type type,
                                const void *compare, const void *origin, rmalab_result **out)
{
    rmalab__op_event ev = OP_EVENT(COMPARE_AND_SWAP, target, disp, type, 1, RMALAB_NOPS);
    rmalab__op_begin(w, &ev);
    return rmalab__op_end(w, &ev, compare_and_swap_(w, &ev, compare, origin, out));
}

/* ------------------------------------------------------------------------ */
/* The window's local memory                                                */

int rmalab_win_read(rmalab_win *w, MPI_Aint disp, rmalab_type type, int count, void *out)
{
    unsigned char *p;
    if (!w)
        return rmalab__fail(RMALAB_ERR_WIN, "window is NULL or freed");
    rmalab__op_event ev = {RMALAB_TRACE_READ, w->rank, disp, type, count, RMALAB_NOPS};
    rmalab__op_begin(w, &ev);
    int rc = rmalab__check_count("read", type, count);
    if (!rc)
        rc = rmalab__layout_local(w, "read", disp, (MPI_Aint)count * rmalab_type_size(type), &p);
    if (rc || !out)
        return rc;
    if (w->model == MPI_WIN_SEPARATE || w->flavor == RMALAB_FLAVOR_SHARED)
        MPI_Win_sync(w->win);
    memcpy(out, p, (size_t)count * (size_t)rmalab_type_size(type));
    rmalab__epoch_facts(w, &ev);
    return rmalab__op_local(w, &ev);
}

int rmalab_win_write(rmalab_win *w, MPI_Aint disp, rmalab_type type, int count, const void *in)
{
    unsigned char *p;
    if (!w)
        return rmalab__fail(RMALAB_ERR_WIN, "window is NULL or freed");
    rmalab__op_event ev = {RMALAB_TRACE_WRITE, w->rank, disp, type, count, RMALAB_NOPS};
    rmalab__op_begin(w, &ev);
    int rc = rmalab__check_count("write", type, count);
    if (!rc)
        rc = rmalab__layout_local(w, "write", disp, (MPI_Aint)count * rmalab_type_size(type), &p);
    if (rc)
        return rc;
    memcpy(p, in, (size_t)count * (size_t)rmalab_type_size(type));
    if (w->model == MPI_WIN_SEPARATE || w->flavor == RMALAB_FLAVOR_SHARED)
        MPI_Win_sync(w->win);
    rmalab__epoch_facts(w, &ev);
    return rmalab__op_local(w, &ev);
}
