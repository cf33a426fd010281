/* The epoch state machine and the synchronisation calls.
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
#include "win-private.h"

#include <stdatomic.h>
#include <time.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Observable state                                                         */

const char *rmalab_access_name(rmalab_access a)
{
    static const char *const names[] = {"none", "fence", "start", "lock", "lock_all"};
    return (unsigned)a < 5 ? names[a] : "?";
}

const char *rmalab_exposure_name(rmalab_exposure e)
{
    static const char *const names[] = {"none", "fence", "post"};
    return (unsigned)e < 3 ? names[e] : "?";
}

/* Seconds on a clock cheap enough for every synchronisation call
 * (CLOCK_MONOTONIC_COARSE: a few ns, resolution of a few ms). */
double rmalab__coarse_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Lock-free, as it runs around blocking synchronisation calls: the time is
 * stored before the call name is published, and readers load the name
 * first. */
void rmalab__set_blocked(rmalab_win *w, const char *call)
{
    if (call)
        atomic_store_explicit(&w->blocked_since, rmalab__coarse_now(), memory_order_relaxed);
    atomic_store_explicit(&w->blocked_in, call, memory_order_release);
}

void rmalab_win_state(rmalab_win *w, rmalab_epoch_state *s)
{
    memset(s, 0, sizeof *s);
    if (!w)
        return;
    rmalab__lock(w);
    s->access = w->access;
    s->exposure = w->exposure;
    if (w->access == RMALAB_ACCESS_START) {
        s->n_access = w->ngroup;
        for (int i = 0; i < w->ngroup && i < RMALAB_STATE_MAX_RANKS; i++) {
            s->access_ranks[i] = w->group[i];
            s->posted[i] = w->rma ? rmalab__rma_posted(w, w->group[i]) : -1;
        }
    } else if (w->access == RMALAB_ACCESS_LOCK) {
        for (int r = 0; r < w->size; r++) {
            if (!w->locked[r])
                continue;
            if (s->n_access < RMALAB_STATE_MAX_RANKS) {
                s->access_ranks[s->n_access] = r;
                s->lock_exclusive[s->n_access] = w->locked[r] == 2;
            }
            s->n_access++;
        }
    }
    if (w->exposure == RMALAB_EXPOSURE_POST) {
        s->n_exposure = w->nxgroup;
        for (int i = 0; i < w->nxgroup && i < RMALAB_STATE_MAX_RANKS; i++) {
            s->exposure_ranks[i] = w->xgroup[i];
            s->arrived[i] = w->rma ? rmalab__rma_arrived(w, w->xgroup[i]) : -1;
        }
    }
    s->ops_in_epoch = __atomic_load_n(&w->ops_in_epoch, __ATOMIC_RELAXED);
    s->epochs = w->epochs;
    s->blocked_in = atomic_load_explicit(&w->blocked_in, memory_order_acquire);
    s->blocked_for = s->blocked_in ? rmalab__coarse_now() -
                                         atomic_load_explicit(&w->blocked_since,
                                                              memory_order_relaxed)
                                   : 0.0;
    s->engine = w->eng->name;
    s->access_nocheck = s->access == RMALAB_ACCESS_START && w->start_nocheck;
    s->exposure_nocheck = s->exposure == RMALAB_EXPOSURE_POST && w->post_nocheck;
    rmalab__unlock(w);
}

static size_t ranks_text(char *buf, size_t size, const int *ranks, int n)
{
    size_t off = (size_t)snprintf(buf, size, "{");
    for (int i = 0; i < n && i < RMALAB_STATE_MAX_RANKS && off < size; i++)
        off += (size_t)snprintf(buf + off, size - off, "%s%d", i ? ", " : "", ranks[i]);
    if (n > RMALAB_STATE_MAX_RANKS && off < size)
        off += (size_t)snprintf(buf + off, size - off, ", ...");
    if (off < size)
        off += (size_t)snprintf(buf + off, size - off, "}");
    return off;
}

void rmalab_win_describe(rmalab_win *w, char *buf, size_t size)
{
    rmalab__describe(w, buf, size, true);
}

