/* Hooks for tests and tools that check the core's own memory handling.
 * They count and fail the core's allocations only, never MPI's or the
 * caller's. */
#ifndef RMALAB_DEBUG_H
#define RMALAB_DEBUG_H

#include <rmalab/export.h>

/* The nth allocation the core makes from now on fails (n = 1: the next
 * one), once; n = 0 turns the failure off. Process-wide: every thread's
 * allocations count. */
RMALAB_API void rmalab_debug_fail_alloc(long n);
/* Allocations the core holds now: made and not yet freed. A sweep that
 * fails each allocation in turn checks that this returns to where it was. */
RMALAB_API long rmalab_debug_live_allocs(void);

#endif
