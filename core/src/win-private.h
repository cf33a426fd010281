/* Private to the core: the window, its parts and its inline primitives.
 * Never installed. The design of the files around it is at the top of
 * private.h.
 *
 * THE WINDOW. Each part of struct rmalab_win below has one owner that
 * writes it; other files read what their comment allows. The fields at the
 * top are set during creation and read by everyone. No file outside the
 * engines knows which engine a window has: they call its slots, and a NULL
 * slot means "nothing to do". */
#ifndef RMALAB_WIN_PRIVATE_H
#define RMALAB_WIN_PRIVATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "private.h"
#include "attr.h"
#include "block.h"
#include "error-private.h"
#include <rmalab/races.h>
#include <rmalab/sync.h>
#include <rmalab/trace.h>

/* MPICH 4.0.2 + UCX 1.13 rounds window bases down to this. */
#define RMALAB__WIN_ALIGN 16
/* What the core allocates with. */
#define RMALAB__MEM_ALIGN 64

static inline MPI_Aint rmalab__win_round16(MPI_Aint n)
{
    return (n + RMALAB__WIN_ALIGN - 1) / RMALAB__WIN_ALIGN * RMALAB__WIN_ALIGN;
}

/* ------------------------------------------------------------------------ */
/* PSCW engines: the MPI-facing half of post/start/complete/wait/test, and
 * what a window needs from its engine around them. sync.c has checked
 * every call (groups hold valid ranks once each) before an engine runs, and
 * updates the epoch state after it succeeds. `mode` holds MPI_MODE_* bits.
 * Slots marked optional may be NULL. */
