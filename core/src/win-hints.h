/* win-hints.c: window hints after creation.
 * Private to the core, never installed. */
#ifndef RMALAB_WIN_HINTS_H
#define RMALAB_WIN_HINTS_H

#include "win-private.h"

/* Whether the canonical hints `valid` promise no_locks, or `fallback`. */
bool rmalab__win_hints_no_locks(const rmalab_info *valid, bool fallback);
/* The hints in `valid` for an MPI window: all of them for `plain`, but
 * without no_locks for the window of an engine with own_lock_all
 * (`engine_window`). A fresh MPI_Info: MPICH rewrites what it is given. */
int rmalab__win_hints_to_mpi(const rmalab_win *w, const rmalab_info *valid,
                             bool engine_window, MPI_Info *out);
/* The PSCW engine the hints `valid` choose (rmalab_pscw), else the
 * environment's (RMALAB_PSCW, with a diagnostic if it names none), else
 * rma; and its index, which the ranks compare at creation. */
const rmalab__engine *rmalab__win_hints_engine(const rmalab_info *valid, rmalab_diags *diags);
int rmalab__win_hints_engine_index(const rmalab__engine *e);

#endif
