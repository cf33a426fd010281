/* The completion of requests: a receive that order.c tracks brings its
 * clock when MPI_Wait, _Waitall, _Waitany, _Waitsome, MPI_Test, _Testall,
 * _Testany or _Testsome completes it (the status, the program's or ours,
 * names the clock's source and tag; a cancelled receive brings none).
 * Requests order.c does not track (sends, RMA requests, generalized ones,
 * those of a communicator without a shadow) go to PMPI unchanged, as does
 * every call while none of its requests is tracked. MPI_Request_free of a
 * receive still active leaves it to order.c, which completes it later. */
#include "order.h"
#include "run.h"

#include <stdlib.h>

/* The handles before the call, and statuses when the program ignores them:
 * on the stack for a few requests, else allocated. */
typedef struct {
    MPI_Request r[8], *req;
    MPI_Status s[8], *st;
} held;

static void release(held *h, MPI_Status *statuses);

/* Whether any of the requests is tracked, and then their copy held (false,
 * nothing held, when memory runs out: the call goes on unordered). */
static bool hold(held *h, const MPI_Request *reqs, int n, MPI_Status *statuses)
{
    if (!run_order_any(reqs, n))
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

RUN_API int MPI_Wait(MPI_Request *req, MPI_Status *st)
{
    if (!run_order_any(req, 1))
        return PMPI_Wait(req, st);
    MPI_Request r = *req;
    MPI_Status own;
    MPI_Status *s = st == MPI_STATUS_IGNORE ? &own : st;
    int rc = PMPI_Wait(req, s);
    if (rc == MPI_SUCCESS)
        run_order_completed(r, s);
    return rc;
}

RUN_API int MPI_Test(MPI_Request *req, int *flag, MPI_Status *st)
{
    if (!run_order_any(req, 1))
        return PMPI_Test(req, flag, st);
    MPI_Request r = *req;
    MPI_Status own;
    MPI_Status *s = st == MPI_STATUS_IGNORE ? &own : st;
    int rc = PMPI_Test(req, flag, s);
    if (rc == MPI_SUCCESS && *flag)
        run_order_completed(r, s);
    return rc;
}

/* Every request of a call that completed them all (rc MPI_ERR_IN_STATUS:
 * those whose status says so). */
static void all_done(const held *h, int n, int rc)
{
    for (int i = 0; i < n; i++)
        if (rc == MPI_SUCCESS ||
            (rc == MPI_ERR_IN_STATUS && h->st[i].MPI_ERROR != MPI_ERR_PENDING))
            run_order_completed(h->req[i], &h->st[i]);
}

RUN_API int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status sts[])
{
    held h;
    if (!hold(&h, reqs, n, sts))
        return PMPI_Waitall(n, reqs, sts);
    int rc = PMPI_Waitall(n, reqs, h.st);
    all_done(&h, n, rc);
    release(&h, sts);
    return rc;
}

RUN_API int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[])
{
    held h;
    if (!hold(&h, reqs, n, sts))
        return PMPI_Testall(n, reqs, flag, sts);
    int rc = PMPI_Testall(n, reqs, flag, h.st);
    if (*flag || rc == MPI_ERR_IN_STATUS)
        all_done(&h, n, rc);
    release(&h, sts);
    return rc;
}

RUN_API int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *st)
{
    held h;
    if (!hold(&h, reqs, n, MPI_STATUSES_IGNORE))
        return PMPI_Waitany(n, reqs, index, st);
    MPI_Status *s = st == MPI_STATUS_IGNORE ? &h.st[0] : st;
    int rc = PMPI_Waitany(n, reqs, index, s);
    if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED)
        run_order_completed(h.req[*index], s);
    release(&h, MPI_STATUSES_IGNORE);
    return rc;
}

RUN_API int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *st)
{
    held h;
    if (!hold(&h, reqs, n, MPI_STATUSES_IGNORE))
        return PMPI_Testany(n, reqs, index, flag, st);
    MPI_Status *s = st == MPI_STATUS_IGNORE ? &h.st[0] : st;
    int rc = PMPI_Testany(n, reqs, index, flag, s);
    if (rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED)
        run_order_completed(h.req[*index], s);
    release(&h, MPI_STATUSES_IGNORE);
    return rc;
}

/* Waitsome and Testsome, alike: the requests at the indices completed. */
typedef int (*some_fn)(int, MPI_Request[], int *, int[], MPI_Status[]);

static int some(some_fn fn, int n, MPI_Request reqs[], int *out, int idx[], MPI_Status sts[])
{
    held h;
    if (!hold(&h, reqs, n, sts))
        return fn(n, reqs, out, idx, sts);
    int rc = fn(n, reqs, out, idx, h.st);
    for (int k = 0; k < *out && *out != MPI_UNDEFINED; k++)
        if (rc == MPI_SUCCESS ||
            (rc == MPI_ERR_IN_STATUS && h.st[k].MPI_ERROR != MPI_ERR_PENDING))
            run_order_completed(h.req[idx[k]], &h.st[k]);
    release(&h, sts);
    return rc;
}

RUN_API int MPI_Waitsome(int n, MPI_Request reqs[], int *out, int idx[], MPI_Status sts[])
{
    return some(PMPI_Waitsome, n, reqs, out, idx, sts);
}

RUN_API int MPI_Testsome(int n, MPI_Request reqs[], int *out, int idx[], MPI_Status sts[])
{
    return some(PMPI_Testsome, n, reqs, out, idx, sts);
}

RUN_API int MPI_Request_free(MPI_Request *req)
{
    if (req && run_order_any(req, 1) && run_order_free(req))
        return MPI_SUCCESS;
    return PMPI_Request_free(req);
}
