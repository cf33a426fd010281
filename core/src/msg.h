/* Private to the core: the calls of msg.c, messages on the wire (an eager
 * first part, the rest on the communicator's shadow) and the stash of
 * messages taken but not yet wanted; p2p.c and request.c use them. Never
 * installed. */
#ifndef RMALAB_MSG_H
#define RMALAB_MSG_H

#include "private.h"
#include "error-private.h"
#include "clock.h"
#include "comm-private.h"
#include "block.h"

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
/* The common message: whole in its first part, with no clock. Inline in
 * p2p.c's calls, which send and receive it with no stage between: a call
 * of msg.c's each way was 53-66 instructions of a ping-pong's round trip
 * (issue 41). The header is msg.c's (its head comment says what each
 * field is for). */

#define RMALAB__MSG_MARK 0x726d6c62u /* "rmlb" */
#define RMALAB__MSG_F_CLOCK 1u
#define RMALAB__MSG_TYPE_SHIFT 8     /* the type + 1 in bits 8..15; 0: bytes */

typedef struct {
    uint32_t mark, flags, clock, seq;
    uint64_t n;
} rmalab__msg_hdr;

_Static_assert(sizeof(rmalab__msg_hdr) == RMALAB__MSG_HDR, "the header's size");

/* msg.c's queues: the messages stashed and the receives posted. */
struct rmalab__msg_kept;
extern struct rmalab__msg_kept *rmalab__msg_stash;
extern rmalab__msg_in *rmalab__msg_posted;

/* The header of a message of n bytes of `type` carrying W8 bytes of clock. */
static inline rmalab__msg_hdr rmalab__msg_header(int type, size_t W8, size_t n)
{
    return (rmalab__msg_hdr){RMALAB__MSG_MARK,
                             (uint32_t)((type + 1) << RMALAB__MSG_TYPE_SHIFT) |
                                 (W8 ? RMALAB__MSG_F_CLOCK : 0),
                             (uint32_t)W8, 0, n};
}

/* n bytes from src, n known small: 8 (a double, an int64) and 9 (a
 * number coded) are copied inline, where memcpy of a length not known
 * here is a call to libc. */
static inline void rmalab__msg_copy_small(unsigned char *dst, const void *src, size_t n)
{
    if (n == 8)
        memcpy(dst, src, 8);
    else if (n == 9)
        memcpy(dst, src, 9);
    else if (n)
        memcpy(dst, src, n);
}

/* The common message: n bytes of `type` with no clock that fit in one
 * part, laid out as rmalab__msg_pack would and sent to dest with tag in
 * one MPI_Send; else (a clock, or too long) RMALAB__MSG_PACK: pack it. */
#define RMALAB__MSG_PACK (-1)
__attribute__((always_inline)) static inline int
rmalab__msg_send_whole(rmalab_comm *c, const void *buf, size_t n, int type, int dest, int tag)
{
    if (n > RMALAB__EAGER - sizeof(rmalab__msg_hdr) || rmalab__clock_exists())
        return RMALAB__MSG_PACK;
    _Alignas(16) unsigned char first[RMALAB__EAGER];
    rmalab__msg_hdr h = rmalab__msg_header(type, 0, n);
    memcpy(first, &h, sizeof h);
    rmalab__msg_copy_small(first + sizeof h, buf, n);
    int e = MPI_Send(first, (int)(sizeof h + n), MPI_BYTE, dest, tag, rmalab__comm_handle(c));
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__err_mpi(e, "MPI_Send");
}

/* The bytes a receive of MPI_BYTE took. MPICH keeps a status's count in
 * bytes in the fields of its mpi.h that MPI_Get_count reads (its
 * MPIR_STATUS_GET_COUNT): read here, where the call to MPI_Get_count was
 * 82 instructions a receive, 5% of a ping-pong's own work. */
static inline int rmalab__msg_count(const MPI_Status *s)
{
#if defined(MPICH_NUMVERSION)
    if (!(s->count_hi_and_cancelled >> 1) && s->count_lo >= 0)
        return s->count_lo;
#endif
    int count = 0;
    MPI_Get_count(s, MPI_BYTE, &count);
    return count;
}

/* The common message, all in the first part (status s) with no clock, of
 * `type`, fitting `cap` at `into`: taken at once (true: m is left as
 * rmalab__msg_close leaves it, m->payload set, *st filled); else false. */
static inline bool rmalab__msg_took_whole(rmalab__msg_in *m, const unsigned char *first,
                                          const MPI_Status *s, int type, void *into, size_t cap,
                                          rmalab_msg_status *st)
{
    int count = rmalab__msg_count(s);
    rmalab__msg_hdr h;
    if (count < (int)sizeof h)
        return false;
    memcpy(&h, first, sizeof h);
    int t = (int)(h.flags >> RMALAB__MSG_TYPE_SHIFT & 0xff) - 1;
    if (h.mark != RMALAB__MSG_MARK || h.flags & RMALAB__MSG_F_CLOCK || h.clock ||
        h.n != (size_t)count - sizeof h || (type != RMALAB__ANY_FORM && t != type) ||
        (into && h.n > cap))
        return false;
    *st = (rmalab_msg_status){.source = s->MPI_SOURCE, .tag = s->MPI_TAG, .bytes = h.n,
                              .type = t};
    m->payload = first + sizeof h;
    if (into)
        rmalab__msg_copy_small(into, m->payload, h.n);
    return true;
}

/* rmalab__msg_recv's other roads (msg.c): through the stages, when a
 * message is stashed, another receive is posted or waits sleep; and on
 * from a first part received (status s) that was not the common message. */
int rmalab__msg_recv_queued(rmalab__msg_in *m, rmalab_comm *c, int source, int tag,
                            unsigned char *first, int type, void *into, size_t cap,
                            rmalab_msg_status *st);
int rmalab__msg_recv_opened(rmalab__msg_in *m, rmalab_comm *c, int source, int tag,
                            unsigned char *first, const MPI_Status *s, int type, void *into,
                            size_t cap, rmalab_msg_status *st);

/* A blocking receive from source with tag on c: start, step and take in
 * one, of `type` into `into` (as rmalab__msg_take), the status in *st. m
 * is its state, made here with `first` (RMALAB__EAGER bytes, aligned as
 * malloc's, that live as long as m), which the caller closes. On its own
 * (nothing stashed, no other receive posted, waits that spin), the common
 * message, whole in its first part with no clock, is received, checked
 * and copied with no stage between and m is not made: only m->payload is
 * set (in `first`), and the caller need not close it. */
__attribute__((always_inline)) static inline int
rmalab__msg_recv(rmalab__msg_in *m, rmalab_comm *c, int source, int tag, unsigned char *first,
                 int type, void *into, size_t cap, rmalab_msg_status *st)
{
    if (rmalab__msg_stash || rmalab__msg_posted ||
        atomic_load_explicit(&rmalab__block_wait_mode, memory_order_relaxed) == RMALAB_WAIT_SLEEP)
        return rmalab__msg_recv_queued(m, c, source, tag, first, type, into, cap, st);
    MPI_Status s;
    int e = MPI_Recv(first, RMALAB__EAGER, MPI_BYTE, source < 0 ? MPI_ANY_SOURCE : source,
                     tag < 0 ? MPI_ANY_TAG : tag, rmalab__comm_handle(c), &s);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "MPI_Recv");
    if (rmalab__msg_took_whole(m, first, &s, type, into, cap, st))
        return RMALAB_OK;
    return rmalab__msg_recv_opened(m, c, source, tag, first, &s, type, into, cap, st);
}

#endif
