/* Private to the core: the race checker's records and its state of a
 * window, the messages and the synchronisation step that flow through it,
 * and the calls of its model, races.c (docs/races.md). Only the race
 * checker's files include it (races.c, races-wire.c, races-report.c,
 * races-sync.c), each with the headers of the checker's files it calls
 * (races-wire.h, races-report.h); every other file sees a window's
 * `races` as a pointer, NULL when the window is not checked. Never
 * installed.
 *
 * The checker is a module of its own: its calls take its state (struct
 * rmalab__races), never the window. races-sync.c alone knows the window:
 * it opens the state with what the checker needs of it (ranks, units, the
 * name), and frees it. */
#ifndef RMALAB_RACES_PRIVATE_H
#define RMALAB_RACES_PRIVATE_H

#include "private.h"
#include "clock.h"
#include "races-found.h"
#include <rmalab/races.h>
#include <rmalab/trace.h>

/* Owner races.c: an access record of the race checker. Records lie
 * rmalab__races_racc_size() bytes apart: this header, then the issue clock, one
 * int64 per world rank. The same bytes go over the wire (`dead` is 0 there). */
typedef struct {
    int64_t lo, hi;         /* bytes of the target's window; dynamic: addresses */
    int64_t c;              /* completion: the issuer's own clock at the release
                               that completed it (local accesses: the next one) */
    int32_t issuer, target; /* window ranks */
    int32_t entry;          /* the clock entry c is on: the issuer's world rank's, at
                               the slot of the thread that completed it (clock.h) */
    uint32_t id;            /* the issuer's access number, in program order */
    uint32_t count;         /* elements */
    uint8_t kind;           /* RMALAB__RK_* */
    uint8_t call;           /* rmalab_trace_kind of the operation; local: RMALAB__RC_* */
    uint8_t op;             /* rmalab_op; RMALAB_NOPS for compare_and_swap */
    uint8_t type;           /* rmalab_type */
    uint8_t lock;           /* the issuer's lock on the target: 0, 1 shared, 2 exclusive */
    uint8_t local;          /* a win:read/win:write of the target itself */
    uint8_t during;         /* remote: the issuer's rmalab_access; local: the target's
                               rmalab_exposure */
    uint8_t dead;           /* in a log: superseded by a later record (races.c) */
    char site[48];
    uint32_t hash;          /* in a log: the index's hash of the access, or 0: not
                               taken yet (races.c); in the struct's padding */
    int64_t vc[];           /* the issue clock */
} rmalab__racc;
_Static_assert(sizeof(rmalab__racc) == 104, "a record's head fills its 104 bytes");
enum { RMALAB__RK_READ, RMALAB__RK_WRITE, RMALAB__RK_ATOMIC };
enum { RMALAB__RC_READ = RMALAB_TRACE_NKINDS, RMALAB__RC_WRITE };

/* A list of records (the log of a window's memory, what an origin has not
 * completed yet, a batch on the wire). */
struct rmalab__rlist {
    unsigned char *p;
    int n, cap;
};

/* The bytes of a record, its clock included: a list's records lie this far
 * apart, from its first at l->p (races.c walks them), as they do in a
 * message (races-wire.c). */
static inline size_t rmalab__races_racc_size(void)
{
    return sizeof(rmalab__racc) + rmalab__clock_bytes();
}

/* Owner races.c: a log of accesses to this rank's memory, and its index
 * of each access's latest record (by everything but its clocks). */
struct rmalab__rlog {
    struct rmalab__rlist l;
    int dead;                     /* superseded records still in l */
    struct rmalab__rslot { uint32_t hash; int32_t at; } *slot; /* at < 0: empty */
    int nslot, used;
    /* The bytes each block of RMALAB__SPAN records touches, and `own`, the
     * issuer when every record of the block is a local access of it (else
     * -1): races.c's compare reads only the blocks that reach an access and
     * may hold a race with it; nspan < 0: no memory for them, every record
     * is read. The log's own is its blocks' (-2 while it is empty). */
    struct rmalab__rspan { int64_t lo, hi; int32_t own; } *span;
    int nspan, capspan, own;
};
enum { RMALAB__SPAN = 64 };

/* A message that arrived (races-wire.c receives it, races.c takes it in):
 * its origin's clock and records, which lie in the message. */
enum {
    RMALAB__RB_POST,    /* a target's post clock, for the epoch's records (complete) */
    RMALAB__RB_EPOCH,   /* an origin's records of a PSCW epoch (wait, test): acquired */
    RMALAB__RB_PASSIVE, /* a passive-target batch, or a load or store of this rank's memory */
    RMALAB__RB_FENCE,   /* an origin's records at a fence, not completed yet */
};
struct rmalab__rbatch {
    int from, kind;             /* window rank; RMALAB__RB_* */
    int entry;                  /* FENCE: the clock entry its release completes them at */
    const int64_t *clock;       /* the origin's clock at the release that sent it */
    struct rmalab__rlist recs;
    void *msg;                  /* races-wire.c's, freed once the call's step ends */
};

/* One synchronisation's work in the checker, which races-sync.c runs from
 * its kind's row. Its data flows one way through the checker's files:
 * races-wire.c releases this rank's clock and brings the messages in
 * (R->in); races.c takes them in with what this rank released, and returns
 * the races found; races-wire.c ships what leaves; races-report.c reports. */
