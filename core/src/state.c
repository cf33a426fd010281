/* The observable epoch state: a snapshot any thread may take, also while
 * the owning thread is blocked in MPI (the REPL's control thread does), and
 * its description in words. Reads the epoch state under the window's lock
 * and asks the engine what has arrived. Calls the engines and below. */
#include "win-private.h"
#include "sync-kinds.h"
#include "state.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>


const char *rmalab_access_name(rmalab_access a)
{
    static const char *const names[] = {
        [RMALAB_ACCESS_NONE] = "none", [RMALAB_ACCESS_FENCE] = "fence",
        [RMALAB_ACCESS_START] = "start", [RMALAB_ACCESS_LOCK] = "lock",
        [RMALAB_ACCESS_LOCK_ALL] = "lock_all",
    };
    return (unsigned)a < sizeof names / sizeof names[0] ? names[a] : "?";
}

const char *rmalab_exposure_name(rmalab_exposure e)
{
    static const char *const names[] = {
        [RMALAB_EXPOSURE_NONE] = "none", [RMALAB_EXPOSURE_FENCE] = "fence",
        [RMALAB_EXPOSURE_POST] = "post",
    };
    return (unsigned)e < sizeof names / sizeof names[0] ? names[e] : "?";
}

void rmalab_win_state(rmalab_win *w, rmalab_epoch_state *s)
{
    memset(s, 0, sizeof *s);
    s->lock_waiting = -1;
    if (!w)
        return;
    rmalab__win_state_lock(w);
    s->access = w->ep.access;
    s->exposure = w->ep.exposure;
    if (w->ep.access == RMALAB_ACCESS_START) {
        s->n_access = w->ep.ngroup;
        for (int i = 0; i < w->ep.ngroup && i < RMALAB_STATE_MAX_RANKS; i++) {
            s->access_ranks[i] = w->ep.group[i];
            s->posted[i] = w->eng->posted ? w->eng->posted(w, w->ep.group[i]) : -1;
        }
    } else if (w->ep.access == RMALAB_ACCESS_LOCK) {
        for (int r = 0; r < w->size; r++) {
            if (!w->ep.locked[r])
                continue;
            if (s->n_access < RMALAB_STATE_MAX_RANKS) {
                s->access_ranks[s->n_access] = r;
                s->lock_exclusive[s->n_access] = w->ep.locked[r] == 2;
            }
            s->n_access++;
        }
    }
    if (w->ep.exposure == RMALAB_EXPOSURE_POST) {
        s->n_exposure = w->ep.nxgroup;
        for (int i = 0; i < w->ep.nxgroup && i < RMALAB_STATE_MAX_RANKS; i++) {
            s->exposure_ranks[i] = w->ep.xgroup[i];
            s->arrived[i] = w->eng->arrived ? w->eng->arrived(w, w->ep.xgroup[i]) : -1;
        }
    }
    s->ops_in_epoch = __atomic_load_n(&w->ep.ops_in_epoch, __ATOMIC_RELAXED);
    s->epochs = w->ep.epochs;
    s->blocked_in = atomic_load_explicit(&w->blocked_in, memory_order_acquire);
    s->blocked_for = s->blocked_in
                         ? rmalab__win_coarse_now() -
                               atomic_load_explicit(&w->blocked_since, memory_order_relaxed)
                         : 0.0;
    s->engine = w->eng->name;
    s->access_nocheck = s->access == RMALAB_ACCESS_START && w->ep.start_nocheck;
    s->exposure_nocheck = s->exposure == RMALAB_EXPOSURE_POST && w->ep.post_nocheck;
    s->lock_waiting = w->ep.lock_waiting;
    s->lock_waiting_exclusive = w->ep.lock_waiting_exclusive;
    rmalab__win_state_unlock(w);
}

size_t rmalab__state_ranks_text(char *buf, size_t size, const int *ranks, int n)
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

/* The row of the call that opens the epoch a or x; NULL for none. */
static const rmalab_sync_kind *opener(rmalab_access a, rmalab_exposure x)
{
    int id = rmalab__kind_opener(a, x);
    return id < RMALAB_SYNC_NKINDS ? &rmalab__kind_rows[id] : NULL;
}

void rmalab_win_describe(rmalab_win *w, char *buf, size_t size)
{
    rmalab__state_describe(w, buf, size, true);
}

