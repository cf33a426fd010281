/* Private to the front end: the session shared by front.c (the loop and
 * the commands' output), term.c (input, the command language, the
 * terminal) and session.c (launching and greeting the ranks). */
#ifndef RMALAB_REPL_FRONT_PRIVATE_H
#define RMALAB_REPL_FRONT_PRIVATE_H

#include <lua.h>

#include "channel.h"
#include "cmdline.h"
#include "front.h"
#include "hint.h"
#include "launch.h"
#include "transcript.h"

typedef struct {
    int fd;
    chan_conn c;
    int pid, bye, busy, last_error;
    char host[64];
} peer;

enum { CMD_RUN, CMD_STATUS };

typedef struct cmd {
    int kind, id;
    rankset target;
    char label[64];
    char **block;      /* per rank: output, then result or error */
    unsigned char *status; /* per rank: finished */
    int pending, noticed, status_asked;
    double sent, retry_at;
    char *text;        /* :status */
    char *plain;       /* :status without durations, for the transcript */
    char sig[256];     /* :status from a pipe: the states last seen */
    struct cmd *next;
} cmd;

typedef struct front {
    front_opts o;
    int n, tty, dead, quitting, quit_asked, input_eof;
    peer *p;
    hint_rank *st;
    unsigned char *st_fresh;
    launch_t l;
    char banner[256];
    rankset deflt;
    int next_id, status_seq, waiting_for, status_cmd_pending, deadlocked;
    cmd *head, *tail;
    double polled_at, hint_since;
    char hint_sig[4096], hint_shown[4096];
    lua_State *L;      /* for telling incomplete chunks */
    char *chunk;       /* a chunk being continued */
    rankset chunk_target;
    int sig_r, ctrl_c;
    char **names;      /* the last completion answer */
    int nnames, matches_seq, any_error;
    transcript ts;     /* the session so far, for :save and :record */
    int record_stdout; /* --record -: stdout carries the transcript */
} front;

double front_now(void);
/* front.c */
int front_loop(front *f);
void front_run_chunk(front *f, const rankset *target, const char *chunk);
void front_status(front *f, const rankset *target);
void front_note(front *f, const char *text);
void front_partial(front *f, cmd *c);
void front_poll_states(front *f);
int front_idle(const front *f);
/* Does any rank's connection remain open? */
int front_ranks_open(const front *f);
/* Free the commands still listed (the session ended before they did). */
void front_drop_cmds(front *f);
void front_wait_until(front *f, int (*done)(front *), double seconds);
/* session.c */
/* Launch (f->l.env and f->l.err_fd may be set before) and greet the
 * ranks; 0 or -1 (message on stderr). */
int front_setup(front *f, const front_opts *o);
void front_teardown(front *f);
int front_greet(front *f, int fd, double seconds);
/* term.c */
void front_term_init(front *f);
void front_banner(front *f);
void front_prompt(front *f);
void front_print(front *f, const char *text);
int front_input_wanted(const front *f);
void front_read_input(front *f);
void front_input_end(front *f);
void front_on_signal(front *f, int sig);
void front_on_matches(front *f, const chan_msg *m);

#endif