/* With `matching`, the rma engine's view of what has arrived is added; error
 * messages leave it out so that both engines say the same. */
void rmalab__describe(rmalab_win *w, char *buf, size_t size, bool matching)
{
    rmalab_epoch_state s;
    char g[512];
    size_t off = 0;
    if (!size)
        return;
    buf[0] = '\0';
    rmalab_win_state(w, &s);
#define PUT(...)                                                               \
    do {                                                                       \
        if (off < size)                                                        \
            off += (size_t)snprintf(buf + off, size - off, __VA_ARGS__);       \
    } while (0)
    if (s.blocked_in)
        PUT("blocked %.1f s in %s(); ", s.blocked_for, s.blocked_in);
    switch (s.access) {
    case RMALAB_ACCESS_NONE: PUT("no access epoch"); break;
    case RMALAB_ACCESS_FENCE: PUT("fence epoch (%llu RMA calls)", (unsigned long long)s.ops_in_epoch); break;
    case RMALAB_ACCESS_START:
        ranks_text(g, sizeof g, s.access_ranks, s.n_access);
        PUT("access epoch to %s%s", g, s.access_nocheck ? " (start() was nocheck)" : "");
        if (matching && s.n_access && s.posted[0] >= 0) {
            int have[RMALAB_STATE_MAX_RANKS] = {0}, n = 0, k = 0;
            for (int i = 0; i < s.n_access && i < RMALAB_STATE_MAX_RANKS; i++)
                if (!s.posted[i])
                    have[k++] = s.access_ranks[i];
                else
                    n++;
            ranks_text(g, sizeof g, have, k);
            PUT(": post() arrived from %d of %d%s%s", n, s.n_access, k ? ", missing " : "",
                k ? g : "");
        }
        break;
    case RMALAB_ACCESS_LOCK:
        ranks_text(g, sizeof g, s.access_ranks, s.n_access);
        PUT("passive-target epoch: locked %s", g);
        break;
    case RMALAB_ACCESS_LOCK_ALL: PUT("passive-target epoch: lock_all"); break;
    }
    if (s.exposure == RMALAB_EXPOSURE_POST) {
        ranks_text(g, sizeof g, s.exposure_ranks, s.n_exposure);
        PUT("; exposure epoch to %s%s", g, s.exposure_nocheck ? " (post() was nocheck)" : "");
        if (matching && s.n_exposure && s.arrived[0] >= 0) {
            int miss[RMALAB_STATE_MAX_RANKS] = {0}, n = 0, k = 0;
            for (int i = 0; i < s.n_exposure && i < RMALAB_STATE_MAX_RANKS; i++)
                if (!s.arrived[i])
                    miss[k++] = s.exposure_ranks[i];
                else
                    n++;
            char m[512];
            ranks_text(m, sizeof m, miss, k);
            PUT(": waits for complete() from %s: %d of %d arrived", k ? m : g, n, s.n_exposure);
        }
    }
#undef PUT
}

/* ------------------------------------------------------------------------ */
/* Checks                                                                   */

#define CHECK_WIN(w)                                                           \
    do {                                                                       \
        if (!(w))                                                              \
            return rmalab__fail(RMALAB_ERR_WIN, "window is NULL or freed");    \
    } while (0)

static int check_assert(const char *call, int assert_, int allowed)
{
    static const char *const names[] = {"nocheck", "nostore", "noput", "noprecede",
                                        "nosucceed"};
    if ((assert_ & ~allowed) == 0)
        return RMALAB_OK;
    char ok[128] = "";
    size_t off = 0;
    int bad = 0;
    for (int i = 0; i < 5; i++) {
        if ((assert_ & ~allowed) & (1 << i) && !bad)
            bad = i + 1;
        if (allowed & (1 << i))
            off += (size_t)snprintf(ok + off, sizeof ok - off, "%s%s", off ? ", " : "",
                                    names[i]);
    }
    return rmalab__fail(RMALAB_ERR_ARG, "%s: the assertion \"%s\" does not apply to %s; it "
                                        "takes %s",
                        call, bad ? names[bad - 1] : "?", call, off ? ok : "none");
}