/* A description being written: at most size bytes at buf, off so far. */
typedef struct {
    char *buf;
    size_t size, off;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
    if (t->off >= t->size)
        return;
    va_list ap;
    va_start(ap, fmt);
    t->off += (size_t)vsnprintf(t->buf + t->off, t->size - t->off, fmt, ap);
    va_end(ap);
}

/* The ranks of `ranks` (n) whose flag in `got` is 0 go to `missing`, *k of
 * them; returns how many have it. */
static int arrivals(const int *ranks, const int *got, int n, int *missing, int *k)
{
    int have = 0;
    *k = 0;
    for (int i = 0; i < n && i < RMALAB_STATE_MAX_RANKS; i++)
        if (!got[i])
            missing[(*k)++] = ranks[i];
        else
            have++;
    return have;
}

static void describe_access(text *t, const rmalab_epoch_state *s, bool matching)
{
    const rmalab_sync_kind *by = opener(s->access, RMALAB_EXPOSURE_NONE);
    char g[512];
    switch (s->access) {
    case RMALAB_ACCESS_NONE: put(t, "no access epoch"); break;
    case RMALAB_ACCESS_FENCE:
        put(t, "fence epoch (%llu RMA calls)", (unsigned long long)s->ops_in_epoch);
        break;
    case RMALAB_ACCESS_START:
        rmalab__state_ranks_text(g, sizeof g, s->access_ranks, s->n_access);
        put(t, "access epoch to %s", g);
        if (s->access_nocheck)
            put(t, " (%s() was nocheck)", by->name);
        if (matching && s->n_access && s->posted[0] >= 0) {
            int miss[RMALAB_STATE_MAX_RANKS] = {0}, k;
            int n = arrivals(s->access_ranks, s->posted, s->n_access, miss, &k);
            rmalab__state_ranks_text(g, sizeof g, miss, k);
            put(t, ": %s() arrived from %d of %d%s%s", by->partner, n, s->n_access,
                k ? ", missing " : "", k ? g : "");
        }
        break;
    case RMALAB_ACCESS_LOCK:
        rmalab__state_ranks_text(g, sizeof g, s->access_ranks, s->n_access);
        put(t, "passive-target epoch: locked %s", g);
        break;
    case RMALAB_ACCESS_LOCK_ALL: put(t, "passive-target epoch: lock_all"); break;
    }
}

static void describe_exposure(text *t, const rmalab_epoch_state *s, bool matching)
{
    const rmalab_sync_kind *by = opener(RMALAB_ACCESS_NONE, s->exposure);
    char g[512];
    rmalab__state_ranks_text(g, sizeof g, s->exposure_ranks, s->n_exposure);
    put(t, "; exposure epoch to %s", g);
    if (s->exposure_nocheck)
        put(t, " (%s() was nocheck)", by->name);
    if (matching && s->n_exposure && s->arrived[0] >= 0) {
        int miss[RMALAB_STATE_MAX_RANKS] = {0}, k;
        int n = arrivals(s->exposure_ranks, s->arrived, s->n_exposure, miss, &k);
        char m[512];
        rmalab__state_ranks_text(m, sizeof m, miss, k);
        put(t, ": waits for %s() from %s: %d of %d arrived",
            rmalab__kind_rows[by->opens->ended_by].partner, k ? m : g, n, s->n_exposure);
    }
}

/* With `matching`, the rma engine's view of what has arrived is added; error
 * messages leave it out so that both engines say the same. */
void rmalab__state_describe(rmalab_win *w, char *buf, size_t size, bool matching)
{
    rmalab_epoch_state s;
    text t = {buf, size, 0};
    if (!size)
        return;
    buf[0] = '\0';
    rmalab_win_state(w, &s);
    /* The calls that opened the epochs (rmalab/sync.h) name what is awaited. */
    if (s.blocked_in)
        put(&t, "blocked %.1f s in %s(); ", s.blocked_for, s.blocked_in);
    describe_access(&t, &s, matching);
    if (s.lock_waiting == RMALAB_LOCK_WAIT_ALL)
        put(&t, "; waiting for lock_all's shared locks to be granted");
    else if (s.lock_waiting >= 0)
        put(&t, "; waiting for a%s lock on rank %d to be granted",
            s.lock_waiting_exclusive ? "n exclusive" : " shared", s.lock_waiting);
    if (s.exposure == RMALAB_EXPOSURE_POST)
        describe_exposure(&t, &s, matching);
}
