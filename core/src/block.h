/* block.c: blocking calls (rmalab/block.h has the contract).
 * Private to the core, never installed. */
#ifndef RMALAB_BLOCK_PRIVATE_H
#define RMALAB_BLOCK_PRIVATE_H

#include "private.h"
#include "error-private.h"

#include <rmalab/block.h>

/* What a blocking call waits for, published while it runs. The caller
 * owns it (on its stack) and keeps the arrays valid until it leaves.
 * Member i is map[ranks[i]], with an identity for a NULL map or ranks.
 * The pointers first and the flags packed at the end: callers clear it
 * with a compound literal, which was 136 bytes to zero and is now 96. */
typedef struct rmalab__block {
    const char *call;
    const char *object;         /* "win" or "comm" */
    uint64_t id;
    const int *ranks;           /* NULL: 0 .. n-1 */
    const int *map;             /* to world ranks; NULL: identity */
    double since;               /* set by rmalab__block_enter */
    const struct rmalab__block *prev; /* the call it is nested in */
    const char *win_prev;       /* win-private.h: the window's blocked_in before */
    rmalab__err_packet *agree;  /* collective calls: the agreement they make
                                   first (packed), or NULL */
    MPI_Comm *dup;              /* collective calls with no agreement first: a
                                   duplicate of comm they make first, or NULL */
    MPI_Comm comm;              /* collective calls: their communicator */
    int n;
    bool collective;
    bool interruptible;         /* the caller polls rmalab__block_interrupted */
    bool passive;               /* needs the ranks' progress, not a call of
                                   theirs: rmalab_set_progress_hook is told */
    _Atomic bool interrupted;   /* set by rmalab_interrupt */
    bool owned;                 /* set by rmalab__block_enter: on the owner's stack */
    bool agreed;                /* set by rmalab__block_enter: agree is reduced */
    bool duped;                 /* set by rmalab__block_enter: *dup is made */
} rmalab__block;

extern __attribute__((visibility("hidden"))) _Atomic int rmalab__block_wait_mode; /* mode */

/* Publish b (the process is blocked in it) and, in SLEEP mode, wait for a
 * collective call's group with the sleeping backoff, in the nonblocking
 * form of the agreement the call makes first (b->agree: an MPI_Iallreduce
 * on b->comm, and b->agreed is set), or of the duplicate it makes first
 * (b->dup: an MPI_Comm_idup of b->comm, and b->duped is set), or else in
 * an MPI_Ibarrier. An error
 * can only come from that collective, and then b has left already;
 * otherwise the caller leaves when the call ends. */
static inline int rmalab__block_enter(rmalab__block *b);
/* ... at `since`, CLOCK_MONOTONIC_COARSE seconds the caller has read (a
 * window's call stores the same time as its own), or 0 (rmalab__block_stamp). */
static inline int rmalab__block_enter_at(rmalab__block *b, double since);
/* A point-to-point call's record, filled and published in one (it is
 * never collective nor passive, so it cannot fail): `call` on communicator
 * c, its group the rank at *peer (kept valid by the caller), or every rank
 * when *peer is negative (any source). */
void rmalab__block_enter_p2p(rmalab__block *b, const char *call, MPI_Comm c, const int *peer);
/* The verdict of b's agreement (rmalab__err_agree_verdict): reduced in
 * rmalab__block_enter in SLEEP mode, else now in an MPI_Allreduce. So a
 * collective call that agrees makes one collective before its own in
 * either mode. */
int rmalab__block_agree(rmalab__block *b, int *mixed);
void rmalab__block_leave(rmalab__block *b);
/* Has rmalab_interrupt ended b (an interruptible call, polling)? */
static inline bool rmalab__block_interrupted(const rmalab__block *b)
{
    return atomic_load_explicit(&b->interrupted, memory_order_relaxed);
}
/* b describes a call on communicator c: its id and world ranks (cached on
 * the communicator). */
static inline void rmalab__block_comm(rmalab__block *b, MPI_Comm c);
/* Give a communicator that rmalab created the next communicator id. */
void rmalab__block_tag_comm(MPI_Comm c);

/* A call of rmalab/block.h starts: the last failure is forgotten (a test
 * of one flag when there is none, inline below). */
static inline void rmalab__block_call_begin(void);
/* ... and ends with rc, recorded when it is a failure; returns rc. */
static inline int rmalab__block_call_end(const char *call, const char *object, uint64_t id,
                                         int rc);

/* The sleeping backoff of a polling loop: each step polls at once for the
 * first tens of µs, then sleeps, from 20 µs doubling to 1 ms; a wait that
 * has lasted about 0.1 s (someone at a prompt has yet to act) sleeps 10 ms
 * at a time, unless another process hurries this one (rmalab_wait_hurry):
 * then 20 µs again, a sleep in progress ending at once. */
