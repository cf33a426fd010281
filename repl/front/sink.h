/* The one way out of the front end (sink.c, docs/repl.md): every per-rank
 * output, result, error, notice, hint, status and note of a session is an
 * event handed to the session's sink, which passes it to its renderers: the
 * terminal (repl.c's term), text for a pipe (render-text.c), the
 * transcript (transcript.c through render-text.c), JSON lines for programs
 * (render-json.c) and, in `rmalab test`, the run's result, which tap.c
 * writes as TAP (scenario-run.c). */
#ifndef RMALAB_REPL_SINK_H
#define RMALAB_REPL_SINK_H

#include <stddef.h>

#include "cmdline.h"

enum {
    EV_START,   /* the ranks are there: text is the banner, rank the count */
    EV_OUTPUT,  /* a rank's print/io.write, as it came (rank, text) */
    EV_RESULT,  /* a rank finished a command: text its results, tab-separated */
    EV_ERROR,   /* a rank's command failed: text the message, cls the class */
    EV_DONE,    /* every target finished the command; for a :status or a
                   note, its text is ready */
    EV_RUNNING, /* still running after a second (ranks, seconds; blocks: the
                   errors of the ranks that finished, which may be why the
                   others wait); again when another rank fails meanwhile */
    EV_NEVER,   /* the session ends before these ranks finished it */
    EV_HINT,    /* a deadlock hint (text: "hint: ..." lines); status 1: the
                   session ends on it */
    EV_NOTE,    /* a line of the front end's own (a bad command line), where no
                   order is kept; in order, a note is a command (DONE) */
    EV_MESSAGE, /* about the session itself (":save" wrote a file): not part
                   of the transcript; a pipe's goes to stderr */
    EV_IDLE,    /* no command is pending */
    EV_END,     /* the session is over: status, text what ended it or "" */
    EV_DISPLAY, /* a rank shows a picture during a command (rank, mime, text
                   the data): JSON lines only (:timeline, :trace svg) */
};

typedef struct {
    int kind;
    int id;                 /* the command's, or 0 */
    const char *label;      /* the command's first line */
    int rank;               /* OUTPUT, RESULT, ERROR; the rank count at START */
    const rankset *ranks;   /* the command's targets; RUNNING, NEVER: the
                               ranks still at it */
    char *const *blocks;    /* DONE and NEVER of a chunk: each rank's block
                               (output, then results or "error ..."); NULL
                               for a :status or a note, which have text.
                               RUNNING: the failed ranks' blocks, or NULL */
    const unsigned char *shown; /* RUNNING, DONE, NEVER: the ranks whose
                               blocks an earlier RUNNING showed, or NULL */
    const char *text;
    size_t len;
    const char *plain;      /* DONE of a :status: the text without durations */
    const char *cls;        /* ERROR: "ERR_RMA_SYNC", or "" for a Lua error */
    int finder;             /* ERROR: the rank that found the race it is
                               (err.finder), or -1 */
    const char *mime;       /* DISPLAY: "image/svg+xml" */
    double seconds;         /* RUNNING */
    int status;             /* END */
} sink_event;

typedef void (*sink_fn)(void *ud, const sink_event *e);

#define SINK_MAX 3

typedef struct {
    sink_fn fn[SINK_MAX];
    void *ud[SINK_MAX];
    int n;
    int nranks;
} sink;

void sink_add(sink *k, sink_fn fn, void *ud);
void sink_emit(sink *k, const sink_event *e);
void sink_emit_text(sink *k, int kind, const char *text);

/* A DONE, NEVER or RUNNING event as the REPL prints it: each rank's block
 * folded ("[0,1] 42"), then for NEVER "[1] … never finished: label", for
 * RUNNING "[1] … still running: label  (1.0 s)"; a :status
 * or a note's text (plain: a :status without durations). malloc'd ("" when
 * it prints nothing), or NULL. */
char *sink_text(const sink_event *e, int plain);
/* The same, without the blocks of the ranks in e->shown: what a screen
 * that printed the earlier RUNNING events has not shown yet. For RUNNING,
 * the blocks it has not shown, then "[0-2] … still running: label
 * (1.0 s)\n". */
char *sink_text_new(const sink_event *e);

#endif
