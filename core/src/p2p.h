/* Private to the core: the calls of p2p.c, messages on communicators, and
 * the request they share with request.c. Never installed. */
#ifndef RMALAB_P2P_H
#define RMALAB_P2P_H

#include "private.h"
#include "msg.h"

/* A request: a message's (p2p.c) or an RMA operation's (request.c), which
 * request.c waits for. */
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

/* A new request's id, pending until rmalab__p2p_rq_finished (0 and a
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