typedef struct {
    unsigned long n, slept;
    long ns;
    struct timespec t0;
} rmalab__backoff;
#define RMALAB__BACKOFF_INIT {0, 0, 0, {0, 0}}
void rmalab__block_backoff(rmalab__backoff *b);
/* Wait for *req: MPI_Test with the sleeping backoff. */
int rmalab__block_wait_request(MPI_Request *req, const char *what);

/* ------------------------------------------------------------------------ */
/* The fast paths, inline in every caller (block.c has the rest and says
 * how readers and the owner meet). Out of line, the record cost about 190
 * instructions a ping-pong round trip: six calls with their prologues, a
 * libc call for the owner's thread id, and the clock. */

/* The owner's stack (written by the owner alone, read under `reading`),
 * and the owner, by its thread pointer: 0 until a thread owns it. */
#define RMALAB__HIDDEN __attribute__((visibility("hidden"))) /* no GOT load */
extern RMALAB__HIDDEN struct rmalab__block_own {
    const rmalab__block *_Atomic now;
    atomic_int reading; /* a reader (holding block.c's lock) looks at `now` */
} rmalab__block_own;
extern RMALAB__HIDDEN _Atomic uintptr_t rmalab__block_owner;
extern RMALAB__HIDDEN atomic_bool rmalab__block_failed; /* rmalab_last_failure has one */
extern RMALAB__HIDDEN int rmalab__block_world_size; /* of MPI_COMM_WORLD; -1: not asked yet */
/* Some thread reads the records (rmalab_blocked_watch, or a first read):
 * calls read the clock as they start; until then they leave since 0, and
 * the first reader to see such a record stamps it (block.c). */
extern RMALAB__HIDDEN atomic_bool rmalab__block_timed;

/* block.c's slow paths of the functions below. */
int rmalab__block_enter_slow(rmalab__block *b);
void rmalab__block_push_slow(rmalab__block *b);
void rmalab__block_comm_slow(rmalab__block *b, MPI_Comm c);
int rmalab__block_fail(const char *call, const char *object, uint64_t id, int rc);
void rmalab__block_forget(void);
double rmalab__block_now(void);

/* The time a call starts at, as its record keeps it: 0 while nobody reads
 * the records (the clock was about 23 instructions and 20 ns a call). */
static inline double rmalab__block_stamp(void)
{
    return atomic_load_explicit(&rmalab__block_timed, memory_order_relaxed) ? rmalab__block_now()
                                                                            : 0;
}

/* Push b on the stack that this thread writes (b->owned: the owner's). */
static inline void rmalab__block_push(rmalab__block *b)
{
    if ((uintptr_t)__builtin_thread_pointer() !=
        atomic_load_explicit(&rmalab__block_owner, memory_order_relaxed)) {
        rmalab__block_push_slow(b);
        return;
    }
    b->owned = true;
    b->prev = atomic_load_explicit(&rmalab__block_own.now, memory_order_relaxed);
    atomic_store_explicit(&rmalab__block_own.now, b, memory_order_release);
}

static inline int rmalab__block_enter_at(rmalab__block *b, double since)
{
    b->since = since;
    b->agreed = b->duped = false;
    if (b->passive ||
        (b->collective &&
         (atomic_load_explicit(&rmalab__err_callbacks_live, memory_order_relaxed) ||
          atomic_load_explicit(&rmalab__block_wait_mode, memory_order_relaxed) ==
              RMALAB_WAIT_SLEEP)))
        return rmalab__block_enter_slow(b);
    rmalab__block_push(b);
    return RMALAB_OK;
}

static inline int rmalab__block_enter(rmalab__block *b)
{
    return rmalab__block_enter_at(b, rmalab__block_stamp());
}

static inline void rmalab__block_comm(rmalab__block *b, MPI_Comm c)
{
    if (c != MPI_COMM_WORLD || rmalab__block_world_size < 0) {
        rmalab__block_comm_slow(b, c);
        return;
    }
    b->object = "comm";
    b->comm = c;
    b->ranks = NULL;
    b->id = 0;
    b->map = NULL;
    b->n = rmalab__block_world_size;
}

static inline void rmalab__block_call_begin(void)
{
    if (atomic_load_explicit(&rmalab__block_failed, memory_order_relaxed))
        rmalab__block_forget();
}

static inline int rmalab__block_call_end(const char *call, const char *object, uint64_t id,
                                         int rc)
{
    return rc == RMALAB_OK ? rc : rmalab__block_fail(call, object, id, rc);
}

#endif
