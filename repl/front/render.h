/* The sink's renderers (sink.h): each takes every event and shows what its
 * reader wants of it. The terminal's is term_render (term.h). */
#ifndef RMALAB_REPL_RENDER_H
#define RMALAB_REPL_RENDER_H

#include "sink.h"

/* render-text.c: a pipe's stdout (ud unused); the transcript (ud: the
 * session's transcript). */
void render_pipe(void *ud, const sink_event *e);
void render_transcript(void *ud, const sink_event *e);

/* render-json.c: JSON lines on stdout, one object per event (ud unused);
 * the format is in docs/repl-json.md ("JSON lines"). */
#define RENDER_JSON_VERSION 1
void render_json(void *ud, const sink_event *e);

/* A reply to a JSON request (requests.c): {"event":EVENT, fields...} on
 * one line of stdout. */
enum { JSON_STR, JSON_INT, JSON_BOOL, JSON_STRS };
typedef struct {
    const char *key;
    int kind;
    const char *str;        /* JSON_STR (len bytes) */
    size_t len;
    long num;               /* JSON_INT, JSON_BOOL */
    char *const *strs;      /* JSON_STRS: num strings */
} json_field;
void render_json_reply(const char *event, const json_field *f, int n);

#endif
