/* The rma PSCW engine: post/start/complete/wait/test built from MPI-3 one-sided primitives, as in
 * foMPI (Gerstenberger, Besta, Hoefler, SC13), with every step of the matching visible.
 * docs/pscw-rma.md has the protocol, a diagram and the measures.
 *
 * State. Every rank holds two arrays of monotonic 64-bit counters, indexed by the peer's rank in
 * the window's group: post_in[t], how many times target t has posted to this rank, and
 * complete_in[o], how many times origin o has completed an epoch to it. The origin counts the
 * posts it has consumed per target and the target the completes it expects per origin, so epoch
 * k+1 can race the end of epoch k without a flag ever being overwritten before it is read.
 *
 * Paths, per peer (docs/pscw-rma.md, "Paths"). Peers on this node (engine-node.c) reach the
 * counters, and the window memory where rmalab provides it, in node-shared memory: C11 atomics
 * (release on increment, acquire on observation) and plain copies. On one node a win_allocate's
 * window is an MPI_Win_create over a slice of memory its communicator's windows share, and also
 * the window of fences and locks, in lock_all only from an access epoch's first operation
 * through MPI to its complete. Other peers' counters are in a window in lock_all, raised with
 * MPI_Accumulate and flushed before post and complete return; the data window is in lock_all too.
 *
 * Weak synchronisation: start returns at once; the first operation to a target waits for that
 * target's post. Progress: every wait calls MPI's progress engine (MPI_Iprobe) as it polls, then
 * backs off. */
#include "trace-private.h"
#include "alloc.h"
#include "engine-node.h"
#include "engine-rma.h"
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef _Atomic uint64_t counter_t;

struct rmalab__rma { /* w->engine_state */
    MPI_Win shm_sync;        /* node-shared counters, then the memory rmalab provides */
    counter_t *my_shm;       /* post_in[P], complete_in[P] written by node peers */
    counter_t **peer_shm;    /* per rank: its shm counters, NULL when not on this node */
    MPI_Win mpi_sync;        /* counters written through MPI, MPI_WIN_NULL if all local */
    uint64_t *my_mpi;        /* post_in[P], complete_in[P] written by other nodes */
    unsigned char **peer_base; /* per rank: its window memory if reachable by copy */
    int locked;              /* the data window and mpi_sync are in lock_all */
    int unflushed;           /* counter increments through MPI not yet flushed */
    int remote_peers, local_peers, plain_peers;
    MPI_Aint tail;           /* counters after the memory, in the node's memory, or 0 */
    rmalab__engine_node *made; /* from make to setup: a node to find, none cached */
    rmalab__engine_node *node; /* with a tail: the node whose memory has the slice */
    rmalab__engine_node_slice slice;
    /* origin side */
    uint64_t *consumed;      /* posts consumed per target */
    uint64_t *need;          /* post count the open epoch needs, per target */
    int nocheck;             /* the open access epoch was started with nocheck */
    unsigned char *ready;    /* the target's post was observed this epoch */
    unsigned char *mpi_ops;  /* MPI operations to flush at complete, per target */
    /* target side */
    uint64_t *expected;      /* completes expected so far, per origin */
};

static struct rmalab__rma *state_of(const rmalab_win *w) { return w->engine_state; }

/* ------------------------------------------------------------------------ */
/* Counters                                                                 */

static int post_slot(const struct rmalab__rma *r, int peer) { (void)r; return peer; }

static int complete_slot(const rmalab_win *w, int peer) { return w->size + peer; }

/* This rank's counter `slot`, which peer `peer` increments: node peers through the shared segment,
 * others through MPI into this rank's part of the counter window, whose memory the unified model
 * lets us load directly. Never blocks and makes no MPI call: callers that poll drive progress
 * themselves (backoff). Safe from any thread. */
