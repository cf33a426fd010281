/* The session's command queue (session.h): each command the front end
 * sends, in the order given, with what each rank answered; sending a
 * frame to the ranks (the session's timers read wire/clock.h). Below the loop
 * (session.c), admitting the ranks (admit.c) and the verdict (verdict.c),
 * which all use it. */
#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void session_send_all(session *s, const rankset *to, int type, int n, const char *const *f)
{
    for (int r = 0; r < s->n; r++)
        if ((!to || to->in[r]) && s->p[r].fd >= 0)
            chan_send(s->p[r].fd, type, n, f, NULL);
}

static cmd *cmd_new(session *s, int kind, const rankset *target, const char *label)
{
    cmd *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->kind = kind;
    c->id = ++s->next_id;
    c->target = *target;
    c->sent = clock_now();
    snprintf(c->label, sizeof c->label, "%s", label);
    c->block = calloc((size_t)s->n, sizeof *c->block);
    c->status = calloc((size_t)s->n, sizeof *c->status);
    c->failed = calloc((size_t)s->n, 1);
    c->shown = calloc((size_t)s->n, 1);
    c->finder = malloc((size_t)s->n * sizeof *c->finder);
    c->err_at = calloc((size_t)s->n, sizeof *c->err_at);
    if (!c->block || !c->status || !c->failed || !c->shown || !c->finder || !c->err_at) {
        session_cmd_free(s, c);
        return NULL;
    }
    for (int r = 0; r < s->n; r++)
        c->finder[r] = -1;
    c->pending = rankset_count(target);
    ts_expect(&s->ts, c->id);
    if (s->tail)
        s->tail->next = c;
    else
        s->head = c;
    s->tail = c;
    return c;
}

void session_cmd_free(session *s, cmd *c)
{
    for (int r = 0; c->block && r < s->n; r++)
        free(c->block[r]);
    free(c->block);
    free(c->status);
    free(c->failed);
    free(c->shown);
    free(c->finder);
    free(c->err_at);
    free(c->text);
    free(c->plain);
    free(c);
}

cmd *session_find(session *s, int id)
{
    for (cmd *c = s->head; c; c = c->next)
        if (c->id == id)
            return c;
    return NULL;
}

/* Send a RUN or FILE to the command's targets (a RUN's chunk name, if
 * not NULL, as a fourth field). */
static void send_cmd(session *s, cmd *c, int type, const char *body, const char *name)
{
    char id[16];
    snprintf(id, sizeof id, "%d", c->id);
    const char *fl[] = {id, body, c->label, name};
    session_send_all(s, &c->target, type, name ? 4 : 3, fl);
    for (int r = 0; r < s->n; r++) {
        if (c->target.in[r] && s->p[r].busy > 0)
            s->hint_shown[0] = '\0'; /* queued behind a blocked call: hint again */
        s->p[r].busy += c->target.in[r];
    }
    s->sent_seq = s->status_seq; /* states asked before this are stale */
    s->deadlocked = 0;
    s->hint_sig[0] = '\0';
}

cmd *session_run(session *s, const rankset *target, const char *chunk)
{
    return session_run_at(s, target, chunk, NULL, 1);
}

cmd *session_run_at(session *s, const rankset *target, const char *chunk, const char *name,
                    int line)
{
    char label[64];
    size_t k = strcspn(chunk, "\n"), n = strlen(chunk);
    snprintf(label, sizeof label, "%.*s%s", (int)(k < 40 ? k : 40), chunk, k > 40 ? "..." : "");
    cmd *c = cmd_new(s, CMD_RUN, target, label);
    int pad = line > 1 && line < 100000 ? line - 1 : 0;
    char *body = malloc(n + (size_t)pad + 1);
    if (c && body) { /* Lua counts the lines from the first: as many newlines before it */
        memset(body, '\n', (size_t)pad);
        memcpy(body + pad, chunk, n + 1);
        send_cmd(s, c, CHAN_RUN, body, name);
    }
    free(body);
    return c;
}

cmd *session_file(session *s, const char *path)
{
    rankset all = {.n = s->n};
    memset(all.in, 1, (size_t)s->n);
    cmd *c = cmd_new(s, CMD_FILE, &all, path);
    if (c)
        send_cmd(s, c, CHAN_FILE, path, NULL);
    return c;
}

cmd *session_status(session *s, const rankset *target)
{
    cmd *c = cmd_new(s, CMD_STATUS, target, ":status");
    if (c)
        c->pending = 1;
    return c;
}

void session_note(session *s, const char *text)
{
    if (!s->ordered) {
        sink_emit_text(&s->out, EV_NOTE, text);
        return;
    }
    rankset none = {.n = s->n};
    cmd *c = cmd_new(s, CMD_NOTE, &none, "note");
    if (c)
        c->text = strdup(text);
}

