/* comm.c: the communicators rmalab makes and their shadows.
 * Private to the core, never installed. */
#ifndef RMALAB_COMM_PRIVATE_H
#define RMALAB_COMM_PRIVATE_H

#include "private.h"

/* A communicator. Its fields are here, not in comm.c alone, for the inline
 * readers below: every message call reads them, and a call of comm.c's
 * each was 50 instructions of a ping-pong's round trip (issue 41). */
struct rmalab_comm {
    MPI_Comm comm;
    int owned;
    int rank, size;
    rmalab_info *requested; /* raw values, as the user gave them */
    MPI_Comm shadow;        /* MPI_COMM_NULL until shadow_rq has completed */
    MPI_Request shadow_rq;  /* the MPI_Comm_idup, or MPI_REQUEST_NULL */
    int refs;               /* the user's handle (until freed) and pending requests */
};

/* c's MPI communicator, rank and size (c not NULL), as rmalab_comm_mpi,
 * rmalab_comm_rank and rmalab_comm_size give them. */
static inline MPI_Comm rmalab__comm_handle(const rmalab_comm *c)
{
    return c->comm;
}

static inline int rmalab__comm_me(const rmalab_comm *c)
{
    return c->rank;
}

static inline int rmalab__comm_nranks(const rmalab_comm *c)
{
    return c->size;
}

/* MPI_TAG_UB once rmalab_comm_tag_ub has read it, else 0. */
extern int rmalab__comm_tag_ub_read;
static inline int rmalab__comm_tag_ub(void)
{
    int ub = rmalab__comm_tag_ub_read;
    return ub ? ub : rmalab_comm_tag_ub(NULL);
}

/* comm.c: a communicator rmalab made (MPI_Comm_split): owned, errors
 * returned, numbered for rmalab_blocked. */
int rmalab__comm_adopt(MPI_Comm c, rmalab_comm **out);
/* c's shadow (a duplicate for the rest of long messages), waited for the
 * first time: ERR_COMM if it could not be made. */
int rmalab__comm_shadow(rmalab_comm *c, MPI_Comm *out);
/* Test the shadow's MPI_Comm_idup once (a message call does): MPICH polls
 * a pending collective at every progress, which costs each message. Once
 * it is done, a test of one field. */
void rmalab__comm_shadow_test(rmalab_comm *c);
static inline void rmalab__comm_shadow_poll(rmalab_comm *c)
{
    if (c->shadow_rq != MPI_REQUEST_NULL)
        rmalab__comm_shadow_test(c);
}
/* A pending message request keeps c alive after the user's free: retain
 * when it starts, release when it is done. The user's free releases too
 * (`user`: it completes the shadow's MPI_Comm_idup, collective, first).
 * The last release frees c, returning MPI_Comm_free's failure; *freed
 * says the MPI communicator went (its handle may be reused). msg.c's
 * rmalab__msg_release is the one caller: stashed messages go with it. */
void rmalab__comm_retain(rmalab_comm *c);
int rmalab__comm_release(rmalab_comm *c, bool user, bool *freed);

#endif
