/* Private to the core: what coll.c, xchg.c and p2p.c share. Never
 * installed. */
#ifndef RMALAB_COLL_PRIVATE_H
#define RMALAB_COLL_PRIVATE_H

#include "win-private.h"

#include <rmalab/coll.h>

/* A call of rmalab/coll.h: the record of what it blocks in (block.c) and
 * its failure for rmalab_last_failure. rmalab__comm_begin starts it: with
 * `peer` (a rank of c, or NULL: every rank) as its group; on failure it
 * has ended already. rmalab__comm_end ends one that began. */
int rmalab__comm_begin(rmalab__block *b, const char *call, rmalab_comm *c, bool collective,
                       const int *peer);
int rmalab__comm_end(rmalab__block *b, int rc);
/* A failure before anything was published (argument checks). */
int rmalab__comm_refuse(const char *call, rmalab_comm *c, int rc);

/* fn runs in MPI_Finalize, before MPI goes (an attribute of MPI_COMM_SELF). */
void rmalab__at_finalize(void (*fn)(void));

/* The thread's scratch `which` (0, 1): at least n bytes, kept and reused
 * until a later call needs more; NULL when out of memory. */
void *rmalab__scratch(int which, size_t n);

#endif
