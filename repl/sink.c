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

char *sink_text(const sink_event *e, int plain)
{
    if (!e->blocks) {
        const char *t = plain && e->plain ? e->plain : e->text;
        return strdup(t ? t : "");
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return NULL;
    fold_print(m, e->blocks, e->ranks ? e->ranks->n : 0);
    if (e->kind == EV_NEVER) {
        char set[256];
        rankset_text(e->ranks, set, sizeof set);
        fprintf(m, "[%s] \xe2\x80\xa6 never finished: %s\n", set, e->label);
    }
    fclose(m);
    return buf;
}

void sink_running_text(const sink_event *e, char *buf, size_t size)
{
    char set[256];
    rankset_text(e->ranks, set, sizeof set);
    snprintf(buf, size, "[%s] \xe2\x80\xa6 still running: %s  (%.1f s)\n", set, e->label,
             e->seconds);
}