/* Only the owning thread writes ops_in_epoch, and it counts every RMA call,
 * so it is stored atomically (relaxed) rather than under the lock; the
 * owner's own plain reads race with nothing. */
static void set_ops(rmalab_win *w, uint64_t v)
{
    __atomic_store_n(&w->ops_in_epoch, v, __ATOMIC_RELAXED);
}

/* RMALAB_MODE_* to MPI_MODE_* (only the bits check_assert let through). */
static int mpi_mode(int assert_)
{
    return (assert_ & RMALAB_MODE_NOCHECK ? MPI_MODE_NOCHECK : 0) |
           (assert_ & RMALAB_MODE_NOSTORE ? MPI_MODE_NOSTORE : 0) |
           (assert_ & RMALAB_MODE_NOPUT ? MPI_MODE_NOPUT : 0) |
           (assert_ & RMALAB_MODE_NOPRECEDE ? MPI_MODE_NOPRECEDE : 0) |
           (assert_ & RMALAB_MODE_NOSUCCEED ? MPI_MODE_NOSUCCEED : 0);
}

/* A fence with no RMA call after it opened no epoch: drop it. */
static bool fence_is_idle(const rmalab_win *w)
{
    return w->access == RMALAB_ACCESS_FENCE && w->ops_in_epoch == 0;
}

static void drop_idle_fence(rmalab_win *w)
{
    if (fence_is_idle(w)) {
        w->access = RMALAB_ACCESS_NONE;
        if (w->exposure == RMALAB_EXPOSURE_FENCE)
            w->exposure = RMALAB_EXPOSURE_NONE;
    }
}

/* Groups: ranks of the window, no duplicates (checked before any MPI call:
 * MPICH 4.0.2 segfaults on a group holding a rank outside the window). */
static int check_group(rmalab_win *w, const char *call, const int *ranks, int n)
{
    if (n < 0 || (n > 0 && !ranks))
        return rmalab__fail(RMALAB_ERR_GROUP, "%s: invalid group", call);
    int rc = RMALAB_OK, i;
    for (i = 0; i < n && !rc; i++) {
        if (ranks[i] < 0 || ranks[i] >= w->size)
            rc = rmalab__fail(RMALAB_ERR_RANK,
                              "%s: rank %d is not in the window's group (ranks 0 to %d)", call,
                              ranks[i], w->size - 1);
        else if (w->scratch[ranks[i]]++)
            rc = rmalab__fail(RMALAB_ERR_GROUP,
                              "%s: rank %d appears twice in the group; list each rank once",
                              call, ranks[i]);
    }
    for (int j = 0; j < i; j++)
        if (ranks[j] >= 0 && ranks[j] < w->size)
            w->scratch[ranks[j]] = 0;
    return rc;
}

static void group_text(char *buf, size_t size, const int *ranks, int n)
{
    ranks_text(buf, size, ranks, n);
}

