/* The epoch state machine, fence and the PSCW calls (the passive-target
 * calls are sync-passive.c's).
 *
 * Each window tracks its access epoch (none, fence, start(group),
 * lock(targets), lock_all) and its exposure epoch (none, fence, post(group)).
 * Every call is checked against that state before MPI sees it; misuse is
 * ERR_RMA_SYNC with a message naming the broken rule and the fix, and the
 * window stays usable. A fence that no RMA call follows opens no epoch, so
 * PSCW, locks and free may follow it directly.
 *
 * State changes happen under the window's lock (a spin lock), and the MPI call itself
 * runs outside it with `blocked_in` set, so another thread can always take a
 * snapshot, also while this one is blocked in MPI. */
#include "observe.h"
#include "alloc.h"
#include "error-private.h"
#include "sync-kinds.h"
#include "block.h"
#include "types.h"
#include "layout.h"
#include "results.h"
#include "state.h"
#include "sync-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* The epoch state's memory                                                 */

int rmalab__sync_epoch_alloc(rmalab_win *w)
{
    size_t P = (size_t)w->size;
    struct rmalab__epoch *e = &w->ep;
    e->group = rmalab__mem_calloc(P + 1, sizeof *e->group);
    e->xgroup = rmalab__mem_calloc(P + 1, sizeof *e->xgroup);
    e->in_group = rmalab__mem_calloc(P, 1);
    e->locked = rmalab__mem_calloc(P, 1);
    e->scratch = rmalab__mem_calloc(P, 1);
    e->lock_waiting = -1;
    if (!e->group || !e->xgroup || !e->in_group || !e->locked || !e->scratch)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory creating a window");
    return RMALAB_OK;
}

void rmalab__sync_epoch_free(rmalab_win *w)
{
    struct rmalab__epoch *e = &w->ep;
    rmalab__mem_free(e->group);
    rmalab__mem_free(e->xgroup);
    rmalab__mem_free(e->in_group);
    rmalab__mem_free(e->locked);
    rmalab__mem_free(e->scratch);
}

/* ------------------------------------------------------------------------ */
/* Checks                                                                   */

/* Only the owning thread writes ops_in_epoch, and it counts every RMA call,
 * so it is stored atomically (relaxed) rather than under the lock; the
 * owner's own plain reads race with nothing. */
void rmalab__sync_epoch_set_ops(rmalab_win *w, uint64_t v)
{
    __atomic_store_n(&w->ep.ops_in_epoch, v, __ATOMIC_RELAXED);
}

/* A fence with no RMA call after it opened no epoch: drop it. */
bool rmalab__sync_epoch_fence_idle(const rmalab_win *w)
{
    return w->ep.access == RMALAB_ACCESS_FENCE && w->ep.ops_in_epoch == 0;
}

void rmalab__sync_epoch_drop_idle_fence(rmalab_win *w)
{
    if (rmalab__sync_epoch_fence_idle(w)) {
        w->ep.access = RMALAB_ACCESS_NONE;
        if (w->ep.exposure == RMALAB_EXPOSURE_FENCE)
            w->ep.exposure = RMALAB_EXPOSURE_NONE;
    }
}

/* Groups: ranks of the window, no duplicates (checked before any MPI call:
 * MPICH 4.0.2 segfaults on a group holding a rank outside the window). */
static int check_group(rmalab_win *w, const char *call, const int *ranks, int n)
{
    if (n < 0 || (n > 0 && !ranks))
        return rmalab__err_fail(RMALAB_ERR_GROUP, "%s: invalid group", call);
    if (n == 1 && ranks[0] >= 0 && ranks[0] < w->size)
        return RMALAB_OK; /* one rank in the window: no duplicate to look for */
    int rc = RMALAB_OK, i;
    for (i = 0; i < n && !rc; i++) {
        if (ranks[i] < 0 || ranks[i] >= w->size)
            rc = rmalab__err_fail(RMALAB_ERR_RANK,
                                  "%s: rank %d is not in the window's group (ranks 0 to %d)", call,
                                  ranks[i], w->size - 1);
        else if (w->ep.scratch[ranks[i]]++)
            rc = rmalab__err_fail(RMALAB_ERR_GROUP,
                                  "%s: rank %d appears twice in the group; list each rank once",
                                  call, ranks[i]);
    }
    for (int j = 0; j < i; j++)
        if (ranks[j] >= 0 && ranks[j] < w->size)
            w->ep.scratch[ranks[j]] = 0;
    return rc;
}

