/* Private to the core: what coll.c, xchg.c and p2p.c share. Never
 * installed. */
#ifndef RMALAB_COLL_PRIVATE_H
#define RMALAB_COLL_PRIVATE_H

#include "clock.h"
#include "win-private.h"
#include "block-private.h"

#include <rmalab/coll.h>

/* A call of rmalab/coll.h: the record of what it blocks in (block.c) and
 * its failure for rmalab_last_failure. rmalab__coll_begin starts it: with
 * `peer` (a rank of c, or NULL: every rank) as its group; on failure it
 * has ended already. rmalab__coll_end ends one that began. */
int rmalab__coll_begin(rmalab__block *b, const char *call, rmalab_comm *c, bool collective,
                       const int *peer);
int rmalab__coll_end(rmalab__block *b, int rc);
/* A failure before anything was published (argument checks). */
int rmalab__coll_refuse(const char *call, rmalab_comm *c, int rc);

/* fn runs in MPI_Finalize, before MPI goes (an attribute of MPI_COMM_SELF);
 * once, however often it is registered. */
void rmalab__coll_at_finalize(void (*fn)(void));

/* The thread's scratch `which` (0, 1): at least n bytes, kept and reused
 * until a later call needs more; NULL when out of memory. */
void *rmalab__coll_scratch(int which, size_t n);

/* ------------------------------------------------------------------------ */
/* Messages on the wire (msg.c)                                             */

#define RMALAB__EAGER 4096  /* the first part of a message, at most */
#define RMALAB__MSG_HDR 24  /* its header */
#define RMALAB__ANY_FORM (-2) /* a receive that takes a value or any type */

/* A message to send: its first part at `first` (nfirst bytes), its rest
 * (nrest bytes, none for most) at `rest`: the caller's memory, or `copy`
 * (malloc'd, freed by the sender when MPI is done with it). */
typedef struct {
    unsigned char *first;
    size_t nfirst;
    const unsigned char *rest;
    size_t nrest;
    unsigned char *copy;
} rmalab__msg_out;

/* Lay out n bytes at buf, of `type` (an rmalab_type, or -1: a value's
 * bytes), with this rank's clock when it has one: the first part is
 * written to `first` (RMALAB__EAGER bytes); the rest stays in buf unless
 * `keep` (copy it: the caller wants buf back at once). */
int rmalab__msg_pack(rmalab_comm *c, const void *buf, size_t n, int type, bool keep,
                     unsigned char *first, rmalab__msg_out *o);
/* MPI_Isend of both parts to dest with tag. */
int rmalab__msg_post(rmalab_comm *c, const rmalab__msg_out *o, int dest, int tag,
                     MPI_Request req[2]);

enum { RMALAB__MSG_IDLE, RMALAB__MSG_FIRST, RMALAB__MSG_REST, RMALAB__MSG_ARRIVED, RMALAB__MSG_DONE };

/* A receive: fill c, source, tag (RMALAB_ANY_*) and first (RMALAB__EAGER
 * bytes that live as long as it), then start it. */
typedef struct rmalab__msg_in {
    rmalab_comm *c;
    int source, tag;
    unsigned char *first;
    MPI_Request req;
    int stage, rc;
    bool scratch;             /* a blocking receive: own is the thread's scratch */
    unsigned char *own;       /* clock and payload, malloc'd (or scratch) */
    void *from_stash;         /* or they are in this stashed message */
    size_t nclock, nrest;
    rmalab_msg_status st;
    const unsigned char *payload; /* once taken */
    struct rmalab__msg_in *next_posted;
} rmalab__msg_in;

/* Take a stashed message that matches, or post the first part's receive;
 * with `now` (a blocking receive), when no other receive is posted and
 * waits do not sleep, receive the first part at once (MPI_Recv). */
int rmalab__msg_start(rmalab__msg_in *m, bool now);
/* Advance m (until it has all arrived, when `block`). */
int rmalab__msg_step(rmalab__msg_in *m, bool block);
/* A message that has all arrived: check it is of `type` (RMALAB__ANY_FORM:
 * any) and fits `cap` bytes at `into` (NULL: it stays in m, at
 * m->payload), then acquire its clock and copy it there. A refusal
 * (ERR_TYPE, ERR_TRUNCATE) stashes it. Nothing to do before it arrived. */
