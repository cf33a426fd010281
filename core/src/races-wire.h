/* Private to the core: the calls of races-wire.c, the race checker
 * between ranks (docs/races.md). The checker's files alone include it.
 * Never installed. */
#ifndef RMALAB_RACES_WIRE_H
#define RMALAB_RACES_WIRE_H

#include "races-private.h"

/* What each synchronisation sends and receives, on the checker's own
 * communicator: races-sync.c runs the step (races-private.h), and races.c
 * takes in, between the two, what came in. */
/* Messages in: the clock this rank releases (st->released, R->S), and what
 * the call receives, kept in R->in (a fence's and free's exchange is
 * collective; a fence sends its records first). */
int rmalab__races_wire_in(struct rmalab__races *R, struct rmalab__races_step *st);
/* Messages out: what the call released (post's clock, complete's and
 * unlock's records) sent, the released lists emptied, the messages that
 * came in freed; at free, the sends end. */
int rmalab__races_wire_out(struct rmalab__races *R, const struct rmalab__races_step *st);
/* Send the records `l` to `t` as a passive batch with clock S (a load or
 * store of its memory). */
int rmalab__races_wire_passive(struct rmalab__races *R, int t, const int64_t *S,
                               const struct rmalab__rlist *l);
/* The sends' state released (sends still in flight keep their buffers),
 * and what came in. */
void rmalab__races_wire_free(struct rmalab__races *R);

#endif