typedef struct rmalab__engine {
    const char *name;
    /* The engine keeps the window it drives in a lock_all of its own, in
     * which MPI allows no fence and no lock: win.c then opens a companion
     * window (`plain`) for them, and the hint no_locks goes to that one.
     * Not for a window whose memory and counters are in node-shared
     * memory of the engine's (`tail` below): the engine then takes its
     * lock_all only in an access epoch with operations through MPI, up to
     * its complete, so that window is also the window of fences and locks,
     * and MPICH never sees no_locks on it (rmalab holds the promise
     * itself). */
    bool own_lock_all;
    /* The engine's start never waits, and its operations record their own
     * waits (engine-rma.c's polling loop, which rmalab_interrupt may end):
     * sync.c then makes no record of the process around start and complete
     * (about 320 of the 2,100 instructions of an rma epoch to self; issue
     * 41). The native engine's start and complete wait inside MPICH and are
     * recorded by sync.c. Every engine's wait records its own wait. */
    bool own_waits;
    /* Creation, before the ranks' first agreement: the engine's state.
     * Local: it may fail on one rank alone, and that agreement carries it.
     * `parent` is the communicator that w->comm duplicates, on which the
     * engine may cache what every window over it shares. What it finds
     * there may settle a win_allocate's shape at once: then it asks in
     * *tail, as setup would, for bytes after this rank's memory, both in
     * node-shared memory that `place` gives, and creation makes no setup
     * (nor the agreement after it). The same on every rank that got that
     * far. */
    int (*make)(rmalab_win *w, MPI_Comm parent, MPI_Aint *tail);
    /* Creation, before the MPI window exists (optional; not run when make
     * asked for a tail): the collective part of the engine's state. `base`
     * is non-NULL where rmalab provides this rank's memory (win_allocate,
     * and win_create without memory from the caller): the engine may then
     * provide it in *base, `alloc` bytes;
     * or, for win_allocate, ask in *tail for that many bytes after this
     * rank's memory, as make may (every rank is on one node). Collective;
     * creation agrees on a failure here after it. */
    int (*setup)(rmalab_win *w, MPI_Comm parent, MPI_Aint alloc, void **base, MPI_Aint *tail);
    /* Creation, for a window with a tail (optional with setup): where its
     * memory and tail go, in node-shared memory shared by the windows over
     * the parent. room, local, before the first agreement, which carries
     * the largest over the ranks to place as `how`: 0 when they fit in the
     * memory at hand (place is then local and cannot fail), else place is
     * collective, every rank with the same how, and agrees on its failure
     * itself. place gives the memory in *base and this rank's place in it
     * in w->lay.place, which the check of window bases hands every rank;
     * then placed learns where every rank's memory and tail are (local,
     * cannot fail). The MPI window is an MPI_Win_create over *base. */
    int (*room)(rmalab_win *w);
    int (*place)(rmalab_win *w, int how, void **base);
    void (*placed)(rmalab_win *w);
    /* Creation, once the MPI window exists (optional). Local, before the
     * check of window bases, a collective that every rank enters before
     * any leaves (so what setup wrote, zeroed counters, is in place on
     * every rank before any can use the window) and that agrees on a
     * failure here. */
    int (*attach)(rmalab_win *w);
    /* Before MPI_Win_free: end what the engine holds open (optional). */
    void (*quiesce)(rmalab_win *w);
    /* After MPI_Win_free: release the engine's state. */
    void (*destroy)(rmalab_win *w);

    int (*post)(rmalab_win *w, const int *ranks, int n, int mode);
    int (*start)(rmalab_win *w, const int *ranks, int n, int mode);
    /* `group` is the open access epoch's, `xgroup` the exposure epoch's. */
    int (*complete)(rmalab_win *w, const int *group, int n);
    int (*wait)(rmalab_win *w, const int *xgroup, int n);
    int (*test)(rmalab_win *w, const int *xgroup, int n, int *flag);

    /* Before an operation to `target` in an access epoch (optional: the
     * operation then goes straight to MPI): wait for the target's post
     * (weak synchronisation). *ptr is the target's memory at `disp` when
     * plain loads and stores may reach it (only if plain_ok), else NULL and
     * the operation goes through MPI. */
    int (*access)(rmalab_win *w, const char *what, int target, MPI_Aint disp, bool plain_ok,
                  unsigned char **ptr);
    /* The engine's own keys in get_info. */
    int (*info)(const rmalab_win *w, rmalab_info *info);
    /* Matching, for the observable state, from any thread (optional: the
     * state then says -1, unknown): has target's post for the open access
     * epoch arrived; has origin's complete for the open exposure epoch. */
    int (*posted)(rmalab_win *w, int target);
    int (*arrived)(rmalab_win *w, int origin);
} rmalab__engine;

/* ------------------------------------------------------------------------ */
/* The parts of a window                                                    */

/* Dynamic windows: what a rank has attached, exposed so that origins can
 * check a displacement before MPI writes to an address that was never
 * attached (MPICH 4.0.2 then crashes the target). */
#define RMALAB__MAX_REGIONS 64
struct rmalab__dyn_meta {
    int64_t n;
    int64_t addr[RMALAB__MAX_REGIONS];
    int64_t size[RMALAB__MAX_REGIONS];
};

struct rmalab__region {
    void *mem;
    MPI_Aint addr, size;
    bool owned;             /* the core allocated mem (rmalab_win_attach) */
};

/* Owner layout.c; read by everyone. no_locks changes in set_info. */
struct rmalab__layout {
    MPI_Aint *sizes;            /* every rank's size_req */
    int *disp_units;            /* every rank's disp_unit */
    int *world_ranks;           /* every rank's rank in MPI_COMM_WORLD */
    unsigned char *no_locks;    /* every rank's no_locks hint in force */
    int *nodes;                 /* shared windows: every rank's node (its lowest world rank) */
    MPI_Aint place, *places;    /* this and every rank's place in the engine's memory, if any */
    void *xchg;                 /* creation: room for every rank's entry */
    struct rmalab__region *regions; /* dynamic windows: this rank's */
    int nregions, capregions;
    MPI_Win meta;               /* dynamic windows: every rank's regions */
    struct rmalab__dyn_meta *my_meta;
};

