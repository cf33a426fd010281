/* Who waits for whom (waits.h): a rank blocked in a collective call (the
 * core says which, on which window or communicator, and its members)
 * waits for every member that is not blocked in the same call on the same
 * object. A rank blocked in an epoch call finds its partner from its
 * window: the rma engine's matching (posted/arrived) or, on the native
 * engine, the partner's own window (a target that has no exposure epoch
 * open to the origin has not posted); a lock not granted yet, from the
 * locks the other ranks' windows hold. Which call a partner must make
 * comes from the core's table of synchronisation kinds (rmalab/sync.h):
 * the one thing the front end asks the core. */
#include "waits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rmalab/sync.h>

static const rstate_win *find_win(const rstate *r, unsigned long long id)
{
    for (int i = 0; r->valid && i < r->nwins; i++)
        if (r->wins[i].id == id)
            return &r->wins[i];
    return NULL;
}

const rstate_win *waits_blocked_win(const rstate *r)
{
    for (int i = 0; i < r->nwins; i++)
        if (strcmp(r->wins[i].blocked, "-") != 0)
            return &r->wins[i];
    return NULL;
}

static int has(const int *v, int n, int x)
{
    for (int i = 0; i < n; i++)
        if (v[i] == x)
            return 1;
    return 0;
}

/* The synchronisation kind a window is blocked in (the core's table,
 * rmalab/sync.h), or, for an RMA operation in an access epoch that start
 * opened, start's: it waits for the same post. NULL: neither. */
static const rmalab_sync_kind *blocked_kind(const rstate_win *w)
{
    const rmalab_sync_kind *k = rmalab_sync_kind_find(w->blocked);
    if (!k && strcmp(w->access, rmalab_access_name(RMALAB_ACCESS_START)) == 0)
        k = rmalab_sync_kind_get(RMALAB_SYNC_START);
    return k;
}

/* Has target t posted to rank me, for w's access epoch (start group index
 * i, or -1)? The rma engine's matching says (posted), else t's own window. */
static int target_posted(const rstate *all, int n, int me, const rstate_win *w, int i, int t)
{
    const rstate_win *tw = t < n ? find_win(&all[t], w->id) : NULL;
    if (i >= 0 && i < w->npost && w->posted[i] >= 0)
        return w->posted[i] != 0;
    return tw && strcmp(tw->exposure, rmalab_exposure_name(RMALAB_EXPOSURE_POST)) == 0 &&
           has(tw->exp, tw->nexp, me);
}

/* Has origin o an access epoch to rank me open (or is it blocked opening
 * one, in start)? */
static int origin_started(const rstate *all, int n, int me, int o, unsigned long long win)
{
    const rstate_win *ow = o < n ? find_win(&all[o], win) : NULL;
    const char *start = rmalab_sync_name(RMALAB_SYNC_START);
    return (ow && strcmp(ow->access, rmalab_access_name(RMALAB_ACCESS_START)) == 0 &&
            has(ow->acc, ow->nacc, me)) ||
           (o < n && strcmp(all[o].state, "blocked") == 0 && strcmp(all[o].call, start) == 0);
}

/* Wait: the origins whose complete has not arrived. When none of them has
 * even started, the call still missing is start() then complete(). */
static void missing_completes(const rstate *all, int n, int me, const rstate_win *w,
                              rankset *miss, char *call, size_t size)
{
    int nostart = 0;
    for (int i = 0; i < w->nexp; i++) {
        int o = w->exp[i];
        const rstate_win *ow = o < n ? find_win(&all[o], w->id) : NULL;
        int arrived = i < w->narr && w->arrived[i] > 0;
        int unknown = i >= w->narr || w->arrived[i] < 0;
        if (o < n && !arrived &&
            (!unknown || !ow ||
             strcmp(ow->access, rmalab_access_name(RMALAB_ACCESS_START)) != 0 ||
             !has(ow->acc, ow->nacc, me) || strcmp(all[o].state, "idle") != 0)) {
            miss->in[o] = 1;
            nostart += !origin_started(all, n, me, o, w->id);
        }
    }
    if (nostart && nostart == rankset_count(miss))
        snprintf(call, size, "%s() and %s()", rmalab_sync_name(RMALAB_SYNC_START),
                 rmalab_sync_name(RMALAB_SYNC_COMPLETE));
}

