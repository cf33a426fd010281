/* The passive-target calls: lock, unlock, lock_all, unlock_all and the
 * flushes, checked against the epoch state (sync.c) before MPI sees them.
 * Each ends the state's change under the window's lock and reports one
 * event (observe.h). The lock and flush calls wait in MPICH: MPI has no
 * nonblocking lock or flush. */
#include "observe.h"
#include "error-private.h"
#include "block.h"
#include "types.h"
#include "results.h"
#include "sync-private.h"

/* ------------------------------------------------------------------------ */
/* Passive target                                                           */

static int passive_allowed(rmalab_win *w, const char *call)
{
    /* Misuse inside a PSCW epoch first: the same message for both engines. */
    if (w->ep.access == RMALAB_ACCESS_START || w->ep.exposure == RMALAB_EXPOSURE_POST)
        return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                                "%s: a PSCW epoch is open (%s); locks may not be taken inside it, "
                                "so end it with %s first",
                                call,
                                w->ep.access == RMALAB_ACCESS_START ? "access, from start()"
                                                                    : "exposure, from post()",
                                w->ep.access == RMALAB_ACCESS_START ? "complete()" : "wait()");
    if (w->ep.access == RMALAB_ACCESS_FENCE && !rmalab__sync_epoch_fence_idle(w))
        return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                                "%s: a fence epoch with RMA calls is open; end it with "
                                "fence(\"nosucceed\") first",
                                call);
    return RMALAB_OK;
}

/* The state says which lock the call waits in MPI to be granted (-1:
 * none), for tools that watch the process (the REPL's hints). */
static void lock_waiting(rmalab_win *w, int target, bool exclusive)
{
    rmalab__win_state_lock(w);
    w->ep.lock_waiting = target;
    w->ep.lock_waiting_exclusive = exclusive;
    rmalab__win_state_unlock(w);
}

static int lock_call(rmalab_win *w, int target, bool exclusive, int assert_)
{
    RMALAB__CHECK_WIN(w);
    rmalab__sync_event ev;
    rmalab__observe_sync_begin(w, &ev, RMALAB_SYNC_LOCK);
    /* no assertion, the usual case, is always allowed: no call (20
     * instructions a lock, its message buffer guarded) */
    int rc = assert_ ? rmalab__type_check_assert("lock", assert_, RMALAB_MODE_NOCHECK) : RMALAB_OK;
    if (rc || (rc = passive_allowed(w, "lock")))
        return rc;
    if (target < 0 || target >= w->size)
        return rmalab__err_fail(RMALAB_ERR_RANK,
                                "lock: rank %d is not in the window's group "
                                "(ranks 0 to %d)",
                                target, w->size - 1);
    if (w->ep.access == RMALAB_ACCESS_LOCK_ALL)
        return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                                "lock: lock_all() already locks every rank; unlock_all first");
    if (w->lay.no_locks[target])
        return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                                "lock: rank %d gave the hint no_locks = true, promising that no "
                                "passive-target lock targets it; use fence or PSCW, or set "
                                "no_locks = false on rank %d",
                                target, target);
    if (w->ep.access == RMALAB_ACCESS_LOCK && w->ep.locked[target])
        return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                                "lock: rank %d is already locked by this process; a rank can be "
                                "locked once at a time, so unlock(%d) first",
                                target, target);
    rmalab__block b;
    rmalab__win_block_passive(w, &b, ev.k->name, &target, 1);
    lock_waiting(w, target, exclusive);
    int e = MPI_Win_lock(exclusive ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, target,
                         rmalab__type_mpi_mode(assert_), w->plain);
    if (e != MPI_SUCCESS) {
        lock_waiting(w, -1, false);
        rmalab__win_unblock(w, &b);
        return rmalab__err_mpi(e, "MPI_Win_lock");
    }
    /* granted: no longer waiting, and locked, in one hold of the state lock */
    rmalab__win_state_lock(w);
    w->ep.lock_waiting = -1;
    w->ep.lock_waiting_exclusive = false;
    rmalab__sync_epoch_drop_idle_fence(w);
    if (w->ep.access != RMALAB_ACCESS_LOCK)
        rmalab__sync_epoch_set_ops(w, 0);
    w->ep.access = RMALAB_ACCESS_LOCK;
    w->ep.locked[target] = exclusive ? 2 : 1;
    w->ep.nlocked++;
    rmalab__win_state_unlock(w);
    rmalab__win_unblock(w, &b);
    ev.peer = target;
    ev.flag = exclusive;
    return rmalab__observe_sync_end(w, &ev);
}

