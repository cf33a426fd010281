/* Windows: the four flavours of MPI-3, typed RMA operations, and the epoch
 * state machine that checks every call before MPI sees it.
 *
 * MPICH 4.0.2 with UCX 1.13 records every window base rounded down to 16
 * bytes, so unaligned memory or a per-rank size that is not a multiple of 16
 * makes puts land in the wrong bytes or on the wrong rank with no error.
 * rmalab never hands out such a window: memory the core allocates is
 * 64-byte aligned, sizes are rounded up to 16 internally (the window reports
 * the size the user asked for), user memory that is not 16-byte aligned is
 * rejected, and every window checks that MPI_WIN_BASE equals its base.
 *
 * At creation every rank's size and disp_unit are exchanged, so the origin
 * rejects a displacement outside the target's window (ERR_RMA_RANGE) and a
 * rank outside the group (ERR_RANK) before calling MPI. Dynamic windows
 * expose each rank's attached regions (at most 64 per rank) in a small
 * internal window, and the origin reads the target's before each operation:
 * an address the target never attached is ERR_RMA_RANGE rather than a
 * crash of the target inside MPICH.
 *
 * Windows use MPI_ERRORS_RETURN. Calls marked collective must be made by
 * every rank of the window's group. One thread drives a window; any thread
 * may read its state (rmalab_win_state, rmalab_win_describe) at any time,
 * including while the owning thread is blocked inside MPI.
 */
#ifndef RMALAB_WIN_H
#define RMALAB_WIN_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include <rmalab/comm.h>
#include <rmalab/export.h>
#include <rmalab/hints.h>
#include <rmalab/info.h>

typedef struct rmalab_win rmalab_win;

typedef enum {
    RMALAB_FLAVOR_CREATE,
    RMALAB_FLAVOR_ALLOCATE,
    RMALAB_FLAVOR_SHARED,
    RMALAB_FLAVOR_DYNAMIC,
} rmalab_flavor;

typedef enum {
    RMALAB_INT8, RMALAB_UINT8, RMALAB_INT16, RMALAB_UINT16,
    RMALAB_INT32, RMALAB_UINT32, RMALAB_INT64, RMALAB_UINT64,
    RMALAB_FLOAT, RMALAB_DOUBLE, RMALAB_BYTE,
    RMALAB_NTYPES
} rmalab_type;

typedef enum {
    RMALAB_OP_SUM, RMALAB_OP_PROD, RMALAB_OP_MAX, RMALAB_OP_MIN,
    RMALAB_OP_BAND, RMALAB_OP_BOR, RMALAB_OP_BXOR,
    RMALAB_OP_LAND, RMALAB_OP_LOR, RMALAB_OP_LXOR,
    RMALAB_OP_REPLACE, RMALAB_OP_NO_OP,
    RMALAB_OP_MAXLOC, RMALAB_OP_MINLOC, /* pair types only: rmalab_win_typed */
    RMALAB_NOPS
} rmalab_op;

/* Assertions, combinable with |. */
enum {
    RMALAB_MODE_NOCHECK = 1 << 0,
    RMALAB_MODE_NOSTORE = 1 << 1,
    RMALAB_MODE_NOPUT = 1 << 2,
    RMALAB_MODE_NOPRECEDE = 1 << 3,
    RMALAB_MODE_NOSUCCEED = 1 << 4,
};

/* "int8" ... "byte"; sizes in bytes; -1 / NULL when unknown. */
RMALAB_API const char *rmalab_type_name(rmalab_type type);
RMALAB_API int rmalab_type_size(rmalab_type type);
RMALAB_API int rmalab_type_from_name(const char *name, rmalab_type *out);
RMALAB_API const char *rmalab_op_name(rmalab_op op);
RMALAB_API int rmalab_op_from_name(const char *name, rmalab_op *out);
RMALAB_API const char *rmalab_flavor_name(rmalab_flavor flavor);
/* The MPI call that makes a window of the flavour, without MPI_:
 * "win_create", "win_allocate", "win_allocate_shared", "win_create_dynamic". */
