/* Script mode's notice of a rank stuck in one call (stuck.c): nothing
 * watches a script's ranks together (no front end, docs/repl.md), so each
 * rank says for itself, once per call, when it has been blocked in one
 * call for a while, and what that call waits for. */
#ifndef RMALAB_REPL_STUCK_H
#define RMALAB_REPL_STUCK_H

typedef struct stuck stuck;

/* A thread that watches this process's blocking calls: after
 * RMALAB_STUCK seconds (default 10; 0: never) in one call, one line on
 * stderr. `file`: the script, named in the advice with the job's `size`
 * (NULL for -e). NULL when it is off or cannot start. */
stuck *stuck_start(int rank, int size, const char *file);
/* Stop and join it (before MPI ends: it reads the windows). NULL is fine. */
void stuck_stop(stuck *s);

#endif
