/* Rank states and deadlock hints (deadlock.h). A rank blocked in a
 * collective call (the core says which, on which window or communicator,
 * and its members) waits for every member that is not blocked in the same
 * call on the same object. A rank blocked in an epoch call finds its
 * partner from its window: the rma engine's matching (posted/arrived) or,
 * on the native engine, the partner's own window (a target that has no
 * exposure epoch open to the origin has not posted); a lock not granted
 * yet, from the locks the other ranks' windows hold. Which call a partner
 * must make comes from the core's table of synchronisation kinds
 * (rmalab/sync.h): the one thing this file asks the core. */
#include "deadlock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rmalab/sync.h>

#include "cmdline.h"
#include "cycle.h"
#include "fold.h"

static const rstate_win *find_win(const rstate *r, unsigned long long id)
{
    for (int i = 0; r->valid && i < r->nwins; i++)
        if (r->wins[i].id == id)
            return &r->wins[i];
    return NULL;
}

static const rstate_win *blocked_win(const rstate *r)
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
static int partners(const rstate *all, int n, int me, const rstate_win *w, rankset *miss,
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

static int collective_missing(const rstate *all, int n, int r, rankset *miss);

/* A message call on a communicator waits for one rank's call: a receive
 * or probe for its send, a send for its receive. Its member is the peer
 * (none: any source). Returns the peer, or -1; *call its call. */
static int message_peer(const rstate *r, int n, const char **call)
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

void rstate_status_line(const rstate *all, int n, int me, int timings, char *buf, size_t size)
{
    const rstate *r = &all[me];
    if (!r->valid) {
        snprintf(buf, size, "no answer");
        return;
    }
    if (strcmp(r->state, "idle") == 0 && r->failed[0]) {
        snprintf(buf, size, "idle; its last command's %s() failed (%s)", r->failed,
                 r->failed_class);
        return;
    }
    if (strcmp(r->state, "idle") == 0) {
        snprintf(buf, size, "idle");
        return;
    }
    if (strcmp(r->state, "running") == 0) {
        if (timings)
            snprintf(buf, size, "running %s for %.1f s", r->label, r->seconds);
        else
            snprintf(buf, size, "running %s", r->label);
        return;
    }
    const rstate_win *w = blocked_win(r);
    const char *d = w ? strstr(w->describe, "(); ") : NULL;
    size_t off = timings ? (size_t)snprintf(buf, size, "blocked %.1f s in %s()", r->seconds, r->call)
                         : (size_t)snprintf(buf, size, "blocked in %s()", r->call);
    if (d && off < size)
        off += (size_t)snprintf(buf + off, size - off, "; %s", d + 4);
    rankset miss;
    char call[40];
    snprintf(call, sizeof call, "%s()", r->call);
    if (off < size && (r->collective ? collective_missing(all, n, me, &miss)
                                     : w && partners(all, n, me, w, &miss, call, sizeof call))) {
        char set[256];
        rankset_text(&miss, set, sizeof set);
        int one = rankset_count(&miss) == 1;
        off += (size_t)snprintf(buf + off, size - off, "; rank%s %s %s not called %s",
                                one ? "" : "s", set, one ? "has" : "have", call);
    }
    const char *pcall;
    int peer = off < size && !w ? message_peer(r, n, &pcall) : -1;
    if (peer >= 0) {
        const rstate *p = &all[peer];
        bool waiting = p->valid && strcmp(p->state, "blocked") == 0 && strcmp(p->call, pcall) == 0;
        off += (size_t)snprintf(buf + off, size - off, " with rank %d", peer);
        if (!waiting && off < size)
            off += (size_t)snprintf(buf + off, size - off, "; rank %d has not called %s()", peer,
                                    pcall);
    }
    if (off < size && r->interruptible)
        snprintf(buf + off, size - off, " (can be interrupted: :interrupt %d)", me);
    else if (off < size)
        snprintf(buf + off, size - off, " (inside MPI: cannot be interrupted)");
}

/* What rank r, blocked on w in an epoch call, waits for: "in complete()
 * until rank 1 calls post()". A partner that failed and went idle may
 * still make its call, unlike a collective's member. */
static int waits_for(const rstate *all, int n, int r, const rstate_win *w, char *out,
                     size_t size)
{
    rankset miss;
    char call[40], set[256];
    if (!partners(all, n, r, w, &miss, call, sizeof call))
        return 0;
    int nm = rankset_count(&miss);
    rankset_text(&miss, set, sizeof set);
    snprintf(out, size, "blocked in %s() until rank%s %s call%s %s", w->blocked,
             nm == 1 ? "" : "s", set, nm == 1 ? "s" : "", call);
    return 1;
}

/* ------------------------------------------------------------------------ */
/* Collectives                                                              */

static int is_blocked(const rstate *r)
{
    return r->valid && strcmp(r->state, "blocked") == 0;
}

/* Rank b is blocked in the same collective as a, on the same object. */
static int same_collective(const rstate *a, const rstate *b)
{
    return is_blocked(b) && strcmp(a->call, b->call) == 0 && strcmp(a->object, b->object) == 0 &&
           a->object_id == b->object_id;
}

/* The ranks rank r's collective waits for. */
static int collective_missing(const rstate *all, int n, int r, rankset *miss)
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

static size_t clause(char *out, size_t size, size_t off, const char *text)
{
    if (off >= size)
        return off;
    return off + (size_t)snprintf(out + off, size - off, "%s%s", off ? " and " : "", text);
}

/* "rank 0's free() failed (ERR_RMA_SYNC)" for the members whose last
 * command failed in this very call. */
static int failed_same(const rstate *me, const rstate *m)
{
    return strcmp(m->state, "idle") == 0 && strcmp(m->failed, me->call) == 0 &&
           strcmp(m->failed_object, me->object) == 0 && m->failed_id == me->object_id;
}

static int call_wait(const rstate *all, int n, int r, char *out, size_t size);

/* Rank r, blocked in a collective: "blocked in the collective free();
 * rank 0's free() failed (ERR_RMA_SYNC) and rank 1 is blocked in wait()
 * until rank 0 calls complete()". A member that is idle has not called it,
 * even when its last command failed: it may still make the call. The ranks
 * described inside are marked in `told`. */
static int collective_wait(const rstate *all, int n, int r, char *out, size_t size,
                           unsigned char *told, int depth)
{
    const rstate *me = &all[r];
    rankset miss, idle = {.n = n};
    if (!me->collective || !collective_missing(all, n, r, &miss))
        return 0; /* a call the core did not call collective never is one */
    char parts[1600] = "", set[256], one[700], sub[600];
    size_t off = 0;
    for (int m = 0; m < n; m++) {
        if (!miss.in[m])
            continue;
        const rstate *o = &all[m];
        if (failed_same(me, o)) {
            snprintf(one, sizeof one, "rank %d's %s() failed (%s)", m, me->call, o->failed_class);
            off = clause(parts, sizeof parts, off, one);
        } else if (strcmp(o->state, "idle") == 0) {
            idle.in[m] = 1;
        } else if (depth == 0 && (call_wait(all, n, m, sub, sizeof sub) ||
                                  collective_wait(all, n, m, sub, sizeof sub, told, 1))) {
            snprintf(one, sizeof one, "rank %d is %s", m, sub);
            off = clause(parts, sizeof parts, off, one);
            told[m] = 1;
        } else {
            snprintf(one, sizeof one, "rank %d is blocked in %s()", m, o->call);
            off = clause(parts, sizeof parts, off, one);
        }
    }
    int ni = rankset_count(&idle);
    rankset_text(&idle, set, sizeof set);
    if (ni && !off) {
        snprintf(out, size, "blocked in the collective %s() until rank%s %s call%s %s() too",
                 me->call, ni == 1 ? "" : "s", set, ni == 1 ? "s" : "", me->call);
        return 1;
    }
    if (ni) {
        snprintf(one, sizeof one, "rank%s %s %s not called %s()", ni == 1 ? "" : "s", set,
                 ni == 1 ? "has" : "have", me->call);
        clause(parts, sizeof parts, off, one);
    }
    snprintf(out, size, "blocked in the collective %s(); %s", me->call, parts);
    return 1;
}

/* The peer rank r's message call still waits for: -1 when none (not a
 * message, any source) or when the peer is blocked in the matching call
 * already (the message is on its way). *call: the peer's call. */
static int message_missing(const rstate *all, int n, int r, const char **call)
{
    int peer = message_peer(&all[r], n, call);
    return peer >= 0 && is_blocked(&all[peer]) && strcmp(all[peer].call, *call) == 0 ? -1 : peer;
}

/* Rank r, blocked in a call that is not collective: what it waits for,
 * from its window (an epoch call: "blocked in complete() until rank 1
 * calls post()") or its peer (a message: "blocked in recv() until rank 2
 * calls send()"). */
static int call_wait(const rstate *all, int n, int r, char *out, size_t size)
{
    const char *pcall;
    int peer;
    if (!is_blocked(&all[r]) || all[r].collective)
        return 0;
    const rstate_win *w = blocked_win(&all[r]);
    if (w)
        return waits_for(all, n, r, w, out, size);
    if ((peer = message_missing(all, n, r, &pcall)) < 0)
        return 0;
    snprintf(out, size, "blocked in %s() until rank %d calls %s()", all[r].call, peer, pcall);
    return 1;
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
    const rstate_win *w = is_blocked(&all[r]) && !all[r].collective ? blocked_win(&all[r]) : NULL;
    const rmalab_sync_kind *k = w ? rmalab_sync_kind_find(w->blocked) : NULL;
    rankset held;
    char call[64];
    return k && !k->collective && (k->scope == RMALAB_SYNC_PEER || k->scope == RMALAB_SYNC_EVERY) &&
           !partners(all, n, r, w, &held, call, sizeof call);
}

int rstate_progressing(const rstate *all, int n)
{
    rankset miss;
    for (int r = 0; r < n; r++)
        if (passive_wait(all, n, r) ||
            (is_blocked(&all[r]) && all[r].collective && all[r].nmembers &&
             !collective_missing(all, n, r, &miss)))
            return 1;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Rings                                                                    */

/* The ranks blocked rank r waits for, and the call they must make
 * ("post()"): a collective's members that have not reached it, an epoch
 * call's partners, a message's peer not already in the matching call. */
static int waits_on(const rstate *all, int n, int r, rankset *to, char *call, size_t size)
{
    const rstate *me = &all[r];
    const rstate_win *w = blocked_win(me);
    const char *pcall;
    int peer;
    memset(to, 0, sizeof *to);
    to->n = n;
    if (!is_blocked(me))
        return 0;
    snprintf(call, size, "%s()", me->call);
    if (me->collective)
        return collective_missing(all, n, r, to);
    if (w)
        return partners(all, n, r, w, to, call, size);
    if ((peer = message_missing(all, n, r, &pcall)) < 0)
        return 0;
    snprintf(call, size, "%s()", pcall);
    return to->in[peer] = 1;
}

/* Can rank r's blocked call be interrupted? The core says, per call
 * (rmalab_blocked's interruptible: the rma engine's own waits). */
static int interruptible(const rstate *r)
{
    return is_blocked(r) && r->interruptible;
}

/* "rank 0 waits for rank 1's post(), rank 1 waits for rank 0's post()",
 * then what ends it. */
static size_t ring_text(const rstate *all, int n, const int *ring, int len, char *buf,
                        size_t size)
{
    rankset to, stop = {.n = n};
    char call[40], set[256];
    size_t off = (size_t)snprintf(buf, size, "hint: deadlock: ");
    int native = 0;
    for (int i = 0; i < len && off < size; i++) {
        const rstate_win *w = blocked_win(&all[ring[i]]);
        waits_on(all, n, ring[i], &to, call, sizeof call);
        off += (size_t)snprintf(buf + off, size - off, "%srank %d waits for rank %d's %s",
                                i ? ", " : "", ring[i], ring[(i + 1) % len], call);
        stop.in[ring[i]] = interruptible(&all[ring[i]]);
        native |= w && !all[ring[i]].collective && w->lock_wait == -1 &&
                  strcmp(w->engine, "native") == 0;
    }
    rankset_text(&stop, set, sizeof set);
    if (off < size && rankset_count(&stop))
        off += (size_t)snprintf(buf + off, size - off,
                                "\nhint: to end it, :interrupt %s (rma engine: %s call%s can "
                                "be interrupted)\n", set, rankset_count(&stop) == 1 ? "its" : "their",
                                rankset_count(&stop) == 1 ? "" : "s");
    else if (off < size)
        off += (size_t)snprintf(buf + off, size - off,
                                "\nhint: to end it, :quit (%s: these calls cannot be "
                                "interrupted)\n", native ? "native engine" : "inside MPI");
    return off < size ? off : size;
}

/* Every ring of blocked ranks waiting for each other, a line each (and
 * what ends it); their ranks are marked in `told`. */
static size_t ring_hints(const rstate *all, int n, char *buf, size_t size, unsigned char *told)
{
    rankset *waits = calloc((size_t)n, sizeof *waits);
    int *ring = calloc((size_t)n, sizeof *ring);
    unsigned char *skip = calloc((size_t)n, 1);
    size_t off = 0;
    char call[40];
    for (int r = 0; waits && skip && r < n; r++) {
        waits_on(all, n, r, &waits[r], call, sizeof call);
        skip[r] = !is_blocked(&all[r]);
    }
    for (int r = 0; waits && ring && skip && r < n && off < size; r++) {
        int len = skip[r] ? 0 : cycle_through(waits, n, r, skip, ring);
        if (len < 2)
            continue;
        off += ring_text(all, n, ring, len, buf + off, size - off);
        for (int i = 0; i < len; i++)
            told[ring[i]] = skip[ring[i]] = 1; /* a rank is in one ring's line */
    }
    free(waits);
    free(ring);
    free(skip);
    return off;
}

void deadlock_hint(const rstate *all, int n, char *buf, size_t size)
{
    size_t off = 0;
    int blocked = 0;
    buf[0] = '\0';
    for (int r = 0; r < n; r++) {
        if (!all[r].valid || strcmp(all[r].state, "running") == 0)
            return; /* someone still runs Lua, or is unknown: no hint */
        blocked += is_blocked(&all[r]);
    }
    if (!blocked || rstate_progressing(all, n))
        return; /* a collective that every member has reached will end */
    char (*what)[1800] = calloc((size_t)n, sizeof *what);
    unsigned char *told = calloc((size_t)n, 1);
    if (!what || !told) {
        free(what);
        free(told);
        return;
    }
    for (int r = 0; r < n; r++)
        if (is_blocked(&all[r]) && !(all[r].collective &&
                                     collective_wait(all, n, r, what[r], sizeof what[r], told, 0)))
            call_wait(all, n, r, what[r], sizeof what[r]);
    off = ring_hints(all, n, buf, size, told);
    /* Ranks blocked the same way share one line: "ranks 0,2 are ...". */
    const char **keys = calloc((size_t)n, sizeof *keys);
    unsigned char *done = calloc((size_t)n, 1);
    for (int r = 0; keys && r < n; r++)
        keys[r] = what[r][0] && !told[r] ? what[r] : NULL;
    for (int r = 0; keys && done && r < n && off < size; r++) {
        if (!keys[r] || done[r])
            continue;
        rankset same = fold_group(keys, n, r, done);
        char set[256];
        rankset_text(&same, set, sizeof set);
        int one = rankset_count(&same) == 1;
        off += (size_t)snprintf(buf + off, size - off, "hint: rank%s %s %s %s\n", one ? "" : "s",
                                set, one ? "is" : "are", what[r]);
    }
    free(keys);
    free(done);
    free(what);
    free(told);
}

/* ------------------------------------------------------------------------ */
/* :status                                                                  */

int rstate_any_running(const rstate *all, int n)
{
    for (int r = 0; r < n; r++)
        if (strcmp(all[r].state, "running") == 0)
            return 1;
    return 0;
}

/* One line per rank, up to 8 ranks; beyond that, ranks in the same state
 * (the line without its durations) fold into one line, as STAT and DDT
 * group stacks: "ranks 0,2-7: blocked 3.1 s in wait(); ...". */
char *rstate_status_text(const rstate *all, int n, const rankset *target, int timings)
{
    enum { LINE = 1200 };
    char line[LINE], set[512];
    size_t cap = (size_t)n * LINE + 1, off = 0;
    int fold = rankset_count(target) > 8;
    unsigned char *done = calloc((size_t)n, 1);
    char *text = calloc(1, cap), *lines = calloc((size_t)n, LINE);
    const char **keys = calloc((size_t)n, sizeof *keys);
    if (!text || !done || !lines || !keys) {
        free(text);
        text = NULL;
        goto out;
    }
    for (int r = 0; r < n; r++) /* the lines without durations are the keys */
        if (target->in[r]) {
            rstate_status_line(all, n, r, 0, lines + (size_t)r * LINE, LINE);
            keys[r] = lines + (size_t)r * LINE;
        }
    for (int r = 0; r < n; r++) {
        if (!keys[r] || done[r])
            continue;
        rankset g = {.n = n};
        if (fold)
            g = fold_group(keys, n, r, done);
        g.in[r] = done[r] = 1;
        rstate_status_line(all, n, r, timings, line, sizeof line);
        rankset_text(&g, set, sizeof set);
        off += (size_t)snprintf(text + off, cap - off, "rank%s %s: %s\n",
                                rankset_count(&g) > 1 ? "s" : "", set, line);
    }
out:
    free(keys);
    free(lines);
    free(done);
    return text;
}
