/* A session with the ranks of one job (docs/repl.md): the frame loop
 * (session.c) over its command queue (queue.c), admitting the ranks
 * (admit.c) and the deadlock verdict (verdict.c). Shared by the REPL
 * (repl.c) and the scenario runner (runner/scenario-run.c): launching
 * and greeting the ranks, the one frame loop over their sockets, the
 * commands sent to them and what each rank answered, their states, the
 * deadlock verdict, and ending the job. Everything a command produces
 * leaves through the session's sink (sink.h). One struct per session,
 * passed explicitly: nothing here is file-scope state. */
#ifndef RMALAB_REPL_SESSION_H
#define RMALAB_REPL_SESSION_H

#include <lua.h>

#include "../wire/channel.h"
#include "../wire/clock.h"
#include "cmdline.h"
#include "../wire/state.h"
#include "launch.h"
#include "sink.h"
#include "transcript.h"

typedef struct {
    int nranks;
    int mpiexec_argc;        /* extra mpiexec options (-hosts a,b ...) */
    char **mpiexec_argv;
    const char *self;        /* this executable, for mpiexec to start */
    int launch;              /* 1: start mpiexec; 0: ranks are already there
                                (mpiexec -n N rmalab: rank 0 runs the front
                                end in a thread and hands it listen_fd) */
    int listen_fd;           /* -1: create one */
    const char *token;       /* NULL: make one */
    const char *exec_chunk;  /* -e: run this on all ranks, then quit */
    const char *record;      /* --record FILE: the transcript ("-": stdout,
                                instead of the usual output; pipe mode) */
    int json;                /* --json: JSON lines on stdout (render-json.c) */
} session_opts;

typedef struct {
    int fd;
    chan_conn c;
    int pid, bye, busy;
    int in_ep;             /* fd is in the session's epoll set */
    int unread;            /* a look left data to read (read_ranks) */
    int gone;              /* closed without BYE: 1 for the first to go... */
    char host[64];
} peer;

enum { CMD_RUN, CMD_FILE, CMD_STATUS, CMD_NOTE };

typedef struct cmd {
    int kind, id;
    rankset target;
    char label[64];
    char **block;          /* per rank: output, then result or error */
    unsigned char *status; /* per rank: finished */
    unsigned char *failed; /* per rank: finished with an error (not interrupted) */
    unsigned char *shown;  /* per rank: its error went with a notice */
    int *finder;           /* per rank: the rank that found the race it raised
                              (err.finder, DONE's fifth field), or -1 */
    size_t *err_at;        /* per rank: where its error's message begins in its block */
    int pending, status_asked;
    int noticed;           /* the still-running notice went; -1: send it now */
    double sent, retry_at;
    char *text;            /* :status (with durations on a terminal), a note */
    char *plain;           /* :status without durations */
    char sig[256];         /* :status from a pipe: the states last seen */
    struct cmd *next;
} cmd;

typedef struct session session;

/* What the session's owner adds to the loop: input to read (fd, or -1 for
 * none this time), frames the session does not know (EVENT, MATCHES) and
 * signals. Each may be NULL. */
typedef struct {
    int (*input_fd)(session *s);
    void (*on_input)(session *s);
    void (*on_frame)(session *s, int rank, const chan_msg *m);
    void (*on_signal)(session *s, int sig);
    void *ud;
} session_hooks;

struct session {
    session_opts o;
    int n;
    peer *p;
    rstate *st;            /* each rank's state, as its last STATE said */
    int *st_seq;           /* the STATUS each state answers */
    launch_t l;
    char banner[256];
    int next_id, status_seq, sent_seq; /* sent_seq: status_seq when the last command went */
    cmd *head, *tail;
    double polled_at, hint_since;
    char hint_sig[4096], hint_shown[4096];
    int dead, quitting, signalled, any_error, ngone;
    int ordered;           /* the sink wants commands in the order given (a pipe) */
    double deadlock_hold;  /* seconds a deadlock holds before it is one */
    int deadlocked;        /* the last fresh verdict found a deadlock */
    long progress;         /* OUT and DONE frames so far (session_stuck_now) */
    char stuck_sig[1024];  /* the busy ranks' calls last seen, and progress */
    double stuck_since;    /* since when they have been so */
    int sig_r;             /* the self-pipe of signals, or -1 */
    int ep;                /* epoll set of the ranks' sockets (session_step) */
    session_hooks h;
    sink out;
    transcript ts;         /* the session so far, for :save and :record */
    lua_State *L;          /* for telling incomplete chunks */
};

/* Launch (s->l.env and s->l.err_fd may be set before) and greet the
 * ranks: 0, or -1 with a message on stderr. s->out must be set. */
int session_open(session *s, const session_opts *o);
void session_close(session *s);
/* A new connection on the listening socket: read its HELLO within
 * `seconds`. The rank, or -1 (refused, closed and logged). */
int session_greet(session *s, int fd, double seconds);
/* Greet until every rank is in (then close the listening socket: no one
 * else may connect), mpiexec has ended, or 60 s: 0 or -1. */
int session_admit(session *s);

/* Commands. Each returns the command (owned by the session), or NULL. */
cmd *session_run(session *s, const rankset *target, const char *chunk);
/* The same, the chunk named `name` for the ranks (NULL: "stdin") and its
 * first line counted as line `line` (a notebook cell's chunk: "cell", and
 * its line in the cell), so that errors and race reports point there. */
cmd *session_run_at(session *s, const rankset *target, const char *chunk, const char *name,
                    int line);
cmd *session_file(session *s, const char *path);
cmd *session_status(session *s, const rankset *target);
/* A line of the front end's own: in order with the commands' output when
 * the sink is ordered. */
void session_note(session *s, const char *text);
cmd *session_find(session *s, int id);
/* Free a command the session has taken out of its queue. */
void session_cmd_free(session *s, cmd *c);
void session_send_all(session *s, const rankset *to, int type, int n, const char *const *f);

/* One turn of the loop: wait up to ms for a socket, the input or a
 * signal; take what came; hand finished commands to the sink; notices and
 * hints. */
void session_step(session *s, int ms);
/* Step until done(s), the deadline, or a signal that ended the job. */
void session_wait_until(session *s, int (*done)(session *), double seconds);
int session_idle(const session *s);
int session_ranks_open(const session *s);

/* Ask every rank for its state; session_states_fresh tells when all
 * answered. */
void session_poll_states(session *s);
int session_states_fresh(const session *s);
/* A deadlock that holds now: no command queued on any rank, and fresh
 * states, asked for after the last command went, show every busy rank
 * blocked in a call that only another rank can end, the same way for
 * deadlock_hold seconds. Drives the polls itself; call it each turn. */
int session_deadlock_now(session *s);

/* Ranks that will not move: busy ranks, none running Lua (fresh states
 * say so), all in the same calls, with no output and no command ending,
 * for `hold` seconds. What the quit ends (a call blocked inside MPI
 * whose partners are all there, as in a mismatched send and receive, or
 * an allocation MPI never returns from) is no deadlock the hints can
 * name. Writes what they are blocked in to why. Call it each turn. */
int session_stuck_now(session *s, double hold, char *why, size_t size);

/* The end. Run every command already sent (ending the job if they are
 * deadlocked now, or stuck for QUIT_STUCK_HOLD seconds, session.c), QUIT,
 * and wait for the ranks and mpiexec; a job that does not end is killed
 * (launch_end: mpiexec's whole tree). The exit status. */
int session_finish(session *s);
/* End the job now (a signal, a dead rank): what finished is printed in
 * order with what never will, the job is killed, one line says so. */
int session_abort(session *s, const char *why, int status);

#endif