static uint64_t read_counter(rmalab_win *w, int peer, int slot)
{
    struct rmalab__rma *r = w->engine_state;
    if (r->peer_shm[peer])
        return atomic_load_explicit(&r->my_shm[slot], memory_order_acquire);
    return __atomic_load_n(&r->my_mpi[slot], __ATOMIC_ACQUIRE);
}

/* Increment counter `slot` of rank `peer` (release: what this rank wrote before is visible to
 * whoever observes the new value). MPI increments are completed later by flush_signals. */
static int signal_counter(rmalab_win *w, int peer, int slot, int *pending_mpi)
{
    struct rmalab__rma *r = w->engine_state;
    if (r->peer_shm[peer]) {
        atomic_fetch_add_explicit(&r->peer_shm[peer][slot], 1, memory_order_release);
        return RMALAB_OK;
    }
    static const uint64_t one = 1;
    int e = MPI_Accumulate(&one, 1, MPI_UINT64_T, peer, slot, 1, MPI_UINT64_T, MPI_SUM,
                           r->mpi_sync);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "MPI_Accumulate on the rma engine's counters");
    *pending_mpi = 1;
    return RMALAB_OK;
}

static int flush_signals(rmalab_win *w)
{
    struct rmalab__rma *r = w->engine_state;
    if (!r->unflushed)
        return RMALAB_OK;
    r->unflushed = 0;
    int e = MPI_Win_flush_all(r->mpi_sync);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__err_mpi(e, "MPI_Win_flush_all");
}

/* Counter increments through MPI are completed before the call that made them returns: a
 * transport may hold an accumulate back until the next flush, and the peer waiting for it must
 * not depend on this rank making another MPI call (it may sit idle at a prompt). */
static int finish_signals(rmalab_win *w, int pending_mpi)
{
    if (pending_mpi)
        state_of(w)->unflushed = 1;
    return flush_signals(w);
}

/* A polling loop's progress. */
struct poll {
    unsigned long spins;
    rmalab__backoff sleep; /* RMALAB_WAIT_SLEEP */
};
#define POLL_INIT {0, RMALAB__BACKOFF_INIT}

/* One step of a polling loop: complete our own signals, drive MPI progress (every step when
 * peers on other nodes may be writing our counters, and once it sleeps), then back off as the wait
 * grows: spin, yield, sleep 50 µs; in SLEEP mode block.c's backoff, which sleeps after 50 µs. */
static void backoff(rmalab_win *w, struct poll *p)
{
    int flag;
    unsigned long n = ++p->spins;
    const struct rmalab__rma *r = w->engine_state;
    flush_signals(w);
    if (r->remote_peers || n % 16 == 0 || n > 1024 || p->sleep.ns)
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, w->comm, &flag, MPI_STATUS_IGNORE);
    if (atomic_load_explicit(&rmalab__block_wait_mode, memory_order_relaxed) == RMALAB_WAIT_SLEEP)
        rmalab__block_backoff(&p->sleep);
    else if (n > 200000)
        nanosleep(&(struct timespec){0, 50000}, NULL);
    else if (n > 1024)
        sched_yield();
}

/* Poll until done(w, ranks, n). A wait that outlasts QUIET_POLLS (most in a loop of epochs end
 * sooner, and the record's locks and clock read would sit on both ranks' critical path) is
 * blocked as `what` on those ranks in a record that rmalab_interrupt may mark: then
 * RMALAB_ERR_INTERRUPTED, having consumed nothing, so the next call waits for the same thing. */