static void group_text(char *buf, size_t size, const int *ranks, int n)
{
    rmalab__state_ranks_text(buf, size, ranks, n);
}

void rmalab__sync_epoch_facts(const rmalab_win *w, rmalab__op_event *ev)
{
    if (!w->races)
        return;
    bool local = ev->kind == RMALAB_TRACE_READ || ev->kind == RMALAB_TRACE_WRITE;
    ev->lock = w->ep.access == RMALAB_ACCESS_LOCK_ALL ? 1
               : w->ep.access == RMALAB_ACCESS_LOCK  ? w->ep.locked[ev->target]
                                                     : 0;
    ev->during = (uint8_t)(local ? rmalab__kind_opener(RMALAB_ACCESS_NONE, w->ep.exposure)
                                 : rmalab__kind_opener(w->ep.access, RMALAB_EXPOSURE_NONE));
}

int rmalab__sync_check_op(rmalab_win *w, const char *what, rmalab__op_event *ev)
{
    RMALAB__CHECK_WIN(w);
    int target = ev->target, count = ev->count, rc;
    MPI_Aint disp = ev->disp;
    rmalab_type type = ev->type; /* a footprint: its type and count checked (rma.c) */
    if (target < 0 || target >= w->size)
        return rmalab__err_fail(RMALAB_ERR_RANK,
                                "%s to rank %d: the window's group has ranks 0 to %d", what, target,
                                w->size - 1);
    char g[512];
    switch (w->ep.access) {
    case RMALAB_ACCESS_NONE:
        return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                                "%s to rank %d: RMA calls need an access epoch, and none is open; "
                                "open one with fence(), start({%d}), lock(%d) or "
                                "lock_all()",
                                what, target, target, target);
    case RMALAB_ACCESS_START:
        if (!w->ep.in_group[target]) {
            group_text(g, sizeof g, w->ep.group, w->ep.ngroup);
            return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                                    "%s to rank %d: RMA calls in an access epoch may only target "
                                    "processes in its group; start() was given %s",
                                    what, target, g);
        }
        break;
    case RMALAB_ACCESS_LOCK:
        if (!w->ep.locked[target])
            return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                                    "%s to rank %d: in a passive-target epoch RMA calls may only "
                                    "target locked ranks; call lock(%d) first",
                                    what, target, target);
        break;
    default:
        break;
    }
    if ((rc = rmalab__layout_check_range(w, what, target, disp, type, count)))
        return rc;
    rmalab__sync_epoch_set_ops(w, w->ep.ops_in_epoch + 1);
    rmalab__sync_epoch_facts(w, ev);
    return RMALAB_OK;
}

int rmalab__sync_check_passive(rmalab_win *w, const char *what, int target)
{
    RMALAB__CHECK_WIN(w);
    rmalab_access a = w->ep.access;
    if (a == RMALAB_ACCESS_LOCK || a == RMALAB_ACCESS_LOCK_ALL)
        return RMALAB_OK;
    char now[64] = "no epoch is open";
    if (a != RMALAB_ACCESS_NONE)
        snprintf(now, sizeof now, "this is a%s %s epoch", a == RMALAB_ACCESS_FENCE ? "" : "n",
                 a == RMALAB_ACCESS_FENCE ? "fence" : "active-target start()");
    /* MPICH carries the operation out in a fence or start() epoch (not
     * outside any epoch, where it fails too): so does a window that
     * reports such rules and goes on (rmalab_rules). Its request completes
     * at its wait or with the epoch, whichever comes first. */
    bool go_on = w->rules == RMALAB_RULES_REPORT && a != RMALAB_ACCESS_NONE;
    return (go_on ? rmalab__err_went_on : rmalab__err_fail)(
        RMALAB_ERR_RMA_SYNC,
        "%s to rank %d: request-based RMA (rput, rget, raccumulate, "
        "rget_accumulate) is allowed only inside a passive-target epoch, and %s; "
        "call lock(%d) or lock_all() first%s%s",
        what, target, now, target,
        a == RMALAB_ACCESS_NONE ? "" : ", or use put, get and accumulate here",
        go_on ? " (MPICH carries it out all the same, and so did this run)" : "");
}

/* ------------------------------------------------------------------------ */
/* General active target: post, start, complete, wait, test                 */

