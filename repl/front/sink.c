/* The sink (sink.h): events pass to every renderer in the order they were
 * added; the texts that several renderers print are made here once. */
#include "sink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold.h"

void sink_add(sink *k, sink_fn fn, void *ud)
{
    if (k->n < SINK_MAX) {
        k->fn[k->n] = fn;
        k->ud[k->n++] = ud;
    }
}

void sink_emit(sink *k, const sink_event *e)
{
    for (int i = 0; i < k->n; i++)
        k->fn[i](k->ud[i], e);
}

void sink_emit_text(sink *k, int kind, const char *text)
{
    sink_event e = {.kind = kind, .text = text, .len = strlen(text)};
    sink_emit(k, &e);
}

/* The folded blocks (those not in `skip`), then NEVER's or RUNNING's line. */
static char *text_of(const sink_event *e, const unsigned char *skip)
{
    int n = e->ranks ? e->ranks->n : 0;
    char *buf = NULL, **part = calloc((size_t)n + 1, sizeof *part);
    size_t len = 0;
    FILE *m = part ? open_memstream(&buf, &len) : NULL;
    if (!m) {
        free(part);
        return NULL;
    }
    for (int r = 0; e->blocks && r < n; r++)
        part[r] = skip && skip[r] ? NULL : e->blocks[r];
    fold_print(m, part, n);
    char set[256];
    rankset_text(e->ranks, set, sizeof set);
    if (e->kind == EV_NEVER)
        fprintf(m, "[%s] \xe2\x80\xa6 never finished: %s\n", set, e->label);
    else if (e->kind == EV_RUNNING)
        fprintf(m, "[%s] \xe2\x80\xa6 still running: %s  (%.1f s)\n", set, e->label,
                e->seconds);
    fclose(m);
    free(part);
    return buf;
}

char *sink_text(const sink_event *e, int plain)
{
    if (!e->blocks && e->kind != EV_RUNNING) {
        const char *t = plain && e->plain ? e->plain : e->text;
        return strdup(t ? t : "");
    }
    return text_of(e, NULL);
}

char *sink_text_new(const sink_event *e)
{
    if (!e->blocks && e->kind != EV_RUNNING)
        return sink_text(e, 0);
    return text_of(e, e->shown);
}