/* Does hw, another rank's window, hold a lock that keeps back one wanted
 * on rank t (RSTATE_LOCK_ALL: lock_all's, on every rank) in mode m ('x'
 * exclusive, 's' shared)? MPICH's lock and lock_all return once MPI has
 * granted them, so a lock epoch in the state is a lock held. */
static int holds_conflicting(const rstate_win *hw, int t, char m)
{
    if (strcmp(hw->access, rmalab_access_name(RMALAB_ACCESS_LOCK_ALL)) == 0)
        return m == 'x'; /* shared locks on every rank */
    if (strcmp(hw->access, rmalab_access_name(RMALAB_ACCESS_LOCK)) != 0)
        return 0;
    for (int i = 0; i < hw->nacc; i++)
        if ((t == RSTATE_LOCK_ALL || hw->acc[i] == t) && (m == 'x' || hw->lock_mode[i] == 'x'))
            return 1;
    return 0;
}

/* Rank me waits on w for a lock to be granted: the ranks whose locks keep
 * it back, and the call that releases them ("unlock(2)", "unlock_all()"). */
static int lock_holders(const rstate *all, int n, int me, const rstate_win *w, rankset *miss,
                        char *call, size_t size)
{
    const char *unlock = rmalab_sync_name(RMALAB_SYNC_UNLOCK);
    int by_all = 0, by_one = 0;
    for (int h = 0; h < n; h++) {
        const rstate_win *hw = h != me ? find_win(&all[h], w->id) : NULL;
        if (!hw || !holds_conflicting(hw, w->lock_wait, w->lock_wait_mode))
            continue;
        miss->in[h] = 1;
        *(strcmp(hw->access, rmalab_access_name(RMALAB_ACCESS_LOCK_ALL)) == 0 ? &by_all
                                                                                : &by_one) = 1;
    }
    char one[32];
    if (w->lock_wait >= 0)
        snprintf(one, sizeof one, "%s(%d)", unlock, w->lock_wait);
    else
        snprintf(one, sizeof one, "%s()", unlock);
    snprintf(call, size, "%s%s%s%s", by_one ? one : "", by_one && by_all ? " or " : "",
             by_all ? rmalab_sync_name(RMALAB_SYNC_UNLOCK_ALL) : "", by_all ? "()" : "");
    return rankset_count(miss);
}

/* The ranks that rank `me`, blocked on window w in an epoch call, waits
 * for, and the call each must make ("complete()", the kind's partner); 0
 * when unknown. (Collectives are collective_wait's: the core names their
 * members.) */
int waits_partners(const rstate *all, int n, int me, const rstate_win *w, rankset *miss,
                   char *call, size_t size)
{
    memset(miss, 0, sizeof *miss);
    miss->n = n;
    if (w->lock_wait != -1) /* lock or lock_all, not granted yet */
        return lock_holders(all, n, me, w, miss, call, size);
    const rmalab_sync_kind *k = blocked_kind(w);
    const rstate *r = &all[me];
    if (!k || !k->partner)
        return 0;
    snprintf(call, size, "%s()", k->partner);
    if (k->acquires == RMALAB_ACQUIRE_EPOCH) { /* wait: each origin's complete */
        missing_completes(all, n, me, w, miss, call, size);
    } else if (strcmp(w->access, rmalab_access_name(RMALAB_ACCESS_START)) == 0) {
        for (int i = 0; i < w->nacc; i++) /* complete, an operation: the posts */
            if (w->acc[i] < n && !target_posted(all, n, me, w, i, w->acc[i]))
                miss->in[w->acc[i]] = 1;
    } else if (k == rmalab_sync_kind_get(RMALAB_SYNC_START)) {
        for (int i = 0; i < r->nmembers; i++) /* the native engine's start: its group */
            if (r->members[i] >= 0 && r->members[i] < n &&
                !target_posted(all, n, me, w, -1, r->members[i]))
                miss->in[r->members[i]] = 1;
    } else {
        return 0;
    }
    return rankset_count(miss);
}

/* A message call on a communicator waits for one rank's call: a receive
 * or probe for its send, a send for its receive. Its member is the peer
 * (none: any source). Returns the peer, or -1; *call its call. */