static int post_call(rmalab_win *w, const int *ranks, int n, int assert_)
{
    RMALAB__CHECK_WIN(w);
    rmalab__sync_event ev;
    rmalab__observe_sync_begin(w, &ev, RMALAB_SYNC_POST);
    char g[512];
    int rc = rmalab__type_check_assert(
        "post", assert_, RMALAB_MODE_NOCHECK | RMALAB_MODE_NOSTORE | RMALAB_MODE_NOPUT);
    if (rc)
        return rc;
    if (w->ep.exposure == RMALAB_EXPOSURE_POST) {
        group_text(g, sizeof g, w->ep.xgroup, w->ep.nxgroup);
        return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                                "post: an exposure epoch (posted to %s) is already open; end it "
                                "with wait() or test() before posting again",
                                g);
    }
    if (w->ep.access == RMALAB_ACCESS_LOCK || w->ep.access == RMALAB_ACCESS_LOCK_ALL)
        return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                                "post: a passive-target epoch is open on this window; unlock "
                                "before mixing in post/start/complete/wait");
    if (w->ep.access == RMALAB_ACCESS_FENCE && !rmalab__sync_epoch_fence_idle(w))
        return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                                "post: a fence epoch with RMA calls is open; end it with "
                                "fence(\"nosucceed\") before post");
    if ((rc = check_group(w, "post", ranks, n)))
        return rc;
    /* "A call is a noop, and can be skipped, if the group argument is
     * empty": the state still opens the (empty) epoch, so that wait, test
     * and complete pair with it, and they skip the engine in turn. */
    ev.group = ranks;
    ev.n = n;
    ev.flag = assert_;
    if (n && !(rc = rmalab__observe_sync_ahead(w, &ev)))
        rc = w->eng->post(w, ranks, n, rmalab__type_mpi_mode(assert_)); /* returns at once */
    if (rc)
        return rc;
    rmalab__win_state_lock(w);
    rmalab__sync_epoch_drop_idle_fence(w);
    for (int i = 0; i < n; i++) /* most groups are short: no memcpy call */
        w->ep.xgroup[i] = ranks[i];
    w->ep.nxgroup = n;
    w->ep.exposure = RMALAB_EXPOSURE_POST;
    w->ep.post_nocheck = (assert_ & RMALAB_MODE_NOCHECK) != 0;
    w->ep.closed_by_test = false;
    rmalab__win_state_unlock(w);
    return rmalab__observe_sync_end(w, &ev);
}

/* start({me}) waits for a post that only this rank can make, later: it can
 * never match unless this rank has already posted to itself. */
static int check_self_start(const rmalab_win *w, const int *ranks, int n)
{
    bool self = false, exposed = false;
    for (int i = 0; i < n; i++)
        self |= ranks[i] == w->rank;
    for (int i = 0; self && w->ep.exposure == RMALAB_EXPOSURE_POST && i < w->ep.nxgroup; i++)
        exposed |= w->ep.xgroup[i] == w->rank;
    if (!self || exposed)
        return RMALAB_OK;
    return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                            "start: the group holds this rank (%d), and start waits for the post "
                            "of every target, but this rank has not posted to itself, and cannot "
                            "while it waits here; call post() with a group holding %d first",
                            w->rank, w->rank);
}

