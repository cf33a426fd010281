/* Blocking calls: how this process waits in them, what it is blocked in,
 * and which of them failed last (docs/core.md, "Blocking calls").
 *
 * The calls that may block are window creation (every flavour), free,
 * set_info, fence, start, complete, wait, lock, unlock, lock_all,
 * unlock_all, flush, flush_all, flush_local, flush_local_all and
 * rmalab_barrier (the synchronisation calls are rmalab/sync.h's kinds). Each of them publishes
 * what it waits for while it runs, so that another thread (a REPL's control
 * thread) can read it with rmalab_blocked_get, and records its failure for
 * rmalab_last_failure (post too).
 *
 * MPICH busy-polls in its blocking calls. In RMALAB_WAIT_SLEEP mode a
 * collective call first waits in a nonblocking collective on its
 * communicator (a window's fence, free and set_info: their agreement, an
 * MPI_Iallreduce; the others: an MPI_Ibarrier), tested with a backoff that
 * sleeps (a few tens of µs of polling, then sleeps growing to 1 ms), and
 * only then makes the MPI call; PSCW waits poll with
 * the same backoff. Locks, unlock, flush and MPICH's own MPI_Win_start
 * (the native engine) have no nonblocking form and still spin. A process
 * that another hurries (rmalab_wait_hurry) naps 20 µs at most.
 *
 * Every rank of a communicator must be in the same mode when it makes a
 * collective call on it, as with any argument of a collective: a rank in
 * SLEEP mode makes its collectives in nonblocking form, which MPI does not
 * match with a blocking one, and the others one more (the MPI_Ibarrier)
 * than a rank in SPIN mode. */
#ifndef RMALAB_BLOCK_H
#define RMALAB_BLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include <rmalab/export.h>
#include <rmalab/win.h>

typedef enum {
    RMALAB_WAIT_SPIN,  /* MPICH's own waiting: the fastest, at 100% CPU */
    RMALAB_WAIT_SLEEP, /* sleep while blocked: up to ~4 µs more per fence */
} rmalab_wait_mode;

/* Process-wide. The initial mode comes from the environment variable
 * RMALAB_WAIT: "sleep" or "spin" (anything else: spin). */
RMALAB_API void rmalab_wait_set_mode(int mode);
RMALAB_API int rmalab_wait_get_mode(void);
/* "spin" or "sleep", as RMALAB_WAIT spells them; "?" for others. */
RMALAB_API const char *rmalab_wait_mode_name(rmalab_wait_mode mode);

/* What this process is blocked in: a consistent snapshot, safe to take from
 * any thread. When several calls are nested (an operation that waits for a
 * post inside an access epoch), the innermost one. */
typedef struct {
    const char *call;   /* "fence", "free", "barrier", "win_create", "win_allocate",
                           "win_allocate_shared", "win_create_dynamic", "set_info",
                           "start", "complete", "wait", "lock", "unlock",
                           "lock_all", "unlock_all", "flush", "flush_all",
                           "flush_local", "flush_local_all", or an RMA
                           operation ("put", ...) waiting for its target's post;
                           a communicator's collective or message ("bcast",
                           "allreduce", "send", "recv", "probe"...:
                           rmalab/coll.h); "waitany" (rmalab_request_waitany);
                           NULL: not blocked */
    int collective;     /* 1: every member of the group must make the same call */
    const char *object; /* "win" or "comm" */
    /* "win": rmalab_win_id of the window. "comm" (rmalab_barrier, and window
     * creation, which is collective over its parent communicator): 0 for
     * MPI_COMM_WORLD; a communicator that rmalab_comm_dup created gets the
     * next number of a process-wide counter (from 1) when it is created, so
     * it is equal on every member that created its communicators in the
     * same order; any other communicator gets 2^63 + the next number of
     * another counter when it is first used in a blocking call, which
     * only this process knows. */
    uint64_t id;
    double seconds;     /* blocked so far (resolution: a few ms); a call
                           that began before rmalab_blocked_watch, and
                           before any thread read, counts from when this
                           process was first read while in it */
    /* The group the call waits for, as ranks of MPI_COMM_WORLD: the window's
     * or communicator's for collective calls, the start group for start
     * and complete, the post group for wait, the target for lock, unlock
     * and the flushes, the window's for lock_all, unlock_all and the _all
     * flushes.
     * n_members counts them all; members holds the first
     * RMALAB_STATE_MAX_RANKS. n_members is 0 when they are unknown (no
     * memory to learn a communicator's). */
    int n_members;
    int members[RMALAB_STATE_MAX_RANKS];
    /* rmalab_interrupt can end it: a wait in rmalab's own loop, which
     * touches nothing shared until it returns (the rma engine's wait for a
     * post, in put, get and the other operations, and its wait();
     * rmalab_request_waitany). Calls
     * inside MPI (every call on the native engine, fence, lock, the
     * collectives, window creation and free) cannot be interrupted. */
    bool interruptible;
} rmalab_blocked;

