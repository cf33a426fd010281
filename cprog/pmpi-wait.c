/* The completion of requests: a receive that order.c tracks brings its
 * clock when MPI_Wait, _Waitall, _Waitany, _Waitsome, MPI_Test, _Testall,
 * _Testany or _Testsome completes it (the status, the program's or ours,
 * names the clock's source and tag; a cancelled receive brings none).
 * A request of an RMA operation (requests.h) is first waited for or tested
 * in the core, then MPI's call returns it as any other, and its buffers
 * are the program's again; MPI_Waitany and _Waitsome with one among their
 * requests test them all in turn, sleeping between rounds, since the
 * core's request and MPI's others cannot be waited for together. Other
 * requests (sends, generalized ones of the program's, those of a
 * communicator without a shadow) go to PMPI unchanged, as does every call
 * while none of its requests is ours. MPI_Request_free of a receive still
 * active leaves it to order.c, which completes it later. */
#include "order.h"
#include "requests.h"
#include "run.h"
#include "stuck.h"
#include "watch.h"

#include <stdlib.h>
#include <time.h>

/* The handles before the call, and statuses when the program ignores them:
 * on the stack for a few requests, else allocated. */
typedef struct {
    MPI_Request r[8], *req;
    MPI_Status s[8], *st;
} held;

static void release(held *h, MPI_Status *statuses);

/* Whether any of the requests is ours: tracked by order.c, or an RMA
 * request. */
static bool ours(const MPI_Request *reqs, int n)
{
    return run_requests_any(reqs, n) || run_order_any(reqs, n);
}

/* Whether any of the requests is ours, and then their copy held (false,
 * nothing held, when memory runs out: the call goes on unordered). */
static bool hold(held *h, const MPI_Request *reqs, int n, MPI_Status *statuses)
{
    if (!ours(reqs, n))
        return false;
    h->req = n <= 8 ? h->r : malloc((size_t)n * sizeof *h->req);
    h->st = statuses != MPI_STATUSES_IGNORE ? statuses
            : n <= 8                        ? h->s
                                            : malloc((size_t)n * sizeof *h->st);
    if (!h->req || !h->st) {
        release(h, statuses);
        return false;
    }
    for (int i = 0; i < n; i++) {
        h->req[i] = reqs[i];
        h->st[i].MPI_SOURCE = MPI_ANY_SOURCE;
    }
    return true;
}

static void release(held *h, MPI_Status *statuses)
{
    if (h->req && h->req != h->r)
        free(h->req);
    if (h->st && h->st != h->s && h->st != statuses)
        free(h->st);
}

/* req (its handle before the call) was returned complete with st. */
static void completed(MPI_Request req, const MPI_Status *st)
{
    run_order_completed(req, st);
    run_requests_completed(req);
}

/* The RMA requests among reqs, waited for (block) or tested in the core
 * before MPI's call at pc (requests.h): an MPI error class, or
 * MPI_SUCCESS. The loads and stores gathered so far reach the checker
 * first, as before any call on a window. */
static int step(const MPI_Request *reqs, int n, bool block, const void *pc, const char *call)
{
    if (!run_requests_any(reqs, n))
        return MPI_SUCCESS;
    run_order_thread();
    run_watch_flush();
    run_stuck_at(pc, call);
    return run_requests_step(reqs, n, block, pc, call);
}

RUN_API int run_MPI_Wait(MPI_Request *req, MPI_Status *st)
{
    if (!ours(req, 1))
        return PMPI_Wait(req, st);
    MPI_Request r = *req;
    MPI_Status own;
    MPI_Status *s = st == MPI_STATUS_IGNORE ? &own : st;
    int e = step(req, 1, true, RUN_PC, RUN_CALL);
    int rc = PMPI_Wait(req, s);
    if (rc == MPI_SUCCESS)
        completed(r, s);
    return e ? e : rc;
}

RUN_API int run_MPI_Test(MPI_Request *req, int *flag, MPI_Status *st)
{
    if (!ours(req, 1))
        return PMPI_Test(req, flag, st);
    MPI_Request r = *req;
    MPI_Status own;
    MPI_Status *s = st == MPI_STATUS_IGNORE ? &own : st;
    int e = step(req, 1, false, RUN_PC, RUN_CALL);
    int rc = PMPI_Test(req, flag, s);
    if (rc == MPI_SUCCESS && *flag)
        completed(r, s);
    return e ? e : rc;
}

/* MPI_Request_get_status of an RMA request: tested in the core; once
 * complete its buffers are the program's, though the request stays. */
RUN_API int run_MPI_Request_get_status(MPI_Request req, int *flag, MPI_Status *st)
{
    if (!run_requests_any(&req, 1))
        return PMPI_Request_get_status(req, flag, st);
    int e = step(&req, 1, false, RUN_PC, RUN_CALL);
    int rc = PMPI_Request_get_status(req, flag, st);
    if (rc == MPI_SUCCESS && *flag)
        run_requests_seen(req);
    return e ? e : rc;
}

/* Every request of a call that completed them all (rc MPI_ERR_IN_STATUS:
 * those whose status says so). */