enum rmalab__races_do {
    RMALAB__DO_ARRIVED,  /* the passive batches that arrived (lock, start...) */
    RMALAB__DO_POST,     /* post: its clock to each rank of `group` */
    RMALAB__DO_COMPLETE, /* complete: each target's post clock joins the epoch's
                            records, which go to it completed */
    RMALAB__DO_EXPOSED,  /* wait, test: each origin's records, acquired; then
                            the batches that arrived */
    RMALAB__DO_RELEASED, /* unlock, flush: the records to `target` (-1: every
                            rank) completed, checked here, shipped; then the
                            batches that arrived */
    RMALAB__DO_FENCE,    /* fence (collective): every record, every rank */
    RMALAB__DO_CLOSE,    /* free (collective): the last exchange; the sends end */
};
struct rmalab__races_step {
    enum rmalab__races_do what;
    const int *group;           /* POST, COMPLETE, EXPOSED: n window ranks */
    int n;
    int lo, hi;                 /* RELEASED: the targets [lo, hi), one or every rank */
    bool released;              /* races-wire.c: R->S holds the clock released */
};

/* The race checker's state of a window: NULL when it is not checked. */
struct rmalab__races {
    /* Set at open (races-sync.c), read by all: what the checker knows of
     * its window. */
    int rank, size;               /* this rank's window rank; the window's size */
    const int *world;             /* per window rank: its world rank (the layout's) */
    bool dynamic;                 /* a dynamic window: displacements are addresses */
    int disp_unit;                /* this rank's */
    const int *disp_units;        /* every rank's (the layout's) */
    const char *name;             /* the window's name (set_name may change it) */
    rmalab_check_mode mode;       /* this rank's */
    bool raise_together;          /* some rank's mode is races: a race found at a fence
                                     or free is told to every rank */
    bool same_op_no_op;           /* accumulate_ops in force (the rule's) */
    bool acc_ordered;             /* accumulate_ordering is not none (the rule's) */
    /* Owner races-report.c. */
    unsigned found_now;           /* races found by the call that runs */
    int64_t *together;            /* a clock and one more: what a fence or free
                                     reduces (made at open: it allocates nothing) */
    char now_text[1600];          /* the first of them */
    /* Owner races.c, the log. */
    struct rmalab__rlog log;      /* accesses to this rank's memory, live */
    struct rmalab__rlog past;     /* those ordered before this rank's clock */
    int log_cap;                  /* each list's */
    bool log_dropped, past_warned;
    unsigned past_dropped;
    int64_t *seen;                /* per window rank B, world-indexed: B's clock at
                                     its last batch to this rank (or the fence) */
    int sweep_at;                 /* records in the logs at which to sweep next */
    /* Owner races-sync.c (made at open; records join `out` at each
     * operation), then races.c (completes and checks those that stay) and
     * races-wire.c (sends those that leave, and empties the lists). */
    MPI_Comm comm;                /* the checker's messages */
    struct rmalab__rlist *out;    /* per target: records not completed yet */
    int64_t *S;                   /* made at open; races-wire.c: the clock that the
                                     call that runs released */
    /* Owner races-wire.c. */
    uint64_t *sent, *recvd;       /* per rank: passive batches sent to it, received from it */
    MPI_Request *req;             /* sends in flight, and their buffers */
    void **reqbuf;
    int nreq, capreq;
    struct rmalab__rbatch *in;    /* what arrived during the call that runs, in order */
    int nin, capin;
    bool lost;                    /* a message was dropped for want of memory: the
                                     checker stopped on this rank (races-wire.c) */
    uint64_t exchanges;           /* fences and frees so far, which FENCE messages carry */
    /* Owner races.c. */
    bool exposing;                /* post made, wait not yet: a batch may overtake
                                     an epoch's records (the log) */
    /* Owner races-sync.c: the races the call's checks found (races.c
     * fills it, two records a race), which races-report.c reports once
     * the call's checks are done, and empties. */
    struct rmalab__rlist found_pairs;
    /* Owner races-report.c: the races the call that runs found, for the
     * recorder; the event layer empties it after each call. */
    struct rmalab__races_found *found;
    int nfound, capfound;
};

/* races.c: the model (docs/races.md): the race rule, and the log of a
 * window's memory with the checks against it. One thread per process calls
 * it. */
/* The log of a window's memory and the checks against it; what a new record
 * supersedes, and what no later access can race with (docs/races.md, "Cost
 * and memory"). */
/* Compare a list of records (a batch) against the window's log (and, unless
 * RMALAB__CK_INTRA, each against those before it), and add them to the log.
 * The races found join `found` as pairs of records (the log's, then the
 * batch's), once each, for the reports (races-report.c) that the caller
 * hands them to: the model reports nothing itself. Fails only out of
 * memory for `found`. */
enum {
    RMALAB__CK_INTRA = 1,   /* the batch's own pairs were compared by its origin */
    RMALAB__CK_PASSIVE = 2, /* passive-target records: compared with `past` too */
};
int rmalab__races_check(struct rmalab__races *R, const struct rmalab__rlist *l, unsigned how,
                        struct rmalab__rlist *found);
/* A synchronisation's part in the model (races-sync.c calls it between
 * races-wire.c's messages in and out): the post clocks that arrived join
 * the epoch's records; what this rank released is completed at R->S, and
 * what stays here checked (its own records; a passive batch's own pairs
 * before it ships); each batch that arrived (R->in) is checked, with what
 * the call acquires (an epoch's clocks; a wait's end moves what they order
 * to `past`). Races join `found`, as for rmalab__races_check. */
int rmalab__races_take(struct rmalab__races *R, const struct rmalab__races_step *st,
                       struct rmalab__rlist *found);
/* At a fence, after its join (joined false: it failed): forget the log, as
 * every access so far happens before every later one. */
void rmalab__races_forget(struct rmalab__races *R, bool joined);
/* The log's state, and its release. */
int rmalab__races_log_init(struct rmalab__races *R);
void rmalab__races_log_free(struct rmalab__races *R);

#endif
