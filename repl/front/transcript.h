/* Transcripts of a session (transcript.c, docs/testing.md): what was typed
 * and the output it produced, in the order the commands were given, as
 * pipe mode prints it. The front end keeps one for every session, for
 * :save; :record (or rmalab --record FILE) also writes it as it grows, and
 * `--record -` in pipe mode makes it the session's whole output, which is
 * how `rmalab test` replays a transcript. Also the reader of .rlab files. */
#ifndef RMALAB_REPL_TRANSCRIPT_H
#define RMALAB_REPL_TRANSCRIPT_H

#include <stddef.h>
#include <stdio.h>

#include "../wire/strbuf.h"

typedef struct ts_entry ts_entry;

typedef struct {
    int nranks;
    ts_entry *head, *tail; /* waiting for an earlier command's output */
    strbuf log;            /* everything settled, in order */
    FILE *rec;             /* :record, or stdout for --record - */
} transcript;

void ts_init(transcript *t, int nranks);
void ts_free(transcript *t);
/* A typed line: prefix "> " for a new command, ">> " for a chunk's
 * continuation. */
void ts_input(transcript *t, const char *prefix, const char *line);
/* Command `id` will print something; its place is now. */
void ts_expect(transcript *t, int id);
/* Command `id`'s output, as pipe mode prints it. */
void ts_output(transcript *t, int id, const char *text);
/* Output that is not a command's (a note of the front end's own). */
void ts_note(transcript *t, const char *text);
/* :save: the header and everything settled so far (commands that have
 * not finished are left out with their output). 0, or -1 with errno. */
int ts_save(const transcript *t, const char *path);
/* :record: like :save, then every settled entry as it settles. "-" is
 * stdout. 0, or -1 with errno. */
int ts_record(transcript *t, const char *path);

/* Reading a .rlab file: the input lines to replay (prefixes removed, each
 * ending in \n) and the expected body (every line that is not a comment).
 * malloc'd; 0 or -1. The header (its rank count) is a scenario's header:
 * scenario_parse reads it. */
typedef struct {
    char *input, *body;
} ts_file;
int ts_parse(const char *text, size_t len, ts_file *out);
/* The body of a transcript text: its lines that are not comments ("--"). */
char *ts_body(const char *text, size_t len);

#endif