RMALAB_API const char *rmalab_flavor_call(rmalab_flavor flavor);
/* "nocheck" ... "nosucceed" -> RMALAB_MODE_*; ERR_ARG for others. */
RMALAB_API int rmalab_mode_from_name(const char *name, int *out);

/* ------------------------------------------------------------------------ */
/* Creation and destruction                                                 */

/* A rule of MPI that MPICH 4.0.2 does not enforce but carries the call out
 * anyway (request-based operations, which MPI allows only in a
 * passive-target epoch, in a fence or start epoch). RMALAB_RULES_REFUSE,
 * the default: the call fails with the rule's error and does nothing.
 * RMALAB_RULES_REPORT: the call is carried out as MPICH carries it out, and
 * the broken rule is left for rmalab_err_went_on (rmalab/error.h) to tell;
 * `rmalab run` sets it, so that a C program runs as under plain mpiexec and
 * is checked past that call. Rules that MPICH enforces too (an operation
 * outside any epoch) are refused under either. */
typedef enum { RMALAB_RULES_REFUSE, RMALAB_RULES_REPORT } rmalab_rules;

typedef struct {
    MPI_Aint size;            /* bytes on this rank (ignored for dynamic) */
    int disp_unit;            /* 0 means 1 */
    const rmalab_info *info;  /* hints; may be NULL */
    rmalab_comm *comm;        /* NULL means MPI_COMM_WORLD */
    void *base;               /* create only: user memory, 16-byte aligned,
                                 or NULL for core-allocated memory */
    const char *name;         /* may be NULL */
    rmalab_rules rules;       /* 0: RMALAB_RULES_REFUSE */
} rmalab_win_opts;

/* Collective. `diags` (may be NULL) receives the hint diagnostics. Memory
 * the core allocates is zeroed. */
RMALAB_API int rmalab_win_create(const rmalab_win_opts *opts, rmalab_win **out,
                                 rmalab_diags *diags);
RMALAB_API int rmalab_win_allocate(const rmalab_win_opts *opts, rmalab_win **out,
                                   rmalab_diags *diags);
RMALAB_API int rmalab_win_allocate_shared(const rmalab_win_opts *opts, rmalab_win **out,
                                          rmalab_diags *diags);
RMALAB_API int rmalab_win_create_dynamic(const rmalab_win_opts *opts, rmalab_win **out,
                                         rmalab_diags *diags);

/* Collective: a rank whose arguments to a creation in `flavor` its caller
 * found wrong (a binding's own checks; the message set, as by
 * rmalab_set_error) takes part in the others' creation with that failure,
 * so that theirs fails too (the agreement names the class) instead of
 * waiting for this rank. `opts` gives the communicator (NULL or no comm:
 * MPI_COMM_WORLD); the rest of it is not read. Returns `status`. A
 * creation's own argument errors are carried the same way. */
RMALAB_API int rmalab_win_take_part(rmalab_flavor flavor, const rmalab_win_opts *opts,
                                    int status);

/* Collective. ERR_RMA_SYNC, leaving the window usable, when an epoch is
 * open. The ranks agree first: when any rank refuses (its epoch open),
 * that rank gets its error, the others "another rank failed", and the
 * window stays usable on every rank, to be freed again once the epoch is
 * closed. Runs the delete callback of every attribute still set, most
 * recently set first; the first callback error is returned after the
 * window has been freed all the same. Sets *win to NULL on success (and
 * after a callback error). Accepts NULL. A free from inside one of the
 * window's own delete callbacks during its free is refused on that rank
 * alone (the others are in the same free). */
RMALAB_API int rmalab_win_free(rmalab_win **win);
/* The same, from `status`: a rank whose caller refused the free itself
 * (its message set, as by rmalab_set_error) takes part with that failure,
 * so that the free fails on every rank and the window stays. */
RMALAB_API int rmalab_win_free_status(rmalab_win **win, int status);

/* Collective, for a process on its way out (a binding whose callbacks can no
 * longer run): frees the window without running attribute callbacks and
 * without the epoch checks of rmalab_win_free. This rank's passive-target
 * epochs are closed first, and a fence epoch with a closing fence when
 * `fence` is true (every rank must pass the same). An open PSCW epoch is
 * ERR_RMA_SYNC and nothing is freed, as closing it could block. */
