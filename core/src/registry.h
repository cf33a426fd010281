/* registry.c: the process's live windows.
 * Private to the core, never installed. */
#ifndef RMALAB_REGISTRY_H
#define RMALAB_REGISTRY_H

#include "win-private.h"

/* registry.c: win.c adds a window once it is created and removes it before
 * releasing it. Neither allocates, so neither fails. */
void rmalab__registry_add(rmalab_win *w);
void rmalab__registry_remove(rmalab_win *w);

#endif
