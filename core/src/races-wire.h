/* Private to the core: the calls of races-wire.c, the race checker
 * between ranks (docs/races.md). The checker's files alone include it.
 * Never installed. */
#ifndef RMALAB_RACES_WIRE_H
#define RMALAB_RACES_WIRE_H

#include "races-private.h"

/* What each synchronisation sends and receives, on the checker's own
 * communicator (races-sync.c decides which). */
/* post: its clock to each of `ranks`, ahead of the engine's post. */
int rmalab__races_wire_post(struct rmalab__races *R, const int *ranks, int n);
/* complete: the targets' post clocks joined, the epoch's records released
 * and sent to each target of `group`, ahead of the engine's complete. */
int rmalab__races_wire_complete(struct rmalab__races *R, const int *group, int n);
/* wait, test: each origin's records of the epoch received, checked and
 * acquired; then the passive batches that arrived. */
int rmalab__races_wire_exposed(struct rmalab__races *R, const int *xgroup, int n, const char *at);
/* unlock, flush: the records to `target` (-1: to every rank) released and
 * sent, their own pairs checked first; then the batches that arrived. */
int rmalab__races_wire_released(struct rmalab__races *R, int target, const char *at);
/* Send the records `l` to `t` as a passive batch with clock S. */
int rmalab__races_wire_passive(struct rmalab__races *R, int t, const int64_t *S,
                               const struct rmalab__rlist *l);
/* The passive-target batches that have arrived, checked. */
int rmalab__races_wire_drain(struct rmalab__races *R, const char *at);
/* Collective, fence: every record sent, every batch sent to this rank
 * received and checked, the clocks joined (every rank raises together). */
int rmalab__races_wire_fence(struct rmalab__races *R, const char *at);
/* Collective, free (before MPI_Win_free): the last such exchange; the
 * sends end. */
int rmalab__races_wire_close(struct rmalab__races *R, const char *at);
/* The sends' state released (sends still in flight keep their buffers). */
void rmalab__races_wire_free(struct rmalab__races *R);

#endif
