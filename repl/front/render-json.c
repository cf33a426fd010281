/* JSON lines (render.h, docs/repl-json.md): `rmalab -n N --json` writes one
 * object per event on stdout, for programs (the Jupyter kernel). Every
 * object has "event"; "start" carries "version" (RENDER_JSON_VERSION).
 * Output and results come per rank as they arrive; "done" then carries the
 * command's folded text, as the REPL prints it. */
#include "render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rmalab/rmalab.h>

static void str(FILE *o, const char *s, size_t n)
{
    fputc('"', o);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(o, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", o);
        else if (c == '\t')
            fputs("\\t", o);
        else if (c < 0x20 || c == 0x7f)
            fprintf(o, "\\u%04x", c);
        else
            fputc(c, o);
    }
    fputc('"', o);
}

static void key_str(FILE *o, const char *key, const char *s, size_t n)
{
    fprintf(o, ",\"%s\":", key);
    str(o, s ? s : "", s ? n : 0);
}

static void ranks(FILE *o, const char *key, const rankset *s)
{
    fprintf(o, ",\"%s\":[", key);
    for (int r = 0, k = 0; s && r < s->n; r++)
        if (s->in[r])
            fprintf(o, "%s%d", k++ ? "," : "", r);
    fputc(']', o);
}

static const char *const names[] = {
    [EV_START] = "start", [EV_OUTPUT] = "output", [EV_RESULT] = "result",
    [EV_ERROR] = "error", [EV_DONE] = "done", [EV_RUNNING] = "running",
    [EV_NEVER] = "never", [EV_HINT] = "hint", [EV_NOTE] = "note",
    [EV_MESSAGE] = "message", [EV_IDLE] = "idle", [EV_END] = "end",
    [EV_DISPLAY] = "display",
};

/* A command's event: what finished (or never will), or what still runs;
 * its ranks and its text as the sink folds it. */
static void command(FILE *o, const sink_event *e)
{
    char *t = sink_text(e, 0);
    if (e->kind == EV_RUNNING) {
        key_str(o, "label", e->label, strlen(e->label));
        ranks(o, "ranks", e->ranks);
        fprintf(o, ",\"seconds\":%.1f", e->seconds);
    } else {
        key_str(o, "kind", e->blocks ? "chunk" : e->plain ? "status" : "note",
                e->blocks ? 5 : e->plain ? 6 : 4);
        ranks(o, "ranks", e->ranks);
    }
    key_str(o, "text", t, t ? strlen(t) : 0);
    free(t);
}

void render_json(void *ud, const sink_event *e)
{
    (void)ud;
    FILE *o = stdout;
    fprintf(o, "{\"event\":\"%s\"", names[e->kind]);
    if (e->id)
        fprintf(o, ",\"id\":%d", e->id);
    switch (e->kind) {
    case EV_START:
        fprintf(o, ",\"version\":%d,\"rmalab\":\"%s\",\"ranks\":%d", RENDER_JSON_VERSION,
                rmalab_version(), e->rank);
        key_str(o, "banner", e->text, e->len);
        break;
    case EV_OUTPUT:
    case EV_RESULT:
        fprintf(o, ",\"rank\":%d", e->rank);
        key_str(o, "text", e->text, e->len);
        break;
    case EV_ERROR:
        fprintf(o, ",\"rank\":%d", e->rank);
        key_str(o, "class", e->cls, e->cls ? strlen(e->cls) : 0);
        key_str(o, "message", e->text, e->len);
        if (e->finder >= 0)
            fprintf(o, ",\"finder\":%d", e->finder);
        break;
    case EV_DONE:
    case EV_NEVER:
    case EV_RUNNING: command(o, e); break;
    case EV_END:
        fprintf(o, ",\"status\":%d", e->status);
        key_str(o, "text", e->text, e->len);
        break;
    case EV_HINT:
        fprintf(o, ",\"final\":%s", e->status ? "true" : "false");
        key_str(o, "text", e->text, e->len);
        break;
    case EV_NOTE:
    case EV_MESSAGE: key_str(o, "text", e->text, e->len); break;
    case EV_DISPLAY:
        fprintf(o, ",\"rank\":%d", e->rank);
        key_str(o, "mime", e->mime, e->mime ? strlen(e->mime) : 0);
        key_str(o, "data", e->text, e->len);
        break;
    default: break;
    }
    fputs("}\n", o);
    fflush(o);
}

void render_json_reply(const char *event, const json_field *f, int n)
{
    FILE *o = stdout;
    fprintf(o, "{\"event\":\"%s\"", event);
    for (int i = 0; i < n; i++) {
        if (f[i].kind == JSON_STR) {
            key_str(o, f[i].key, f[i].str, f[i].str ? f[i].len : 0);
        } else if (f[i].kind == JSON_INT) {
            fprintf(o, ",\"%s\":%ld", f[i].key, f[i].num);
        } else if (f[i].kind == JSON_BOOL) {
            fprintf(o, ",\"%s\":%s", f[i].key, f[i].num ? "true" : "false");
        } else {
            fprintf(o, ",\"%s\":[", f[i].key);
            for (long k = 0; k < f[i].num; k++) {
                if (k)
                    fputc(',', o);
                str(o, f[i].strs[k], strlen(f[i].strs[k]));
            }
            fputc(']', o);
        }
    }
    fputs("}\n", o);
    fflush(o);
}
