/* A rank's STATE (docs/repl.md), the one text both sides of the channel
 * share (state.c): the rank writes it from the core's view of its calls
 * and windows (state_look, state_write), the front end parses it into an
 * rstate, which its :status lines and deadlock hints read. */
#ifndef RMALAB_REPL_STATE_H
#define RMALAB_REPL_STATE_H

#include <stddef.h>

#include <rmalab/rmalab.h>

#include "strbuf.h"

#define RSTATE_MAX_WINS 16
#define RSTATE_MAX_RANKS 64
#define RSTATE_LOCK_ALL (-2)

typedef struct {
    unsigned long long id;
    char access[16], exposure[16], blocked[32], engine[8];
    int size;
    int acc[RSTATE_MAX_RANKS], nacc, posted[RSTATE_MAX_RANKS], npost;
    int exp[RSTATE_MAX_RANKS], nexp, arrived[RSTATE_MAX_RANKS], narr;
    char lock_mode[RSTATE_MAX_RANKS]; /* per acc entry of a lock epoch: 'x' or 's' */
    int lock_wait;                    /* a lock not granted yet: its target,
                                         RSTATE_LOCK_ALL (lock_all), or -1 */
    char lock_wait_mode;              /* 'x' or 's' */
    char describe[512];
} rstate_win;

typedef struct {
    int valid;
    char state[16];     /* idle, running, blocked */
    double seconds;
    char label[128], call[32];
    char test_case[128]; /* the rmalab.test case that runs, under `rmalab test` */
    char at[300];       /* a C program's: "MPI_Put prog.c:18", the call it is
                           blocked in at its line (cprog/stuck.c) */
    int nwins;
    rstate_win wins[RSTATE_MAX_WINS];
    /* The call it is blocked in (call above), from the core: */
    int collective;     /* every member must make the same call */
    int interruptible;  /* :interrupt ends it (rmalab_interrupt) */
    char object[8];     /* "win" or "comm" */
    unsigned long long object_id;
    int members[RSTATE_MAX_RANKS], nmembers; /* a collective's group, a start's
                                                or wait's, a message's peer */
    /* The last call that failed on this rank, when it was its last command's: */
    char failed[32], failed_class[48], failed_object[8];
    unsigned long long failed_id;
    int last_error;     /* set by the front end: its last command failed */
} rstate;

/* Parse a STATE text into *r (valid = 1). */
void rstate_parse(const char *text, size_t len, rstate *r);

/* The writer's side. What the core says, looked at first: the call the
 * rank is blocked in, if any, and the core's text of it and of every live
 * window (rmalab_state_text), whose window lines begin at wins_at. */
typedef struct {
    strbuf text;
    size_t wins_at;
    int blocked;
    rmalab_blocked b;
} state_core;

/* What the rank itself knows: whether its executor runs a chunk, or a
 * command waits in its queue (it is about to run), since when, and the
 * texts of the chunk that runs or waits. */
typedef struct {
    int running, queued;
    double seconds;           /* how long the running chunk has run */
    const char *label, *id;   /* the running chunk's, or (id NULL) the queued one's */
    const char *test_case;    /* the rmalab.test case that runs, or "" */
    const char *failed;       /* the call that failed the last command, or "" */
} state_self;

void state_look(state_core *c);
/* The STATE text of c and me into t; frees c. */
void state_write(strbuf *t, state_core *c, const state_self *me);

#endif
