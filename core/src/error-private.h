/* error.c: failures inside the core: a message recorded and returned, MPI's
 * errors translated, and the agreement of ranks on a failure.
 * Private to the core, never installed. */
#ifndef RMALAB_ERROR_PRIVATE_H
#define RMALAB_ERROR_PRIVATE_H

#include "private.h"

/* Record a detailed message for `code` on this thread and return `code`. */
#define rmalab__err_fail rmalab_set_error /* the same call, kept short inside */
int rmalab__err_vfail(int code, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* A broken rule that the call goes on from (rmalab_err_went_on): its
 * message recorded for `code` on this thread; returns RMALAB_OK. */
int rmalab__err_went_on(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The failure just recorded is a race that `world_rank` found
 * (rmalab_err_finder); returns `code`. */
int rmalab__err_found_by(int code, int world_rank);
/* Prepend "<fmt>: " to the current detailed message and return `code`. */
int rmalab__err_prefix(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A warning (no final newline) to the embedder's function (rmalab/error.h). */
void rmalab__err_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Translate an MPI error code; `what` names the MPI call. */
int rmalab__err_mpi(int mpierr, const char *what);

/* Collective over comm: every rank learns whether any rank failed (rc is
 * this rank's status), so that all go on or all stop. Returns rc itself
 * when this rank failed, else an error of the failing rank's class saying
 * that another rank failed, else RMALAB_OK. `what` names the step. */
int rmalab__err_agree(MPI_Comm comm, int rc, const char *what);
/* The same agreement, and in the same MPI_Allreduce whether the ranks gave
 * the same `flags` (bits of `mask`, among the low RMALAB__AGREE_FLAGS): on
 * success *mixed (may be NULL) holds the flags of mask that some ranks gave
 * and others did not, for the caller to refuse; 0 when every rank gave the
 * same. The entry of every collective call that MPI requires alike
 * arguments of (a fence's assertions). Every agreement has the same shape
 * and carries a number made from `what`: ranks that meet in agreements of
 * different calls (ERR_OTHER, "another rank made a different collective
 * call") all fail instead of going on into different MPI calls. */
#define RMALAB__AGREE_FLAGS 8
int rmalab__err_agree_flags(MPI_Comm comm, int rc, const char *what, int flags, int mask,
                            int *mixed);
/* User code that a collective call runs after its agreement (a free's
 * delete callbacks, when the other ranks are inside MPI_Win_free) cannot
 * make a collective call: nobody would join it. The call that runs such
 * code says so around it (begin returns what end restores); meanwhile
 * every agreement, and every collective call's entry (block.c), fails on
 * this thread alone with ERR_OTHER naming both calls (refused returns
 * RMALAB_OK outside such code). */
const char *rmalab__err_callbacks_begin(const char *call);
void rmalab__err_callbacks_end(const char *outer);
int rmalab__err_collective_refused(const char *what);
/* How many threads run such code now (begin counts up, end down): a
 * collective call's entry asks refused only when some thread does, where
 * its thread-local look-up was 22 instructions a call (block.h). */
extern __attribute__((visibility("hidden"))) _Atomic int rmalab__err_callbacks_live;
/* The agreement in its parts, for a collective call that carries it in a
 * collective of its own (block.c: SLEEP mode's wait for the group):
 * rmalab__err_agree_flags is pack, reduce and verdict. The packet holds
 * this rank's part, then every rank's reduced (MPI_MAX of RMALAB__AGREE_N
 * ints, in place); reduce starts an MPI_Iallreduce into *req, or makes an
 * MPI_Allreduce when req is NULL, and returns MPI's code; the verdict, as
 * rmalab__err_agree_flags's, takes the MPI code of the reduction. */
#define RMALAB__AGREE_N (3 + 2 * RMALAB__AGREE_FLAGS)
typedef struct rmalab__err_packet {
    int v[RMALAB__AGREE_N];
    int rc;           /* this rank's status */
    const char *what; /* the call or step */
} rmalab__err_packet;
void rmalab__err_agree_pack(rmalab__err_packet *p, int rc, const char *what, int flags, int mask);
int rmalab__err_agree_reduce(rmalab__err_packet *p, MPI_Comm comm, MPI_Request *req);
int rmalab__err_agree_verdict(const rmalab__err_packet *p, int e, int *mixed);
/* ERR_OTHER for ranks that met in different collective calls: `what` is
 * this rank's call. */
int rmalab__err_out_of_step(const char *what);
/* The same verdict from an agreement folded into a collective that the
 * caller makes anyway (an MPI_MAX of every rank's rc among its values):
 * `worst` is that maximum, `e` the collective's MPI code. */
int rmalab__err_agreed(int rc, int worst, int e, const char *what);

#define RMALAB__CHECK_MPI(call, what)                                                              \
    do {                                                                                           \
        int rmalab__e = (call);                                                                    \
        if (rmalab__e != MPI_SUCCESS)                                                              \
            return rmalab__err_mpi(rmalab__e, (what));                                             \
    } while (0)

#endif
