/* requests.c: the MPI_Request of a request-based RMA operation (MPI_Rput,
 * _Rget, _Raccumulate, _Rget_accumulate). The program holds a generalized
 * request (MPI_Grequest_start) that stands for the core's rmalab_request.
 * MPI has the operation's origin and result buffers in use until the
 * request completes locally, at a completion call of the program's
 * (MPI_Wait, _Test, _Waitall... that returns it), or until a call of its
 * window completes the operation (flush_local, flush, unlock, unlock_all):
 * watch.c watches them until the first of the two.
 *
 * A completion call (pmpi-wait.c) first steps the core's requests among
 * its own (run_requests_step): each that the core completed is marked
 * complete for MPI (MPI_Grequest_complete), so that MPI's call, made next,
 * finds it done and returns it as it returns any other. Then, for each
 * request that MPI's call returned complete, run_requests_completed: its
 * buffers are the program's again. A test that does not return it leaves
 * them in use, even when the core completed it.
 *
 * Cost: while no such request is live, run_requests_any is one load. */
#ifndef RMALAB_CPROG_REQUESTS_H
#define RMALAB_CPROG_REQUESTS_H

#include <mpi.h>
#include <stdbool.h>

#include <rmalab/coll.h>

#include "handles.h"

/* rq (NULL: an operation to MPI_PROC_NULL, done already), issued by the
 * call at pc on s to target: the program's request in *out, its buffers
 * watched until it completes. `origin` (NULL: none read) and `result`
 * (NULL: none written) are the bytes of their spans (dtype.h). Returns a
 * core status. */
typedef struct {
    const void *origin;
    void *result;
    const rmalab_span *ospans, *rspans;
    int nospans, nrspans;
    int target;
} run_request_bufs;
int run_requests_add(run_win *s, const void *pc, const char *call, rmalab_request *rq,
                     const run_request_bufs *b, MPI_Request *out);
/* Whether any of the n requests is one of these. */
bool run_requests_any(const MPI_Request *reqs, int n);
/* The completion call `call` at pc takes reqs: those of them that are
 * ours are waited for (block) or tested, and each that the core completed
 * is complete for MPI. An error of the core's is reported at pc, as the
 * window's handler says (then its MPI class is returned; the request is
 * complete for MPI all the same, so that the call does not hang). */
int run_requests_step(const MPI_Request *reqs, int n, bool block, const void *pc,
                      const char *call);
/* req (its handle before the call) was returned complete to the program:
 * forgotten, its buffers the program's again. Not ours: nothing. */
void run_requests_completed(MPI_Request req);
/* MPI_Request_get_status said that req is complete: its buffers are the
 * program's again (the request stays, to be freed by a wait or test). */
void run_requests_seen(MPI_Request req);
/* MPI_Win_free of win is about to free the core's window: its requests
 * not yet completed in the core are now (their epoch is closed, or the
 * free is refused anyway), so that the core does not report them as never
 * waited for; the program's wait or test still returns them. */
void run_requests_win_free(MPI_Win win);
/* MPI_Request_free of req: true when it was ours (then it is freed, and
 * *req is MPI_REQUEST_NULL); its buffers stay in use until its window
 * completes the operation, as MPI has it. */
bool run_requests_free(MPI_Request *req);

#endif