int rmalab__msg_take(rmalab__msg_in *m, int type, void *into, size_t cap);
/* Release m: a receive still posted is cancelled. */
void rmalab__msg_close(rmalab__msg_in *m);
/* Every posted receive whose first part came posts its rest (not self). */
void rmalab__msg_progress(const rmalab__msg_in *self);
/* Wait for r, driving progress while other receives are posted; self is
 * the receive that waits, or NULL. */
int rmalab__msg_wait(MPI_Request *r, MPI_Status *s, rmalab__msg_in *self);
/* Probe: a stashed message, or one that MPI has (taken whole and
 * stashed); *flag: whether there is one (`block`: wait for one). */
int rmalab__msg_peek(rmalab_comm *c, int source, int tag, bool block, int *flag,
                     rmalab_msg_status *st);
bool rmalab__msg_stashed(rmalab_comm *c, int source, int tag, rmalab_msg_status *st);
/* Drop a reference to c (rmalab__comm_release; `user`: the user's free):
 * when its MPI communicator goes, the messages stashed for it go too. */
int rmalab__msg_release(rmalab_comm *c, bool user);

/* ------------------------------------------------------------------------ */
/* Requests: a message's (p2p.c) or an RMA operation's (rma.c); request.c
 * waits for either                                                         */

typedef enum { RMALAB__RQ_SEND, RMALAB__RQ_RECV, RMALAB__RQ_RMA } rmalab__rq_kind;

struct rmalab_request {
    rmalab__rq_kind kind;
    int done;                 /* MPI is done with it (its id is no longer pending) */
    uint64_t id;              /* rmalab_request_id */
    int peer, tag;            /* RMA: the target; tag -1 */
    /* messages (p2p.c) */
    rmalab_comm *c;
    MPI_Request req[2];       /* a send's parts */
    unsigned char *first, *copy;
    rmalab__msg_in m;         /* a receive */
    int type;                 /* what it takes (RMALAB__ANY_FORM) */
    void *into;               /* the caller's memory, or NULL */
    size_t cap;
    /* RMA (rma.c) */
    rmalab_win *win;          /* NULL once the window is freed */
    uint64_t ticket;          /* its operation's, for rmalab_win_done */
    char what[48];            /* "rput to rank 1" */
    struct rmalab_request *wprev, *wnext; /* the window's requests */
    struct rmalab_request *next; /* orphans: sends destroyed before they ended */
};

/* coll.c: every rank gives the same count, type, root and op (the ones a
 * call does not have: 0, op -1; a call on values, not a typed buffer: type
 * -1), agreed in one small MPI_Allreduce before the collective, of the
 * same packet and op as a reduction of values: ERR_TRUNCATE, ERR_TYPE
 * (also where some ranks give a buffer and others values, whichever of
 * the two calls they are in), ERR_RANK or ERR_OP on every rank otherwise.
 * A rank whose own checks failed (`status`) takes part and gets its own
 * error back; the others fail with its class. */
int rmalab__coll_agree_args(rmalab_comm *c, const char *call, int status, int count, int type,
                            int root, int op);

/* p2p.c: a new request's id, pending until rmalab__p2p_rq_finished (0 and a
 * failure when out of memory). An RMA request's id is also done once its
 * operation completes by a call of its window (rmalab_win_done): `w`,
 * `target`, `ticket` say which (w NULL for messages); set them with
 * rmalab__p2p_rq_id_op. */
uint64_t rmalab__p2p_rq_id(void);
void rmalab__p2p_rq_id_op(uint64_t id, rmalab_win *w, int target, uint64_t ticket);
void rmalab__p2p_rq_finished(rmalab_request *r);
/* w is freed: its operations are complete, their ids done. */
void rmalab__p2p_rq_forget_win(rmalab_win *w);
/* A message request's step (p2p.c), for request.c. */
int rmalab__p2p_rq_step(rmalab_request *r, bool block);
void rmalab__p2p_rq_destroy(rmalab_request *r);

#endif
