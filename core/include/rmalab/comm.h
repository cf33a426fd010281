/* Communicators with hints.
 *
 * An rmalab_comm wraps an MPI communicator and remembers the hints the user
 * requested, so that the report can set them against what MPICH has in
 * effect. Duplicates are created with MPI_ERRORS_RETURN. Calls marked
 * collective must be made by every rank of the communicator.
 */
#ifndef RMALAB_COMM_H
#define RMALAB_COMM_H

#include <mpi.h>

#include <rmalab/export.h>
#include <rmalab/hints.h>
#include <rmalab/info.h>

typedef struct rmalab_comm rmalab_comm;

/* Wrap a communicator the caller keeps owning (MPI_COMM_WORLD). Every
 * communicator rmalab makes or wraps starts a nonblocking MPI_Comm_idup of
 * itself, the shadow that long messages use (rmalab/coll.h): so wrap, which
 * never blocks, is made by every rank of comm at the same place of its
 * order of collective calls (as the Lua module does when it opens). */
RMALAB_API int rmalab_comm_wrap(MPI_Comm comm, rmalab_comm **out);
/* Collective: MPI_Comm_dup_with_info with the validated hints. `info` may
 * be NULL; `diags` (may be NULL) receives the validation diagnostics. */
RMALAB_API int rmalab_comm_dup(rmalab_comm *parent, const rmalab_info *info, rmalab_comm **out,
                               rmalab_diags *diags);
/* The same, from `status`: a failure the caller found in its own
 * arguments (its message set, as by rmalab_set_error), or RMALAB_OK. With
 * one, this rank takes part with it, and the dup fails on every rank
 * instead of leaving the others waiting (as rmalab_comm_split_status). */
RMALAB_API int rmalab_comm_dup_status(rmalab_comm *parent, const rmalab_info *info,
                                      rmalab_comm **out, rmalab_diags *diags, int status);
/* Collective: updates only the keys `info` names. The ranks agree first
 * that every rank's hints are valid: a rank whose hints are wrong fails
 * with its own error, the others with "another rank failed", and no rank's
 * hints change. */
RMALAB_API int rmalab_comm_set_info(rmalab_comm *comm, const rmalab_info *info,
                                    rmalab_diags *diags);
/* The same, from `status` (as rmalab_comm_dup_status): a rank whose caller
 * found its arguments wrong takes part with that failure. */
RMALAB_API int rmalab_comm_set_info_status(rmalab_comm *comm, const rmalab_info *info,
                                           rmalab_diags *diags, int status);
/* A new info holding the hints in effect, as MPICH reports them. */
RMALAB_API int rmalab_comm_get_info(rmalab_comm *comm, rmalab_info **out);
/* The hints the user requested so far (owned by comm). */
RMALAB_API const rmalab_info *rmalab_comm_requested(const rmalab_comm *comm);
RMALAB_API int rmalab_comm_hints(rmalab_comm *comm, rmalab_hints_report **out);
/* Collective: which must-agree keys differ across ranks. */
RMALAB_API int rmalab_comm_check_hints(rmalab_comm *comm, rmalab_agreement **out);
/* Collective for communicators rmalab created; a wrapped communicator is
 * only forgotten. Sets *comm to NULL; accepts NULL and *comm == NULL.
 * As MPI_Comm_free, it marks the communicator for deallocation: the
 * message requests still pending on it (rmalab/coll.h) complete normally,
 * and the MPI communicator is freed when the last of them is done or
 * destroyed (MPICH's MPI_Comm_free is local: no rank waits then); the
 * messages stashed for it (probe, refused receives) go then. Its
 * MPI_Comm_free's failure is returned when no request was pending, else
 * written as a warning (rmalab/error.h). */
RMALAB_API int rmalab_comm_free(rmalab_comm **comm);

RMALAB_API MPI_Comm rmalab_comm_mpi(const rmalab_comm *comm);
RMALAB_API int rmalab_comm_rank(const rmalab_comm *comm);
RMALAB_API int rmalab_comm_size(const rmalab_comm *comm);

#endif