int rmalab__check_op(rmalab_win *w, const char *what, int target, MPI_Aint disp,
                     rmalab_type type, int count)
{
    CHECK_WIN(w);
    if ((unsigned)type >= RMALAB_NTYPES)
        return rmalab__fail(RMALAB_ERR_TYPE, "%s: unknown type", what);
    if (count < 0)
        return rmalab__fail(RMALAB_ERR_ARG, "%s: count %d is negative", what, count);
    if (target < 0 || target >= w->size)
        return rmalab__fail(RMALAB_ERR_RANK,
                            "%s to rank %d: the window's group has ranks 0 to %d", what, target,
                            w->size - 1);
    char g[512];
    switch (w->access) {
    case RMALAB_ACCESS_NONE:
        return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                            "%s to rank %d: RMA calls need an access epoch, and none is open; "
                            "open one with win:fence(), win:start({%d}), win:lock(%d) or "
                            "win:lock_all()",
                            what, target, target, target);
    case RMALAB_ACCESS_START:
        if (!w->in_group[target]) {
            group_text(g, sizeof g, w->group, w->ngroup);
            return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                                "%s to rank %d: RMA calls in an access epoch may only target "
                                "processes in its group; win:start was given %s",
                                what, target, g);
        }
        break;
    case RMALAB_ACCESS_LOCK:
        if (!w->locked[target])
            return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                                "%s to rank %d: in a passive-target epoch RMA calls may only "
                                "target locked ranks; call win:lock(%d) first",
                                what, target, target);
        break;
    default:
        break;
    }
    if (w->flavor == RMALAB_FLAVOR_DYNAMIC) {
        int rc = rmalab__dyn_check(w, what, target, disp,
                                   (MPI_Aint)count * rmalab_type_size(type));
        if (rc)
            return rc;
    } else {
        MPI_Aint unit = w->disp_units[target], tsize = w->sizes[target];
        MPI_Aint bytes = (MPI_Aint)count * rmalab_type_size(type);
        if (bytes > tsize)
            return rmalab__fail(RMALAB_ERR_RMA_RANGE,
                                "%s to rank %d: %d x %s (%ld bytes) do not fit in rank %d's "
                                "window of %ld bytes",
                                what, target, count, rmalab_type_name(type), (long)bytes,
                                target, (long)tsize);
        MPI_Aint off;
        if (disp < 0 || __builtin_mul_overflow(disp, unit, &off) || off > tsize - bytes) {
            char at[64] = "";
            if (disp >= 0 && disp <= tsize / unit)
                snprintf(at, sizeof at, " = byte %ld", (long)(disp * unit));
            return rmalab__fail(RMALAB_ERR_RMA_RANGE,
                                "%s to rank %d: displacement %ld (x disp_unit %ld%s) with %d x "
                                "%s reaches past the end of rank %d's window of %ld bytes; "
                                "valid displacements are 0 to %ld",
                                what, target, (long)disp, (long)unit, at, count,
                                rmalab_type_name(type), target, (long)tsize,
                                (long)((tsize - bytes) / unit));
        }
    }
    set_ops(w, w->ops_in_epoch + 1);
    return RMALAB_OK;
}

/* ------------------------------------------------------------------------ */
/* General active target: post, start, complete, wait, test                 */

int rmalab_win_post(rmalab_win *w, const int *ranks, int n, int assert_)
{
    CHECK_WIN(w);
    char g[512];
    int rc = check_assert("post", assert_,
                          RMALAB_MODE_NOCHECK | RMALAB_MODE_NOSTORE | RMALAB_MODE_NOPUT);
    if (rc)
        return rc;
    if (w->exposure == RMALAB_EXPOSURE_POST) {
        group_text(g, sizeof g, w->xgroup, w->nxgroup);
        return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                            "post: an exposure epoch (posted to %s) is already open; end it "
                            "with win:wait() or win:test() before posting again",
                            g);
    }
    if (w->access == RMALAB_ACCESS_LOCK || w->access == RMALAB_ACCESS_LOCK_ALL)
        return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                            "post: a passive-target epoch is open on this window; unlock "
                            "before mixing in post/start/complete/wait");
    if (w->access == RMALAB_ACCESS_FENCE && !fence_is_idle(w))
        return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                            "post: a fence epoch with RMA calls is open; end it with "
                            "win:fence(\"nosucceed\") before post");
    if ((rc = check_group(w, "post", ranks, n)))
        return rc;
    /* "A call is a noop, and can be skipped, if the group argument is
     * empty": the state still opens the (empty) epoch, so that wait, test
     * and complete pair with it, and they skip the engine in turn. */
    if (n)
        rc = w->eng->post(w, ranks, n, mpi_mode(assert_)); /* returns at once */
    if (rc)
        return rc;
    rmalab__lock(w);
    drop_idle_fence(w);
    if (n)
        memcpy(w->xgroup, ranks, (size_t)n * sizeof *ranks);
    w->nxgroup = n;
    w->exposure = RMALAB_EXPOSURE_POST;
    w->post_nocheck = (assert_ & RMALAB_MODE_NOCHECK) != 0;
    w->closed_by_test = false;
    rmalab__unlock(w);
    return RMALAB_OK;
}

