/* Results of the operations that return data, and the staging arena of
 * origin data.
 *
 * A result is reference counted: the window holds one reference until the
 * epoch that carries the operation completes at the origin, so MPI never
 * writes into freed memory whatever the caller does with its own.
 *
 * Staging: MPI reads origin buffers until the operation completes, which
 * can be long after the call returns. The core copies origin data into a
 * per-window arena that lives until every operation has completed, so the
 * caller may reuse or free its buffer at once (the Lua binding's buffers
 * are temporaries). The arena is a list of chunks, bump-allocated, and
 * emptied when everything in it has completed: when an epoch or a flush_all
 * completes every operation, or when a flush or unlock completes the last
 * target that had data in it (a lock_all epoch that lasts the whole program,
 * with a flush per operation, would otherwise grow without end).
 *
 * Tickets: an operation on the caller's memory (rmalab_win_put_mem...)
 * takes the next number of the same sequence as results, so the same
 * completions (done_all, done[target]) say when its memory is free again.
 * Calls only types.c and below. */
#include "win-private.h"
#include "alloc.h"
#include "error-private.h"
#include "results.h"
#include "sync-kinds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rmalab__chunk {
    struct rmalab__chunk *next;
    size_t cap, used;
    _Alignas(16) unsigned char data[];
};

int rmalab__results_stage(rmalab_win *w, int target, const void **data, size_t n)
{
    struct rmalab__chunk *c = w->res.stage;
    size_t need = (n + 15) & ~(size_t)15;
    if (!c || c->used + need > c->cap) {
        size_t cap = c ? 2 * c->cap : 4096;
        while (cap < need)
            cap *= 2;
        struct rmalab__chunk *nc = rmalab__mem_alloc(sizeof *nc + cap);
        if (!nc)
            return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory staging RMA data");
        nc->next = c;
        nc->cap = cap;
        nc->used = 0;
        w->res.stage = c = nc;
    }
    void *p = c->data + c->used;
    c->used += need;
    if (n)
        memcpy(p, *data, n);
    *data = p;
    if (!w->res.staged[target]) {
        w->res.staged[target] = 1;
        w->res.nstaged++;
    }
    return RMALAB_OK;
}

/* Every operation has completed: keep the newest (largest) chunk, empty. */
static void stage_reset(rmalab_win *w)
{
    struct rmalab__chunk *c = w->res.stage;
    if (w->res.nstaged) {
        memset(w->res.staged, 0, (size_t)w->size);
        w->res.nstaged = 0;
    }
    if (!c)
        return;
    c->used = 0;
    for (struct rmalab__chunk *o = c->next, *next; o; o = next) {
        next = o->next;
        rmalab__mem_free(o);
    }
    c->next = NULL;
}

/* done[] and staged[] in one block: size x (8 + 1) bytes. */
int rmalab__results_alloc(rmalab_win *w)
{
    struct rmalab__results *s = &w->res;
    s->done = rmalab__mem_calloc((size_t)w->size, sizeof *s->done + 1);
    if (!s->done)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory creating a window");
    s->staged = (unsigned char *)(s->done + w->size);
    return RMALAB_OK;
}

void rmalab__results_free(rmalab_win *w)
{
    struct rmalab__results *s = &w->res;
    for (int i = 0; i < s->npending; i++) {
        s->pending[i]->win = NULL;
        rmalab_result_release(s->pending[i]);
    }
    rmalab__mem_free(s->pending);
    stage_reset(w);
    rmalab__mem_free(s->stage);
    rmalab__mem_free(s->done); /* and staged[] */
    memset(s, 0, sizeof *s);
}

/* Room for one more pending result, so that tracking cannot fail once MPI
 * has the result's memory. */
static int reserve(struct rmalab__results *s)
{
    if (s->npending < s->cappending)
        return RMALAB_OK;
    int cap = s->cappending ? 2 * s->cappending : 16;
    rmalab_result **p = rmalab__mem_realloc(s->pending, (size_t)cap * sizeof *p);
    if (!p)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory tracking an RMA result");
    s->pending = p;
    s->cappending = cap;
    return RMALAB_OK;
}

int rmalab__results_new(rmalab_win *w, int target, rmalab_type type, int count,
                        rmalab_access access, rmalab_result **out)
{
    size_t bytes = (size_t)count * (size_t)rmalab_type_size(type);
    int rc = reserve(&w->res);
    if (rc)
        return rc;
    rmalab_result *r = rmalab__mem_calloc(1, sizeof *r + (bytes ? bytes : 1));
    if (!r)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory for an RMA result");
    r->refs = 1;
    r->target = target;
    r->type = type;
    r->count = count;
    r->access = access;
    *out = r;
    return RMALAB_OK;
}

void rmalab__results_track(rmalab_win *w, rmalab_result *r)
{
    struct rmalab__results *s = &w->res;
    r->win = w;
    r->seq = ++s->op_seq;
    r->refs++;
    s->pending[s->npending++] = r;
}

void rmalab__results_complete(rmalab_win *w, int target)
{
    struct rmalab__results *s = &w->res;
    if (target < 0) {
        s->done_all = s->op_seq;
        stage_reset(w);
    } else {
        s->done[target] = s->op_seq;
        if (s->staged[target]) {
            s->staged[target] = 0;
            if (--s->nstaged == 0)
                stage_reset(w);
        }
    }
    int j = 0;
    for (int i = 0; i < s->npending; i++) {
        rmalab_result *r = s->pending[i];
        if (r->seq <= s->done_all || r->seq <= s->done[r->target]) {
            r->ready = true;
            r->win = NULL;
            rmalab_result_release(r);
        } else {
            s->pending[j++] = r;
        }
    }
    s->npending = j;
}

uint64_t rmalab__results_ticket(rmalab_win *w) { return ++w->res.op_seq; }

bool rmalab_win_done(const rmalab_win *w, int target, uint64_t ticket)
{
    if (!w || ticket <= w->res.done_all)
        return true;
    return target >= 0 && target < w->size && ticket <= w->res.done[target];
}

bool rmalab_result_ready(const rmalab_result *r)
{
    return r && r->ready;
}

int rmalab_result_data(const rmalab_result *r, const void **data, rmalab_type *type, int *count)
{
    if (!r)
        return rmalab__err_fail(RMALAB_ERR_ARG, "result is NULL");
    if (!r->ready) {
        char by[96];
        rmalab__kind_completer(r->access, r->target, by, sizeof by);
        return rmalab__err_fail(RMALAB_ERR_RMA_SYNC,
                                "the data from rank %d has not arrived yet: an RMA result may only "
                                "be read once the epoch that carries it has completed, here at %s",
                                r->target, by);
    }
    if (data)
        *data = r->data;
    if (type)
        *type = r->type;
    if (count)
        *count = r->count;
    return RMALAB_OK;
}

rmalab_win *rmalab_result_win(const rmalab_result *r)
{
    return r ? r->win : NULL;
}

void rmalab_result_release(rmalab_result *r)
{
    if (r && --r->refs == 0)
        rmalab__mem_free(r);
}