static int start_call(rmalab_win *w, const int *ranks, int n, int assert_)
{
    RMALAB__CHECK_WIN(w);
    rmalab__sync_event ev;
    rmalab__observe_sync_begin(w, &ev, RMALAB_SYNC_START);
    char g[512];
    int rc = rmalab__type_check_assert("start", assert_, RMALAB_MODE_NOCHECK);
    if (rc)
        return rc;
    if (w->ep.access == RMALAB_ACCESS_START) {
        group_text(g, sizeof g, w->ep.group, w->ep.ngroup);
        return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                                "start: an access epoch (started to %s) is already open; end it "
                                "with complete() before starting another",
                                g);
    }
    if (w->ep.access == RMALAB_ACCESS_LOCK || w->ep.access == RMALAB_ACCESS_LOCK_ALL)
        return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                                "start: a passive-target epoch (%s) is open; only one access "
                                "epoch may be open at a time, so unlock first",
                                rmalab_access_name(w->ep.access));
    if (w->ep.access == RMALAB_ACCESS_FENCE && !rmalab__sync_epoch_fence_idle(w))
        return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                                "start: a fence epoch with %llu RMA calls is open; end it with "
                                "fence(\"nosucceed\") before start",
                                (unsigned long long)w->ep.ops_in_epoch);
    if ((rc = check_group(w, "start", ranks, n)) || (rc = check_self_start(w, ranks, n)))
        return rc;
    if (n) { /* empty: a no-op, as for post */
        rmalab__block b; /* MPICH's start waits for the posts; an engine that */
        bool record = !w->eng->own_waits; /* records its own waits, never */
        if (record)
            (void)rmalab__win_block(w, &b, ev.k->name, false, ranks, n);
        rc = w->eng->start(w, ranks, n, rmalab__type_mpi_mode(assert_));
        if (record)
            rmalab__win_unblock(w, &b);
    }
    if (rc)
        return rc;
    rmalab__win_state_lock(w);
    rmalab__sync_epoch_drop_idle_fence(w);
    for (int i = 0; i < n; i++) { /* in_group is all 0 outside a start epoch */
        w->ep.group[i] = ranks[i];
        w->ep.in_group[ranks[i]] = 1;
    }
    w->ep.ngroup = n;
    w->ep.access = RMALAB_ACCESS_START;
    w->ep.start_nocheck = (assert_ & RMALAB_MODE_NOCHECK) != 0;
    rmalab__sync_epoch_set_ops(w, 0);
    rmalab__win_state_unlock(w);
    ev.group = ranks;
    ev.n = n;
    ev.flag = assert_;
    return rmalab__observe_sync_end(w, &ev);
}

/* Close the access epoch in the state (under the lock) after MPI closed it. */
void rmalab__sync_epoch_close_access(rmalab_win *w)
{
    w->ep.access = RMALAB_ACCESS_NONE;
    rmalab__sync_epoch_set_ops(w, 0);
    w->ep.epochs++;
    for (int i = 0; i < w->ep.ngroup; i++) /* 0 outside a start epoch, so O(group) */
        w->ep.in_group[w->ep.group[i]] = 0;
    w->ep.ngroup = 0;
}

void rmalab__sync_epoch_access_closed(rmalab_win *w)
{
    rmalab__win_state_lock(w);
    rmalab__sync_epoch_close_access(w);
    rmalab__win_state_unlock(w);
    rmalab__results_complete(w, -1);
}

static int complete_call(rmalab_win *w)
{
    RMALAB__CHECK_WIN(w);
    rmalab__sync_event ev;
    rmalab__observe_sync_begin(w, &ev, RMALAB_SYNC_COMPLETE);
    if (w->ep.access != RMALAB_ACCESS_START)
        return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                                "complete: it ends an access epoch opened by start(group), "
                                "and none is open%s",
                                w->ep.access == RMALAB_ACCESS_NONE ? ""
                                : w->ep.access == RMALAB_ACCESS_FENCE
                                    ? " (this is a fence epoch: end "
                                      "it with fence())"
                                    : " (this is a passive-target "
                                      "epoch: end it with unlock)");
    int rc = RMALAB_OK;
    ev.group = w->ep.group;
    ev.n = w->ep.ngroup;
    if (ev.n) { /* an empty start was a no-op */
        rmalab__block b; /* the race checker may wait for the posts; an */
        bool record = w->races || !w->eng->own_waits; /* engine that records */
        if (record)                                   /* its own waits, alone */
            (void)rmalab__win_block(w, &b, ev.k->name, false, ev.group, ev.n);
        rc = rmalab__observe_sync_ahead(w, &ev);
        if (!rc)
            rc = w->eng->complete(w, w->ep.group, w->ep.ngroup);
        if (record)
            rmalab__win_unblock(w, &b);
    }
    if (rc)
        return rc;
    rmalab__sync_epoch_access_closed(w); /* leaves the group's ranks in place for ev */
    return rmalab__observe_sync_end(w, &ev);
}

static int no_exposure(rmalab_win *w, const char *call)
{
    if (w->ep.closed_by_test)
        return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                                "%s: test() already returned true, which ended the exposure "
                                "epoch; post again to open a new one",
                                call);
    return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                            "%s: it ends an exposure epoch opened by post(group), and none "
                            "is open%s",
                            call,
                            w->ep.exposure == RMALAB_EXPOSURE_FENCE
                                ? " (this is a fence epoch: end "
                                  "it with fence())"
                                : "");
}

static void exposure_closed(rmalab_win *w, bool by_test)
{
    rmalab__win_state_lock(w);
    w->ep.exposure = RMALAB_EXPOSURE_NONE;
    w->ep.nxgroup = 0;
    w->ep.closed_by_test = by_test;
    rmalab__win_state_unlock(w);
}