RMALAB_API int rmalab_win_abandon(rmalab_win **win, bool fence);

/* Dynamic windows: attach `size` bytes of zeroed, core-allocated memory;
 * *addr is its address for use as a displacement. detach takes it back. */
RMALAB_API int rmalab_win_attach(rmalab_win *win, MPI_Aint size, MPI_Aint *addr);
/* ... or the caller's own memory (MPI_Win_attach's form, for programs that
 * bring theirs): any alignment; memory that overlaps a region already
 * attached is ERR_RMA_ATTACH. Its address (MPI_Get_address) is the
 * displacement. detach leaves the caller's memory to the caller. */
RMALAB_API int rmalab_win_attach_memory(rmalab_win *win, void *base, MPI_Aint size);
RMALAB_API int rmalab_win_detach(rmalab_win *win, MPI_Aint addr);

/* ------------------------------------------------------------------------ */
/* Properties                                                               */

RMALAB_API MPI_Win rmalab_win_mpi(const rmalab_win *win);
RMALAB_API void *rmalab_win_base(const rmalab_win *win);
RMALAB_API MPI_Aint rmalab_win_size(const rmalab_win *win);      /* as requested */
RMALAB_API int rmalab_win_disp_unit(const rmalab_win *win);
RMALAB_API rmalab_flavor rmalab_win_flavor(const rmalab_win *win);
RMALAB_API int rmalab_win_model(const rmalab_win *win);          /* MPI_WIN_UNIFIED... */
RMALAB_API int rmalab_win_rank(const rmalab_win *win);
RMALAB_API int rmalab_win_group_size(const rmalab_win *win);
/* The size and disp_unit every rank gave at creation. */
RMALAB_API MPI_Aint rmalab_win_size_of(const rmalab_win *win, int rank);
RMALAB_API int rmalab_win_disp_unit_of(const rmalab_win *win, int rank);
/* Ranks of the window's group in MPI_COMM_WORLD (array of group_size). */
RMALAB_API const int *rmalab_win_world_ranks(const rmalab_win *win);
RMALAB_API int rmalab_win_set_name(rmalab_win *win, const char *name);
RMALAB_API const char *rmalab_win_get_name(const rmalab_win *win);

/* Windows of win_allocate_shared: rank's segment, as MPI_Win_shared_query
 * gives it, with the size that rank asked for. ERR_WIN for the other
 * flavours, ERR_RANK for a rank outside the group. */
RMALAB_API int rmalab_win_shared_query(rmalab_win *win, int rank, MPI_Aint *size,
                                       int *disp_unit, void **base);

/* Local memory. Bounds are checked against the local window (for dynamic
 * windows, against the attached region holding disp). A read with out ==
 * NULL only checks. */
RMALAB_API int rmalab_win_read(rmalab_win *win, MPI_Aint disp, rmalab_type type, int count,
                               void *out);
RMALAB_API int rmalab_win_write(rmalab_win *win, MPI_Aint disp, rmalab_type type, int count,
                                const void *in);
/* A load (write false) or store of count elements of type at byte `offset`
 * of rank's window memory, made directly through a pointer (the memory of
 * rmalab_win_base, or a segment of rmalab_win_shared_query; on a dynamic
 * window, `offset` is the address of this rank's attached memory, as its
 * displacements are). Nothing is
 * moved: the race checker sees it as it sees rmalab_win_read/_write (another
 * rank's segment: that rank checks it), and a recorded window records it.
 * A window that neither records nor is checked returns at once. */
RMALAB_API int rmalab_win_direct(rmalab_win *win, int rank, MPI_Aint offset, rmalab_type type,
                                 int count, bool write);

/* ------------------------------------------------------------------------ */
/* Hints                                                                    */

/* Collective: updates only the keys `info` names. The ranks agree first
 * that every rank's hints are valid; a failure on any rank leaves every
 * rank's hints as they were (that rank its error, the others "another rank
 * failed"). */
RMALAB_API int rmalab_win_set_info(rmalab_win *win, const rmalab_info *info,
                                   rmalab_diags *diags);
/* The same, from `status` (see rmalab_win_free_status). */
RMALAB_API int rmalab_win_set_info_status(rmalab_win *win, const rmalab_info *info,
                                          rmalab_diags *diags, int status);