/* start({me}) waits for a post that only this rank can make, later: it can
 * never match unless this rank has already posted to itself. */
static int check_self_start(const rmalab_win *w, const int *ranks, int n)
{
    bool self = false, exposed = false;
    for (int i = 0; i < n; i++)
        self |= ranks[i] == w->rank;
    for (int i = 0; self && w->exposure == RMALAB_EXPOSURE_POST && i < w->nxgroup; i++)
        exposed |= w->xgroup[i] == w->rank;
    if (!self || exposed)
        return RMALAB_OK;
    return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                        "start: the group holds this rank (%d), and start waits for the post "
                        "of every target, but this rank has not posted to itself, and cannot "
                        "while it waits here; call win:post() with a group holding %d first",
                        w->rank, w->rank);
}

int rmalab_win_start(rmalab_win *w, const int *ranks, int n, int assert_)
{
    CHECK_WIN(w);
    char g[512];
    int rc = check_assert("start", assert_, RMALAB_MODE_NOCHECK);
    if (rc)
        return rc;
    if (w->access == RMALAB_ACCESS_START) {
        group_text(g, sizeof g, w->group, w->ngroup);
        return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                            "start: an access epoch (started to %s) is already open; end it "
                            "with win:complete() before starting another",
                            g);
    }
    if (w->access == RMALAB_ACCESS_LOCK || w->access == RMALAB_ACCESS_LOCK_ALL)
        return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                            "start: a passive-target epoch (%s) is open; only one access "
                            "epoch may be open at a time, so unlock first",
                            w->access == RMALAB_ACCESS_LOCK ? "lock" : "lock_all");
    if (w->access == RMALAB_ACCESS_FENCE && !fence_is_idle(w))
        return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                            "start: a fence epoch with %llu RMA calls is open; end it with "
                            "win:fence(\"nosucceed\") before start",
                            (unsigned long long)w->ops_in_epoch);
    if ((rc = check_group(w, "start", ranks, n)) || (rc = check_self_start(w, ranks, n)))
        return rc;
    if (n) { /* empty: a no-op, as for post */
        rmalab__set_blocked(w, "start"); /* MPICH's start waits for the posts */
        rc = w->eng->start(w, ranks, n, mpi_mode(assert_));
        rmalab__set_blocked(w, NULL);
    }
    if (rc)
        return rc;
    rmalab__lock(w);
    drop_idle_fence(w);
    if (n)
        memcpy(w->group, ranks, (size_t)n * sizeof *ranks);
    w->ngroup = n;
    memset(w->in_group, 0, (size_t)w->size);
    for (int i = 0; i < n; i++)
        w->in_group[ranks[i]] = 1;
    w->access = RMALAB_ACCESS_START;
    w->start_nocheck = (assert_ & RMALAB_MODE_NOCHECK) != 0;
    set_ops(w, 0);
    rmalab__unlock(w);
    return RMALAB_OK;
}

/* Close the access epoch in the state (under the lock) after MPI closed it. */
static void access_closed(rmalab_win *w)
{
    rmalab__lock(w);
    w->access = RMALAB_ACCESS_NONE;
    set_ops(w, 0);
    w->epochs++;
    memset(w->in_group, 0, (size_t)w->size);
    w->ngroup = 0;
    rmalab__unlock(w);
    rmalab__results_complete(w, -1);
}

int rmalab_win_complete(rmalab_win *w)
{
    CHECK_WIN(w);
    if (w->access != RMALAB_ACCESS_START)
        return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                            "complete: it ends an access epoch opened by win:start(group), "
                            "and none is open%s",
                            w->access == RMALAB_ACCESS_NONE    ? ""
                            : w->access == RMALAB_ACCESS_FENCE ? " (this is a fence epoch: end "
                                                                 "it with win:fence())"
                                                               : " (this is a passive-target "
                                                                 "epoch: end it with unlock)");
    int rc = RMALAB_OK;
    if (w->ngroup) { /* an empty start was a no-op */
        rmalab__set_blocked(w, "complete");
        rc = w->eng->complete(w);
        rmalab__set_blocked(w, NULL);
    }
    if (rc)
        return rc;
    access_closed(w);
    return RMALAB_OK;
}

