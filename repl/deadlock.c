/* Rank states and deadlock hints (deadlock.h). A rank blocked in a
 * collective call (the core says which, on which window or communicator,
 * and its members) waits for every member that is not blocked in the same
 * call on the same object. A rank blocked in an epoch call finds its
 * partner from its window: the rma engine's matching (posted/arrived) or,
 * on the native engine, the partner's own window (a target that has no
 * exposure epoch open to the origin has not posted). Which call a partner
 * must make comes from the core's table of synchronisation kinds
 * (rmalab/sync.h): the one thing this file asks the core. */
#include "deadlock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rmalab/sync.h>

#include "cmdline.h"
#include "fold.h"

static int parse_ranks(const char *v, int *out)
{
    int n = 0;
    while (*v && *v != ' ' && *v != '-' && n < RSTATE_MAX_RANKS) {
        out[n++] = atoi(v);
        while (*v && *v != ',' && *v != ' ')
            v++;
        if (*v == ',')
            v++;
    }
    return n;
}

static void field(const char *line, const char *key, char *out, size_t size)
{
    char pat[32];
    snprintf(pat, sizeof pat, " %s=", key);
    const char *p = strstr(line, pat);
    out[0] = '\0';
    if (!p)
        return;
    p += strlen(pat);
    size_t k = 0;
    while (p[k] && p[k] != ' ' && p[k] != '\n' && k + 1 < size)
        k++;
    memcpy(out, p, k);
    out[k] = '\0';
}

static void parse_win(const char *line, rstate_win *w)
{
    char v[256];
    memset(w, 0, sizeof *w);
    w->id = strtoull(line + 4, NULL, 10);
    field(line, "access", w->access, sizeof w->access);
    field(line, "exposure", w->exposure, sizeof w->exposure);
    field(line, "blocked", w->blocked, sizeof w->blocked);
    field(line, "size", v, sizeof v);
    w->size = atoi(v);
    field(line, "access_ranks", v, sizeof v);
    w->nacc = parse_ranks(v, w->acc);
    field(line, "posted", v, sizeof v);
    w->npost = parse_ranks(v, w->posted);
    field(line, "exposure_ranks", v, sizeof v);
    w->nexp = parse_ranks(v, w->exp);
    field(line, "arrived", v, sizeof v);
    w->narr = parse_ranks(v, w->arrived);
    const char *d = strstr(line, " describe=");
    if (d) {
        d += 10;
        size_t k = strcspn(d, "\n");
        snprintf(w->describe, sizeof w->describe, "%.*s", (int)k, d);
    }
}

void rstate_parse(const char *text, size_t len, rstate *r)
{
    int last_error = r->last_error;
    memset(r, 0, sizeof *r);
    r->valid = 1;
    r->last_error = last_error;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t k = nl ? (size_t)(nl - p) : (size_t)(end - p);
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)k, p);
        if (strncmp(line, "state=", 6) == 0)
            snprintf(r->state, sizeof r->state, "%s", line + 6);
        else if (strncmp(line, "seconds=", 8) == 0)
            r->seconds = atof(line + 8);
        else if (strncmp(line, "label=", 6) == 0)
            snprintf(r->label, sizeof r->label, "%s", line + 6);
        else if (strncmp(line, "call=", 5) == 0)
            snprintf(r->call, sizeof r->call, "%s", line + 5);
        else if (strncmp(line, "case=", 5) == 0)
            snprintf(r->test_case, sizeof r->test_case, "%s", line + 5);
        else if (strncmp(line, "collective=", 11) == 0)
            r->collective = atoi(line + 11);
        else if (strncmp(line, "interruptible=", 14) == 0)
            r->interruptible = atoi(line + 14);
        else if (strncmp(line, "object=", 7) == 0)
            sscanf(line + 7, "%7s %llu", r->object, &r->object_id);
        else if (strncmp(line, "members=", 8) == 0)
            r->nmembers = parse_ranks(line + 8, r->members);
        else if (strncmp(line, "failed=", 7) == 0)
            sscanf(line + 7, "%31s %47s %7s %llu", r->failed, r->failed_class, r->failed_object,
                   &r->failed_id);
        else if (strncmp(line, "win=", 4) == 0 && r->nwins < RSTATE_MAX_WINS)
            parse_win(line, &r->wins[r->nwins++]);
        p += k + 1;
    }
}

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

/* The ranks that rank `me`, blocked on window w in an epoch call, waits
 * for, and the call each must make ("complete()", the kind's partner); 0
 * when unknown. (Collectives are collective_wait's: the core names their
 * members.) */
