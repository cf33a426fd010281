/* Collectives and messages on communicators (docs/core.md, "Collectives
 * and messages").
 *
 * Every call here may block: it goes through the blocking record
 * (rmalab/block.h names it "bcast", "allreduce", "send", "recv"...), waits
 * without spinning in RMALAB_WAIT_SLEEP mode, and records its failure for
 * rmalab_last_failure. The communicator stays usable after any error.
 *
 * Happens-before for the race checker (docs/races.md): when a rank has
 * the checker's vector clock, its clock travels with what it sends, and
 * the ranks that receive acquire it: a message orders its send before its
 * receive; bcast and scatter order the root before every rank, gather and
 * reduce every rank before the root, scan rank i before ranks i.., exscan
 * before ranks i+1.., and allreduce, allgather and alltoall every rank
 * before every rank. A rank without a clock sends nothing more; a
 * collective costs one more exchange of clocks only when some rank has one.
 *
 * Collectives are called by every rank of the communicator with the same
 * root. `status` lets a rank take part that could not make its
 * contribution (a value it could not encode): RMALAB_OK normally, else
 * that failure's code, and then the ranks that would have received from
 * it fail too (with ERR_* of that code, "rank r could not ..."), instead of
 * waiting; the failing rank gets its own status back, its message
 * untouched. */
#ifndef RMALAB_COLL_H
#define RMALAB_COLL_H

#include <stddef.h>

#include <rmalab/comm.h>
#include <rmalab/export.h>
#include <rmalab/win.h>

/* ------------------------------------------------------------------------ */
/* Reductions of numbers                                                    */

typedef enum {
    RMALAB_REDUCE_ALL,    /* allreduce: the result on every rank */
    RMALAB_REDUCE_ROOT,   /* reduce: on `root` only */
    RMALAB_REDUCE_SCAN,   /* rank i: ranks 0..i */
    RMALAB_REDUCE_EXSCAN, /* rank i: ranks 0..i-1; rank 0's buf is left alone */
} rmalab_reduce_kind;

/* "allreduce", "reduce", "scan", "exscan"; "?" outside the enum. */
RMALAB_API const char *rmalab_reduce_kind_name(rmalab_reduce_kind kind);

/* Collective: reduce `count` numbers at buf, in place, with op (sum, prod,
 * max, min, band, bor, bxor, land, lor, lxor). *type is RMALAB_INT64 or
 * RMALAB_DOUBLE and may differ across ranks: when any rank gives doubles
 * every rank computes in doubles (its int64 converted in place) and *type
 * becomes RMALAB_DOUBLE. The bitwise and logical ops take int64 only
 * (ERR_TYPE). Counts and ops must agree: ERR_ARG or ERR_OP on every rank
 * otherwise, before anything is reduced. A rank's own bad root, count or
 * op is its failure in the collective (as `status`), not a refusal before
 * it. Integers wrap around as in Lua.
 * Up to RMALAB_REDUCE_INLINE numbers cost one MPI collective. */
#define RMALAB_REDUCE_INLINE 4
RMALAB_API int rmalab_comm_reduce(rmalab_comm *c, rmalab_reduce_kind kind, int root, void *buf,
                                  int count, rmalab_type *type, rmalab_op op, int status);

/* Typed buffers in place: one MPI collective on the caller's memory, as
 * raw MPI would make it (MPI_Bcast; MPI_Allreduce, MPI_Reduce, MPI_Scan,
 * MPI_Exscan with MPI_IN_PLACE). As in MPI, every rank gives the same
 * count, type, root and op; unlike MPI, which truncates on some ranks,
 * passes silently on others or hangs, the ranks first agree on them in
 * one small MPI_Allreduce: ERR_TRUNCATE (counts), ERR_TYPE, ERR_RANK
 * (roots) or ERR_OP on every rank, nothing moved. Each rank also checks
 * its own arguments (root, count, the op against the type: ERR_TYPE for
 * bitwise ops on floats, arithmetic on bytes); a rank that fails them
 * still takes part in the agreement, so the others fail with ERR_ARG
 * instead of waiting. exscan leaves rank 0's buffer as it was.
 * The race checker's clocks follow in a second collective when the ranks
 * have them (they all do once a checked window spans them). */
RMALAB_API int rmalab_comm_bcast_typed(rmalab_comm *c, void *buf, int count, rmalab_type type,
                                       int root);
RMALAB_API int rmalab_comm_reduce_typed(rmalab_comm *c, rmalab_reduce_kind kind, int root,
                                        void *buf, int count, rmalab_type type, rmalab_op op);
/* The same with `status` (as rmalab_comm_exchange's): a rank whose
 * caller found its own arguments wrong takes part with that failure, so
 * every rank fails in the agreement instead of some waiting; `buf` is not
 * touched then. */
