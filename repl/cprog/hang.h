/* A C program's ranks as a watcher of the whole job sees them (hang.c):
 * the state files that the interceptor keeps in the folder that
 * RMALAB_STATE_DIR names (cprog/stuck.h), read as the REPL reads a rank's
 * STATE (wire/state.h), and what they show across ranks (front/hints.h):
 * what each blocked rank waits for, at its FILE:LINE, and a deadlock.
 * rmalab run prints it while the job hangs; rmalab test puts it in its
 * verdict. */
#ifndef RMALAB_REPL_CPROG_HANG_H
#define RMALAB_REPL_CPROG_HANG_H

#include <stddef.h>

#include "../wire/state.h"

#define HANG_DIR_ENV "RMALAB_STATE_DIR"

typedef struct {
    char dir[4096];
    int n;
    rstate *st;         /* n of them; valid once the rank wrote its file */
    char sig[4096];     /* the deadlock's hint as last read, or "" */
    double since;       /* when it began to hold */
} hang_t;

/* A new folder under TMPDIR (else /tmp) for n ranks. 0, or -1 with a
 * message on stderr. */
int hang_open(hang_t *h, int n);
/* Remove the folder and its files. */
void hang_close(hang_t *h);
/* Read every rank's file. How long (seconds, from `now`) the same deadlock
 * has held, or -1 when the ranks are not deadlocked: every rank blocked in
 * a call that only another can end, or ended. */
double hang_look(hang_t *h, double now);
/* Rank r's line, in the form compilers use, when it is blocked:
 *   prog.c:18: note: MPI_Put: rank 0 is blocked in put() until rank 1
 *   calls post() (3.2 s); access epoch to {1}: MPI_Win_post() arrived
 *   from 0 of 1, missing {1}
 * else what it does ("rank 1 has ended"). 1 when it is blocked. */
int hang_note(const hang_t *h, int r, char *buf, size_t size);
/* The deadlock in one line per ring of ranks that wait for each other:
 * "deadlock: rank 0 waits for rank 1's post(), rank 1 waits for rank 0's
 * post()"; "" when there is none. */
void hang_rings(const hang_t *h, char *buf, size_t size);

#endif
