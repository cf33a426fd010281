/* The deadlock hints (hints.h): what each blocked rank waits for, in
 * words, rings of ranks waiting for each other (cycle.c) and what ends
 * them, and ranks blocked the same way folded into one line (fold.c). */
#include "hints.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cycle.h"
#include "fold.h"
#include "waits.h"

/* What rank r, blocked on w in an epoch call, waits for: "in complete()
 * until rank 1 calls post()". A partner that failed and went idle may
 * still make its call, unlike a collective's member. */
static int waits_for(const rstate *all, int n, int r, const rstate_win *w, char *out,
                     size_t size)
{
    rankset miss;
    char call[40], set[256];
    if (!waits_partners(all, n, r, w, &miss, call, sizeof call))
        return 0;
    int nm = rankset_count(&miss);
    rankset_text(&miss, set, sizeof set);
    snprintf(out, size, "blocked in %s() until rank%s %s call%s %s", w->blocked,
             nm == 1 ? "" : "s", set, nm == 1 ? "s" : "", call);
    return 1;
}

/* Rank r, blocked in a call that is not collective: what it waits for,
 * from its window (an epoch call: "blocked in complete() until rank 1
 * calls post()") or its peer (a message: "blocked in recv() until rank 2
 * calls send()"). */
static int call_wait(const rstate *all, int n, int r, char *out, size_t size)
{
    const char *pcall;
    int peer;
    if (!waits_is_blocked(&all[r]) || all[r].collective)
        return 0;
    const rstate_win *w = waits_blocked_win(&all[r]);
    if (w)
        return waits_for(all, n, r, w, out, size);
    if ((peer = waits_message_missing(all, n, r, &pcall)) < 0)
        return 0;
    snprintf(out, size, "blocked in %s() until rank %d calls %s()", all[r].call, peer, pcall);
    return 1;
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
    if (!me->collective || !waits_collective_missing(all, n, r, &miss))
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

/* Can rank r's blocked call be interrupted? The core says, per call
 * (rmalab_blocked's interruptible: the rma engine's own waits). */
static int interruptible(const rstate *r)
{
    return waits_is_blocked(r) && r->interruptible;
}

/* "rank 0 waits for rank 1's post(), rank 1 waits for rank 0's post()",
 * then what ends it. */
static size_t ring_text(const rstate *all, int n, const int *ring, int len, int typed,
                        char *buf, size_t size)
{
    rankset to, stop = {.n = n};
    char call[40], set[256];
    size_t off = (size_t)snprintf(buf, size, "hint: deadlock: ");
    int native = 0;
    for (int i = 0; i < len && off < size; i++) {
        const rstate_win *w = waits_blocked_win(&all[ring[i]]);
        waits_on(all, n, ring[i], &to, call, sizeof call);
        off += (size_t)snprintf(buf + off, size - off, "%srank %d waits for rank %d's %s",
                                i ? ", " : "", ring[i], ring[(i + 1) % len], call);
        stop.in[ring[i]] = interruptible(&all[ring[i]]);
        native |= w && !all[ring[i]].collective && w->lock_wait == -1 &&
                  strcmp(w->engine, "native") == 0;
    }
    rankset_text(&stop, set, sizeof set);
    if (!typed && off < size)
        off += (size_t)snprintf(buf + off, size - off, "\n");
    else if (off < size && rankset_count(&stop))
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
static size_t ring_hints(const rstate *all, int n, int typed, char *buf, size_t size,
                         unsigned char *told)
{
    rankset *waits = calloc((size_t)n, sizeof *waits);
    int *ring = calloc((size_t)n, sizeof *ring);
    unsigned char *skip = calloc((size_t)n, 1);
    size_t off = 0;
    char call[40];
    for (int r = 0; waits && skip && r < n; r++) {
        waits_on(all, n, r, &waits[r], call, sizeof call);
        skip[r] = !waits_is_blocked(&all[r]);
    }
    for (int r = 0; waits && ring && skip && r < n && off < size; r++) {
        int len = skip[r] ? 0 : cycle_through(waits, n, r, skip, ring);
        if (len < 2)
            continue;
        off += ring_text(all, n, ring, len, typed, buf + off, size - off);
        for (int i = 0; i < len; i++)
            told[ring[i]] = skip[ring[i]] = 1; /* a rank is in one ring's line */
    }
    free(waits);
    free(ring);
    free(skip);
    return off;
}

int deadlock_rank_wait(const rstate *all, int n, int r, char *buf, size_t size)
{
    unsigned char *told = calloc((size_t)n, 1);
    buf[0] = '\0';
    int ok = told && waits_is_blocked(&all[r]) &&
             ((all[r].collective && collective_wait(all, n, r, buf, size, told, 0)) ||
              call_wait(all, n, r, buf, size));
    free(told);
    return ok;
}

void deadlock_hint(const rstate *all, int n, int typed, char *buf, size_t size)
{
    size_t off = 0;
    int blocked = 0;
    buf[0] = '\0';
    for (int r = 0; r < n; r++) {
        if (!all[r].valid || strcmp(all[r].state, "running") == 0)
            return; /* someone still runs Lua, or is unknown: no hint */
        blocked += waits_is_blocked(&all[r]);
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
        if (waits_is_blocked(&all[r]) && !(all[r].collective &&
                                     collective_wait(all, n, r, what[r], sizeof what[r], told, 0)))
            call_wait(all, n, r, what[r], sizeof what[r]);
    off = ring_hints(all, n, typed, buf, size, told);
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
