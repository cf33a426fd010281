/* The terminal (term.c): line editing through libedit's readline interface
 * in callback mode, so that the session's poll loop never blocks in the
 * editor; plain lines when input is a pipe; the prompt; printing above
 * it; history; completion. Also the sink's terminal renderer. */
#ifndef RMALAB_REPL_TERM_H
#define RMALAB_REPL_TERM_H

#include <stddef.h>

#include "sink.h"

typedef struct {
    /* A whole line (without its newline); NULL at the end of input. */
    void (*line)(void *ud, const char *line);
    /* The prompt to show now ("rmalab[all]> " or ">> "). */
    const char *(*prompt)(void *ud);
    /* Names that complete `text`: term_set_names before returning. */
    void (*complete)(void *ud, const char *text);
    /* Is the input held (no line to be taken now)? */
    int (*held)(void *ud);
    /* A pipe's line over 64 KiB was dropped, in its place among the lines. */
    void (*dropped)(void *ud);
    void *ud;
} term_hooks;

typedef struct {
    int tty;             /* line editing; else plain lines from a pipe */
    int installed;       /* the editor's handler is installed */
    int quiet;           /* print nothing (--record -: the transcript is
                            the output) */
    int waiting;         /* the id of the command whose results the prompt
                            waits for (no prompt meanwhile); 0: none */
    int ended;           /* the input has ended */
    term_hooks h;
    char history[1024];  /* the history file, or "" */
    char **names;        /* the last completion answer */
    int nnames, next_name;
    char *buf;           /* a pipe: what has been read of the current line */
    size_t have;
    int skipping;        /* the rest of a line too long to take */
    int eof;             /* a pipe: read(2) said end of file */
} term;

/* Set up: the terminal when tty, and its history file. */
void term_init(term *t, int tty, term_hooks h);
/* Hide the prompt, save the history, free what term_init took. */
void term_end(term *t);
/* The fd to poll for input. */
int term_fd(const term *t);
/* Input is readable: read it; calls h.line for each complete line, while
 * the input is not held. */
void term_read(term *t);
/* A pipe: take the lines read before a hold, while it is not held. */
void term_drain(term *t);
/* Show the prompt (or redraw it after a change of its text). */
void term_prompt(term *t);
/* Print above the prompt (a terminal) or to stdout. */
void term_print(term *t, const char *text);
/* After a Ctrl-C: the terminal back in the editor's mode. */
void term_after_interrupt(term *t);
/* Ctrl-C with nothing running: drop the half-typed line, a fresh prompt. */
void term_clear_line(term *t);
/* The answer to a completion request. */
void term_set_names(term *t, char **names, int n);
/* The sink's terminal renderer (ud: the term). */
void term_render(void *ud, const sink_event *e);

#endif