/* Owner sync.c, under the window's lock; state.c reads it under the lock,
 * win-free.c reads it to refuse freeing inside an epoch, rma.c for the window
 * an operation goes through. The race checker gets what it needs in the
 * events of observe.h. */
struct rmalab__epoch {
    rmalab_access access;
    rmalab_exposure exposure;
    int *group;                 /* start group, as given (size entries) */
    int ngroup;
    unsigned char *in_group;    /* per rank: in the start group */
    unsigned char *locked;      /* per rank: 0, 1 shared, 2 exclusive */
    int nlocked;
    int *xgroup;                /* post group (size entries) */
    int nxgroup;
    unsigned char *scratch;     /* size bytes, for checking groups */
    uint64_t ops_in_epoch;      /* RMA calls since the access epoch opened */
    uint64_t epochs;
    bool closed_by_test;        /* the last exposure epoch ended in test() */
    bool start_nocheck, post_nocheck; /* the open PSCW epochs' assertion */
    int lock_waiting;           /* rmalab_epoch_state's: a lock not granted yet */
    bool lock_waiting_exclusive;
};

/* Owner results.c. op_seq numbers every data-returning operation; done_all
 * and done[t] say up to which number operations have completed. */
struct rmalab__results {
    uint64_t op_seq, done_all;
    uint64_t *done;
    rmalab_result **pending;
    int npending, cappending;
    struct rmalab__chunk *stage; /* origin data of operations in flight */
    unsigned char *staged;       /* per target: has data in the stage that no
                                    completion has covered yet */
    int nstaged;                 /* targets with staged[] set */
};

/* Owner trace.c: a window's record (trace-private.h). */
typedef struct rmalab__trace rmalab__trace;

struct rmalab_win {
    /* Set in creation (win.c), read by all. */
    MPI_Win win;            /* PSCW and the operations of start epochs */
    /* Fences, locks and their operations: `win` itself, or the companion
     * window of an engine with own_lock_all (not on a window with a tail),
     * over the same memory, so a hint never changes what a call means
     * (docs/pscw.md). */
    MPI_Win plain;
    MPI_Comm comm;          /* a duplicate, for the window's own collectives */
    int rank, size;
    rmalab_flavor flavor;
    void *base;
    void *owned_mem;        /* memory the core allocated for create */
    MPI_Aint size_req;      /* bytes the user asked for */
    int disp_unit;
    int model;
    rmalab_rules rules;     /* rmalab_win_opts's: what a rule MPICH tolerates does */
    MPI_Group wgroup;       /* the window's group */
    rmalab_info *requested; /* hints as the user gave them, merged (win.c) */
    rmalab_info *at_create; /* canonical hints in force from creation */
    const rmalab__engine *eng;
    void *engine_state;     /* the engine's own, from its setup */
    char name[128];         /* written under `lock` by set_name */

    /* Owner registry.c. */
    uint64_t id;            /* creation order in this process */
    rmalab_win *reg_prev, *reg_next;

    struct rmalab__layout lay;
    struct rmalab__epoch ep;
    struct rmalab__results res;
    rmalab__attr_list attrs; /* owner attr.c */
    /* Owner trace.c: the record, NULL when the window records nothing or
     * is paused (then trace_paused holds it). */
    rmalab__trace *trace, *trace_paused;
    /* Owner races-sync.c: the race checker, NULL when the window is not
     * checked (every hook is then one NULL test). */
    struct rmalab__races *races;
    /* Owner request.c: the request-based operations not yet waited for. */
    struct rmalab_request *requests;

    /* Shared by every writer of the epoch state (sync.c) and its readers
     * (state.c): a spin lock, held for a few stores or a copy. */
    atomic_flag lock;
    /* Lock-free (see rmalab__win_set_blocked): the call the owning thread is
     * blocked in, or NULL. */
    _Atomic(const char *) blocked_in;
    _Atomic double blocked_since;
};

