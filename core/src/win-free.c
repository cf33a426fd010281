/* Windows: destruction, collective (rmalab_win_free), or local for a
 * process on its way out (rmalab_win_abandon); and the release that a
 * creation which failed shares with them (win.c). */
#include "trace-private.h"
#include "alloc.h"
#include "error-private.h"
#include "sync-kinds.h"
#include "block.h"
#include "attr.h"
#include "layout.h"
#include "results.h"
#include "races-sync.h"
#include "observe.h"
#include "state.h"
#include "sync-private.h"
#include "request.h"
#include "registry.h"
#include "win-free.h"

#include <stdio.h>
#include <string.h>

/* Collective: MPI_Win_free of the window and its companion, if any. */
int rmalab__win_free_mpi(rmalab_win *w)
{
    int e = MPI_SUCCESS;
    if (w->plain != MPI_WIN_NULL && w->plain != w->win)
        e = MPI_Win_free(&w->plain);
    w->plain = MPI_WIN_NULL;
    if (w->win != MPI_WIN_NULL) {
        int e2 = MPI_Win_free(&w->win);
        e = e != MPI_SUCCESS ? e : e2;
    }
    return e;
}

/* Everything but the MPI windows (freed before, collectively). What the
 * window recorded stays with the recorder. */
void rmalab__win_free_struct(rmalab_win *w)
{
    rmalab__trace_retire(w);
    rmalab__races_sync_free(w);
    rmalab__layout_free(w);
    rmalab__sync_epoch_free(w);
    rmalab__results_free(w);
    if (w->comm != MPI_COMM_NULL)
        MPI_Comm_free(&w->comm);
    rmalab__mem_free(w->owned_mem);
    rmalab_info_destroy(&w->requested);
    rmalab_info_destroy(&w->at_create);
    if (w->wgroup != MPI_GROUP_NULL)
        MPI_Group_free(&w->wgroup);
    if (w->eng)
        w->eng->destroy(w);
    rmalab__mem_free(w);
}

/* Collective: the MPI side of freeing (the rma engine's lock_all first),
 * then everything else; returns MPI's code. Ends the caller's blocked
 * record `b` of the free before the window's memory goes. */
static int release_window(rmalab_win *w, rmalab__block *b)
{
    rmalab__registry_remove(w);
    if (w->eng->quiesce)
        w->eng->quiesce(w);
    rmalab__request_close_win(w);
    int e = rmalab__win_free_mpi(w);
    rmalab__win_unblock(w, b);
    rmalab__win_free_struct(w);
    return e;
}

/* Can the window be freed in its current state? A fence with no RMA call
 * after it opens no epoch. The fix names the call that ends the open epoch
 * (rmalab/sync.h): its access epoch's, else its exposure epoch's. */
static int check_free(rmalab_win *w)
{
    int open_access = w->ep.access == RMALAB_ACCESS_START || w->ep.access == RMALAB_ACCESS_LOCK ||
                      w->ep.access == RMALAB_ACCESS_LOCK_ALL ||
                      (w->ep.access == RMALAB_ACCESS_FENCE && w->ep.ops_in_epoch > 0);
    if (!open_access && w->ep.exposure != RMALAB_EXPOSURE_POST)
        return RMALAB_OK;
    char state[256];
    rmalab__state_describe(w, state, sizeof state, false);
    bool passive_or_start = open_access && w->ep.access != RMALAB_ACCESS_FENCE;
    int by =
        rmalab__kind_opener(passive_or_start ? w->ep.access : RMALAB_ACCESS_NONE, w->ep.exposure);
    const rmalab_sync_kind *end = &rmalab__kind_rows[rmalab__kind_rows[by].opens->ended_by];
    return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                            "free: a window may only be freed outside of any epoch, and this "
                            "one has %s; close it first (%s(%s))",
                            state, end->name, end->scope == RMALAB_SYNC_PEER ? "target" : "");
}

