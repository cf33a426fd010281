/* Private to the core: the window structure shared by win.c (creation,
 * hints, local memory), rma.c (operations and results) and sync.c (the
 * epoch state machine). Never installed. */
#ifndef RMALAB_WIN_PRIVATE_H
#define RMALAB_WIN_PRIVATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "private.h"

/* MPICH 4.0.2 + UCX 1.13 rounds window bases down to this. */
#define RMALAB__WIN_ALIGN 16
/* What the core allocates with. */
#define RMALAB__MEM_ALIGN 64

/* PSCW engines: the MPI-facing half of post/start/complete/wait/test. The
 * state machine in sync.c has checked the call (groups are valid ranks
 * without duplicates) before an engine runs, and updates the state after it
 * succeeds. `mode` holds MPI_MODE_* bits. */
typedef struct rmalab__engine {
    const char *name;
    int (*post)(rmalab_win *w, const int *ranks, int n, int mode);
    int (*start)(rmalab_win *w, const int *ranks, int n, int mode);
    int (*complete)(rmalab_win *w);
    int (*wait)(rmalab_win *w);
    int (*test)(rmalab_win *w, int *flag);
} rmalab__engine;

extern const rmalab__engine rmalab__native_engine;
extern const rmalab__engine rmalab__rma_engine;

/* A cached MPI group of the native engine: rebuilt only when the ranks
 * change, as most programs post and start to the same group every epoch. */
struct rmalab__group_cache {
    MPI_Group group;
    int n;
    int *ranks;
};

void rmalab__group_cache_clear(struct rmalab__group_cache *c);

struct rmalab__rma; /* engine-rma.c */

/* What a rank of a dynamic window has attached, exposed so that origins can
 * check a displacement before MPI writes to an address that was never
 * attached (MPICH 4.0.2 then crashes the target). */
#define RMALAB__MAX_REGIONS 64
struct rmalab__dyn_meta {
    int64_t n;
    int64_t addr[RMALAB__MAX_REGIONS];
    int64_t size[RMALAB__MAX_REGIONS];
};

/* Dynamic windows: is [disp, disp + bytes) attached at `target`? */
int rmalab__dyn_check(rmalab_win *w, const char *what, int target, MPI_Aint disp,
                      MPI_Aint bytes);

struct rmalab__region {
    void *mem;
    MPI_Aint addr, size;
};

struct rmalab_win {
    MPI_Win win;            /* PSCW and operations of start epochs */
    /* Fence, lock and their operations: `win` itself for the native engine.
     * The rma engine keeps `win` in a lock_all of its own, in which MPI
     * allows no fence and no lock, so it opens a companion MPI window over
     * the same memory for them: a hint then never changes what a call
     * means (docs/pscw.md). */
    MPI_Win plain;
    uint64_t id;            /* creation order in this process (registry.c) */
    MPI_Comm comm;          /* a duplicate, for the window's own collectives */
    int rank, size;
    rmalab_flavor flavor;
    void *base;
    void *owned_mem;        /* memory the core allocated for create */
    MPI_Aint size_req;      /* bytes the user asked for */
    int disp_unit;
    int model;
    MPI_Aint *sizes;        /* every rank's size_req */
    int *disp_units;        /* every rank's disp_unit */
    int *world_ranks;       /* every rank's rank in MPI_COMM_WORLD */
    unsigned char *no_locks;/* every rank's no_locks hint in force */
    char name[128];
    rmalab_info *requested; /* hints as the user gave them, merged */
    rmalab_info *at_create; /* canonical hints in force from creation */
    const rmalab__engine *eng;
    struct rmalab__rma *rma; /* the rma engine's state, or NULL */
    MPI_Group wgroup;       /* the window's group */
    struct rmalab__group_cache post_cache, start_cache;
    rmalab__attr_list attrs;
    int in_callback;        /* attribute callbacks running on this window */

    struct rmalab__region *regions; /* dynamic windows */
    int nregions, capregions;
    MPI_Win meta;           /* dynamic windows: every rank's attached regions */
    struct rmalab__dyn_meta *my_meta;

    /* Epoch state: written by the owning thread under `lock`, read by any
     * thread under `lock`. */
    atomic_flag lock;       /* a spin lock: held for a few stores at a time */
    rmalab_access access;
    rmalab_exposure exposure;
    int *group;             /* start group, as given (size entries) */
    int ngroup;
    unsigned char *in_group;/* per rank: in the start group */
    unsigned char *locked;  /* per rank: 0, 1 shared, 2 exclusive */
    int nlocked;
    int *xgroup;            /* post group (size entries) */
    unsigned char *scratch; /* size bytes, for checking groups */
    int nxgroup;
    uint64_t ops_in_epoch;  /* RMA calls since the access epoch opened */
    uint64_t epochs;
    bool closed_by_test;    /* the last exposure epoch ended in test() */
    bool start_nocheck, post_nocheck; /* the open PSCW epochs' assertion */
    _Atomic(const char *) blocked_in; /* lock-free: see rmalab__set_blocked */
    _Atomic double blocked_since;

