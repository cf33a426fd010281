/* Hooks for tests and tools that check the core's own memory handling.
 * They count and fail the core's allocations only, never MPI's or the
 * caller's. One more says how big the race checker's log of a window is. */
#ifndef RMALAB_DEBUG_H
#define RMALAB_DEBUG_H

#include <rmalab/export.h>

struct rmalab_win;

/* The nth allocation the core makes from now on fails (n = 1: the next
 * one), once; n = 0 turns the failure off. Process-wide: every thread's
 * allocations count. */
RMALAB_API void rmalab_debug_fail_alloc(long n);
/* Allocations the core holds now: made and not yet freed. A sweep that
 * fails each allocation in turn checks that this returns to where it was. */
RMALAB_API long rmalab_debug_live_allocs(void);
/* The records the race checker keeps of accesses to this rank's memory of
 * `w` (docs/races.md, "Cost and memory"): *log, compared with every new
 * access, and *past, compared with passive-target ones only; both 0 when
 * the window is not checked. RMALAB_ERR_WIN for NULL. */
RMALAB_API int rmalab_debug_races_log(const struct rmalab_win *w, long *log, long *past);

#endif