static int unlock_call(rmalab_win *w, int target)
{
    RMALAB__CHECK_WIN(w);
    rmalab__sync_event ev;
    rmalab__observe_sync_begin(w, &ev, RMALAB_SYNC_UNLOCK);
    if (target < 0 || target >= w->size)
        return rmalab__err_fail(RMALAB_ERR_RANK,
                                "unlock: rank %d is not in the window's group "
                                "(ranks 0 to %d)",
                                target, w->size - 1);
    if (w->ep.access != RMALAB_ACCESS_LOCK || !w->ep.locked[target])
        return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                                "unlock: rank %d is not locked by this process%s", target,
                                w->ep.access == RMALAB_ACCESS_LOCK_ALL ? " (use unlock_all() "
                                                                         "after lock_all())"
                                                                       : "; lock it first");
    rmalab__block b;
    rmalab__win_block_passive(w, &b, ev.k->name, &target, 1);
    int e = MPI_Win_unlock(target, w->plain);
    rmalab__win_unblock(w, &b);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "MPI_Win_unlock");
    rmalab__win_state_lock(w);
    w->ep.locked[target] = 0;
    bool last = --w->ep.nlocked == 0;
    if (last) /* the epoch closes in the same hold of the state lock */
        rmalab__sync_epoch_close_access(w);
    rmalab__win_state_unlock(w);
    rmalab__results_complete(w, last ? -1 : target);
    ev.peer = target;
    return rmalab__observe_sync_end(w, &ev);
}

static int lock_all_call(rmalab_win *w, int assert_)
{
    RMALAB__CHECK_WIN(w);
    rmalab__sync_event ev;
    rmalab__observe_sync_begin(w, &ev, RMALAB_SYNC_LOCK_ALL);
    int rc = rmalab__type_check_assert("lock_all", assert_, RMALAB_MODE_NOCHECK);
    if (rc || (rc = passive_allowed(w, "lock_all")))
        return rc;
    if (w->ep.access == RMALAB_ACCESS_LOCK || w->ep.access == RMALAB_ACCESS_LOCK_ALL)
        return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                                "lock_all: a passive-target epoch (%s) is already open; unlock "
                                "first",
                                rmalab_access_name(w->ep.access));
    for (int r = 0; r < w->size; r++)
        if (w->lay.no_locks[r])
            return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                                    "lock_all: rank %d gave the hint no_locks = true, promising "
                                    "that no passive-target lock targets it; use fence or PSCW",
                                    r);
    rmalab__block b;
    rmalab__win_block_passive(w, &b, ev.k->name, NULL, 0);
    lock_waiting(w, RMALAB_LOCK_WAIT_ALL, false);
    int e = MPI_Win_lock_all(rmalab__type_mpi_mode(assert_), w->plain);
    lock_waiting(w, -1, false);
    rmalab__win_unblock(w, &b);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "MPI_Win_lock_all");
    rmalab__win_state_lock(w);
    rmalab__sync_epoch_drop_idle_fence(w);
    w->ep.access = RMALAB_ACCESS_LOCK_ALL;
    rmalab__sync_epoch_set_ops(w, 0);
    rmalab__win_state_unlock(w);
    ev.flag = assert_;
    return rmalab__observe_sync_end(w, &ev);
}

static int unlock_all_call(rmalab_win *w)
{
    RMALAB__CHECK_WIN(w);
    rmalab__sync_event ev;
    rmalab__observe_sync_begin(w, &ev, RMALAB_SYNC_UNLOCK_ALL);
    if (w->ep.access != RMALAB_ACCESS_LOCK_ALL)
        return rmalab__err_fail(RMALAB_ERR_RMA_SYNC, "unlock_all: no lock_all() epoch is open%s",
                                w->ep.access == RMALAB_ACCESS_LOCK ? " (use unlock(target) after "
                                                                     "lock(target))"
                                                                   : "");
    rmalab__block b;
    rmalab__win_block_passive(w, &b, ev.k->name, NULL, 0);
    int e = MPI_Win_unlock_all(w->plain);
    rmalab__win_unblock(w, &b);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "MPI_Win_unlock_all");
    rmalab__sync_epoch_access_closed(w);
    return rmalab__observe_sync_end(w, &ev);
}

/* flush and flush_local (`id`): MPI_Win_flush or MPI_Win_flush_local. Both
 * complete the operations to target at this origin, so its results are
 * ready; what they order at the target is the kind's (rmalab/sync.h). */
static int flush_call(rmalab_win *w, rmalab_sync_id id, int target)
{
    RMALAB__CHECK_WIN(w);
    rmalab__sync_event ev;
    rmalab__observe_sync_begin(w, &ev, id);
    const char *call = ev.k->name;
    if (target < 0 || target >= w->size)
        return rmalab__err_fail(RMALAB_ERR_RANK,
                                "%s: rank %d is not in the window's group "
                                "(ranks 0 to %d)",
                                call, target, w->size - 1);
    if (!(w->ep.access == RMALAB_ACCESS_LOCK_ALL ||
          (w->ep.access == RMALAB_ACCESS_LOCK && w->ep.locked[target])))
        return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                                "%s: flushes complete operations of a passive-target epoch, and "
                                "rank %d is not locked; call lock(%d) or lock_all() first",
                                call, target, target);
    rmalab__block b;
    rmalab__win_block_passive(w, &b, call, &target, 1);
    int e = id == RMALAB_SYNC_FLUSH ? MPI_Win_flush(target, w->plain)
                                    : MPI_Win_flush_local(target, w->plain);
    rmalab__win_unblock(w, &b);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e,
                               id == RMALAB_SYNC_FLUSH ? "MPI_Win_flush" : "MPI_Win_flush_local");
    rmalab__results_complete(w, target);
    ev.peer = target;
    return rmalab__observe_sync_end(w, &ev);
}