RMALAB_API int rmalab_comm_bcast_typed_status(rmalab_comm *c, void *buf, int count,
                                              rmalab_type type, int root, int status);
RMALAB_API int rmalab_comm_reduce_typed_status(rmalab_comm *c, rmalab_reduce_kind kind,
                                               int root, void *buf, int count, rmalab_type type,
                                               rmalab_op op, int status);

/* ------------------------------------------------------------------------ */
/* Byte strings of any length                                               */

typedef enum {
    RMALAB_XCHG_BCAST,     /* root's one string to every rank */
    RMALAB_XCHG_GATHER,    /* each rank's one string to root */
    RMALAB_XCHG_ALLGATHER, /* each rank's one string to every rank */
    RMALAB_XCHG_SCATTER,   /* root's string r to rank r */
    RMALAB_XCHG_ALLTOALL,  /* each rank's string r to rank r */
} rmalab_xchg_kind;

/* "bcast", "gather", "allgather", "scatter", "alltoall"; "?" outside. */
RMALAB_API const char *rmalab_xchg_kind_name(rmalab_xchg_kind kind);

typedef struct {
    const void *p;
    size_t n;
} rmalab_bytes;

/* The most a string may hold (an MPI count, less room for headers). */
#define RMALAB_BYTES_MAX (2147483647 - 65536)

/* Collective: move strings of bytes whose lengths only their senders know.
 * `send`: this rank's string (bcast at the root, gather, allgather) or
 * one per rank (scatter at the root, alltoall); ignored elsewhere. `recv`
 * receives one string (bcast, scatter) or one per rank (gather at the
 * root, allgather, alltoall): pointers into memory the core keeps until
 * this thread's next call of this header (or into `send` for the root's
 * own). Strings of up to a few dozen bytes cost one MPI collective;
 * longer ones a second for the rest. */
RMALAB_API int rmalab_comm_exchange(rmalab_comm *c, rmalab_xchg_kind kind, int root,
                                    const rmalab_bytes *send, rmalab_bytes *recv, int status);

/* Collective: MPI_Comm_split. color < 0 is MPI_UNDEFINED: *out is NULL.
 * The ranks first agree that none failed (`status`, as above: a rank that
 * could not make its color or key takes part with its failure, and every
 * rank fails, none split). */
RMALAB_API int rmalab_comm_split(rmalab_comm *c, int color, int key, rmalab_comm **out);
RMALAB_API int rmalab_comm_split_status(rmalab_comm *c, int color, int key, rmalab_comm **out,
                                        int status);

/* ------------------------------------------------------------------------ */
/* Messages                                                                 */

#define RMALAB_ANY_SOURCE (-1)
#define RMALAB_ANY_TAG (-1)

typedef struct {
    int source, tag;
    size_t bytes; /* the message's own bytes (what the sender gave) */
    int type;     /* the rmalab_type it was sent with (the _typed calls), or -1 */
} rmalab_msg_status;

/* The largest tag (MPI_TAG_UB, at least 32767); tags are 0 to it. */
RMALAB_API int rmalab_comm_tag_ub(rmalab_comm *c);

/* Every receive posts its receive when it is made, so receives match
 * messages in the order they were made (MPI's non-overtaking rule), and a
 * blocking receive waits for its message without probing. A message's
 * first RMALAB_EAGER_BYTES (header included) travel on the communicator,
 * the rest on its shadow (rmalab/comm.h). A message that does not fit
 * where a receive wants it (ERR_TRUNCATE), or is of another type
 * (ERR_TYPE), stays receivable: the next receive that matches takes it. */
#define RMALAB_EAGER_BYTES 4096

/* Send n bytes to dest; returns when buf may be reused. A bad rank is
 * ERR_RANK, a bad tag ERR_ARG. */
RMALAB_API int rmalab_comm_send(rmalab_comm *c, const void *buf, size_t n, int dest, int tag);
/* Send `count` elements of `type` at buf, marked with their type. */
RMALAB_API int rmalab_comm_send_typed(rmalab_comm *c, const void *buf, int count,
                                      rmalab_type type, int dest, int tag);
/* Wait for a message from source with tag (RMALAB_ANY_*), and receive it
 * into memory the core keeps until this thread's next call of this
 * header: *p, *n (st->type says whether it was typed). */
RMALAB_API int rmalab_comm_recv_bytes(rmalab_comm *c, int source, int tag, const void **p,
                                      size_t *n, rmalab_msg_status *st);
/* Receive any message into the caller's cap bytes at buf. A message longer
 * than cap is ERR_TRUNCATE and stays receivable. */
RMALAB_API int rmalab_comm_recv(rmalab_comm *c, void *buf, size_t cap, int source, int tag,
                                rmalab_msg_status *st);
/* Receive a message of `type` (sent with _typed) of at most count elements
 * into buf: another type is ERR_TYPE, more elements ERR_TRUNCATE, and the
 * message stays receivable. st->bytes says how many came. */