/* A new info: every hint in effect, rmalab's own included. */
RMALAB_API int rmalab_win_get_info(rmalab_win *win, rmalab_info **out);
RMALAB_API int rmalab_win_hints(rmalab_win *win, rmalab_hints_report **out);
/* Collective: which must-agree keys differ across ranks. */
RMALAB_API int rmalab_win_check_hints(rmalab_win *win, rmalab_agreement **out);

/* ------------------------------------------------------------------------ */
/* RMA operations                                                           */

/* Origin data (origin, compare) is copied when the call is made, so the
 * caller may reuse its buffers at once, unlike MPI's.
 *
 * Operations that return data fill a result. The data may be read once the
 * epoch that carries the operation has completed at the origin (fence,
 * complete, unlock, unlock_all, flush, flush_all); earlier reads are
 * ERR_RMA_SYNC. Results are reference counted: the window keeps one until
 * the operation completes, so the caller may release its own at any time. */
typedef struct rmalab_result rmalab_result;

RMALAB_API int rmalab_win_put(rmalab_win *win, int target, MPI_Aint disp, rmalab_type type,
                              int count, const void *origin);
RMALAB_API int rmalab_win_get(rmalab_win *win, int target, MPI_Aint disp, rmalab_type type,
                              int count, rmalab_result **out);
RMALAB_API int rmalab_win_accumulate(rmalab_win *win, int target, MPI_Aint disp,
                                     rmalab_type type, int count, const void *origin,
                                     rmalab_op op);
RMALAB_API int rmalab_win_get_accumulate(rmalab_win *win, int target, MPI_Aint disp,
                                         rmalab_type type, int count, const void *origin,
                                         rmalab_op op, rmalab_result **out);
RMALAB_API int rmalab_win_fetch_and_op(rmalab_win *win, int target, MPI_Aint disp,
                                       rmalab_type type, const void *origin, rmalab_op op,
                                       rmalab_result **out);
RMALAB_API int rmalab_win_compare_and_swap(rmalab_win *win, int target, MPI_Aint disp,
                                           rmalab_type type, const void *compare,
                                           const void *origin, rmalab_result **out);

/* Which call completes an operation to `target` issued now, for messages:
 * "the next fence()", "complete()", "unlock(1) or flush(1)", "unlock_all()
 * or flush(1)". */
RMALAB_API void rmalab_win_completer(const rmalab_win *win, int target, char *buf, size_t size);

/* ------------------------------------------------------------------------ */
/* RMA operations on caller memory, with a layout                           */

/* A strided layout of the target's memory (MPI_Type_vector): `count` blocks
 * of `blocklen` elements whose starts lie `stride` elements apart (count >=
 * 0, blocklen >= 1, stride >= blocklen). The origin side stays contiguous:
 * count * blocklen elements. Range checks cover the whole footprint,
 * (count - 1) * stride + blocklen elements from disp (ERR_RMA_RANGE). */
typedef struct {
    int count, blocklen, stride;
} rmalab_vector;

/* As the calls above, but on the caller's memory as MPI has it: nothing is
 * copied and no result is allocated. MPI reads `origin` and writes `result`
 * until the operation completes at this origin, so the caller must leave
 * them alone (and alive) until then: rmalab_win_done(win, target, *ticket)
 * says when: at the call that completes the operation as MPI defines it, even
 * when an engine moved the data within the call (a plain copy).
 * `vec` may be NULL: `count` contiguous elements at the target; with a
 * vector, `count` must be vec->count * vec->blocklen (ERR_ARG). The race
 * checker and the recorder see a vector's blocks one by one. Caller memory
 * that overlaps the bytes the operation reaches in this process (the
 * target is this rank, or a rank whose shared window segment this process
 * maps) is refused with ERR_ARG before MPI sees it: MPI forbids it, and
 * MPICH 4.0.2 aborts the job. */
RMALAB_API int rmalab_win_put_mem(rmalab_win *win, int target, MPI_Aint disp, rmalab_type type,
                                  int count, const void *origin, const rmalab_vector *vec,
                                  uint64_t *ticket);
