/* The deadlock hints for ranks blocked in calls that only other ranks can
 * end (hints.c, pure; who waits for whom is waits.c's). */
#ifndef RMALAB_REPL_HINTS_H
#define RMALAB_REPL_HINTS_H

#include <stddef.h>

#include "../wire/state.h"

/* The hint lines (each ending in \n) when every busy rank is blocked in a
 * call and none runs Lua; "" otherwise. Ranks that wait for each other in a
 * ring get one "hint: deadlock: ..." line and, when typed (the REPL, where
 * a person can type a command), one that says what ends it: :interrupt
 * when some of them can be interrupted (the rma engine's epoch calls),
 * else :quit. rmalab test and rmalab run end such a run themselves. */
void deadlock_hint(const rstate *all, int n, int typed, char *buf, size_t size);
/* What blocked rank r waits for, in the words of its hint line ("blocked
 * in put() until rank 1 calls post()", "blocked in the collective
 * barrier(); rank 0 is ..."); 0 when the states do not say. */
int deadlock_rank_wait(const rstate *all, int n, int r, char *buf, size_t size);

#endif