/* flush_all and flush_local_all (`id`). */
static int flush_all_call(rmalab_win *w, rmalab_sync_id id)
{
    RMALAB__CHECK_WIN(w);
    rmalab__sync_event ev;
    rmalab__observe_sync_begin(w, &ev, id);
    const char *call = ev.k->name;
    if (w->ep.access != RMALAB_ACCESS_LOCK_ALL && w->ep.access != RMALAB_ACCESS_LOCK)
        return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                                "%s: flushes complete operations of a passive-target "
                                "epoch, and none is open; call lock(target) or "
                                "lock_all() first",
                                call);
    rmalab__block b;
    rmalab__win_block_passive(w, &b, call, NULL, 0);
    int e = id == RMALAB_SYNC_FLUSH_ALL ? MPI_Win_flush_all(w->plain)
                                        : MPI_Win_flush_local_all(w->plain);
    rmalab__win_unblock(w, &b);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, id == RMALAB_SYNC_FLUSH_ALL ? "MPI_Win_flush_all"
                                                              : "MPI_Win_flush_local_all");
    rmalab__results_complete(w, -1);
    return rmalab__observe_sync_end(w, &ev);
}

/* MPI_Win_sync: this rank's public and private copies of its window
 * agree; for the race checker, the accesses that reached it are taken.
 * MPICH 4.0.2 refuses MPI_Win_sync outside a passive-target epoch, where
 * its unified memory model makes it a memory barrier: that, then. */
static int sync_call(rmalab_win *w)
{
    RMALAB__CHECK_WIN(w);
    rmalab__sync_event ev;
    rmalab__observe_sync_begin(w, &ev, RMALAB_SYNC_SYNC);
    int e = MPI_SUCCESS;
    if (w->ep.access == RMALAB_ACCESS_LOCK || w->ep.access == RMALAB_ACCESS_LOCK_ALL)
        e = MPI_Win_sync(w->plain);
    else
        atomic_thread_fence(memory_order_seq_cst);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "MPI_Win_sync");
    return rmalab__observe_sync_end(w, &ev);
}

/* ------------------------------------------------------------------------ */
/* The public calls: each records its failure (rmalab/block.h)             */

int rmalab_win_lock(rmalab_win *w, int target, bool exclusive, int assert_)
{
    rmalab__block_call_begin();
    return rmalab__sync_ended(w, RMALAB_SYNC_LOCK, lock_call(w, target, exclusive, assert_));
}

int rmalab_win_unlock(rmalab_win *w, int target)
{
    rmalab__block_call_begin();
    return rmalab__sync_ended(w, RMALAB_SYNC_UNLOCK, unlock_call(w, target));
}

int rmalab_win_lock_all(rmalab_win *w, int assert_)
{
    rmalab__block_call_begin();
    return rmalab__sync_ended(w, RMALAB_SYNC_LOCK_ALL, lock_all_call(w, assert_));
}

int rmalab_win_unlock_all(rmalab_win *w)
{
    rmalab__block_call_begin();
    return rmalab__sync_ended(w, RMALAB_SYNC_UNLOCK_ALL, unlock_all_call(w));
}

int rmalab_win_flush(rmalab_win *w, int target)
{
    rmalab__block_call_begin();
    return rmalab__sync_ended(w, RMALAB_SYNC_FLUSH, flush_call(w, RMALAB_SYNC_FLUSH, target));
}

int rmalab_win_flush_all(rmalab_win *w)
{
    rmalab__block_call_begin();
    return rmalab__sync_ended(w, RMALAB_SYNC_FLUSH_ALL, flush_all_call(w, RMALAB_SYNC_FLUSH_ALL));
}

int rmalab_win_flush_local(rmalab_win *w, int target)
{
    rmalab__block_call_begin();
    return rmalab__sync_ended(w, RMALAB_SYNC_FLUSH_LOCAL, flush_call(w, RMALAB_SYNC_FLUSH_LOCAL, target));
}

int rmalab_win_flush_local_all(rmalab_win *w)
{
    rmalab__block_call_begin();
    return rmalab__sync_ended(w, RMALAB_SYNC_FLUSH_LOCAL_ALL,
                 flush_all_call(w, RMALAB_SYNC_FLUSH_LOCAL_ALL));
}

int rmalab_win_sync(rmalab_win *w)
{
    rmalab__block_call_begin();
    return rmalab__sync_ended(w, RMALAB_SYNC_SYNC, sync_call(w));
}