RMALAB_API int rmalab_win_get_mem(rmalab_win *win, int target, MPI_Aint disp, rmalab_type type,
                                  int count, void *result, const rmalab_vector *vec,
                                  uint64_t *ticket);
/* rmalab_win_get_mem of `count` contiguous elements into `result`, memory
 * the caller has just allocated for this get alone (a binding's result
 * handle): no window's, no buffer in flight, nothing the core handed out.
 * It cannot overlap the bytes the get reaches, so that check is not made
 * (a get to this rank's own window saves about 150 instructions); any
 * other memory must go to rmalab_win_get_mem, which refuses an overlap. */
RMALAB_API int rmalab_win_get_fresh(rmalab_win *win, int target, MPI_Aint disp, rmalab_type type,
                                    int count, void *result, uint64_t *ticket);
RMALAB_API int rmalab_win_accumulate_mem(rmalab_win *win, int target, MPI_Aint disp,
                                         rmalab_type type, int count, const void *origin,
                                         rmalab_op op, const rmalab_vector *vec,
                                         uint64_t *ticket);
RMALAB_API int rmalab_win_get_accumulate_mem(rmalab_win *win, int target, MPI_Aint disp,
                                             rmalab_type type, int count, const void *origin,
                                             void *result, rmalab_op op,
                                             const rmalab_vector *vec, uint64_t *ticket);
/* One element each, as rmalab_win_fetch_and_op and _compare_and_swap. */
RMALAB_API int rmalab_win_fetch_and_op_mem(rmalab_win *win, int target, MPI_Aint disp,
                                           rmalab_type type, const void *origin, void *result,
                                           rmalab_op op, uint64_t *ticket);
RMALAB_API int rmalab_win_compare_and_swap_mem(rmalab_win *win, int target, MPI_Aint disp,
                                               rmalab_type type, const void *compare,
                                               const void *origin, void *result,
                                               uint64_t *ticket);
/* Request-based operations (MPI_Rput, MPI_Rget, MPI_Raccumulate,
 * MPI_Rget_accumulate), on caller memory as the _mem calls: allowed only
 * inside a passive-target epoch (lock, lock_all), else ERR_RMA_SYNC (in a
 * fence or start epoch of a window under RMALAB_RULES_REPORT: carried out,
 * and the error told by rmalab_err_went_on).
 * rmalab_request_wait (rmalab/coll.h) completes one locally; so do the
 * calls that complete its epoch's operations. */
typedef struct rmalab_request rmalab_request;
RMALAB_API int rmalab_win_rput(rmalab_win *win, int target, MPI_Aint disp, rmalab_type type,
                               int count, const void *origin, const rmalab_vector *vec,
                               rmalab_request **out);
RMALAB_API int rmalab_win_rget(rmalab_win *win, int target, MPI_Aint disp, rmalab_type type,
                               int count, void *result, const rmalab_vector *vec,
                               rmalab_request **out);
RMALAB_API int rmalab_win_raccumulate(rmalab_win *win, int target, MPI_Aint disp,
                                      rmalab_type type, int count, const void *origin,
                                      rmalab_op op, const rmalab_vector *vec,
                                      rmalab_request **out);
RMALAB_API int rmalab_win_rget_accumulate(rmalab_win *win, int target, MPI_Aint disp,
                                          rmalab_type type, int count, const void *origin,
                                          void *result, rmalab_op op, const rmalab_vector *vec,
                                          rmalab_request **out);
/* An operation whose sides are any MPI datatypes (a C program's derived
 * types: vector, indexed, struct, subarray, resized...): MPI is handed the
 * caller's own datatypes as they are; the core is told the bytes they
 * touch, for its range and overlap checks, the race checker and the
 * recorder, which see each span of the target as one block.
 * A span is `len` bytes at `off` from its side's base: the origin's or
 * the result's buffer (MPI_BOTTOM: off is an address), and at the target
 * byte disp x the target's disp_unit (off < 0 too, where those bytes lie
 * in the window: ERR_RMA_RANGE else). Each list is in ascending order of
 * off, its spans disjoint and not adjacent (merged). `type` is the
 * predefined element every side is made of, `count` how many elements
 * each side moves, and its op is checked against it as for the calls
 * above. RMALAB_BYTE stands for types that mix, or that are none of the
 * core's (MPI's pair types, MPI_2INT..., long double, complex): an
 * accumulate's op is then left to MPI to check against the datatypes, any
 * op, maxloc and minloc too (rmalab run refuses an accumulate of mixed
 * types itself, at its FILE:LINE, before this call). The buffers are
 * MPI's until the operation completes, as for the _mem calls;
 * rmalab_win_typed_request is the request form (in a passive-target
 * epoch only). */
