/* Private to the core: the calls of coll.c, which coll-typed.c, xchg.c,
 * msg.c and p2p.c use too: a call of rmalab/coll.h begun and ended, the
 * agreement of its arguments, scratch memory. Never installed. */
#ifndef RMALAB_COLL_PRIVATE_H
#define RMALAB_COLL_PRIVATE_H

#include "clock.h"
#include "win-private.h"
#include "block.h"

#include <rmalab/coll.h>

/* A call of rmalab/coll.h: the record of what it blocks in (block.c) and
 * its failure for rmalab_last_failure. rmalab__coll_begin starts it: with
 * `peer` (a rank of c, or NULL: every rank) as its group; on failure it
 * has ended already. rmalab__coll_end ends one that began. */
int rmalab__coll_begin(rmalab__block *b, const char *call, rmalab_comm *c, bool collective,
                       const int *peer);
static inline int rmalab__coll_end(rmalab__block *b, int rc)
{
    rmalab__block_leave(b);
    return rmalab__block_call_end(b->call, "comm", b->id, rc);
}
/* A failure before anything was published (argument checks). */
int rmalab__coll_refuse(const char *call, rmalab_comm *c, int rc);

/* The name of a reduction's call, "reduce" for an unknown kind (whose
 * failure it names). */
const char *rmalab__coll_kind_call(rmalab_reduce_kind kind);

/* fn runs in MPI_Finalize, before MPI goes (an attribute of MPI_COMM_SELF);
 * once, however often it is registered. */
void rmalab__coll_at_finalize(void (*fn)(void));

/* The thread's scratch `which` (0, 1): at least n bytes, kept and reused
 * until a later call needs more; NULL when out of memory. */
void *rmalab__coll_scratch(int which, size_t n);

/* Every rank gives the same count, type, root and op (the ones a call
 * does not have: 0, op -1; a call on values, not a typed buffer: type
 * -1), agreed in one small MPI_Allreduce before the collective, of the
 * same packet and op as a reduction of values: ERR_TRUNCATE, ERR_TYPE
 * (also where some ranks give a buffer and others values, whichever of
 * the two calls they are in), ERR_RANK or ERR_OP on every rank otherwise.
 * A rank whose own checks failed (`status`) takes part and gets its own
 * error back; the others fail with its class. */
int rmalab__coll_agree_args(rmalab_comm *c, const char *call, int status, int count, int type,
                            int root, int op);

#endif