struct rmalab_result {
    int refs;
    rmalab_win *win;        /* while pending */
    int target;
    uint64_t seq;
    bool ready;
    rmalab_type type;
    int count;
    rmalab_access access;   /* its access epoch: which call completes it, for messages */
    _Alignas(16) unsigned char data[];
};

/* ------------------------------------------------------------------------ */
/* Primitives every window file may use (inline: they call block.c alone)  */

/* The state lock. Writers hold it for a handful of stores and readers for
 * a copy, so a spin lock costs less than a mutex on every epoch. */
static inline void rmalab__win_state_lock(rmalab_win *w)
{
    while (atomic_flag_test_and_set_explicit(&w->lock, memory_order_acquire))
        ;
}

static inline void rmalab__win_state_unlock(rmalab_win *w)
{
    atomic_flag_clear_explicit(&w->lock, memory_order_release);
}

/* Seconds on a clock cheap enough for every synchronisation call
 * (CLOCK_MONOTONIC_COARSE: a few ns, resolution of a few ms). */
static inline double rmalab__win_coarse_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Mark the owning thread blocked in `call` (NULL: not blocked). Lock-free,
 * as it runs around blocking calls: the time is stored before the call name
 * is published, and readers load the name first. */
static inline void rmalab__win_set_blocked_at(rmalab_win *w, const char *call, double since)
{
    if (call)
        atomic_store_explicit(&w->blocked_since, since, memory_order_relaxed);
    atomic_store_explicit(&w->blocked_in, call, memory_order_release);
}

static inline void rmalab__win_set_blocked(rmalab_win *w, const char *call)
{
    rmalab__win_set_blocked_at(w, call, call ? rmalab__win_coarse_now() : 0);
}

/* A window call that may block: block.c's record of the process, and the
 * window's own blocked_in (restored when it leaves, for an operation that
 * waits inside a call that blocks already). It waits for `ranks` (n window
 * ranks), or with ranks NULL for the whole window. A collective call first
 * waits for the window's group on w->comm in SLEEP mode; if that fails,
 * the call has left and the error is returned. */
static inline int rmalab__win_block_(rmalab_win *w, rmalab__block *b, const char *call,
                                     bool collective, bool interruptible, bool passive,
                                     const int *ranks, int n, rmalab__err_packet *agree)
{
    *b = (rmalab__block){.call = call, .object = "win", .id = w->id, .comm = w->comm,
                         .ranks = ranks, .map = w->lay.world_ranks,
                         .n = ranks ? n : w->size, .collective = collective,
                         .interruptible = interruptible, .passive = passive,
                         .win_prev = atomic_load_explicit(&w->blocked_in,
                                                          memory_order_relaxed),
                         .agree = agree};
    double now = rmalab__win_coarse_now(); /* one clock read for both records */
    rmalab__win_set_blocked_at(w, call, now);
    int rc = rmalab__block_enter_at(b, now);
    if (rc)
        rmalab__win_set_blocked(w, b->win_prev);
    return rc;
}

static inline int rmalab__win_block(rmalab_win *w, rmalab__block *b, const char *call,
                                    bool collective, const int *ranks, int n)
{
    return rmalab__win_block_(w, b, call, collective, false, false, ranks, n, NULL);
}

/* A collective call over the window's group that agrees first (`agree`,
 * packed by rmalab__err_agree_pack; rmalab__block_agree gives the verdict
 * once it has entered): in SLEEP mode the wait for the group is that
 * agreement. */
static inline int rmalab__win_block_agree(rmalab_win *w, rmalab__block *b, const char *call,
                                          rmalab__err_packet *agree)
{
    return rmalab__win_block_(w, b, call, true, false, false, NULL, 0, agree);
}

/* A passive-target call (lock, unlock, the flushes, an RMA request's wait):
 * it waits inside MPI for its targets' progress, not for a call of theirs,
 * which rmalab_set_progress_hook's hook hears of. Never collective. */