typedef struct {
    MPI_Aint off, len;
} rmalab_span;
typedef struct {
    int kind; /* RMALAB_TRACE_PUT, _GET, _ACCUMULATE or _GET_ACCUMULATE */
    int target;
    MPI_Aint disp;
    rmalab_type type;
    int count;
    rmalab_op op; /* the accumulates' */
    const void *origin; /* put, accumulate, get_accumulate (NULL with NO_OP) */
    void *result;       /* get, get_accumulate */
    MPI_Datatype otype, rtype, ttype;
    int ocount, rcount, tcount;
    const rmalab_span *ospans, *rspans, *tspans;
    int nospans, nrspans, ntspans;
} rmalab_typed_op;
RMALAB_API int rmalab_win_typed(rmalab_win *win, const rmalab_typed_op *op, uint64_t *ticket);
RMALAB_API int rmalab_win_typed_request(rmalab_win *win, const rmalab_typed_op *op,
                                        rmalab_request **out);
/* Has the operation of `ticket` to `target` completed at this origin (a
 * call that completes it has returned)? True for ticket 0 and for a NULL
 * window. */
RMALAB_API bool rmalab_win_done(const rmalab_win *win, int target, uint64_t ticket);

RMALAB_API bool rmalab_result_ready(const rmalab_result *r);
/* The data (count elements of type); ERR_RMA_SYNC, saying which call will
 * complete it, while not ready. */
RMALAB_API int rmalab_result_data(const rmalab_result *r, const void **data, rmalab_type *type,
                                  int *count);
/* Accepts NULL. */
RMALAB_API void rmalab_result_release(rmalab_result *r);
/* The window whose epoch carries r while r is pending, else NULL (r is
 * ready, or its window was freed first): for naming it in an error. */
RMALAB_API rmalab_win *rmalab_result_win(const rmalab_result *r);

/* ------------------------------------------------------------------------ */
/* Synchronisation                                                          */

/* Groups are arrays of ranks of the window's group: a rank out of range is
 * ERR_RANK and a duplicate ERR_GROUP, checked before MPI sees the group.
 * An empty group is valid. */
RMALAB_API int rmalab_win_post(rmalab_win *win, const int *ranks, int n, int assert_);
RMALAB_API int rmalab_win_start(rmalab_win *win, const int *ranks, int n, int assert_);
RMALAB_API int rmalab_win_complete(rmalab_win *win);
RMALAB_API int rmalab_win_wait(rmalab_win *win);
/* *done = true once the exposure epoch is over (then it is closed). */
RMALAB_API int rmalab_win_test(rmalab_win *win, bool *done);
/* Collective. Before MPI_Win_fence the ranks agree in one small
 * MPI_Allreduce that every rank's checks passed (assertions, epoch state)
 * and that they gave the same "noprecede" and "nosucceed" (MPI: if any rank
 * of the group gives one, every rank must): otherwise no rank fences, the
 * epoch stays as it was, and every rank fails (the rank whose check failed
 * with its error, the others "another rank failed"; mixed assertions
 * ERR_ARG on every rank). */
RMALAB_API int rmalab_win_fence(rmalab_win *win, int assert_);
/* The same, from `status` (see rmalab_win_free_status). */
RMALAB_API int rmalab_win_fence_status(rmalab_win *win, int assert_, int status);
/* exclusive: true for MPI_LOCK_EXCLUSIVE. */
RMALAB_API int rmalab_win_lock(rmalab_win *win, int target, bool exclusive, int assert_);
RMALAB_API int rmalab_win_unlock(rmalab_win *win, int target);
RMALAB_API int rmalab_win_lock_all(rmalab_win *win, int assert_);
RMALAB_API int rmalab_win_unlock_all(rmalab_win *win);
RMALAB_API int rmalab_win_flush(rmalab_win *win, int target);
RMALAB_API int rmalab_win_flush_all(rmalab_win *win);
/* MPI_Win_flush_local(_all): the operations to target (every target) are
 * complete at this origin (its results can be read), not at the target. */
