/* The one clock of the programs in repl/ (the rank side, the front end,
 * the runner): seconds on CLOCK_MONOTONIC, which every timer, deadline and
 * "blocked for" reads, so that two of them never disagree. */
#ifndef RMALAB_REPL_CLOCK_H
#define RMALAB_REPL_CLOCK_H

/* Seconds since an arbitrary start that never moves back. */
double clock_now(void);

#endif
