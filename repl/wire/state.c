/* A rank's STATE text (docs/repl.md, state.h): written by the rank from
 * the core's view, parsed by the front end into an rstate, the fields the
 * :status lines and the deadlock hints read. */
#include "state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Writing                                                                  */

/* The core's text (rmalab_state_text): the blocked call's lines, then the
 * windows' from c->wins_at on. */
void state_look(state_core *c)
{
    memset(c, 0, sizeof *c);
    c->blocked = rmalab_blocked_get(&c->b);
    const rmalab_blocked *b = c->blocked ? &c->b : NULL;
    char small[4096];
    size_t n = rmalab_state_text(b, small, sizeof small);
    char *text = n < sizeof small ? small : malloc(n + 1);
    if (text != small && (!text || rmalab_state_text(b, text, n + 1) != n)) {
        free(text);
        return;
    }
    const char *win = strstr(text, "\nwin=");
    c->wins_at = win ? (size_t)(win - text) : n;
    strbuf_put(&c->text, text, n);
    if (text != small)
        free(text);
}

void state_write(strbuf *t, state_core *c, const state_self *me)
{
    int running = me->running || me->queued, blocked = c->blocked && me->running;
    const rmalab_blocked *b = &c->b;
    strbuf_add(t, "state=%s\nseconds=%.1f", !running ? "idle" : blocked ? "blocked" : "running",
               blocked ? b->seconds : me->seconds);
    if (me->label && me->id)
        strbuf_add(t, "\nlabel=%s\nid=%s", me->label, me->id);
    else if (me->label)
        strbuf_add(t, "\nlabel=%s", me->label);
    if (me->test_case[0])
        strbuf_add(t, "\ncase=%s", me->test_case);
    if (!running && me->failed[0])
        strbuf_add(t, "\nfailed=%s", me->failed);
    size_t from = blocked ? 0 : c->wins_at; /* the call's lines only when it runs */
    if (c->text.len > from)
        strbuf_put(t, strbuf_text(&c->text) + from, c->text.len - from);
    strbuf_free(&c->text);
}

/* ------------------------------------------------------------------------ */
/* Parsing                                                                  */

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
    field(line, "engine", w->engine, sizeof w->engine);
    field(line, "size", v, sizeof v);
    w->size = atoi(v);
    field(line, "access_ranks", v, sizeof v);
    w->nacc = parse_ranks(v, w->acc);
    field(line, "lock_modes", v, sizeof v);
    for (int i = 0; i < w->nacc && 2 * i < (int)strlen(v); i++)
        w->lock_mode[i] = v[2 * i];
    field(line, "lock_wait", v, sizeof v);
    char *colon = strchr(v, ':');
    w->lock_wait = !colon ? -1 : strncmp(v, "all:", 4) == 0 ? RSTATE_LOCK_ALL : atoi(v);
    w->lock_wait_mode = colon ? colon[1] : 0;
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
        else if (strncmp(line, "at=", 3) == 0)
            snprintf(r->at, sizeof r->at, "%s", line + 3);
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