#define QUIET_POLLS 64
static int await(rmalab_win *w, const char *what, const int *ranks, int n,
                 int (*done)(rmalab_win *, const int *, int))
{
    struct poll p = POLL_INIT;
    rmalab__block b;
    bool stop = false, shown = false;
    while (!(stop = shown && rmalab__block_interrupted(&b)) && !done(w, ranks, n)) {
        if (!shown && p.spins >= QUIET_POLLS)
            rmalab__win_block_interruptible(w, &b, what, ranks, n), shown = true;
        backoff(w, &p);
    }
    if (shown)
        rmalab__win_unblock(w, &b);
    return stop ? RMALAB_ERR_INTERRUPTED : RMALAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Set-up and tear-down                                                     */

static void *xcalloc(size_t n, size_t size, int *fail)
{
    void *p = rmalab__mem_calloc(n, size);
    *fail |= !p;
    return p;
}

/* A win_allocate on one node (n): counters after each rank's memory, in
 * the node's memory; no segment of the engine's own, no companion. */
static bool counters_in_tail(rmalab_win *w, rmalab__engine_node *n, MPI_Aint *tail)
{
    struct rmalab__rma *r = w->engine_state;
    if (w->flavor != RMALAB_FLAVOR_ALLOCATE || n->any_remote) /* the same on all ranks */
        return false;
    r->local_peers = n->size;
    r->node = n;
    *tail = r->tail = 2 * (MPI_Aint)w->size * sizeof(counter_t);
    return true;
}

/* The bytes of a rank's memory of `size` before its counters. */
static MPI_Aint before_tail(MPI_Aint size) { return size ? rmalab__win_round16(size) : 16; }

/* Local: the engine's state, with every array it needs, and a node for
 * engine-node.c to find when `parent` has none cached; with one cached,
 * a win_allocate on one node is settled here (its counters in the tail). */
static int rma_make(rmalab_win *w, MPI_Comm parent, MPI_Aint *tail)
{
    int fail = 0;
    size_t P = (size_t)w->size;
    struct rmalab__rma *r = rmalab__mem_calloc(1, sizeof *r);
    if (!r)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory for the rma engine");
    w->engine_state = r;
    r->shm_sync = r->mpi_sync = MPI_WIN_NULL;
    r->peer_shm = xcalloc(P, sizeof *r->peer_shm, &fail);
    r->peer_base = xcalloc(P, sizeof *r->peer_base, &fail);
    r->consumed = xcalloc(3 * P, sizeof *r->consumed, &fail); /* then need, expected */
    r->ready = xcalloc(2 * P, 1, &fail); /* then mpi_ops */
    if (!fail)
        r->need = r->consumed + P, r->expected = r->need + P, r->mpi_ops = r->ready + P;
    rmalab__engine_node *n = rmalab__engine_node_cached(parent);
    if (n)
        counters_in_tail(w, n, tail);
    else if (!(r->made = rmalab__engine_node_new(w->size)))
        fail = 1;
    return fail ? rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory for the rma engine")
                : RMALAB_OK;
}

/* Collective over the node: one node-shared segment per rank, its counters
 * (2P, a multiple of 16 bytes, as MPICH+UCX needs of every window) and,
 * where rmalab provides this rank's memory (base != NULL: win_allocate, or
 * win_create without a base), that memory after them, `alloc` bytes. A
 * rank whose caller gave the memory has counters alone, and its peers reach
 * its memory through MPI. */
static int share_node(rmalab_win *w, const rmalab__engine_node *n, MPI_Aint alloc, void **base)
{
    struct rmalab__rma *r = w->engine_state;
    MPI_Aint counters = (MPI_Aint)(2 * (size_t)w->size * sizeof(counter_t)), sz;
    int rc = rmalab__engine_node_segment(n, counters + (base ? (alloc ? alloc : 16) : 0),
                                         &r->shm_sync, &r->my_shm);
    if (rc)
        return rc;
    memset(r->my_shm, 0, (size_t)counters);
    if (base)
        *base = (unsigned char *)r->my_shm + counters;
    for (int i = 0; i < n->size; i++) {
        unsigned char *p = rmalab__engine_node_part(r->shm_sync, i, &sz);
        r->peer_shm[n->ranks[i]] = (counter_t *)p;
        r->peer_base[n->ranks[i]] = sz > counters ? p + counters : NULL;
    }
    return RMALAB_OK;
}

/* Collective: counters for peers on other nodes, in a window every rank
 * joins, as creation is collective; none when the group is one node. */
static int open_remote_counters(rmalab_win *w, const rmalab__engine_node *n)
{
    struct rmalab__rma *r = w->engine_state;
    size_t P = (size_t)w->size;
    r->remote_peers = w->size - n->size;
    r->local_peers = n->size;
    if (!n->any_remote)
        return RMALAB_OK;
    int e = MPI_Win_allocate((MPI_Aint)(2 * P * sizeof(uint64_t)), sizeof(uint64_t),
                             MPI_INFO_NULL, w->comm, &r->my_mpi, &r->mpi_sync);
    if (e != MPI_SUCCESS) {
        r->mpi_sync = MPI_WIN_NULL;
        return rmalab__err_mpi(e, "allocating the rma engine's counters");
    }
    MPI_Win_set_errhandler(r->mpi_sync, MPI_ERRORS_RETURN);
    memset(r->my_mpi, 0, 2 * P * sizeof(uint64_t));
    return RMALAB_OK;
}

/* Collective: the node (found when rma_make made one: the parent has none
 * cached), the shared segment and the counters. A node found is cached if
 * all went well. */
static int rma_setup(rmalab_win *w, MPI_Comm parent, MPI_Aint alloc, void **base,
                     MPI_Aint *tail)
{
    struct rmalab__rma *r = w->engine_state;
    rmalab__engine_node *made = r->made, *n = made ? made : rmalab__engine_node_cached(parent);
    r->made = NULL;
    int rc = made ? rmalab__engine_node_find(w->comm, w->size, made) : RMALAB_OK;
    if (!rc && !counters_in_tail(w, n, tail) && !(rc = share_node(w, n, alloc, base)))
        rc = open_remote_counters(w, n);
    if (made)
        rmalab__engine_node_keep(parent, made, !rc);
    return rc;
}

/* A win_allocate's memory and counters in the node's memory: how they fit
 * (a node not found yet has none at hand), where they go, where all are. */
static int rma_room(rmalab_win *w)
{
    MPI_Aint bytes = before_tail(w->size_req) + 2 * (MPI_Aint)w->size * sizeof(counter_t);
    bool mine = w->flavor == RMALAB_FLAVOR_ALLOCATE;
    return mine ? rmalab__engine_node_room(state_of(w)->node, bytes) : RMALAB__NODE_FITS;
}

static int rma_place(rmalab_win *w, int how, void **base)
{
    struct rmalab__rma *r = w->engine_state;
    MPI_Aint before = before_tail(w->size_req);
    int rc = rmalab__engine_node_place(r->node, how, before + r->tail, w->comm, &r->slice);
    unsigned char *mine = rc ? NULL : rmalab__engine_node_at(&r->slice, w->rank, r->slice.off);
    if (mine) /* zeroed before the layout's allgather, which orders it before any use */
        memset(r->my_shm = (counter_t *)(mine + before), 0, (size_t)r->tail);
    *base = mine, w->lay.place = r->slice.off;
    return rc;
}

static void rma_placed(rmalab_win *w)
{
    struct rmalab__rma *r = w->engine_state;
    for (int p = 0; p < w->size; p++) {
        r->peer_base[p] = rmalab__engine_node_at(&r->slice, p, w->lay.places[p]);
        r->peer_shm[p] = (counter_t *)(r->peer_base[p] + before_tail(w->lay.sizes[p]));
    }
    r->plain_peers = w->size;
}

static int rma_attach(rmalab_win *w)
{
    struct rmalab__rma *r = w->engine_state;
    int e;
    if (r->tail) /* the window of fences and locks too: locked only for an epoch's MPI ops */
        return RMALAB_OK;
    if (w->flavor == RMALAB_FLAVOR_SHARED) {
        /* Only for peers found on this node: with MPIR_CVAR_NOLOCAL=1 MPICH
         * still answers the query for the others, with memory not theirs. */
        for (int p = 0; p < w->size; p++) {
            MPI_Aint sz;
            if (r->peer_shm[p])
                r->peer_base[p] = rmalab__engine_node_part(w->win, p, &sz);
        }
    }
    for (int p = 0; p < w->size; p++)
        r->plain_peers += r->peer_base[p] != NULL;
    if ((e = MPI_Win_lock_all(MPI_MODE_NOCHECK, w->win)) != MPI_SUCCESS)
        return rmalab__err_mpi(e, "MPI_Win_lock_all for the rma engine");
    if (r->mpi_sync != MPI_WIN_NULL &&
        (e = MPI_Win_lock_all(MPI_MODE_NOCHECK, r->mpi_sync)) != MPI_SUCCESS) {
        MPI_Win_unlock_all(w->win);
        return rmalab__err_mpi(e, "MPI_Win_lock_all for the rma engine");
    }
    r->locked = 1; /* every rank's counters were zeroed in setup, before a collective */
    return RMALAB_OK;
}

static void rma_quiesce(rmalab_win *w)
{
    struct rmalab__rma *r = w->engine_state;
    if (!r || !r->locked)
        return;
    flush_signals(w);
    MPI_Win_unlock_all(w->win);
    if (r->mpi_sync != MPI_WIN_NULL)
        MPI_Win_unlock_all(r->mpi_sync);
    r->locked = 0;
}

/* After the data window is freed: the shared data memory may go (a slice's
 * chunk with it, collectively, when it was its last: engine-node.c). */
static void rma_destroy(rmalab_win *w)
{
    struct rmalab__rma *r = w->engine_state;
    if (!r)
        return;
    rmalab__engine_node_release(&r->slice);
    if (r->mpi_sync != MPI_WIN_NULL)
        MPI_Win_free(&r->mpi_sync);
    if (r->shm_sync != MPI_WIN_NULL)
        MPI_Win_free(&r->shm_sync);
    void *arrays[] = {r->peer_shm, r->peer_base, r->consumed, r->ready, r->made, r};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        rmalab__mem_free(arrays[i]);
    w->engine_state = NULL;
}

/* Which paths the engine uses, in get_info: "shm", "mpi" or "shm,mpi". */
static int rma_info(const rmalab_win *w, rmalab_info *info)
{
    const struct rmalab__rma *r = w->engine_state;
    int rc = rmalab_info_set(info, RMALAB_KEY_PSCW_SYNC_PATH,
                             !r->remote_peers ? "shm" : r->local_peers ? "shm,mpi" : "mpi");
    const char *data = r->plain_peers == w->size ? "shm" : r->plain_peers ? "shm,mpi" : "mpi";
    return rc ? rc : rmalab_info_set(info, RMALAB_KEY_PSCW_DATA_PATH, data);
}

/* ------------------------------------------------------------------------ */
/* The engine                                                               */

/* Is MPI_Win_sync needed around an epoch? Not when every peer reaches this window by plain copies
 * ordered by the counters' release and acquire, in the unified model; it is when MPI may write or
 * read the memory. */
static bool needs_win_sync(const rmalab_win *w)
{
    return state_of(w)->plain_peers != w->size || w->model != MPI_WIN_UNIFIED;
}

static int rma_post(rmalab_win *w, const int *ranks, int n, int mode)
{
    struct rmalab__rma *r = w->engine_state;
    int pending = 0, rc = RMALAB_OK;
    for (int i = 0; i < n; i++)
        __atomic_store_n(&r->expected[ranks[i]], r->expected[ranks[i]] + 1, __ATOMIC_RELAXED);
    /* Local stores before the post must be visible to the origins, also
     * after a nocheck post (only nostore waives it): the release increments
     * order them for node peers; MPI needs a sync. */
    if (!(mode & MPI_MODE_NOSTORE) && needs_win_sync(w))
        MPI_Win_sync(w->win);
    if (mode & MPI_MODE_NOCHECK)
        return RMALAB_OK; /* the origins do not wait for this post */
    for (int i = 0; i < n && !rc; i++)
        rc = signal_counter(w, ranks[i], post_slot(r, w->rank), &pending);
    return rc ? rc : finish_signals(w, pending);
}

static int rma_start(rmalab_win *w, const int *ranks, int n, int mode)
{
    struct rmalab__rma *r = w->engine_state;
    r->nocheck = (mode & MPI_MODE_NOCHECK) != 0;
    for (int i = 0; i < n; i++) {
        int t = ranks[i];
        r->mpi_ops[t] = 0;
        if (mode & MPI_MODE_NOCHECK) {
            __atomic_store_n(&r->ready[t], 1, __ATOMIC_RELAXED);
        } else {
            __atomic_store_n(&r->need[t], ++r->consumed[t], __ATOMIC_RELAXED);
            __atomic_store_n(&r->ready[t], 0, __ATOMIC_RELAXED);
        }
    }
    return RMALAB_OK;
}

/* Target ranks[0] has posted to this origin's current epoch. */
static int posted(rmalab_win *w, const int *ranks, int n)
{
    (void)n;
    struct rmalab__rma *r = w->engine_state;
    return read_counter(w, ranks[0], post_slot(r, ranks[0])) >= r->need[ranks[0]];
}

/* A window with counters in its tail, also the window of fences and locks, is in the engine's
 * lock_all (`on`) only from an access epoch's first operation through MPI to its complete, when
 * rmalab refuses those. */
static int epoch_lock(rmalab_win *w, bool on)
{
    struct rmalab__rma *r = w->engine_state;
    if (!r->tail || r->locked == on)
        return RMALAB_OK;
    int e = on ? MPI_Win_lock_all(MPI_MODE_NOCHECK, w->win) : MPI_Win_unlock_all(w->win);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, on ? "MPI_Win_lock_all" : "MPI_Win_unlock_all");
    r->locked = on;
    return RMALAB_OK;
}

