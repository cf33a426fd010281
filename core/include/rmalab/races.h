/* The race checker (docs/races.md): conflicting accesses to window memory
 * found by happens-before, reported at the call where the target can first
 * see both.
 *
 * A window is checked when it is created with the hint rmalab_check
 * ("races", "races:warn" or "races:quiet"), or under RMALAB_CHECK. Every
 * rank keeps a vector clock indexed by world rank; post -> start, complete
 * -> wait, fence, rmalab_barrier and the origin's own flush and unlock
 * carry it, and messages of the caller's own (rmalab_clock_snapshot). Two accesses race when their bytes overlap, at least one
 * writes, neither happens before the other, they are not both atomic with
 * the same op and type, and locks do not keep them apart. */
#ifndef RMALAB_RACES_H
#define RMALAB_RACES_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rmalab/export.h>
#include <rmalab/win.h>

/* X(suffix, name of the mode as the hint rmalab_check spells it) */
#define RMALAB_CHECK_MODE_MAP(X)                                               \
    X(OFF, "off")                                                              \
    /* a race raises ERR_RMA_CONFLICT from the call that found it */          \
    X(RACES, "races")                                                          \
    /* warns with the report (rmalab_set_warnf) and goes on */                 \
    X(WARN, "races:warn")                                                      \
    /* only records it (rmalab_races) */                                       \
    X(QUIET, "races:quiet")

typedef enum {
#define RMALAB__CHECK_ENUM(suffix, name) RMALAB_CHECK_##suffix,
    RMALAB_CHECK_MODE_MAP(RMALAB__CHECK_ENUM)
#undef RMALAB__CHECK_ENUM
} rmalab_check_mode;

/* "off", "races", "races:warn" or "races:quiet"; "?" for others. */
RMALAB_API const char *rmalab_check_mode_name(rmalab_check_mode mode);

/* The mode of a window on this rank (OFF when it is not checked). */
RMALAB_API rmalab_check_mode rmalab_win_check_mode(const rmalab_win *w);

/* Where the next access or call on a checked window comes from, for its
 * report ("file.lua:12"; up to 47 bytes are kept). Per thread; the next
 * call copies and clears it. Without it the call's name is used. */
RMALAB_API void rmalab_check_site(const char *site);

typedef struct {
    int rank;             /* issuer, window rank */
    char call[24];        /* "put", ..., "read" and "write" for win:read/win:write */
    char kind[8];         /* "read", "write" or "atomic" */
    char site[48];        /* "file.lua:12", or the call's name */
    char during[80];      /* "in a fence epoch", "under lock(1, \"shared\")", "during its
                             exposure epoch, holding a shared lock on itself"... */
} rmalab_race_access;

typedef struct {
    uint64_t seq;         /* numbers the races of this process, from 1 */
    char window[128];
    int target;           /* window rank whose memory it is */
    int64_t lo, hi;       /* bytes [lo, hi) of the target's window; dynamic: addresses */
    rmalab_race_access a, b;
    char why[320];        /* why neither is ordered */
    char found_at[96];    /* "wait() at x.lua:31" */
    int found_by;         /* window rank */
    char text[1600];      /* the whole report, as raised or printed */
} rmalab_race;

/* This process's races, oldest first (at most RMALAB_RACES_KEEP), valid
 * until the next call that may find one; *found counts every race found
 * since the last clear, kept or not. A race is counted once per pair of
 * call sites on the same bytes of a window's rank: a loop that repeats it
 * adds nothing. */
#define RMALAB_RACES_KEEP 1000
RMALAB_API void rmalab_races(const rmalab_race **list, int *n, uint64_t *found);
RMALAB_API void rmalab_races_clear(void);
/* Collective over comm: races found on all its ranks since their clear. */
RMALAB_API int rmalab_races_total(MPI_Comm comm, uint64_t *total);
/* Collective over comm: rank 0 gets every rank's reports in rank order, or
 * "no races found" (free with free()); other ranks get NULL. */
RMALAB_API int rmalab_races_text(MPI_Comm comm, char **text);

/* MPI_Barrier that carries the checker's clocks (one allreduce when no rank
 * checks anything). Collective over comm. */
RMALAB_API int rmalab_barrier(MPI_Comm comm);

