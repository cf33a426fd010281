/* What the front end knows of each rank's state (deadlock.c, pure): the
 * STATE text of docs/repl.md parsed, the `:status` lines, and the deadlock
 * hints for ranks blocked in a call that only other ranks can end: an
 * epoch call, a message, or a collective (fence, free, barrier, window
 * creation) that some members have not reached, have failed, or cannot
 * reach. A passive-target call is none, MPI's progress ends it, except a
 * lock that waits for other ranks' locks on its target. */
#ifndef RMALAB_REPL_DEADLOCK_H
#define RMALAB_REPL_DEADLOCK_H

#include <stddef.h>

#include "cmdline.h"

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
/* The `:status` line of rank `me` (without "rank N: "), durations left out
 * when `timings` is 0. */
void rstate_status_line(const rstate *all, int n, int me, int timings, char *buf, size_t size);
/* Is some rank blocked in a call that will end by itself: a collective
 * that every member has reached (a slow window creation, say), or a
 * passive-target call (lock, unlock, a flush...), which MPI's progress at
 * its targets ends, unless it is a lock that other ranks' locks hold back? */
int rstate_progressing(const rstate *all, int n);
/* Any rank running Lua (or unknown)? */
int rstate_any_running(const rstate *all, int n);
/* The :status text of the ranks in `target` (a rankset of n ranks): a
 * line each up to 8 ranks, beyond that ranks in the same state folded into
 * one line. malloc'd, or NULL. */
char *rstate_status_text(const rstate *all, int n, const rankset *target, int timings);
/* The hint lines (each ending in \n) when every busy rank is blocked in a
 * call and none runs Lua; "" otherwise. Ranks that wait for each other in a
 * ring get one "hint: deadlock: ..." line, and one that says what ends it:
 * :interrupt when some of them can be interrupted (the rma engine's epoch
 * calls), else :quit. */
void deadlock_hint(const rstate *all, int n, char *buf, size_t size);

#endif