    /* Results: op_seq numbers every data-returning operation; done_all and
     * done[t] say up to which number operations have completed. */
    uint64_t op_seq, done_all;
    uint64_t *done;
    rmalab_result **pending;
    int npending, cappending;
    struct rmalab__chunk *stage; /* origin data of operations in flight (rma.c) */
};

struct rmalab_result {
    int refs;
    rmalab_win *win;        /* while pending */
    int target;
    uint64_t seq;
    bool ready;
    rmalab_type type;
    int count;
    char completer[96];     /* which call completes it */
    _Alignas(16) unsigned char data[];
};

/* The state lock. Writers hold it for a handful of stores and readers for
 * a copy, so a spin lock costs less than a mutex on every epoch. */
static inline void rmalab__lock(rmalab_win *w)
{
    while (atomic_flag_test_and_set_explicit(&w->lock, memory_order_acquire))
        ;
}

static inline void rmalab__unlock(rmalab_win *w)
{
    atomic_flag_clear_explicit(&w->lock, memory_order_release);
}

/* Type and op tables (win.c). */
MPI_Datatype rmalab__mpi_type(rmalab_type t);
MPI_Op rmalab__mpi_op(rmalab_op op);

/* The origin-side checks every operation makes (sync.c): the target is in
 * the group, an access epoch is open to it, and [disp, disp + count) lies in
 * its window. `what` names the call ("put"). Counts the call in the epoch. */
int rmalab__check_op(rmalab_win *win, const char *what, int target, MPI_Aint disp,
                     rmalab_type type, int count);
/* Free the staging arena (rma.c), when the window goes. */
void rmalab__stage_free(rmalab_win *w);
/* Register a result as pending on the window (rma.c). */
int rmalab__result_track(rmalab_win *win, rmalab_result *r);
/* Mark completed results ready: all of them, or those of one target. */
void rmalab__results_complete(rmalab_win *win, int target);
double rmalab__coarse_now(void);
void rmalab__describe(rmalab_win *w, char *buf, size_t size, bool matching);
/* Mark the owning thread blocked in `call` (NULL: not blocked). */
void rmalab__set_blocked(rmalab_win *win, const char *call);

/* The live windows (registry.c): win.c adds a window once it is created
 * and removes it before releasing it. */
int rmalab__registry_add(rmalab_win *w);
void rmalab__registry_remove(rmalab_win *w);

/* The MPI window an operation of the open access epoch goes through. */
static inline MPI_Win rmalab__op_win(const rmalab_win *w)
{
    return w->access == RMALAB_ACCESS_START ? w->win : w->plain;
}

/* Does an operation of the open access epoch go through the rma engine? */
static inline bool rmalab__via_engine(const rmalab_win *w)
{
    return w->rma && w->access == RMALAB_ACCESS_START;
}

/* The rma engine (engine-rma.c). setup runs in window creation after the
 * communicator is duplicated and before the MPI window exists; for the
 * allocate flavour it provides the memory (*base), from a node-shared
 * segment. attach runs once the MPI window exists; destroy after it is
 * freed (unlock runs before MPI_Win_free). */
int rmalab__rma_setup(rmalab_win *w, MPI_Aint alloc, void **base);
int rmalab__rma_attach(rmalab_win *w);
void rmalab__rma_unlock(rmalab_win *w);
void rmalab__rma_destroy(rmalab_win *w);
/* Before an RMA operation to `target` in an access epoch: wait for the
 * target's post (weak synchronisation). Returns the target's memory at
 * `disp` when it can be reached with plain loads and stores, else NULL (and
 * the operation goes through MPI, to be flushed at complete). */
int rmalab__rma_access(rmalab_win *w, const char *what, int target, MPI_Aint disp,
                       bool plain_ok, unsigned char **ptr);
/* Which paths the engine uses: "shm", "mpi" or "shm,mpi". */
const char *rmalab__rma_sync_path(const rmalab_win *w);
const char *rmalab__rma_data_path(const rmalab_win *w);
/* For the observable state: has `target`'s post arrived for the open
 * access epoch; has `origin`'s complete arrived for the open exposure
 * epoch. Safe from any thread. */
int rmalab__rma_posted(rmalab_win *w, int target);
int rmalab__rma_arrived(rmalab_win *w, int origin);

#endif
