/* request.c: requests of every kind.
 * Private to the core, never installed. */
#ifndef RMALAB_REQUEST_H
#define RMALAB_REQUEST_H

#include "win-private.h"

/* request.c: the window's requests, complete at its free (each that was
 * never waited for is reported). */
void rmalab__request_close_win(rmalab_win *w);

#endif