static int wait_call(rmalab_win *w)
{
    RMALAB__CHECK_WIN(w);
    rmalab__sync_event ev;
    rmalab__observe_sync_begin(w, &ev, RMALAB_SYNC_WAIT);
    if (w->ep.exposure != RMALAB_EXPOSURE_POST)
        return no_exposure(w, "wait");
    /* An empty post was a no-op. Every engine records its own wait. */
    int rc = w->ep.nxgroup ? w->eng->wait(w, w->ep.xgroup, w->ep.nxgroup) : RMALAB_OK;
    if (rc == RMALAB_ERR_INTERRUPTED) { /* by rmalab_interrupt: nothing changed */
        char g[512];
        group_text(g, sizeof g, w->ep.xgroup, w->ep.nxgroup);
        return rmalab__err_fail(rc,
                                "wait: interrupted while it waited for complete() from %s; the "
                                "exposure epoch stays open: call wait() again once they have "
                                "completed",
                                g);
    }
    if (rc)
        return rc;
    ev.group = w->ep.xgroup;
    ev.n = w->ep.nxgroup;
    rc = rmalab__observe_sync_end(w, &ev);
    exposure_closed(w, false);
    return rc;
}

int rmalab_win_test(rmalab_win *w, bool *done)
{
    RMALAB__CHECK_WIN(w);
    rmalab__sync_event ev;
    rmalab__observe_sync_begin(w, &ev, RMALAB_SYNC_TEST);
    if (w->ep.exposure != RMALAB_EXPOSURE_POST)
        return no_exposure(w, "test");
    int flag = 1; /* an empty post was a no-op: nothing to wait for */
    int rc = w->ep.nxgroup ? w->eng->test(w, w->ep.xgroup, w->ep.nxgroup, &flag) : RMALAB_OK;
    if (rc)
        return rc;
    ev.group = w->ep.xgroup;
    ev.n = w->ep.nxgroup;
    ev.flag = flag != 0;
    ev.unfinished = !flag;
    rc = rmalab__observe_sync_end(w, &ev);
    if (flag)
        exposure_closed(w, true);
    *done = flag != 0;
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Fence                                                                    */

/* This rank's own checks of a fence: its assertions and its epoch. */
static int fence_check(rmalab_win *w, int assert_)
{
    int rc = rmalab__type_check_assert("fence", assert_,
                                       RMALAB_MODE_NOSTORE | RMALAB_MODE_NOPUT |
                                           RMALAB_MODE_NOPRECEDE | RMALAB_MODE_NOSUCCEED);
    if (rc)
        return rc;
    /* Misuse inside a PSCW epoch first: the same message for both engines. */
    if (w->ep.access == RMALAB_ACCESS_START || w->ep.exposure == RMALAB_EXPOSURE_POST)
        return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                                "fence: a PSCW epoch is open (%s); fences may not be called inside "
                                "it, so end it with %s first",
                                w->ep.access == RMALAB_ACCESS_START ? "access, from start()"
                                                                    : "exposure, from post()",
                                w->ep.access == RMALAB_ACCESS_START ? "complete()" : "wait()");
    if (w->ep.access == RMALAB_ACCESS_LOCK || w->ep.access == RMALAB_ACCESS_LOCK_ALL)
        return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                                "fence: a passive-target epoch is open; unlock before fencing");
    if ((assert_ & RMALAB_MODE_NOPRECEDE) && w->ep.access == RMALAB_ACCESS_FENCE &&
        w->ep.ops_in_epoch > 0)
        return rmalab__err_fail(RMALAB_ERR_ARG,
                                "fence: \"noprecede\" promises that no RMA calls precede this "
                                "fence, but %llu were made since the last one; drop the assertion",
                                (unsigned long long)w->ep.ops_in_epoch);
    return RMALAB_OK;
}

/* The assertions that MPI requires every rank of the group to give when
 * any gives them. */
#define FENCE_ALIKE (RMALAB_MODE_NOPRECEDE | RMALAB_MODE_NOSUCCEED)

/* Collective, before MPI_Win_fence: the agreement packed for b (one small
 * MPI_Allreduce, or in SLEEP mode the nonblocking collective that waited
 * for the group) in which the ranks agree that none failed its checks and
 * that they gave the same "noprecede" and "nosucceed". */
