/* state.c: the observable epoch state.
 * Private to the core, never installed. */
#ifndef RMALAB_STATE_H
#define RMALAB_STATE_H

#include "win-private.h"

/* "{0, 1, 2}", shortened past RMALAB_STATE_MAX_RANKS; returns the length. */
size_t rmalab__state_ranks_text(char *buf, size_t size, const int *ranks, int n);
/* With `matching`, the engine's view of what has arrived is added; error
 * messages leave it out so that both engines say the same. */
void rmalab__state_describe(rmalab_win *w, char *buf, size_t size, bool matching);

#endif