int waits_message_peer(const rstate *r, int n, const char **call)
{
    static const char *const pairs[][2] = {
        {"recv", "send"}, {"probe", "send"}, {"send", "recv"}};
    if (r->collective || strcmp(r->object, "comm") != 0 || r->nmembers != 1 ||
        r->members[0] < 0 || r->members[0] >= n)
        return -1;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (strcmp(r->call, pairs[i][0]) == 0) {
            *call = pairs[i][1];
            return r->members[0];
        }
    return -1;
}

int waits_is_blocked(const rstate *r)
{
    return r->valid && strcmp(r->state, "blocked") == 0;
}

/* Rank b is blocked in the same collective as a, on the same object. */
static int same_collective(const rstate *a, const rstate *b)
{
    return waits_is_blocked(b) && strcmp(a->call, b->call) == 0 &&
           strcmp(a->object, b->object) == 0 && a->object_id == b->object_id;
}

/* The ranks rank r's collective waits for. */
int waits_collective_missing(const rstate *all, int n, int r, rankset *miss)
{
    const rstate *me = &all[r];
    memset(miss, 0, sizeof *miss);
    miss->n = n;
    for (int i = 0; i < me->nmembers; i++) {
        int m = me->members[i];
        if (m >= 0 && m < n && !same_collective(me, &all[m]))
            miss->in[m] = 1;
    }
    return rankset_count(miss);
}

/* The peer rank r's message call still waits for: -1 when none (not a
 * message, any source) or when the peer is blocked in the matching call
 * already (the message is on its way). *call: the peer's call. */
int waits_message_missing(const rstate *all, int n, int r, const char **call)
{
    int peer = waits_message_peer(&all[r], n, call);
    int on_its_way = peer >= 0 && waits_is_blocked(&all[peer]) && strcmp(all[peer].call, *call) == 0;
    return on_its_way ? -1 : peer;
}

/* Rank r is blocked in a passive-target call that MPI ends alone: a
 * window call of the core's table (rmalab/sync.h) that is not collective
 * and names its targets, one or every rank of the window (lock, unlock,
 * lock_all, unlock_all, the flushes, a request's wait). Passive-target
 * progress holds while each target is inside any MPI call or idle (its
 * rank pokes MPI between naps), and a rank running Lua holds every hint
 * back. Only a lock that another rank holds stops it: that rank must
 * unlock first (lock_holders), so such a wait is not progressing. */
static int passive_wait(const rstate *all, int n, int r)
{
    const rstate *me = &all[r];
    const rstate_win *w = waits_is_blocked(me) && !me->collective ? waits_blocked_win(me) : NULL;
    const rmalab_sync_kind *k = w ? rmalab_sync_kind_find(w->blocked) : NULL;
    rankset held;
    char call[64];
    return k && !k->collective && (k->scope == RMALAB_SYNC_PEER || k->scope == RMALAB_SYNC_EVERY) &&
           !waits_partners(all, n, r, w, &held, call, sizeof call);
}

int rstate_progressing(const rstate *all, int n)
{
    rankset miss;
    for (int r = 0; r < n; r++)
        if (passive_wait(all, n, r) ||
            (waits_is_blocked(&all[r]) && all[r].collective && all[r].nmembers &&
             !waits_collective_missing(all, n, r, &miss)))
            return 1;
    return 0;
}

/* The ranks blocked rank r waits for, and the call they must make
 * ("post()"): a collective's members that have not reached it, an epoch
 * call's partners, a message's peer not already in the matching call. */
int waits_on(const rstate *all, int n, int r, rankset *to, char *call, size_t size)
{
    const rstate *me = &all[r];
    const rstate_win *w = waits_blocked_win(me);
    const char *pcall;
    int peer;
    memset(to, 0, sizeof *to);
    to->n = n;
    if (!waits_is_blocked(me))
        return 0;
    snprintf(call, size, "%s()", me->call);
    if (me->collective)
        return waits_collective_missing(all, n, r, to);
    if (w)
        return waits_partners(all, n, r, w, to, call, size);
    if ((peer = waits_message_missing(all, n, r, &pcall)) < 0)
        return 0;
    snprintf(call, size, "%s()", pcall);
    return to->in[peer] = 1;
}
