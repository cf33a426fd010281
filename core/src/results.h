/* results.c: data-returning operations' results and the staging arena
 * (struct rmalab__results in win-private.h).
 * Private to the core, never installed. */
#ifndef RMALAB_RESULTS_H
#define RMALAB_RESULTS_H

#include "win-private.h"

/* A result of `count` x `type` from target, with room reserved to track
 * it, issued in access epoch `access` (which call completes it, for messages). */
int rmalab__results_new(rmalab_win *w, int target, rmalab_type type, int count,
                        rmalab_access access, rmalab_result **out);
/* Register a result as pending on the window (the window holds a
 * reference until the epoch completes). Cannot fail. */
void rmalab__results_track(rmalab_win *w, rmalab_result *r);
/* Mark completed results ready: all of them (target -1), or one target's. */
void rmalab__results_complete(rmalab_win *w, int target);
/* A copy of origin data for an operation to `target`, which lives until
 * that operation completes. */
int rmalab__results_stage(rmalab_win *w, int target, const void **data, size_t n);
/* The number of an operation on caller memory issued now, for
 * rmalab_win_done. */
uint64_t rmalab__results_ticket(rmalab_win *w);
int rmalab__results_alloc(rmalab_win *w);
void rmalab__results_free(rmalab_win *w);

#endif