static int partners(const rstate *all, int n, int me, const rstate_win *w, rankset *miss,
                    char *call, size_t size)
{
    memset(miss, 0, sizeof *miss);
    miss->n = n;
    const rmalab_sync_kind *k = blocked_kind(w);
    if (!k || !k->partner)
        return 0;
    snprintf(call, size, "%s()", k->partner);
    if (k->acquires == RMALAB_ACQUIRE_EPOCH) { /* wait: each origin's complete */
        for (int i = 0; i < w->nexp; i++) {
            int o = w->exp[i];
            const rstate_win *ow = o < n ? find_win(&all[o], w->id) : NULL;
            int arrived = i < w->narr && w->arrived[i] > 0;
            int unknown = i >= w->narr || w->arrived[i] < 0;
            if (o < n && !arrived &&
                (!unknown || !ow ||
                 strcmp(ow->access, rmalab_access_name(RMALAB_ACCESS_START)) != 0 ||
                 !has(ow->acc, ow->nacc, me) || strcmp(all[o].state, "idle") != 0))
                miss->in[o] = 1;
        }
    } else if (strcmp(w->access, rmalab_access_name(RMALAB_ACCESS_START)) == 0) {
        for (int i = 0; i < w->nacc; i++) { /* start, complete, an operation: the posts */
            int t = w->acc[i];
            const rstate_win *tw = t < n ? find_win(&all[t], w->id) : NULL;
            int known = i < w->npost && w->posted[i] >= 0;
            const char *post = rmalab_exposure_name(RMALAB_EXPOSURE_POST);
            if (t < n && (known ? w->posted[i] == 0
                                : !tw || strcmp(tw->exposure, post) != 0 ||
                                      !has(tw->exp, tw->nexp, me)))
                miss->in[t] = 1;
        }
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

static int epoch_wait(const rstate *all, int n, int r, char *out, size_t size);

/* Rank r, blocked in a collective: "blocked in free(); rank 0's free()
 * failed (ERR_RMA_SYNC) and rank 1 is blocked in wait() until rank 0 calls
 * complete()". The ranks described inside are marked in `told`. */
static int collective_wait(const rstate *all, int n, int r, char *out, size_t size,
                           unsigned char *told, int depth)
{
    const rstate *me = &all[r];
    rankset miss, idle = {.n = n}, err = {.n = n};
    if (!collective_missing(all, n, r, &miss))
        return 0;
    char parts[1600] = "", set[256], one[700], sub[600];
    size_t off = 0;
    for (int m = 0; m < n; m++) {
        if (!miss.in[m])
            continue;
        const rstate *o = &all[m];
        if (failed_same(me, o)) {
            snprintf(one, sizeof one, "rank %d's %s() failed (%s)", m, me->call, o->failed_class);
            off = clause(parts, sizeof parts, off, one);
        } else if (strcmp(o->state, "idle") == 0 && o->last_error) {
            err.in[m] = 1;
        } else if (strcmp(o->state, "idle") == 0) {
            idle.in[m] = 1;
        } else if (depth == 0 && (epoch_wait(all, n, m, sub, sizeof sub) ||
                                  collective_wait(all, n, m, sub, sizeof sub, told, 1))) {
            snprintf(one, sizeof one, "rank %d is %s", m, sub);
            off = clause(parts, sizeof parts, off, one);
            told[m] = 1;
        } else {
            snprintf(one, sizeof one, "rank %d is blocked in %s()", m, o->call);
            off = clause(parts, sizeof parts, off, one);
        }
    }
    int ne = rankset_count(&err), ni = rankset_count(&idle);
    if (ne) {
        rankset_text(&err, set, sizeof set);
        snprintf(one, sizeof one, "rank%s %s raised an error and will not reach it",
                 ne == 1 ? "" : "s", set);
        off = clause(parts, sizeof parts, off, one);
    }
    if (ni && !off) {
        rankset_text(&idle, set, sizeof set);
        snprintf(out, size, "blocked in %s() until rank%s %s call%s %s()", me->call,
                 ni == 1 ? "" : "s", set, ni == 1 ? "s" : "", me->call);
        return 1;
    }
    if (ni) {
        rankset_text(&idle, set, sizeof set);
        snprintf(one, sizeof one, "rank%s %s %s not called %s()", ni == 1 ? "" : "s", set,
                 ni == 1 ? "has" : "have", me->call);
        clause(parts, sizeof parts, off, one);
    }
    snprintf(out, size, "blocked in %s(); %s", me->call, parts);
    return 1;
}

/* Rank r, blocked in an epoch call (or a collective the core did not
 * describe): what it waits for, from its window. */
static int epoch_wait(const rstate *all, int n, int r, char *out, size_t size)
{
    if (!is_blocked(&all[r]) || all[r].collective)
        return 0;
    const rstate_win *w = blocked_win(&all[r]);
    return w && waits_for(all, n, r, w, out, size);
}

int rstate_progressing(const rstate *all, int n)
{
    rankset miss;
    for (int r = 0; r < n; r++)
        if (is_blocked(&all[r]) && all[r].collective && all[r].nmembers &&
            !collective_missing(all, n, r, &miss))
            return 1;
    return 0;
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
            epoch_wait(all, n, r, what[r], sizeof what[r]);
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