/* The checker's clock beside a message that the caller sends itself (a C
 * program's MPI_Send under rmalab run, say), so that the order the message
 * makes orders accesses too. The sender takes a snapshot into a buffer of
 * rmalab_clock_wire_size() bytes, aligned for int64_t (a release: this
 * process's entry ticks), and sends it with or right after the message;
 * the receiver joins it once the message has arrived (an acquire). The
 * snapshot is rmalab_clock_wire_size() / 8 int64_t, world-indexed: an
 * element-wise MPI_MAX of several snapshots (a reduction) joins them all.
 * A process that has no clock yet (no checked window, barrier or message
 * has made one) writes zeros, and joining zeros changes nothing. */
RMALAB_API size_t rmalab_clock_wire_size(void);
RMALAB_API void rmalab_clock_snapshot(void *buf);
/* RMALAB_OK, or RMALAB_ERR_NO_MEM when the clock could not be made. */
RMALAB_API int rmalab_clock_join(const void *buf);

/* For a process whose threads order themselves in ways MPI does not see
 * (a C program's OpenMP threads under rmalab run): rmalab_clock_peek copies
 * the process's clock as it stands, without a tick (zeros before it is
 * made); rmalab_clock_view(buf) makes the records of this thread's direct
 * loads and stores (rmalab_win_direct) carry buf, what this thread knows
 * of the other ranks, instead of the process's clock, until
 * rmalab_clock_view(NULL). Both in the snapshot's form. The view is used
 * in place, with this process's own entry (the thread's slot's, with
 * per-thread entries below) written into it: buf is aligned for int64_t
 * and stays until rmalab_clock_view(NULL).
 * Other threads and every other call are unchanged. */
RMALAB_API void rmalab_clock_peek(void *buf);
RMALAB_API void rmalab_clock_view(void *buf);

/* The clocks beside a collective that the caller makes itself (a C
 * program's MPI_Bcast under rmalab run, say; the core's own reductions
 * and rmalab_barrier use it too): the snapshots of comm's members, an
 * element-wise MPI_MAX in the shape of the collective they follow. The
 * first four are rmalab_reduce_kind's (rmalab/coll.h); a bcast's carries
 * root's snapshot to every member (the others give zeros or nothing). */
typedef enum {
    RMALAB_CLOCK_ALL,     /* allreduce: every member's, to every member */
    RMALAB_CLOCK_TO_ROOT, /* reduce: every member's, to root */
    RMALAB_CLOCK_SCAN,    /* member i: members 0..i */
    RMALAB_CLOCK_EXSCAN,  /* member i: members 0..i-1; member 0 gets none */
    RMALAB_CLOCK_BCAST,   /* root's, to every member */
} rmalab_clock_shape;
/* Collective over comm, an MPI call on it in `shape` over v: 2 *
 * rmalab_clock_wire_size() bytes aligned for int64_t, each member's
 * snapshot in the first half (rmalab_clock_snapshot). Blocking when req is
 * NULL, else started in *req (the caller completes it). *join is where
 * this member's result is, or will be once it completes (NULL: the shape
 * gives it none), for rmalab_clock_join. Returns MPI's error code, as the
 * caller's own collective would. */
RMALAB_API int rmalab_clock_coll(MPI_Comm comm, rmalab_clock_shape shape, int root, void *v,
                                 void **join, MPI_Request *req);

/* Per-thread entries, for such a process whose threads make MPI calls too.
 * rmalab_clock_threads(n), before the clock is made and the same on every
 * rank, gives each rank n entries (1, the default, to
 * RMALAB_CLOCK_MAX_THREADS; ERR_ARG otherwise, or once the clock is made
 * with another n): the snapshot's form is then world size * n int64_t,
 * rank r's slot s at r * n + s. rmalab_clock_thread(view, slot) makes
 * every call of this thread use view (the snapshot's form, the caller's,
 * used in place until rmalab_clock_thread(NULL, 0)) as its clock, its own
 * entry at `slot` (beyond n - 1: n - 1): its releases tick that entry in
 * view and send view, its acquires join into view and into the process's
 * clock, and its accesses carry view. So an access of one thread is
 * ordered only by what that thread released: another thread's barrier
 * does not order it. Two threads on one slot are ordered by it, which can
 * hide a race, never make one. A thread that never sets a view uses the
 * process's clock and slot 0. */
#define RMALAB_CLOCK_MAX_THREADS 255
RMALAB_API int rmalab_clock_threads(int n);
RMALAB_API void rmalab_clock_thread(void *view, int slot);

/* Tests: sleep a random 0..max_seconds before every call on a checked
 * window and every rmalab_barrier, from a generator seeded with `seed`
 * (0, or anything outside 0 to 10 s, turns it off). Verdicts must not
 * change with it. */
RMALAB_API void rmalab_races_jitter(double max_seconds, uint64_t seed);

#endif