RMALAB_API int rmalab_win_flush_local(rmalab_win *win, int target);
RMALAB_API int rmalab_win_flush_local_all(rmalab_win *win);
/* MPI_Win_sync: this rank's public and private copies of its window agree
 * (any time, in or out of an epoch). */
RMALAB_API int rmalab_win_sync(rmalab_win *win);

/* ------------------------------------------------------------------------ */
/* Observable state                                                         */

typedef enum {
    RMALAB_ACCESS_NONE,
    RMALAB_ACCESS_FENCE,
    RMALAB_ACCESS_START,
    RMALAB_ACCESS_LOCK,
    RMALAB_ACCESS_LOCK_ALL,
} rmalab_access;

typedef enum {
    RMALAB_EXPOSURE_NONE,
    RMALAB_EXPOSURE_FENCE,
    RMALAB_EXPOSURE_POST,
} rmalab_exposure;

#define RMALAB_STATE_MAX_RANKS 64

/* A consistent snapshot, safe to take from any thread. Groups longer than
 * RMALAB_STATE_MAX_RANKS are cut (n_* still counts them all). */
typedef struct {
    rmalab_access access;
    rmalab_exposure exposure;
    int n_access, n_exposure;             /* ranks in the start/lock and post groups */
    int access_ranks[RMALAB_STATE_MAX_RANKS];
    int lock_exclusive[RMALAB_STATE_MAX_RANKS]; /* per access_ranks entry, for locks */
    int exposure_ranks[RMALAB_STATE_MAX_RANKS];
    /* The rma engine sees the matching; the native engine does not (-1). */
    int posted[RMALAB_STATE_MAX_RANKS];   /* per access_ranks entry of a start
                                             epoch: its post has arrived */
    int arrived[RMALAB_STATE_MAX_RANKS];  /* per exposure_ranks entry: its
                                             complete has arrived */
    uint64_t ops_in_epoch;                /* RMA calls since the access epoch opened */
    uint64_t epochs;                      /* access epochs closed so far */
    const char *blocked_in;               /* NULL, or "complete", "wait", "fence", ... */
    double blocked_for;                   /* seconds so far (resolution: a few ms) */
    const char *engine;                   /* "native" or "rma" */
    /* The open start (post) epoch was opened with nocheck, which must be
     * given to both sides or neither: a mismatch hangs or skews matching. */
    bool access_nocheck, exposure_nocheck;
    /* A lock that MPI has not granted yet (MPICH's lock and lock_all return
     * once it has): lock()'s target, RMALAB_LOCK_WAIT_ALL for lock_all(),
     * or -1; and whether it is exclusive (lock_all's are shared). */
    int lock_waiting;
    bool lock_waiting_exclusive;
} rmalab_epoch_state;

#define RMALAB_LOCK_WAIT_ALL (-2)

RMALAB_API const char *rmalab_access_name(rmalab_access a);
RMALAB_API const char *rmalab_exposure_name(rmalab_exposure e);
RMALAB_API void rmalab_win_state(rmalab_win *win, rmalab_epoch_state *out);
/* One line for people: "blocked 3.2 s in complete(); access epoch to {1}";
 * with the rma engine also what has arrived: "exposure epoch to {0}: waits
 * for complete() from {0}: 0 of 1 arrived". */
RMALAB_API void rmalab_win_describe(rmalab_win *win, char *buf, size_t size);

/* The live windows of this process, for tools that watch it from another
 * thread: fn runs for each, in creation order, under a process-wide lock
 * that rmalab_win_free also takes, so no window is freed meanwhile. fn may
 * call rmalab_win_state, rmalab_win_describe, rmalab_win_id and the
 * property getters, and nothing that creates or frees a window. */