static int fence_agree(rmalab__block *b, int assert_)
{
    int mixed = 0, rc;
    if ((rc = rmalab__block_agree(b, &mixed)) || !mixed)
        return rc;
    bool both = (mixed & FENCE_ALIKE) == FENCE_ALIKE;
    const char *name = mixed & RMALAB_MODE_NOPRECEDE ? "noprecede" : "nosucceed";
    return rmalab__err_fail(
        RMALAB_ERR_ARG,
        "fence: some ranks of the window gave \"%s\"%s and others did not (this rank %s); MPI "
        "requires that if any rank of the window's group gives %s, every rank gives %s, so no "
        "rank fenced: give the same to every rank's fence",
        name, both ? " and \"nosucceed\"" : "", assert_ & mixed ? "did" : "did not",
        both ? "them" : "it", both ? "them" : "it");
}

/* `status`: a failure the caller found in its own arguments, with which
 * this rank takes part in the agreement. */
static int fence_call(rmalab_win *w, int assert_, int status)
{
    if (!w && status)
        return status; /* no window to take part in */
    RMALAB__CHECK_WIN(w);
    rmalab__sync_event ev;
    rmalab__observe_sync_begin(w, &ev, RMALAB_SYNC_FENCE);
    int rc = status ? status : fence_check(w, assert_);
    rmalab__err_packet agree;
    rmalab__err_agree_pack(&agree, rc, "fence", assert_, FENCE_ALIKE);
    rmalab__block b;
    int entered = rmalab__win_block_agree(w, &b, ev.k->name, &agree);
    if (entered)
        return rc ? rc : entered;
    int e = MPI_SUCCESS;
    if (!(rc = fence_agree(&b, assert_)))
        e = MPI_Win_fence(rmalab__type_mpi_mode(assert_), w->plain);
    rmalab__win_unblock(w, &b);
    if (rc)
        return rc;
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "MPI_Win_fence");
    bool had_ops = w->ep.access == RMALAB_ACCESS_FENCE && w->ep.ops_in_epoch > 0;
    rmalab__win_state_lock(w);
    if (had_ops)
        w->ep.epochs++;
    rmalab__sync_epoch_set_ops(w, 0);
    bool open = !(assert_ & RMALAB_MODE_NOSUCCEED);
    w->ep.access = open ? RMALAB_ACCESS_FENCE : RMALAB_ACCESS_NONE;
    w->ep.exposure = open ? RMALAB_EXPOSURE_FENCE : RMALAB_EXPOSURE_NONE;
    rmalab__win_state_unlock(w);
    rmalab__results_complete(w, -1);
    ev.flag = assert_;
    return rmalab__observe_sync_end(w, &ev);
}

/* ------------------------------------------------------------------------ */
/* The public calls: each records its failure (rmalab/block.h)             */

/* The end of a public call of kind `id`. */
int rmalab__sync_ended(rmalab_win *w, rmalab_sync_id id, int rc)
{
    return rmalab__win_call_end(rmalab__win_id(w), rmalab__kind_rows[id].name, rc);
}

int rmalab_win_post(rmalab_win *w, const int *ranks, int n, int assert_)
{
    rmalab__block_call_begin();
    return rmalab__sync_ended(w, RMALAB_SYNC_POST, post_call(w, ranks, n, assert_));
}

int rmalab_win_start(rmalab_win *w, const int *ranks, int n, int assert_)
{
    rmalab__block_call_begin();
    return rmalab__sync_ended(w, RMALAB_SYNC_START, start_call(w, ranks, n, assert_));
}

int rmalab_win_complete(rmalab_win *w)
{
    rmalab__block_call_begin();
    return rmalab__sync_ended(w, RMALAB_SYNC_COMPLETE, complete_call(w));
}

int rmalab_win_wait(rmalab_win *w)
{
    rmalab__block_call_begin();
    return rmalab__sync_ended(w, RMALAB_SYNC_WAIT, wait_call(w));
}

int rmalab_win_fence(rmalab_win *w, int assert_)
{
    rmalab__block_call_begin();
    return rmalab__sync_ended(w, RMALAB_SYNC_FENCE, fence_call(w, assert_, RMALAB_OK));
}

int rmalab_win_fence_status(rmalab_win *w, int assert_, int status)
{
    rmalab__block_call_begin();
    return rmalab__sync_ended(w, RMALAB_SYNC_FENCE, fence_call(w, assert_, status));
}