RMALAB_API int rmalab_comm_recv_typed(rmalab_comm *c, void *buf, int count, rmalab_type type,
                                      int source, int tag, rmalab_msg_status *st);
/* Wait until a message matches, without receiving it. */
RMALAB_API int rmalab_comm_probe(rmalab_comm *c, int source, int tag, rmalab_msg_status *st);
/* *flag: whether one matches now. */
RMALAB_API int rmalab_comm_iprobe(rmalab_comm *c, int source, int tag, int *flag,
                                  rmalab_msg_status *st);

/* Requests. An isend copies buf, so the caller may reuse it at once;
 * isend_typed sends from buf in place, and irecv_typed receives into buf:
 * the caller leaves buf alone until the request is done (or
 * rmalab_request_id_done says so). An irecv posts its receive at once. */
typedef struct rmalab_request rmalab_request;
RMALAB_API int rmalab_comm_isend(rmalab_comm *c, const void *buf, size_t n, int dest, int tag,
                                 rmalab_request **out);
RMALAB_API int rmalab_comm_isend_typed(rmalab_comm *c, const void *buf, int count,
                                       rmalab_type type, int dest, int tag,
                                       rmalab_request **out);
RMALAB_API int rmalab_comm_irecv(rmalab_comm *c, int source, int tag, rmalab_request **out);
/* As rmalab_comm_recv_typed, when it completes (ERR_TYPE, ERR_TRUNCATE
 * from its wait or test, the message left receivable). */
RMALAB_API int rmalab_comm_irecv_typed(rmalab_comm *c, void *buf, int count, rmalab_type type,
                                       int source, int tag, rmalab_request **out);

/* Any request: a message's, or a request-based RMA operation's
 * (rmalab_win_rput...: rmalab/win.h). */
typedef enum {
    RMALAB_REQUEST_SEND,
    RMALAB_REQUEST_RECV,
    RMALAB_REQUEST_RMA,
} rmalab_request_kind;

/* *done: whether it completed; then, for a receive of bytes, the message
 * in *p, *n (owned by the request) and *st; p, n and st may be NULL. An
 * RMA request completes locally (its buffers may be touched); remote
 * completion comes with its epoch (flush, unlock...). */
RMALAB_API int rmalab_request_test(rmalab_request *rq, int *done, const void **p, size_t *n,
                                   rmalab_msg_status *st);
RMALAB_API int rmalab_request_wait(rmalab_request *rq, const void **p, size_t *n,
                                   rmalab_msg_status *st);
/* Wait for every request (NULL entries are skipped); the first failure. */
RMALAB_API int rmalab_request_waitall(rmalab_request *const *rqs, int n);
/* Wait until one of them completes: *index (-1 when all are NULL); its
 * results with rmalab_request_test. Blocked as "waitany" (rmalab/block.h:
 * its members are the requests' peers, none when a receive takes any
 * source), which rmalab_interrupt can end: RMALAB_ERR_INTERRUPTED with
 * *index -1, every request still pending. */
RMALAB_API int rmalab_request_waitany(rmalab_request *const *rqs, int n, int *index);
RMALAB_API rmalab_request_kind rmalab_request_get_kind(const rmalab_request *rq);
/* 1 for a receive; whether it completed. */
RMALAB_API int rmalab_request_is_recv(const rmalab_request *rq);
RMALAB_API int rmalab_request_done(const rmalab_request *rq);
/* "isend to rank 1, tag 3", "irecv from any rank, tag any", "rput to rank 1". */
RMALAB_API void rmalab_request_describe(const rmalab_request *rq, char *buf, size_t size);
/* Its number, and whether the memory of the request of that number is
 * free again: its request completed, or (RMA) a call of its window
 * completed its operation, or its window was freed. Numbers outlive
 * their requests, for buffers in flight. */
RMALAB_API uint64_t rmalab_request_id(const rmalab_request *rq);
RMALAB_API bool rmalab_request_id_done(uint64_t id);
/* An RMA request's operation as the _mem calls number it (rmalab/win.h):
 * rmalab_win_done(win, target, ticket) says whether a call of its window
 * (flush_local, flush, unlock...) completed it, whether or not the request
 * was waited for. 0 for a message's request. */
RMALAB_API uint64_t rmalab_request_ticket(const rmalab_request *rq);
/* Accepts NULL. A send not yet complete is left to MPI, which finishes it;
 * its memory is freed in MPI_Finalize (a send nobody received is cancelled
 * there). An RMA request not yet complete is completed locally first (its
 * MPI_Wait: MPICH 4.0.2 refuses MPI_Request_free of one); its epoch
 * completes the operation at the target. */
RMALAB_API void rmalab_request_destroy(rmalab_request **rq);

#endif