static int no_exposure(rmalab_win *w, const char *call)
{
    if (w->closed_by_test)
        return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                            "%s: win:test() already returned true, which ended the exposure "
                            "epoch; post again to open a new one",
                            call);
    return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                        "%s: it ends an exposure epoch opened by win:post(group), and none "
                        "is open%s",
                        call,
                        w->exposure == RMALAB_EXPOSURE_FENCE ? " (this is a fence epoch: end "
                                                               "it with win:fence())"
                                                             : "");
}

static void exposure_closed(rmalab_win *w, bool by_test)
{
    rmalab__lock(w);
    w->exposure = RMALAB_EXPOSURE_NONE;
    w->nxgroup = 0;
    w->closed_by_test = by_test;
    rmalab__unlock(w);
}

int rmalab_win_wait(rmalab_win *w)
{
    CHECK_WIN(w);
    if (w->exposure != RMALAB_EXPOSURE_POST)
        return no_exposure(w, "wait");
    int rc = RMALAB_OK;
    if (w->nxgroup) { /* an empty post was a no-op */
        rmalab__set_blocked(w, "wait");
        rc = w->eng->wait(w);
        rmalab__set_blocked(w, NULL);
    }
    if (rc)
        return rc;
    exposure_closed(w, false);
    return RMALAB_OK;
}

int rmalab_win_test(rmalab_win *w, bool *done)
{
    CHECK_WIN(w);
    if (w->exposure != RMALAB_EXPOSURE_POST)
        return no_exposure(w, "test");
    int flag = 1; /* an empty post was a no-op: nothing to wait for */
    int rc = w->nxgroup ? w->eng->test(w, &flag) : RMALAB_OK;
    if (rc)
        return rc;
    if (flag)
        exposure_closed(w, true);
    *done = flag != 0;
    return RMALAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Fence                                                                    */

int rmalab_win_fence(rmalab_win *w, int assert_)
{
    CHECK_WIN(w);
    int rc = check_assert("fence", assert_,
                          RMALAB_MODE_NOSTORE | RMALAB_MODE_NOPUT | RMALAB_MODE_NOPRECEDE |
                              RMALAB_MODE_NOSUCCEED);
    if (rc)
        return rc;
    /* Misuse inside a PSCW epoch first: the same message for both engines. */
    if (w->access == RMALAB_ACCESS_START || w->exposure == RMALAB_EXPOSURE_POST)
        return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                            "fence: a PSCW epoch is open (%s); fences may not be called inside "
                            "it, so end it with %s first",
                            w->access == RMALAB_ACCESS_START ? "access, from win:start"
                                                             : "exposure, from win:post",
                            w->access == RMALAB_ACCESS_START ? "win:complete()" : "win:wait()");
    if (w->access == RMALAB_ACCESS_LOCK || w->access == RMALAB_ACCESS_LOCK_ALL)
        return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                            "fence: a passive-target epoch is open; unlock before fencing");
    if ((assert_ & RMALAB_MODE_NOPRECEDE) && w->access == RMALAB_ACCESS_FENCE &&
        w->ops_in_epoch > 0)
        return rmalab__fail(RMALAB_ERR_ARG,
                            "fence: \"noprecede\" promises that no RMA calls precede this "
                            "fence, but %llu were made since the last one; drop the assertion",
                            (unsigned long long)w->ops_in_epoch);
    rmalab__set_blocked(w, "fence");
    int e = MPI_Win_fence(mpi_mode(assert_), w->plain);
    rmalab__set_blocked(w, NULL);
    if (e != MPI_SUCCESS)
        return rmalab__mpi_fail(e, "MPI_Win_fence");
    bool had_ops = w->access == RMALAB_ACCESS_FENCE && w->ops_in_epoch > 0;
    rmalab__lock(w);
    if (had_ops)
        w->epochs++;
    set_ops(w, 0);
    bool open = !(assert_ & RMALAB_MODE_NOSUCCEED);
    w->access = open ? RMALAB_ACCESS_FENCE : RMALAB_ACCESS_NONE;
    w->exposure = open ? RMALAB_EXPOSURE_FENCE : RMALAB_EXPOSURE_NONE;
    rmalab__unlock(w);
    rmalab__results_complete(w, -1);
    return RMALAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Passive target                                                           */

