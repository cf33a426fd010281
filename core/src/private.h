/* Private to the core: internal helpers shared between the core's files.
 * Nothing here is part of the API; it is never installed. */
#ifndef RMALAB_PRIVATE_H
#define RMALAB_PRIVATE_H

#include <mpi.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <rmalab/rmalab.h>
#include <rmalab/win.h>

/* sync-kinds.c: the table of rmalab/sync.h, indexed by rmalab_sync_id, and
 * the row of a trace kind (NULL: no synchronisation call). */
extern const rmalab_sync_kind rmalab__sync_kinds[];
const rmalab_sync_kind *rmalab__sync_kind_of_trace(int trace);
/* The call that opens access epoch `a`, or with `a` RMALAB_ACCESS_NONE
 * exposure epoch `x`; RMALAB_SYNC_NKINDS when both are none. */
int rmalab__sync_opener(rmalab_access a, rmalab_exposure x);

/* Record a detailed message for `code` on this thread and return `code`. */
#define rmalab__fail rmalab_set_error /* the same call, kept short inside */
int rmalab__vfail(int code, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* Prepend "<fmt>: " to the current detailed message and return `code`. */
int rmalab__prefix(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A warning (no final newline) to the embedder's function (rmalab/error.h). */
void rmalab__warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Translate an MPI error code; `what` names the MPI call. */
int rmalab__mpi_fail(int mpierr, const char *what);

/* Collective over comm: every rank learns whether any rank failed (rc is
 * this rank's status), so that all go on or all stop. Returns rc itself
 * when this rank failed, else an error of the failing rank's class saying
 * that another rank failed, else RMALAB_OK. `what` names the step. */
int rmalab__agree(MPI_Comm comm, int rc, const char *what);

#define RMALAB__CHECK_MPI(call, what)                                          \
    do {                                                                       \
        int rmalab__e = (call);                                                \
        if (rmalab__e != MPI_SUCCESS)                                          \
            return rmalab__mpi_fail(rmalab__e, (what));                        \
    } while (0)

/* comm.c: a communicator rmalab made (MPI_Comm_split): owned, errors
 * returned, numbered for rmalab_blocked. */
int rmalab__comm_adopt(MPI_Comm c, rmalab_comm **out);
/* c's shadow (a duplicate for the rest of long messages), waited for the
 * first time: ERR_COMM if it could not be made. */
int rmalab__comm_shadow(rmalab_comm *c, MPI_Comm *out);
/* Test the shadow's MPI_Comm_idup once (a message call does): MPICH polls
 * a pending collective at every progress, which costs each message. */
void rmalab__comm_shadow_poll(rmalab_comm *c);
/* A pending message request keeps c alive after the user's free: retain
 * when it starts, release when it is done. The user's free releases too
 * (`user`: it completes the shadow's MPI_Comm_idup, collective, first).
 * The last release frees c, returning MPI_Comm_free's failure; *freed
 * says the MPI communicator went (its handle may be reused). msg.c's
 * rmalab__msg_release is the one caller: stashed messages go with it. */
void rmalab__comm_retain(rmalab_comm *c);
int rmalab__comm_release(rmalab_comm *c, bool user, bool *freed);

/* Allocation (alloc.c): malloc and friends, counted and failable for tests
 * (rmalab/debug.h). Every core allocation uses these, and frees with
 * rmalab__free. Sizes of 0 allocate 1 byte. */
void *rmalab__malloc(size_t n);
void *rmalab__calloc(size_t n, size_t size);
void *rmalab__realloc(void *p, size_t n);
int rmalab__memalign(void **p, size_t align, size_t n);
void rmalab__free(void *p);

/* Strings of known length, NUL-terminated copies. */
char *rmalab__strndup(const char *s, size_t n);

/* info.c: the front of the C readers of an info object: checks `info` and
 * `key` (a C string), then looks it up (*val NULL when absent). */
int rmalab__info_find(const rmalab_info *info, const char *key, const char **val,
                      size_t *vlen);
/* info-typed.c: strip the white space around s[0..n) as the standard
 * strips it from typed values (rmalab_parse_bool, _int, _list). */
void rmalab__trim(const char **s, size_t *n);

/* MPI_ERRORS_RETURN on MPI_COMM_WORLD and MPI_COMM_SELF for the duration of
 * a few MPI calls that report through them (MPICH routes info errors to
 * MPI_COMM_WORLD). Not reentrant across threads: MPI handlers are global. */
typedef struct {
    MPI_Errhandler world, self;
    int active;
} rmalab__errguard;
void rmalab__errguard_enter(rmalab__errguard *g);
void rmalab__errguard_leave(rmalab__errguard *g);

/* The value of the hint `key` (an RMALAB_KEY_ constant) in `info` (may be
 * NULL), or NULL (hints.c). */
const char *rmalab__hint_value(const rmalab_info *info, const char *key);
/* Hints (hints.c): validation that may keep rmalab's own keys, removing
 * them afterwards, and adding a diagnostic (d may be NULL). */
int rmalab__hints_validate(rmalab_hint_scope scope, const rmalab_info *requested,
                           rmalab_info **to_mpi, rmalab_diags *diags, int keep_own);
int rmalab__hints_strip_own(rmalab_hint_scope scope, rmalab_info *info);
void rmalab__diag_add(rmalab_diags *d, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------------------ */
/* Blocking calls (block.c; rmalab/block.h has the contract)                */

/* What a blocking call waits for, published while it runs. The caller
 * owns it (on its stack) and keeps the arrays valid until it leaves.
 * Member i is map[ranks[i]], with an identity for a NULL map or ranks. */
typedef struct rmalab__block {
    const char *call;
    const char *object;         /* "win" or "comm" */
    uint64_t id;
    MPI_Comm comm;              /* collective calls: their communicator */
    const int *ranks;           /* NULL: 0 .. n-1 */
    const int *map;             /* to world ranks; NULL: identity */
    int n;
    bool collective;
    bool interruptible;         /* the caller polls rmalab__block_interrupted */
    bool passive;               /* needs the ranks' progress, not a call of
                                   theirs: rmalab_set_progress_hook is told */
    _Atomic bool interrupted;   /* set by rmalab_interrupt */
    double since;               /* set by rmalab__block_enter */
    const struct rmalab__block *prev; /* the call it is nested in */
    const char *win_prev;       /* win-private.h: the window's blocked_in before */
} rmalab__block;

extern _Atomic int rmalab__wait_mode; /* rmalab_wait_mode */

/* Publish b (the process is blocked in it) and, in SLEEP mode, wait for a
 * collective call's group in an MPI_Ibarrier on b->comm with the sleeping
 * backoff. An error can only come from that barrier, and then b has left
 * already; otherwise the caller leaves when the call ends. */
int rmalab__block_enter(rmalab__block *b);
void rmalab__block_leave(rmalab__block *b);
/* Has rmalab_interrupt ended b (an interruptible call, polling)? */
static inline bool rmalab__block_interrupted(const rmalab__block *b)
{
    return atomic_load_explicit(&b->interrupted, memory_order_relaxed);
}
/* b describes a call on communicator c: its id and world ranks (cached on
 * the communicator). */
void rmalab__block_comm(rmalab__block *b, MPI_Comm c);
/* Give a communicator that rmalab created the next communicator id. */
void rmalab__comm_tag(MPI_Comm c);

/* A call of rmalab/block.h starts: the last failure is forgotten. */
void rmalab__call_begin(void);
/* ... and ends with rc, recorded when it is a failure; returns rc. */
int rmalab__call_end(const char *call, const char *object, uint64_t id, int rc);

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
void rmalab__backoff_step(rmalab__backoff *b);
/* Wait for *req: MPI_Test with the sleeping backoff. */
int rmalab__wait_request(MPI_Request *req, const char *what);

/* ------------------------------------------------------------------------ */
/* Attribute lists (attr.c), embedded in every window (win.c)               */

typedef struct rmalab__attr {
    rmalab_keyval *kv;
    void *value;
    bool replacing;                   /* its old value's delete callback runs */
    struct rmalab__attr *prev, *next; /* in order of first setting */
} rmalab__attr;

typedef struct {
    rmalab__attr *head, *tail;
    int running;                      /* delete callbacks running now */
} rmalab__attr_list;

/* Run the delete callback of every attribute of `win`, most recently set
 * first, removing each from the list before its callback runs (so callbacks
 * may delete other attributes or free their keyval). Every attribute is
 * removed whatever the callbacks return; the first error is returned with
 * its message. */
int rmalab__attrs_delete_all(rmalab_win *win);
/* Drop every attribute without callbacks and without touching keyvals, for
 * a process on its way out (rmalab_win_abandon). */
void rmalab__attrs_forget(rmalab_win *win);
/* Is one of the window's delete callbacks running (it may not free the
 * window)? */
bool rmalab__attrs_busy(const rmalab_win *win);

#endif