static inline void rmalab__win_block_passive(rmalab_win *w, rmalab__block *b, const char *call,
                                             const int *ranks, int n)
{
    (void)rmalab__win_block_(w, b, call, false, false, true, ranks, n, NULL);
}

/* A wait in rmalab's own polling loop, which rmalab_interrupt may end: the
 * loop polls rmalab__block_interrupted(b) and, when it is set, returns
 * RMALAB_ERR_INTERRUPTED having changed nothing. Never collective. */
static inline void rmalab__win_block_interruptible(rmalab_win *w, rmalab__block *b,
                                                   const char *call, const int *ranks, int n)
{
    (void)rmalab__win_block_(w, b, call, false, true, false, ranks, n, NULL);
}

static inline void rmalab__win_unblock(rmalab_win *w, rmalab__block *b)
{
    rmalab__win_set_blocked(w, b->win_prev);
    rmalab__block_leave(b);
}

/* The end of a public call of rmalab/block.h on a window (id: the
 * window's, read before a free). Records a failure; returns rc. */
static inline int rmalab__win_call_end(uint64_t id, const char *call, int rc)
{
    return rmalab__block_call_end(call, "win", id, rc);
}

static inline uint64_t rmalab__win_id(const rmalab_win *w)
{
    return w ? w->id : 0;
}

/* The MPI window an operation of the open access epoch goes through. */
static inline MPI_Win rmalab__win_of_op(const rmalab_win *w)
{
    return w->ep.access == RMALAB_ACCESS_START ? w->win : w->plain;
}

/* Does an operation of the open access epoch go through the engine? */
static inline bool rmalab__win_via_engine(const rmalab_win *w)
{
    return w->eng->access && w->ep.access == RMALAB_ACCESS_START;
}

#define RMALAB__CHECK_WIN(w)                                                                       \
    do {                                                                                           \
        if (!(w))                                                                                  \
            return rmalab__err_fail(RMALAB_ERR_WIN, "window is NULL or freed");                    \
    } while (0)

/* ------------------------------------------------------------------------ */
/* The events of observe.h, which sync.c fills and the event layer hands to
 * the recorder and the race checker (races-sync.h). */
typedef struct rmalab__sync_event rmalab__sync_event;
typedef struct rmalab__op_event rmalab__op_event;

/* A synchronisation call, described by its row of rmalab__kind_rows. */
struct rmalab__sync_event {
    const rmalab_sync_kind *k;
    int64_t t0;
    int peer;               /* scope PEER: the target; else -1 */
    const int *group;       /* scope GROUP: the group, n ranks */
    int n;
    int flag;               /* the trace's flag: assertion, exclusive, test's result */
    bool unfinished;        /* a test that returned false: traced, nothing acquired */
};

/* An operation, or a local access (kind RMALAB_TRACE_READ or _WRITE, target
 * this rank): described at its begin, checked by sync.c, which adds what
 * the epoch state says of it (rmalab__sync_epoch_facts), and ended once issued.
 * The race checker reads those facts from the event, never the state. */
struct rmalab__op_event {
    int kind;               /* rmalab_trace_kind */
    int target;
    MPI_Aint disp;
    rmalab_type type;
    int count;
    rmalab_op op;           /* RMALAB_NOPS for compare_and_swap and local accesses */
    int64_t t0;             /* its time if the window records, else 0 */
    /* The epoch facts, filled when the window is checked: */
    uint8_t lock;           /* this rank's lock on target: 0, 1 shared, 2 exclusive */
    uint8_t during;         /* the call that opened the epoch it is made in
                               (rmalab_sync_id; RMALAB_SYNC_NKINDS: none): an
                               operation's access epoch, a local access's
                               exposure epoch */
    bool in_bytes;          /* disp counts bytes, not the target's units: a
                               direct load or store (rmalab_win_direct), a
                               block of a vector whose stride is no whole
                               number of units, a span of a typed target
                               (shape.c) */
    bool more;              /* a block of an operation, and more follow: they
                               all take its call site (shape.c) */
};

#endif