static int passive_allowed(rmalab_win *w, const char *call)
{
    /* Misuse inside a PSCW epoch first: the same message for both engines. */
    if (w->access == RMALAB_ACCESS_START || w->exposure == RMALAB_EXPOSURE_POST)
        return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                            "%s: a PSCW epoch is open (%s); locks may not be taken inside it, "
                            "so end it with %s first",
                            call,
                            w->access == RMALAB_ACCESS_START ? "access, from win:start"
                                                             : "exposure, from win:post",
                            w->access == RMALAB_ACCESS_START ? "win:complete()" : "win:wait()");
    if (w->access == RMALAB_ACCESS_FENCE && !fence_is_idle(w))
        return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                            "%s: a fence epoch with RMA calls is open; end it with "
                            "win:fence(\"nosucceed\") first",
                            call);
    return RMALAB_OK;
}

int rmalab_win_lock(rmalab_win *w, int target, bool exclusive, int assert_)
{
    CHECK_WIN(w);
    int rc = check_assert("lock", assert_, RMALAB_MODE_NOCHECK);
    if (rc || (rc = passive_allowed(w, "lock")))
        return rc;
    if (target < 0 || target >= w->size)
        return rmalab__fail(RMALAB_ERR_RANK, "lock: rank %d is not in the window's group "
                                             "(ranks 0 to %d)",
                            target, w->size - 1);
    if (w->access == RMALAB_ACCESS_LOCK_ALL)
        return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                            "lock: win:lock_all() already locks every rank; unlock_all first");
    if (w->no_locks[target])
        return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                            "lock: rank %d gave the hint no_locks = true, promising that no "
                            "passive-target lock targets it; use fence or PSCW, or set "
                            "no_locks = false on rank %d",
                            target, target);
    if (w->access == RMALAB_ACCESS_LOCK && w->locked[target])
        return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                            "lock: rank %d is already locked by this process; a rank can be "
                            "locked once at a time, so unlock(%d) first",
                            target, target);
    rmalab__set_blocked(w, "lock");
    int e = MPI_Win_lock(exclusive ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, target,
                         mpi_mode(assert_), w->plain);
    rmalab__set_blocked(w, NULL);
    if (e != MPI_SUCCESS)
        return rmalab__mpi_fail(e, "MPI_Win_lock");
    rmalab__lock(w);
    drop_idle_fence(w);
    if (w->access != RMALAB_ACCESS_LOCK)
        set_ops(w, 0);
    w->access = RMALAB_ACCESS_LOCK;
    w->locked[target] = exclusive ? 2 : 1;
    w->nlocked++;
    rmalab__unlock(w);
    return RMALAB_OK;
}

int rmalab_win_unlock(rmalab_win *w, int target)
{
    CHECK_WIN(w);
    if (target < 0 || target >= w->size)
        return rmalab__fail(RMALAB_ERR_RANK, "unlock: rank %d is not in the window's group "
                                             "(ranks 0 to %d)",
                            target, w->size - 1);
    if (w->access != RMALAB_ACCESS_LOCK || !w->locked[target])
        return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                            "unlock: rank %d is not locked by this process%s", target,
                            w->access == RMALAB_ACCESS_LOCK_ALL ? " (use win:unlock_all() "
                                                                  "after win:lock_all())"
                                                                : "; lock it first");
    rmalab__set_blocked(w, "unlock");
    int e = MPI_Win_unlock(target, w->plain);
    rmalab__set_blocked(w, NULL);
    if (e != MPI_SUCCESS)
        return rmalab__mpi_fail(e, "MPI_Win_unlock");
    rmalab__lock(w);
    w->locked[target] = 0;
    bool last = --w->nlocked == 0;
    rmalab__unlock(w);
    if (last)
        access_closed(w);
    else
        rmalab__results_complete(w, target);
    return RMALAB_OK;
}

