/* comm.c: the communicators rmalab makes and their shadows.
 * Private to the core, never installed. */
#ifndef RMALAB_COMM_PRIVATE_H
#define RMALAB_COMM_PRIVATE_H

#include "private.h"

/* comm.c: a communicator rmalab made (MPI_Comm_split): owned, errors
 * returned, numbered for rmalab_blocked. */
int rmalab__comm_adopt(MPI_Comm c, rmalab_comm **out);
/* c's shadow (a duplicate for the rest of long messages), waited for the
 * first time: ERR_COMM if it could not be made. */
int rmalab__comm_shadow(rmalab_comm *c, MPI_Comm *out);
/* Test the shadow's MPI_Comm_idup once (a message call does): MPICH polls
 * a pending collective at every progress, which costs each message. */
void rmalab__comm_shadow_poll(rmalab_comm *c);
/* A pending message request keeps c alive after the user's free: retain
 * when it starts, release when it is done. The user's free releases too
 * (`user`: it completes the shadow's MPI_Comm_idup, collective, first).
 * The last release frees c, returning MPI_Comm_free's failure; *freed
 * says the MPI communicator went (its handle may be reused). msg.c's
 * rmalab__msg_release is the one caller: stashed messages go with it. */
void rmalab__comm_retain(rmalab_comm *c);
int rmalab__comm_release(rmalab_comm *c, bool user, bool *freed);

#endif
