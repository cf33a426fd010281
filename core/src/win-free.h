/* win-free.c: destruction, and the release a failed creation shares.
 * Private to the core, never installed. */
#ifndef RMALAB_WIN_FREE_H
#define RMALAB_WIN_FREE_H

#include "win-private.h"

/* win-free.c: for a creation that failed. Collective: MPI_Win_free of the
 * window and its companion, if any; returns MPI's code. */
int rmalab__win_free_mpi(rmalab_win *w);
/* Everything but the MPI windows (freed before, collectively). What the
 * window recorded stays with the recorder. */
void rmalab__win_free_struct(rmalab_win *w);

#endif