int rmalab_win_lock_all(rmalab_win *w, int assert_)
{
    CHECK_WIN(w);
    int rc = check_assert("lock_all", assert_, RMALAB_MODE_NOCHECK);
    if (rc || (rc = passive_allowed(w, "lock_all")))
        return rc;
    if (w->access == RMALAB_ACCESS_LOCK || w->access == RMALAB_ACCESS_LOCK_ALL)
        return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                            "lock_all: a passive-target epoch (%s) is already open; unlock "
                            "first",
                            w->access == RMALAB_ACCESS_LOCK ? "lock" : "lock_all");
    for (int r = 0; r < w->size; r++)
        if (w->no_locks[r])
            return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                                "lock_all: rank %d gave the hint no_locks = true, promising "
                                "that no passive-target lock targets it; use fence or PSCW",
                                r);
    rmalab__set_blocked(w, "lock_all");
    int e = MPI_Win_lock_all(mpi_mode(assert_), w->plain);
    rmalab__set_blocked(w, NULL);
    if (e != MPI_SUCCESS)
        return rmalab__mpi_fail(e, "MPI_Win_lock_all");
    rmalab__lock(w);
    drop_idle_fence(w);
    w->access = RMALAB_ACCESS_LOCK_ALL;
    set_ops(w, 0);
    rmalab__unlock(w);
    return RMALAB_OK;
}

int rmalab_win_unlock_all(rmalab_win *w)
{
    CHECK_WIN(w);
    if (w->access != RMALAB_ACCESS_LOCK_ALL)
        return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                            "unlock_all: no win:lock_all() epoch is open%s",
                            w->access == RMALAB_ACCESS_LOCK ? " (use win:unlock(target) after "
                                                              "win:lock(target))"
                                                            : "");
    rmalab__set_blocked(w, "unlock_all");
    int e = MPI_Win_unlock_all(w->plain);
    rmalab__set_blocked(w, NULL);
    if (e != MPI_SUCCESS)
        return rmalab__mpi_fail(e, "MPI_Win_unlock_all");
    access_closed(w);
    return RMALAB_OK;
}

int rmalab_win_flush(rmalab_win *w, int target)
{
    CHECK_WIN(w);
    if (target < 0 || target >= w->size)
        return rmalab__fail(RMALAB_ERR_RANK, "flush: rank %d is not in the window's group "
                                             "(ranks 0 to %d)",
                            target, w->size - 1);
    if (!(w->access == RMALAB_ACCESS_LOCK_ALL ||
          (w->access == RMALAB_ACCESS_LOCK && w->locked[target])))
        return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                            "flush: flushes complete operations of a passive-target epoch, and "
                            "rank %d is not locked; call win:lock(%d) or win:lock_all() first",
                            target, target);
    rmalab__set_blocked(w, "flush");
    int e = MPI_Win_flush(target, w->plain);
    rmalab__set_blocked(w, NULL);
    if (e != MPI_SUCCESS)
        return rmalab__mpi_fail(e, "MPI_Win_flush");
    rmalab__results_complete(w, target);
    return RMALAB_OK;
}

int rmalab_win_flush_all(rmalab_win *w)
{
    CHECK_WIN(w);
    if (w->access != RMALAB_ACCESS_LOCK_ALL && w->access != RMALAB_ACCESS_LOCK)
        return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                            "flush_all: flushes complete operations of a passive-target "
                            "epoch, and none is open; call win:lock(target) or "
                            "win:lock_all() first");
    rmalab__set_blocked(w, "flush_all");
    int e = MPI_Win_flush_all(w->plain);
    rmalab__set_blocked(w, NULL);
    if (e != MPI_SUCCESS)
        return rmalab__mpi_fail(e, "MPI_Win_flush_all");
    rmalab__results_complete(w, -1);
    return RMALAB_OK;
}