/* False, and *out zeroed, when the process is not blocked in such a call. */
RMALAB_API bool rmalab_blocked_get(rmalab_blocked *out);
/* A program that will read rmalab_blocked_get (or call rmalab_interrupt)
 * from another thread says so once, before the calls it watches start:
 * from then on each call reads the clock as it starts, for `seconds`.
 * Until a thread reads or calls this, calls skip the clock (about 20 ns a
 * call, a tenth of what a ping-pong's round trip spends on its records). */
RMALAB_API void rmalab_blocked_watch(void);

/* The process's state as text, for a tool that watches it from another
 * thread: b's lines (call=, collective=, interruptible=, object=,
 * members=), when b is not NULL, then a win= line for each live window
 * (rmalab_win_each), each line starting with a newline: the lines of a
 * REPL rank's STATE (docs/repl.md) and of rmalab run's state files
 * (docs/c.md). As snprintf: writes what fits of it into buf, always
 * terminated when size > 0, and returns the whole text's length. */
RMALAB_API size_t rmalab_state_text(const rmalab_blocked *b, char *buf, size_t size);

/* From any thread: end the call this process is blocked in now, if it can
 * be interrupted (rmalab_blocked.interruptible). It returns
 * RMALAB_ERR_INTERRUPTED and leaves the window as if it had not been
 * called: an operation is not issued and the access epoch stays open; an
 * exposure epoch's wait() leaves it open, to be waited for again. True if
 * such a call was interrupted; false (and nothing happens, now or later)
 * when the process is not blocked, or blocked in a call that cannot be
 * interrupted. The request belongs to that one call: it never ends a
 * later one, and it wins over what the call waited for if both came
 * before the call looked again. */
RMALAB_API bool rmalab_interrupt(void);

/* Passive-target calls (lock, unlock, lock_all, unlock_all, the flushes,
 * and the wait of a request-based RMA operation) wait inside MPI for their
 * targets' progress, not for a call of theirs: MPICH's ch4 device moves
 * their locks and acknowledgements only when the target polls MPI. A
 * target that is not inside MPI (a REPL rank idle at its prompt) or that
 * sleeps in RMALAB_WAIT_SLEEP mode polls rarely, up to every 10 ms, so
 * each such call may take that long. A program that can reach its ranks
 * out of band (the REPL, through its front end) registers a hook: it is
 * called on the calling thread as such a call starts, with world ranks of
 * the targets (a batch of at most 64 per call of the hook; the caller's
 * own rank may be among them), and must be quick and call no rmalab or MPI
 * function. NULL removes it. Set or remove it while no other thread makes
 * such calls (the REPL sets it before its executor serves, and removes it
 * after). */
typedef void (*rmalab_progress_hook)(const int *world_ranks, int n, void *arg);
RMALAB_API void rmalab_set_progress_hook(rmalab_progress_hook fn, void *arg);
/* From any thread: another process needs this one's progress (its hook
 * said so). For the next `seconds`, this process's sleeping waits nap at
 * most 20 µs between polls, and a nap in progress ends now. */
RMALAB_API void rmalab_wait_hurry(double seconds);
/* The last of the calls above that failed on this process: refused by the
 * epoch state machine or the argument checks (ERR_RMA_SYNC, ...), or failed
 * in MPI. Cleared when the next such call starts. */
typedef struct {
    const char *call;   /* as in rmalab_blocked, or "post" */
    int code;           /* rmalab error code (rmalab_err_name) */
    const char *object; /* "win" or "comm" */
    uint64_t id;        /* as in rmalab_blocked; 0 for a window that was NULL */
    char message[256];  /* rmalab_errmsg() of the failing call, cut */
} rmalab_failure;

/* False, and *out zeroed, when the last such call succeeded. */
RMALAB_API bool rmalab_last_failure(rmalab_failure *out);

#endif
