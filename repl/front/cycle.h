/* Cycles in a wait-for graph (cycle.c, pure): the deadlock hints ask
 * whether blocked ranks wait for each other in a ring, which no rank's
 * call can end. */
#ifndef RMALAB_REPL_CYCLE_H
#define RMALAB_REPL_CYCLE_H

#include "cmdline.h"

/* waits[r] is the set of ranks rank r waits for (n ranks; ranks that wait
 * for nobody have an empty set). The shortest cycle through rank `from`,
 * following edges only between ranks not in `skip` (may be NULL): its
 * ranks in order, from `from`, in path[0..len); returns len, or 0 when
 * `from` is on no cycle. path holds n ints. */
int cycle_through(const rankset *waits, int n, int from, const unsigned char *skip, int *path);

#endif