/* Is this rank inside the window's own free (its delete callbacks run
 * there)? Then a free from a callback is refused here alone: the other
 * ranks are past the agreement, in the same free. */
static bool inside_own_free(rmalab_win *w)
{
    const char *in = atomic_load_explicit(&w->blocked_in, memory_order_acquire);
    return rmalab__attr_busy(w) && in && strcmp(in, "free") == 0;
}

/* This rank's own checks of a free. */
static int check_free_call(rmalab_win *w)
{
    if (rmalab__attr_busy(w))
        return rmalab__err_fail(RMALAB_ERR_WIN,
                                "free: a window cannot be freed from one of its own attribute "
                                "delete callbacks; free it after the call that ran the callback");
    return check_free(w);
}

/* `status`: a failure the caller found itself, with which this rank takes
 * part. The ranks agree before anything is freed: a refusal on any rank
 * leaves the window usable on every rank. */
static int free_call(rmalab_win **win, int status)
{
    if (!win || !*win)
        return status;
    rmalab_win *w = *win;
    if (inside_own_free(w))
        return check_free_call(w);
    int rc = status ? status : check_free_call(w);
    rmalab__err_packet agree;
    rmalab__err_agree_pack(&agree, rc, "free", 0, 0);
    rmalab__block b;
    int entered = rmalab__win_block_agree(w, &b, "free", &agree);
    if (entered)
        return rc ? rc : entered;
    if ((rc = rmalab__block_agree(&b, NULL))) {
        rmalab__win_unblock(w, &b);
        return rc;
    }
    char saved[2048] = "";
    /* The race checker's last check is collective: before the window goes.
     * Its report, or else a delete callback's error, is returned once the
     * window is freed. */
    int late = rmalab__observe_win_close(w);
    if (late)
        snprintf(saved, sizeof saved, "%s", rmalab_errmsg());
    const char *outer = rmalab__err_callbacks_begin("free");
    int cb_rc = rmalab__attr_delete_all(w);
    rmalab__err_callbacks_end(outer);
    if (cb_rc && !late) {
        late = cb_rc;
        snprintf(saved, sizeof saved, "%s", rmalab_errmsg());
    }
    *win = NULL;
    int e = release_window(w, &b);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "MPI_Win_free");
    if (late)
        return rmalab__err_fail(late, "%s", saved);
    return RMALAB_OK;
}

int rmalab_win_free(rmalab_win **win)
{
    uint64_t id = win ? rmalab__win_id(*win) : 0;
    rmalab__block_call_begin();
    return rmalab__win_call_end(id, "free", free_call(win, RMALAB_OK));
}

int rmalab_win_free_status(rmalab_win **win, int status)
{
    uint64_t id = win ? rmalab__win_id(*win) : 0;
    rmalab__block_call_begin();
    return rmalab__win_call_end(id, "free", free_call(win, status));
}

int rmalab_win_abandon(rmalab_win **win, bool fence)
{
    if (!win || !*win)
        return RMALAB_OK;
    rmalab_win *w = *win;
    if (w->ep.access == RMALAB_ACCESS_START || w->ep.exposure == RMALAB_EXPOSURE_POST)
        return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                                "abandon: a PSCW epoch is open, and closing it could block");
    /* Not collective for rmalab_blocked: the group may be gone already. */
    rmalab__block b;
    (void)rmalab__win_block(w, &b, "free", false, NULL, 0);
    if (w->ep.access == RMALAB_ACCESS_LOCK_ALL)
        MPI_Win_unlock_all(w->plain);
    for (int r = 0; w->ep.access == RMALAB_ACCESS_LOCK && r < w->size; r++)
        if (w->ep.locked[r])
            MPI_Win_unlock(r, w->plain);
    if (fence)
        MPI_Win_fence(MPI_MODE_NOSUCCEED, w->plain);
    /* Attribute values belong to a caller that is gone: forget them. */
    rmalab__attr_forget(w);
    *win = NULL;
    int e = release_window(w, &b);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__err_mpi(e, "MPI_Win_free");
}