/* Wait until target t's post for this epoch has arrived. */
static int await_post(rmalab_win *w, const char *what, int t)
{
    struct rmalab__rma *r = w->engine_state;
    if (r->ready[t])
        return RMALAB_OK;
    flush_signals(w);
    int rc = posted(w, &t, 1) ? RMALAB_OK : await(w, what, &t, 1, posted);
    if (rc) /* interrupted: rma.c does not issue the operation */
        return rc;
    rmalab__trace_arrival(w, RMALAB_TRACE_POST_ARRIVED, t);
    __atomic_store_n(&r->ready[t], 1, __ATOMIC_RELAXED);
    return RMALAB_OK;
}

static int rma_access(rmalab_win *w, const char *what, int target, MPI_Aint disp,
                       bool plain_ok, unsigned char **ptr)
{
    struct rmalab__rma *r = w->engine_state;
    int rc = await_post(w, what, target);
    if (rc)
        return rc;
    if (plain_ok && r->peer_base[target]) {
        *ptr = r->peer_base[target] + disp * w->lay.disp_units[target];
        return RMALAB_OK;
    }
    *ptr = NULL;
    if ((rc = epoch_lock(w, true)))
        return rc;
    r->mpi_ops[target] = 1;
    return RMALAB_OK;
}

/* After a start(nocheck): a target whose post was not nocheck has signalled it all the same, before
 * this rank started (nocheck promises the post came first, and post completes its signal before it
 * returns), so count it as consumed now. Otherwise the next checked start would take that stale
 * post for its own and match one epoch early for good. Both sides nocheck: no signal, nothing to
 * count. */