RMALAB_API void rmalab_win_each(void (*fn)(rmalab_win *win, void *ud), void *ud);
/* A number for the window, in creation order within this process, from 1:
 * the same on every rank of a program whose ranks create the same windows
 * in the same order. */
RMALAB_API uint64_t rmalab_win_id(const rmalab_win *win);

/* ------------------------------------------------------------------------ */
/* Attribute caching                                                        */

/* The core caches attributes itself rather than through MPICH's keyvals
 * (whose list double-stores, loses callback errors, and aborts when a
 * delete callback deletes another attribute). A keyval lives while the user
 * holds it or any window holds an attribute of it. MPI has no window
 * duplication, so copy callbacks are kept for fidelity but never run. */
typedef struct rmalab_keyval rmalab_keyval;

/* Return RMALAB_OK, or an error code (use rmalab_set_error to attach a
 * message). */
typedef int (*rmalab_copy_attr_fn)(rmalab_win *oldwin, rmalab_keyval *kv, void *extra_state,
                                   void *attr_in, void **attr_out, int *flag);
typedef int (*rmalab_delete_attr_fn)(rmalab_win *win, rmalab_keyval *kv, void *attr,
                                     void *extra_state);
/* Called once when the keyval is finally destroyed, to release extra_state. */
typedef void (*rmalab_keyval_free_fn)(void *extra_state);

RMALAB_API int rmalab_win_null_copy_fn(rmalab_win *, rmalab_keyval *, void *, void *, void **,
                                       int *);
RMALAB_API int rmalab_win_dup_fn(rmalab_win *, rmalab_keyval *, void *, void *, void **, int *);
RMALAB_API int rmalab_win_null_delete_fn(rmalab_win *, rmalab_keyval *, void *, void *);
#define RMALAB_WIN_NULL_COPY_FN rmalab_win_null_copy_fn
#define RMALAB_WIN_DUP_FN rmalab_win_dup_fn
#define RMALAB_WIN_NULL_DELETE_FN rmalab_win_null_delete_fn

/* copy/delete may be NULL (null functions). */
RMALAB_API int rmalab_keyval_create(rmalab_copy_attr_fn copy, rmalab_delete_attr_fn del,
                                    void *extra_state, rmalab_keyval_free_fn free_fn,
                                    rmalab_keyval **out);
/* The user's reference; the keyval keeps working for attributes still set.
 * Sets *kv to NULL. ERR_KEYVAL for predefined keyvals. */
RMALAB_API int rmalab_keyval_free(rmalab_keyval **kv);
RMALAB_API void *rmalab_keyval_extra(const rmalab_keyval *kv);
/* Inside a delete callback: true when its value goes whatever the callback
 * returns (delete_attr, free), false when a failure keeps it (replacing a
 * value), so that a binding knows whether to release what the value holds. */
RMALAB_API bool rmalab_attr_delete_is_final(void);

/* Predefined keyvals: MPI_WIN_BASE (the attribute is the base pointer),
 * MPI_WIN_SIZE (pointer to MPI_Aint), MPI_WIN_DISP_UNIT,
 * MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL (pointers to int). Setting or
 * deleting them is ERR_KEYVAL. */
RMALAB_API extern rmalab_keyval *const RMALAB_WIN_BASE;
RMALAB_API extern rmalab_keyval *const RMALAB_WIN_SIZE;
RMALAB_API extern rmalab_keyval *const RMALAB_WIN_DISP_UNIT;
RMALAB_API extern rmalab_keyval *const RMALAB_WIN_CREATE_FLAVOR;
RMALAB_API extern rmalab_keyval *const RMALAB_WIN_MODEL;

/* Replacing a value is as if delete_attr were called first: delete runs on
 * the old value while it is still set, and if it fails the call fails and
 * the old value stays. */
RMALAB_API int rmalab_win_set_attr(rmalab_win *win, rmalab_keyval *kv, void *value);
RMALAB_API int rmalab_win_get_attr(rmalab_win *win, rmalab_keyval *kv, void **value,
                                   int *flag);
/* Not set: no error, no callback. The attribute is removed even when its
 * delete callback fails (the error is returned). */
RMALAB_API int rmalab_win_delete_attr(rmalab_win *win, rmalab_keyval *kv);

#endif
