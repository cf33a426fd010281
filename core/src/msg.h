/* Private to the core: the calls of msg.c, messages on the wire (an eager
 * first part, the rest on the communicator's shadow) and the stash of
 * messages taken but not yet wanted; p2p.c and request.c use them. Never
 * installed. */
#ifndef RMALAB_MSG_H
#define RMALAB_MSG_H

#include "private.h"

#include <rmalab/coll.h>

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
/* The common message: n bytes of `type` with no clock that fit in one
 * part, laid out as rmalab__msg_pack would and sent to dest with tag in
 * one MPI_Send; else (a clock, or too long) RMALAB__MSG_PACK: pack it. */
#define RMALAB__MSG_PACK (-1)
int rmalab__msg_send_whole(rmalab_comm *c, const void *buf, size_t n, int type, int dest,
                           int tag);
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
    unsigned char *own;       /* clock and payload, malloc'd (or scratch; or in first, when
                                 a blocking receive had it all there) */
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
/* A blocking receive from source with tag on c: start, step and take in
 * one, of `type` into `into` (as rmalab__msg_take), the status in *st. m
 * is its state, made here with `first` (RMALAB__EAGER bytes, aligned as
 * malloc's, that live as long as m), which the caller closes. On its own
 * (nothing stashed, no other receive posted, waits that spin), the common
 * message, whole in its first part with no clock, is received, checked
 * and copied with no stage between and m is not made: only m->payload is
 * set (in `first`), and the caller need not close it. */
int rmalab__msg_recv(rmalab__msg_in *m, rmalab_comm *c, int source, int tag,
                     unsigned char *first, int type, void *into, size_t cap,
                     rmalab_msg_status *st);
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

#endif