static void absorb_unchecked_posts(rmalab_win *w, const int *group, int n)
{
    struct rmalab__rma *r = w->engine_state;
    for (int i = 0; r->nocheck && i < n; i++) {
        int t = group[i];
        uint64_t posts = read_counter(w, t, post_slot(r, t));
        if (posts > r->consumed[t])
            r->consumed[t] = posts;
    }
}

/* A flush waits for t's progress: a passive wait, recorded here alone. */
static int flush_target(rmalab_win *w, int t)
{
    rmalab__block b;
    rmalab__win_block_passive(w, &b, "complete", &t, 1);
    int e = MPI_Win_flush(t, w->win);
    rmalab__win_unblock(w, &b);
    return e;
}

static int rma_complete(rmalab_win *w, const int *group, int n)
{
    struct rmalab__rma *r = w->engine_state;
    int pending = 0, rc = RMALAB_OK, e;
    absorb_unchecked_posts(w, group, n);
    for (int i = 0; i < n; i++) {
        int t = group[i];
        if (r->mpi_ops[t] && (e = flush_target(w, t)) != MPI_SUCCESS)
            return rmalab__err_mpi(e, "MPI_Win_flush");
        r->mpi_ops[t] = 0;
    }
    if ((rc = epoch_lock(w, false)))
        return rc;
    for (int i = 0; i < n && !rc; i++)
        rc = signal_counter(w, group[i], complete_slot(w, w->rank), &pending);
    return rc ? rc : finish_signals(w, pending);
}

