/* The REPL's front end (repl.c, commands.c; docs/repl.md): reads lines
 * from the terminal or a pipe, runs chunks on their target ranks and the
 * `:` commands, over a session (session.h) whose sink renders for a
 * terminal, a pipe, a transcript or JSON lines.
 *
 * The files of front/, each calling only those on its line and above
 * (tests/layers.py, the repl-layers-front test); calls the other way go
 * through function pointers (session_hooks, term_hooks, the sink's
 * renderers):
 *   fold.c cycle.c cmdline.c chunk.c request.c   folding; rings in a
 *                                 wait-for graph; the command language;
 *                                 chunks; JSON requests
 *   waits.c sink.c transcript.c launch.c   who waits for whom; events;
 *                                 transcripts; mpiexec
 *   status.c hints.c              :status lines; deadlock hints
 *   queue.c                       a session's commands, its clock
 *   admit.c verdict.c             admitting the ranks; states and verdict
 *   session.c                     the ranks of a job: the one frame loop
 *   term.c render-text.c render-json.c   the terminal; the sink's renderers
 *   commands.c requests.c         what a line does: chunks and : commands;
 *                                 JSON requests (--json)
 *   repl.c                        the REPL's loop: input, signals, -e */
#ifndef RMALAB_REPL_REPL_H
#define RMALAB_REPL_REPL_H

#include "cmdline.h"
#include "request.h"
#include "session.h"
#include "term.h"

typedef struct {
    session s;
    term t;
    rankset deflt;         /* :on */
    rankset chunk_target;  /* the chunk being typed, or the last sent */
    char *chunk;           /* a chunk being continued */
    int quit_asked;
    int unfinished;        /* the input ended inside a chunk: exit status 1 */
    int cells;             /* --json: the lines are cells ({"request":"cells"}) */
    int cell_line;         /* lines read since the last mark (a cell's) */
    int chunk_line;        /* the line the chunk being typed, or the last, began at */
    /* Input is held (not read) while: */
    int hold_status;       /* a pipe's :status (its id) is not yet taken */
    double wait_until;     /* :wait: until the targets are idle, or then */
    rankset wait_target;
    int completing;        /* a completion request is out */
    int matches_seq;       /* MATCHES answers so far */
    /* :interrupt and Ctrl-C: the ranks asked, the answers still to come,
     * and each answer ("" interrupted, "-" idle, else the call it is
     * inside MPI in) */
    rankset intr_asked;
    int intr_waiting;
    char intr_call[RANKSET_MAX][24];
    char prompt[300];
} repl;

/* Run the REPL (or -e) with these options; the exit status: 0, 1 (a
 * chunk of -e failed, a rank died, a deadlock ended the job, the job did
 * not end), 128 + a signal that ended it. */
int repl_run(const session_opts *o);

/* commands.c: what a line does. Run one `:` command. */
void commands_run(repl *r, const cmdline *c);
/* Send a chunk to `target`; on a terminal, the prompt waits for it. */
void commands_submit(repl *r, const rankset *target, const char *chunk);
/* Every rank of the job. */
rankset commands_every_rank(const repl *r);
/* Ctrl-C on a terminal: stop waiting; else interrupt what runs; else
 * drop the line being typed. */
void commands_ctrl_c(repl *r);
/* A rank's answer to INTERRUPT: once every rank asked has answered, one
 * message says which were interrupted, which are inside MPI in a call
 * that cannot be (nothing is left pending there), or that nothing ran. */
void commands_interrupt_answer(repl *r, int rank, const chan_msg *m);

/* requests.c: a JSON request (--json; request.h); MATCHES from a rank,
 * the answer to a completion request. */
void requests_run(repl *r, const request *q);
void requests_matches(repl *r, const chan_msg *m);

#endif
