/* Rank states and hints (hint.h). A blocked rank's window says which epoch
 * it is in; the partner it waits for is found from the rma engine's
 * matching (posted/arrived) or, on the native engine, from the partner's
 * own window: a target that has no exposure epoch open to the origin has
 * not posted. */
#include "hint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"

static int parse_ranks(const char *v, int *out)
{
    int n = 0;
    while (*v && *v != ' ' && *v != '-' && n < HINT_MAX_RANKS) {
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

static void parse_win(const char *line, hint_win *w)
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

void hint_parse(const char *text, size_t len, hint_rank *r)
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
        else if (strncmp(line, "win=", 4) == 0 && r->nwins < HINT_MAX_WINS)
            parse_win(line, &r->wins[r->nwins++]);
        p += k + 1;
    }
}

static const hint_win *find_win(const hint_rank *r, unsigned long long id)
{
    for (int i = 0; r->valid && i < r->nwins; i++)
        if (r->wins[i].id == id)
            return &r->wins[i];
    return NULL;
}

static const hint_win *blocked_win(const hint_rank *r)
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

/* The ranks that rank `me`, blocked on window w, waits for, and the call
 * each must make; 0 when unknown. */
static int partners(const hint_rank *all, int n, int me, const hint_win *w, rankset *miss,
                    const char **call)
{
    memset(miss, 0, sizeof *miss);
    miss->n = n;
    if (strcmp(w->blocked, "wait") == 0) {
        *call = "complete()";
        for (int i = 0; i < w->nexp; i++) {
            int o = w->exp[i];
            const hint_win *ow = o < n ? find_win(&all[o], w->id) : NULL;
            int arrived = i < w->narr && w->arrived[i] > 0;
            int unknown = i >= w->narr || w->arrived[i] < 0;
            if (o < n && !arrived && (!unknown || !ow || strcmp(ow->access, "start") != 0 ||
                                      !has(ow->acc, ow->nacc, me) || strcmp(all[o].state, "idle") != 0))
                miss->in[o] = 1;
        }
    } else if (strcmp(w->blocked, "fence") == 0) {
        *call = "fence()";
        for (int r = 0; r < n && r < w->size; r++) {
            const hint_win *rw = find_win(&all[r], w->id);
            if (!rw || strcmp(rw->blocked, "fence") != 0)
                miss->in[r] = 1;
        }
    } else if (strcmp(w->access, "start") == 0) {
        *call = "post()";
        for (int i = 0; i < w->nacc; i++) {
            int t = w->acc[i];
            const hint_win *tw = t < n ? find_win(&all[t], w->id) : NULL;
            int known = i < w->npost && w->posted[i] >= 0;
            if (t < n && (known ? w->posted[i] == 0
                                : !tw || strcmp(tw->exposure, "post") != 0 ||
                                      !has(tw->exp, tw->nexp, me)))
                miss->in[t] = 1;
        }
    } else {
        return 0;
    }
    return rankset_count(miss);
}

void hint_status_line(const hint_rank *all, int n, int me, int timings, char *buf, size_t size)
{
    const hint_rank *r = &all[me];
    if (!r->valid) {
        snprintf(buf, size, "no answer");
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
    const hint_win *w = blocked_win(r);
    const char *d = w ? strstr(w->describe, "(); ") : NULL;
    size_t off = timings ? (size_t)snprintf(buf, size, "blocked %.1f s in %s()", r->seconds, r->call)
                         : (size_t)snprintf(buf, size, "blocked in %s()", r->call);
    if (d && off < size)
        off += (size_t)snprintf(buf + off, size - off, "; %s", d + 4);
    rankset miss;
    const char *call;
    if (w && partners(all, n, me, w, &miss, &call) && off < size) {
        char set[256];
        rankset_text(&miss, set, sizeof set);
        int one = rankset_count(&miss) == 1;
        off += (size_t)snprintf(buf + off, size - off, "; rank%s %s %s not called %s",
                                one ? "" : "s", set, one ? "has" : "have", call);
    }
    if (off < size)
        snprintf(buf + off, size - off, " (inside MPI: cannot be interrupted)");
}

/* What rank r, blocked on w, waits for: "in fence(); rank 1 raised an error
 * and will not reach it" or "in complete() until rank 1 calls post()". */
static int waits_for(const hint_rank *all, int n, int r, const hint_win *w, char *out,
                     size_t size)
{
    rankset miss, err = {.n = n};
    const char *call;
    char set[256];
    if (!partners(all, n, r, w, &miss, &call))
        return 0;
    for (int m = 0; m < n; m++)
        err.in[m] = miss.in[m] && all[m].last_error && strcmp(all[m].state, "idle") == 0;
    int ne = rankset_count(&err), nm = rankset_count(&miss);
    rankset_text(ne ? &err : &miss, set, sizeof set);
    if (ne)
        snprintf(out, size, "blocked in %s(); rank%s %s raised an error and will not reach it",
                 w->blocked, ne == 1 ? "" : "s", set);
    else
        snprintf(out, size, "blocked in %s() until rank%s %s call%s %s", w->blocked,
                 nm == 1 ? "" : "s", set, nm == 1 ? "s" : "", call);
    return 1;
}

void hint_deadlock(const hint_rank *all, int n, char *buf, size_t size)
{
    size_t off = 0;
    int blocked = 0;
    buf[0] = '\0';
    for (int r = 0; r < n; r++) {
        if (!all[r].valid || strcmp(all[r].state, "running") == 0)
            return; /* someone still runs Lua, or is unknown: no hint */
        blocked += strcmp(all[r].state, "blocked") == 0;
    }
    if (!blocked)
        return;
    char (*what)[400] = calloc((size_t)n, sizeof *what);
    if (!what)
        return;
    for (int r = 0; r < n; r++) {
        const hint_win *w = strcmp(all[r].state, "blocked") == 0 ? blocked_win(&all[r]) : NULL;
        if (w)
            waits_for(all, n, r, w, what[r], sizeof what[r]);
    }
    /* Ranks blocked the same way share one line: "ranks 0,2 are ...". */
    for (int r = 0; r < n && off < size; r++) {
        if (!what[r][0])
            continue;
        rankset same = {.n = n};
        for (int q = r; q < n; q++)
            if (strcmp(what[q], what[r]) == 0 && q != r)
                same.in[q] = 1, what[q][0] = '\0';
        same.in[r] = 1;
        char set[256];
        rankset_text(&same, set, sizeof set);
        int one = rankset_count(&same) == 1;
        off += (size_t)snprintf(buf + off, size - off, "hint: rank%s %s %s %s\n", one ? "" : "s",
                                set, one ? "is" : "are", what[r]);
        what[r][0] = '\0';
    }
    free(what);
}