/* Have all origins of the exposure epoch completed? A window that records looks at every origin, to
 * see each arrival when it happens. */
static int all_arrived(rmalab_win *w, const int *xgroup, int n)
{
    struct rmalab__rma *r = w->engine_state;
    int all = 1;
    for (int i = 0; i < n && (all || w->trace); i++) {
        int o = xgroup[i];
        if (read_counter(w, o, complete_slot(w, o)) < r->expected[o])
            all = 0;
        else
            rmalab__trace_arrival(w, RMALAB_TRACE_COMPLETE_ARRIVED, o);
    }
    return all;
}

static int rma_wait(rmalab_win *w, const int *xgroup, int n)
{
    flush_signals(w);
    int rc = all_arrived(w, xgroup, n) ? RMALAB_OK : await(w, "wait", xgroup, n, all_arrived);
    if (rc) /* interrupted: the completes expected stand (sync.c) */
        return rc;
    /* Make the origins' writes visible to local loads. */
    if (needs_win_sync(w))
        MPI_Win_sync(w->win);
    return RMALAB_OK;
}

static int rma_test(rmalab_win *w, const int *xgroup, int n, int *flag)
{
    int probe;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, w->comm, &probe, MPI_STATUS_IGNORE);
    *flag = all_arrived(w, xgroup, n);
    if (*flag && needs_win_sync(w))
        MPI_Win_sync(w->win);
    return RMALAB_OK;
}

