/* The program's requests of request-based RMA operations (requests.h): a
 * table from the generalized request the program holds to the core's
 * request, searched only while it holds one (a program has a few in
 * flight). */
#include "requests.h"

#include "run.h"
#include "watch.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <rmalab/error.h>

typedef struct {
    MPI_Request handle; /* the program's */
    rmalab_request *rq; /* the core's; NULL once the core completed it */
    MPI_Win win;        /* its window, looked up again at each step */
    uint64_t id;        /* rmalab_request_id: its buffers in watch.c */
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry *table;
static int n_live, cap;
static _Atomic int live; /* n_live, read without the lock */

/* The status MPI gives for an RMA request: no source, tag nor data. */
static int query(void *extra, MPI_Status *st)
{
    (void)extra;
    PMPI_Status_set_cancelled(st, 0);
    PMPI_Status_set_elements(st, MPI_BYTE, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int free_fn(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}

static int cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS; /* an RMA operation cannot be cancelled */
}

/* Under `lock`: the entry of handle, or NULL. */
static entry *find(MPI_Request handle)
{
    for (int i = 0; i < n_live; i++)
        if (table[i].handle == handle)
            return &table[i];
    return NULL;
}

/* Under `lock`: the entry e leaves the table (its core request, if any,
 * to the caller). */
static void drop(entry *e)
{
    *e = table[--n_live];
    atomic_store_explicit(&live, n_live, memory_order_relaxed);
}

static void watch(run_win *s, const void *pc, const char *call, rmalab_request *rq,
                  const run_request_bufs *b)
{
    uint64_t ticket = rmalab_request_ticket(rq), id = rmalab_request_id(rq);
    if (b->origin)
        run_watch_spans(s, b->target, ticket, id, b->origin, b->ospans, b->nospans, false, pc,
                        call);
    if (b->result)
        run_watch_spans(s, b->target, ticket, id, b->result, b->rspans, b->nrspans, true, pc,
                        call);
}

int run_requests_add(run_win *s, const void *pc, const char *call, rmalab_request *rq,
                     const run_request_bufs *b, MPI_Request *out)
{
    *out = MPI_REQUEST_NULL;
    if (PMPI_Grequest_start(query, free_fn, cancel, NULL, out) != MPI_SUCCESS) {
        if (rq) /* done here (MPICH 4.0.2 cannot free an RMA request in flight) */
            (void)rmalab_request_wait(rq, NULL, NULL, NULL);
        rmalab_request_destroy(&rq);
        return rmalab_set_error(RMALAB_ERR_NO_MEM, "%s: MPI_Grequest_start failed", call);
    }
    if (!rq) {
        PMPI_Grequest_complete(*out);
        return RMALAB_OK;
    }
    pthread_mutex_lock(&lock);
    if (n_live == cap) {
        int grown = cap ? 2 * cap : 8;
        entry *t = realloc(table, (size_t)grown * sizeof *t);
        if (!t) {
            pthread_mutex_unlock(&lock);
            int rc = rmalab_request_wait(rq, NULL, NULL, NULL); /* done here, as above */
            rmalab_request_destroy(&rq);
            PMPI_Grequest_complete(*out);
            return rc;
        }
        table = t;
        cap = grown;
    }
    table[n_live++] = (entry){*out, rq, s->handle, rmalab_request_id(rq)};
    atomic_store_explicit(&live, n_live, memory_order_relaxed);
    pthread_mutex_unlock(&lock);
    watch(s, pc, call, rq, b);
    return RMALAB_OK;
}

bool run_requests_any(const MPI_Request *reqs, int n)
{
    if (atomic_load_explicit(&live, memory_order_relaxed) == 0)
        return false;
    bool any = false;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < n && !any; i++)
        any = find(reqs[i]) != NULL;
    pthread_mutex_unlock(&lock);
    return any;
}

/* The core's request of req still to be completed (NULL: not ours, or the
 * core completed it), and its window. */
static rmalab_request *pending(MPI_Request req, MPI_Win *win)
{
    pthread_mutex_lock(&lock);
    entry *e = find(req);
    rmalab_request *rq = e ? e->rq : NULL;
    *win = e ? e->win : MPI_WIN_NULL;
    pthread_mutex_unlock(&lock);
    return rq;
}

/* The core completed req's request: so does MPI. */
static void core_done(MPI_Request req)
{
    pthread_mutex_lock(&lock);
    entry *e = find(req);
    rmalab_request *rq = e ? e->rq : NULL;
    if (e)
        e->rq = NULL;
    pthread_mutex_unlock(&lock);
    if (!rq)
        return;
    rmalab_request_destroy(&rq);
    PMPI_Grequest_complete(req);
}

int run_requests_step(const MPI_Request *reqs, int n, bool block, const void *pc,
                      const char *call)
{
    int first = MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        MPI_Win win;
        rmalab_request *rq = pending(reqs[i], &win);
        if (!rq)
            continue;
        run_win *s = run_win_find(win); /* NULL: freed, which completed it */
        if (s)
            run_site(s, pc);
        int done = 1, rc = block || !s ? rmalab_request_wait(rq, NULL, NULL, NULL)
                                       : rmalab_request_test(rq, &done, NULL, NULL, NULL);
        if (rc || done)
            core_done(reqs[i]);
        rc = s ? run_win_done(s, pc, call, rc) : MPI_SUCCESS;
        first = first ? first : rc;
    }
    return first;
}

void run_requests_completed(MPI_Request req)
{
    if (atomic_load_explicit(&live, memory_order_relaxed) == 0)
        return;
    pthread_mutex_lock(&lock);
    entry *e = find(req);
    entry gone = e ? *e : (entry){0};
    if (e)
        drop(e);
    pthread_mutex_unlock(&lock);
    if (!e)
        return;
    run_watch_waited(gone.id); /* its core request went at core_done */
}

void run_requests_seen(MPI_Request req)
{
    pthread_mutex_lock(&lock);
    entry *e = find(req);
    uint64_t id = e ? e->id : 0;
    pthread_mutex_unlock(&lock);
    if (id)
        run_watch_waited(id);
}

void run_requests_win_free(MPI_Win win)
{
    if (atomic_load_explicit(&live, memory_order_relaxed) == 0)
        return;
    for (;;) {
        MPI_Request h = MPI_REQUEST_NULL;
        rmalab_request *rq = NULL;
        pthread_mutex_lock(&lock);
        for (int i = 0; i < n_live && !rq; i++)
            if (table[i].win == win && table[i].rq)
                h = table[i].handle, rq = table[i].rq;
        pthread_mutex_unlock(&lock);
        if (!rq)
            return;
        (void)rmalab_request_wait(rq, NULL, NULL, NULL);
        core_done(h);
    }
}

bool run_requests_free(MPI_Request *req)
{
    pthread_mutex_lock(&lock);
    entry *e = find(*req);
    entry gone = e ? *e : (entry){0};
    if (e)
        drop(e);
    pthread_mutex_unlock(&lock);
    if (!e)
        return false;
    /* MPICH 4.0.2's MPI_Request_free refuses an RMA request and a
     * generalized one ("The supplied request was invalid"), as the core's
     * rmalab_request_destroy of a request not done would: the core's is
     * waited for here, and MPI's, complete then, freed by a wait. The
     * buffers stay watched until the window completes the operation. */
    if (gone.rq) {
        (void)rmalab_request_wait(gone.rq, NULL, NULL, NULL);
        rmalab_request_destroy(&gone.rq);
        PMPI_Grequest_complete(*req);
    }
    PMPI_Wait(req, MPI_STATUS_IGNORE);
    return true;
}
