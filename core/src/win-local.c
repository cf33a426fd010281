/* The window's local memory: this rank's reads and writes of its own
 * window (rmalab_win_read, rmalab_win_write), and the loads and stores that
 * views make in place, reported to the recorder and the race checker
 * (rmalab_win_direct). Calls layout.c and sync.c's epoch facts; each is an
 * event of observe.h. */
#include "observe.h"
#include "error-private.h"
#include "types.h"
#include "layout.h"
#include "sync-private.h"

#include <string.h>

/* A read or write (kind) of this rank's memory: its event begun, its
 * checks, and *p where it reads or writes. */
static int local_open(rmalab_win *w, int kind, MPI_Aint disp, rmalab_type type, int count,
                      rmalab__op_event *ev, unsigned char **p)
{
    const char *what = kind == RMALAB_TRACE_READ ? "read" : "write";
    if (!w)
        return rmalab__err_fail(RMALAB_ERR_WIN, "window is NULL or freed");
    *ev = (rmalab__op_event){kind, w->rank, disp, type, count, RMALAB_NOPS};
    rmalab__observe_op_begin(w, ev);
    int rc = rmalab__type_check_count(what, type, count);
    return rc ? rc
              : rmalab__layout_local(w, what, disp, (MPI_Aint)count * rmalab_type_size(type), p);
}

int rmalab_win_read(rmalab_win *w, MPI_Aint disp, rmalab_type type, int count, void *out)
{
    unsigned char *p;
    rmalab__op_event ev;
    int rc = local_open(w, RMALAB_TRACE_READ, disp, type, count, &ev, &p);
    if (rc || !out)
        return rc;
    if (w->model == MPI_WIN_SEPARATE || w->flavor == RMALAB_FLAVOR_SHARED)
        MPI_Win_sync(w->win);
    memcpy(out, p, (size_t)count * (size_t)rmalab_type_size(type));
    rmalab__sync_epoch_facts(w, &ev);
    return rmalab__observe_op_local(w, &ev);
}

int rmalab_win_write(rmalab_win *w, MPI_Aint disp, rmalab_type type, int count, const void *in)
{
    unsigned char *p;
    rmalab__op_event ev;
    int rc = local_open(w, RMALAB_TRACE_WRITE, disp, type, count, &ev, &p);
    if (rc)
        return rc;
    memcpy(p, in, (size_t)count * (size_t)rmalab_type_size(type));
    if (w->model == MPI_WIN_SEPARATE || w->flavor == RMALAB_FLAVOR_SHARED)
        MPI_Win_sync(w->win);
    rmalab__sync_epoch_facts(w, &ev);
    return rmalab__observe_op_local(w, &ev);
}

/* Is a direct access of n bytes at offset of rank's memory inside it? On
 * a dynamic window, offset is an address of this rank's attached memory. */
static int direct_range(rmalab_win *w, int rank, MPI_Aint offset, rmalab_type type, int count,
                        bool write)
{
    const char *what = write ? "store" : "load";
    MPI_Aint n = (MPI_Aint)count * rmalab_type_size(type);
    unsigned char *p;
    if (rank < 0 || rank >= w->size)
        return rmalab__err_fail(RMALAB_ERR_RANK,
                                "a direct %s of rank %d: the window's group has ranks 0 to %d",
                                what, rank, w->size - 1);
    if (w->flavor == RMALAB_FLAVOR_DYNAMIC && rank != w->rank)
        return rmalab__err_fail(RMALAB_ERR_RANK,
                                "a direct %s of rank %d: the memory attached to a dynamic "
                                "window is only its own rank's to load and store",
                                what, rank);
    if (w->flavor == RMALAB_FLAVOR_DYNAMIC && count >= 0)
        return rmalab__layout_local(w, write ? "a direct store" : "a direct load", offset, n, &p);
    if (count < 0 || offset < 0 || offset + n > rmalab_win_size_of(w, rank))
        return rmalab__err_fail(RMALAB_ERR_RMA_RANGE,
                                "a direct %s of %d %s at byte %lld: outside rank %d's %lld bytes",
                                what, count, rmalab_type_name(type), (long long)offset, rank,
                                (long long)rmalab_win_size_of(w, rank));
    return RMALAB_OK;
}

int rmalab_win_direct(rmalab_win *w, int rank, MPI_Aint offset, rmalab_type type, int count,
                      bool write)
{
    if (!w)
        return rmalab__err_fail(RMALAB_ERR_WIN, "window is NULL or freed");
    if (!w->races && !w->trace)
        return RMALAB_OK;
    int rc = direct_range(w, rank, offset, type, count, write);
    if (rc)
        return rc;
    rmalab__op_event ev = {write ? RMALAB_TRACE_WRITE : RMALAB_TRACE_READ, rank, offset, type,
                           count, RMALAB_NOPS};
    ev.in_bytes = true;
    rmalab__observe_op_begin(w, &ev);
    rmalab__sync_epoch_facts(w, &ev);
    return rmalab__observe_op_direct(w, &ev);
}