/* The owning thread writes ready, need and expected with relaxed atomic
 * stores, so these reads are well-defined from any thread. */
static int rma_posted(rmalab_win *w, int target)
{
    struct rmalab__rma *r = w->engine_state;
    return __atomic_load_n(&r->ready[target], __ATOMIC_RELAXED) ||
           read_counter(w, target, post_slot(r, target)) >=
               __atomic_load_n(&r->need[target], __ATOMIC_RELAXED);
}

static int rma_arrived(rmalab_win *w, int origin)
{
    return read_counter(w, origin, complete_slot(w, origin)) >=
           __atomic_load_n(&state_of(w)->expected[origin], __ATOMIC_RELAXED);
}

const rmalab__engine rmalab__engine_rma = {
    .name = "rma",
    .own_lock_all = true,
    .own_waits = true,
    .make = rma_make,
    .setup = rma_setup,
    .room = rma_room,
    .place = rma_place,
    .placed = rma_placed,
    .attach = rma_attach,
    .quiesce = rma_quiesce,
    .destroy = rma_destroy,
    .post = rma_post,
    .start = rma_start,
    .complete = rma_complete,
    .wait = rma_wait,
    .test = rma_test,
    .access = rma_access,
    .info = rma_info,
    .posted = rma_posted,
    .arrived = rma_arrived,
};