static void all_done(const held *h, int n, int rc)
{
    for (int i = 0; i < n; i++)
        if (rc == MPI_SUCCESS ||
            (rc == MPI_ERR_IN_STATUS && h->st[i].MPI_ERROR != MPI_ERR_PENDING))
            completed(h->req[i], &h->st[i]);
}

RUN_API int run_MPI_Waitall(int n, MPI_Request reqs[], MPI_Status sts[])
{
    held h;
    if (!hold(&h, reqs, n, sts))
        return PMPI_Waitall(n, reqs, sts);
    int e = step(reqs, n, true, RUN_PC, RUN_CALL);
    int rc = PMPI_Waitall(n, reqs, h.st);
    all_done(&h, n, rc);
    release(&h, sts);
    return e ? e : rc;
}

RUN_API int run_MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[])
{
    held h;
    if (!hold(&h, reqs, n, sts))
        return PMPI_Testall(n, reqs, flag, sts);
    int e = step(reqs, n, false, RUN_PC, RUN_CALL);
    int rc = PMPI_Testall(n, reqs, flag, h.st);
    if (*flag || rc == MPI_ERR_IN_STATUS)
        all_done(&h, n, rc);
    release(&h, sts);
    return e ? e : rc;
}

/* A nap between two rounds of tests: from 1 us, doubling to 1 ms. */
static void nap(long *ns)
{
    struct timespec t = {0, *ns};
    nanosleep(&t, NULL);
    *ns = *ns < 1000000 ? 2 * *ns : *ns;
}

RUN_API int run_MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *st)
{
    held h;
    if (!hold(&h, reqs, n, MPI_STATUSES_IGNORE))
        return PMPI_Waitany(n, reqs, index, st);
    MPI_Status *s = st == MPI_STATUS_IGNORE ? &h.st[0] : st;
    const char *pc = RUN_PC;
    int e = MPI_SUCCESS, rc, flag = 0;
    if (!run_requests_any(reqs, n))
        rc = PMPI_Waitany(n, reqs, index, s);
    else /* the RMA requests' tests in the core, and MPI's of all */
        for (long ns = 1000;; nap(&ns)) {
            e = e ? e : step(reqs, n, false, pc, RUN_CALL);
            if ((rc = PMPI_Testany(n, reqs, index, &flag, s)) != MPI_SUCCESS || flag)
                break;
        }
    if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED)
        completed(h.req[*index], s);
    release(&h, MPI_STATUSES_IGNORE);
    return e ? e : rc;
}

RUN_API int run_MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *st)
{
    held h;
    if (!hold(&h, reqs, n, MPI_STATUSES_IGNORE))
        return PMPI_Testany(n, reqs, index, flag, st);
    MPI_Status *s = st == MPI_STATUS_IGNORE ? &h.st[0] : st;
    int e = step(reqs, n, false, RUN_PC, RUN_CALL);
    int rc = PMPI_Testany(n, reqs, index, flag, s);
    if (rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED)
        completed(h.req[*index], s);
    release(&h, MPI_STATUSES_IGNORE);
    return e ? e : rc;
}

/* Waitsome (block) and Testsome, alike: the requests at the indices
 * completed. Waitsome with an RMA request among its own tests them all in
 * rounds, as MPI_Waitany does. */
static int some(bool block, int n, MPI_Request reqs[], int *out, int idx[], MPI_Status sts[],
                const void *pc, const char *call)
{
    held h;
    if (!hold(&h, reqs, n, sts))
        return (block ? PMPI_Waitsome : PMPI_Testsome)(n, reqs, out, idx, sts);
    int e = MPI_SUCCESS, rc;
    if (block && !run_requests_any(reqs, n))
        rc = PMPI_Waitsome(n, reqs, out, idx, h.st);
    else
        for (long ns = 1000;; nap(&ns)) {
            e = e ? e : step(reqs, n, false, pc, call);
            rc = PMPI_Testsome(n, reqs, out, idx, h.st);
            if (!block || rc != MPI_SUCCESS || *out != 0)
                break;
        }
    for (int k = 0; k < *out && *out != MPI_UNDEFINED; k++)
        if (rc == MPI_SUCCESS ||
            (rc == MPI_ERR_IN_STATUS && h.st[k].MPI_ERROR != MPI_ERR_PENDING))
            completed(h.req[idx[k]], &h.st[k]);
    release(&h, sts);
    return e ? e : rc;
}

RUN_API int run_MPI_Waitsome(int n, MPI_Request reqs[], int *out, int idx[], MPI_Status sts[])
{
    return some(true, n, reqs, out, idx, sts, RUN_PC, RUN_CALL);
}

RUN_API int run_MPI_Testsome(int n, MPI_Request reqs[], int *out, int idx[], MPI_Status sts[])
{
    return some(false, n, reqs, out, idx, sts, RUN_PC, RUN_CALL);
}

RUN_API int run_MPI_Request_free(MPI_Request *req)
{
    if (req && run_requests_free(req))
        return MPI_SUCCESS;
    if (req && run_order_any(req, 1) && run_order_free(req))
        return MPI_SUCCESS;
    return PMPI_Request_free(req);
}
