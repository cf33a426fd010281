/* sync.c: the epoch state machine (struct rmalab__epoch in win-private.h).
 * Private to the core, never installed. */
#ifndef RMALAB_SYNC_PRIVATE_H
#define RMALAB_SYNC_PRIVATE_H

#include "win-private.h"

/* The epoch state's per-rank arrays (local), and their release. */
int rmalab__sync_epoch_alloc(rmalab_win *w);
void rmalab__sync_epoch_free(rmalab_win *w);
/* The origin-side checks every operation makes: the target is in the
 * group, an access epoch is open to it, and [disp, disp + count) lies in
 * its window. `what` names the call ("put"); ev's type and count (the
 * footprint) are valid, as the caller checked. Counts the call in the
 * epoch, and adds the epoch facts to ev. */
int rmalab__sync_check_op(rmalab_win *w, const char *what, rmalab__op_event *ev);
/* Request-based operations (rput...) are allowed in a passive-target epoch
 * alone: ERR_RMA_SYNC naming the rule otherwise. */
int rmalab__sync_check_passive(rmalab_win *w, const char *what, int target);
/* What the epoch state says of the access ev (observe.h), for the race
 * checker: a checked window's only way to the state. */
void rmalab__sync_epoch_facts(const rmalab_win *w, rmalab__op_event *ev);
/* The state machine's steps that the passive-target calls share. Only the
 * owning thread writes ops_in_epoch: atomically (relaxed), not under the
 * lock. */
void rmalab__sync_epoch_set_ops(rmalab_win *w, uint64_t v);
/* A fence with no RMA call after it opened no epoch ... */
bool rmalab__sync_epoch_fence_idle(const rmalab_win *w);
/* ... and is dropped when another epoch opens (under the lock). */
void rmalab__sync_epoch_drop_idle_fence(rmalab_win *w);
/* Close the access epoch in the state (under the lock) after MPI closed it,
 * and complete its results... */
void rmalab__sync_epoch_access_closed(rmalab_win *w);
/* ... or only the state's part, for a caller that holds the lock already. */
void rmalab__sync_epoch_close_access(rmalab_win *w);
/* The end of a public call of kind `id`: its failure recorded. */
int rmalab__sync_ended(rmalab_win *w, rmalab_sync_id id, int rc);

#endif
