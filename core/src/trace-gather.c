/* Gathering what the ranks recorded into one set on rank 0, with aligned
 * times, groups and arrows; and starting the recording of live windows.
 *
 * Each rank packs its records into a byte string: a header, its windows,
 * then its events with times already aligned to rank 0's clock and peers
 * in the numbering of the set (MPI_COMM_WORLD ranks, or the window's).
 * Rank 0 gathers the strings, merges windows by key, attaches each call's
 * members to it as its group, and matches arrows:
 *   post (t -> o, epoch k)     to o's post_arrived (t, k), or for an engine
 *                              that sees no arrivals, o's start (t, k);
 *   complete (o -> t, epoch k) to t's complete_arrived (o, k), or t's
 *                              wait or test (o, k).
 * The packed form is only ever read by the process that wrote it or its
 * peers on the same build: MPI_BYTE, no conversion. */
#include "trace-private.h"
#include "alloc.h"
#include "error-private.h"
#include "sync-kinds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEMBER RMALAB_TRACE_NKINDS

struct wire_head {
    int32_t nwins, nevents;
    double uncert;
    uint64_t dropped;
};

struct wire_win {
    char key[32], name[128], engine[8];
    int32_t size, freed, nevents;
};

struct wire_ev {
    double t0, t1;          /* aligned seconds */
    int64_t disp, bytes;
    int32_t win, peer, count, calls;
    uint32_t seq;
    uint8_t kind, flag;
};

/* What one gathering works with. */
struct gather {
    MPI_Comm comm;
    const rmalab__trace *only; /* one window's record, or all */
    bool world;                /* numbering: world ranks, else the window's */
    double offset, uncert;     /* for `world`: this rank's, measured now */
};

/* ------------------------------------------------------------------------ */
/* Packing, on every rank (under rmalab__trace_lock)                         */

static bool selected(const struct gather *g, const rmalab__trace *t)
{
    return g->only ? t == g->only : true;
}

static size_t packed_size(const struct gather *g)
{
    size_t n = sizeof(struct wire_head);
    for (const rmalab__trace *t = rmalab__trace_list; t; t = t->next)
        if (selected(g, t))
            n += sizeof(struct wire_win) + t->count * sizeof(struct wire_ev);
    return n;
}

static void pack_event(const struct gather *g, const rmalab__trace *t, const rmalab__tev *e,
                       int win, struct wire_ev *out)
{
    double off = g->world ? g->offset : t->offset;
    int peer = e->peer;
    if (g->world && peer >= 0 && peer < t->size)
        peer = t->world_ranks[peer];
    *out = (struct wire_ev){.t0 = 1e-9 * (double)e->t0 + off, .t1 = 1e-9 * (double)e->t1 + off,
                            .disp = e->disp, .bytes = e->bytes, .win = win, .peer = peer,
                            .count = e->count, .calls = e->calls, .seq = e->seq,
                            .kind = e->kind, .flag = e->flag};
}

static void pack(const struct gather *g, unsigned char *buf)
{
    struct wire_head *h = (struct wire_head *)buf;
    *h = (struct wire_head){.uncert = g->world ? g->uncert : g->only->uncert};
    unsigned char *p = buf + sizeof *h;
    for (const rmalab__trace *t = rmalab__trace_list; t; t = t->next) {
        if (!selected(g, t))
            continue;
        struct wire_win ww = {.size = t->size, .freed = t->win == NULL,
                              .nevents = (int32_t)t->count};
        memcpy(ww.key, t->key, sizeof ww.key);
        snprintf(ww.name, sizeof ww.name, "%s", t->win ? t->win->name : t->name);
        memcpy(ww.engine, t->engine, sizeof ww.engine);
        memcpy(p, &ww, sizeof ww);
        p += sizeof ww;
        for (uint32_t i = 0; i < t->count; i++) {
            struct wire_ev we;
            pack_event(g, t, &t->ring[(t->head + t->cap - t->count + i) % t->cap], h->nwins,
                       &we);
            memcpy(p, &we, sizeof we);
            p += sizeof we;
        }
        h->nwins++;
        h->nevents += (int32_t)t->count;
        h->dropped += t->dropped;
    }
}

/* Every rank's packed records, on rank 0 (*all, with each rank's offset). */
static int gather_bytes(const struct gather *g, unsigned char **all, int **displs)
{
    int rank, size, e;
    MPI_Comm_rank(g->comm, &rank);
    MPI_Comm_size(g->comm, &size);
    pthread_mutex_lock(&rmalab__trace_lock);
    size_t n = packed_size(g);
    unsigned char *mine = n <= INT32_MAX ? rmalab__mem_alloc(n) : NULL;
    if (mine)
        pack(g, mine);
    pthread_mutex_unlock(&rmalab__trace_lock);
    int len = mine ? (int)n : 0, *lens = NULL, rc = RMALAB_OK;
    if (!mine)
        rc = rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory packing the trace");
    if (!rc && rank == 0) {
        lens = rmalab__mem_alloc((size_t)size * sizeof *lens);
        *displs = rmalab__mem_alloc((size_t)(size + 1) * sizeof **displs);
        if (!lens || !*displs)
            rc = rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory gathering the trace");
    }
    if ((rc = rmalab__err_agree(g->comm, rc, "gathering the trace")))
        goto out;
    if ((e = MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, g->comm)) != MPI_SUCCESS) {
        rc = rmalab__err_mpi(e, "gathering the trace's sizes");
        goto out;
    }
    long long total = 0;
    for (int r = 0; rank == 0 && r < size; r++) {
        (*displs)[r] = (int)total;
        total += lens[r];
    }
    if (rank == 0) {
        (*displs)[size] = (int)total;
        *all = total <= INT32_MAX ? rmalab__mem_alloc((size_t)total) : NULL;
        rc = *all ? RMALAB_OK : rmalab__err_fail(RMALAB_ERR_NO_MEM, "the trace is too large");
    }
    if ((rc = rmalab__err_agree(g->comm, rc, "gathering the trace")))
        goto out;
    e = MPI_Gatherv(mine, len, MPI_BYTE, rank == 0 ? *all : NULL, lens, *displs, MPI_BYTE, 0,
                    g->comm);
    if (e != MPI_SUCCESS)
        rc = rmalab__err_mpi(e, "gathering the trace");
out:
    rmalab__mem_free(mine);
    rmalab__mem_free(lens);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Merging, on rank 0                                                       */

/* A member, or an arrival, as a key to match arrows by. */
struct key {
    int win, rank, peer;
    uint32_t seq;
    int kind;  /* of the call (or the arrival) */
    int event; /* index in the set */
};

struct merge {
    rmalab_trace_set *s;
    struct key *keys;
    int nkeys;
    int *gstart;  /* per event: start of its group in s->groups, or -1 */
    int ngroups;  /* entries of s->groups reserved */
};

static int find_win(rmalab_trace_set *s, const struct wire_win *ww)
{
    for (int i = 0; i < s->nwins; i++)
        if (strcmp(s->wins[i].key, ww->key) == 0) {
            s->wins[i].freed &= ww->freed != 0;
            return i;
        }
    rmalab_trace_window *w = &s->wins[s->nwins];
    memcpy(w->key, ww->key, sizeof w->key);
    memcpy(w->name, ww->name, sizeof w->name);
    memcpy(w->engine, ww->engine, sizeof w->engine);
    w->key[sizeof w->key - 1] = w->name[sizeof w->name - 1] = w->engine[sizeof w->engine - 1] = 0;
    w->size = ww->size;
    w->freed = ww->freed != 0;
    return s->nwins++;
}

/* A synchronisation call that names a group (rmalab/sync.h): its members
 * follow it. */
static bool is_group_call(int kind)
{
    const rmalab_sync_kind *k = rmalab__kind_of_trace(kind);
    return k && k->scope == RMALAB_SYNC_GROUP;
}

/* The event of an engine that sees a call's arrow arrive (post_arrived). */
static bool is_arrival(int kind)
{
    for (int i = 0; i < RMALAB_SYNC_NKINDS; i++)
        if (rmalab__kind_rows[i].arrow && (int)rmalab__kind_rows[i].arrow->arrival == kind)
            return true;
    return false;
}

/* One rank's packed records into the set. `call` is the last call with a
 * group, while its members follow it. */
static void merge_rank(struct merge *m, int rank, const unsigned char *p)
{
    rmalab_trace_set *s = m->s;
    struct wire_head h;
    memcpy(&h, p, sizeof h);
    p += sizeof h;
    s->uncertainty[rank] = h.uncert;
    s->dropped[rank] = h.dropped;
    if (h.uncert > s->max_uncertainty)
        s->max_uncertainty = h.uncert;
    for (int wi = 0; wi < h.nwins; wi++) {
        struct wire_win ww;
        memcpy(&ww, p, sizeof ww);
        p += sizeof ww;
        int win = find_win(s, &ww), call = -1, race = -1;
        for (int k = 0; k < ww.nevents; k++, p += sizeof(struct wire_ev)) {
            struct wire_ev e;
            memcpy(&e, p, sizeof e);
            if (e.kind == MEMBER && race >= 0) { /* an access of the race before */
                m->keys[m->nkeys++] = (struct key){win, rank, e.peer, e.seq, e.kind, race};
                continue;
            }
            if (e.kind == MEMBER) {
                if (call < 0)
                    continue; /* the ring overwrote its call */
                rmalab_trace_event *c = &s->events[call];
                s->groups[m->gstart[call] + c->count++] = e.peer;
                m->keys[m->nkeys++] = (struct key){win, rank, e.peer, e.seq, c->kind, call};
                continue;
            }
            int i = s->nevents++;
            s->events[i] = (rmalab_trace_event){
                .t0 = e.t0, .t1 = e.t1, .rank = rank, .win = win, .kind = e.kind,
                .peer = e.peer, .flag = e.flag, .count = e.count, .calls = e.calls,
                .disp = e.disp, .bytes = e.bytes, .seq = e.seq};
            m->gstart[i] = -1;
            race = e.kind == RMALAB_TRACE_RACE ? i : -1;
            if (e.seq && rmalab__trace_is_access(e.kind)) /* a checked window's: a race may point here */
                m->keys[m->nkeys++] = (struct key){win, rank, -1, e.seq, e.kind, i};
            if (!is_arrival(e.kind))
                call = -1; /* arrivals may come between a run of tests and its members */
            if (is_group_call(e.kind) && (e.kind != RMALAB_TRACE_TEST || e.flag)) {
                call = i;
                m->gstart[i] = m->ngroups; /* room for the members that follow */
                m->ngroups += e.count < ww.nevents - k ? e.count : ww.nevents - k - 1;
                s->events[i].count = 0; /* counts the members that survived */
            } else if (is_arrival(e.kind)) {
                m->keys[m->nkeys++] = (struct key){win, rank, e.peer, e.seq, e.kind, i};
            }
        }
    }
}

static int key_cmp(const void *a, const void *b)
{
    const struct key *x = a, *y = b;
    if (x->win != y->win)
        return x->win < y->win ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->peer != y->peer)
        return x->peer < y->peer ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int find_key(const struct merge *m, int win, int kind, int rank, int peer, uint32_t seq)
{
    struct key k = {win, rank, peer, seq, kind, -1};
    const struct key *f = bsearch(&k, m->keys, (size_t)m->nkeys, sizeof k, key_cmp);
    return f ? f->event : -1;
}

/* The arrow of member k of a call (rmalab/sync.h), or NULL. */
static const rmalab_sync_arrow *arrow_of(const struct key *k)
{
    const rmalab_sync_kind *r = k->kind == MEMBER ? NULL : rmalab__kind_of_trace(k->kind);
    return r ? r->arrow : NULL;
}

/* The event at which arrow a of member k ends, or -1: the arrival, else
 * the first call of the peer that pairs with it, if it waited there. */
static int arrow_end(const struct merge *m, const struct key *k, const rmalab_sync_arrow *a)
{
    int e = find_key(m, k->win, (int)a->arrival, k->peer, k->rank, k->seq);
    bool native = strcmp(m->s->wins[k->win].engine, "native") == 0;
    for (int i = 0; e < 0 && i < 2 && a->to[i] < RMALAB_SYNC_NKINDS; i++)
        if (native || !a->to_native_only)
            e = find_key(m, k->win, (int)rmalab__kind_rows[a->to[i]].trace, k->peer, k->rank,
                         k->seq);
    return e;
}

/* A race's arrows: to the events of its two accesses, on the ranks that
 * issued them (member k: rank = the finder, peer = the issuer). */
static void race_flows(struct merge *m, const struct key *k)
{
    for (int kind = 0; kind < RMALAB_TRACE_NKINDS; kind++) {
        int to = rmalab__trace_is_access(kind) ? find_key(m, k->win, kind, k->peer, -1, k->seq) : -1;
        if (to >= 0) {
            m->s->flows[m->s->nflows++] = (rmalab_trace_flow){RMALAB_FLOW_RACE, k->event, to};
            return;
        }
    }
}

/* Arrows, once every rank is merged (rmalab/sync.h, rmalab_sync_arrow). */
static void match_flows(struct merge *m)
{
    rmalab_trace_set *s = m->s;
    qsort(m->keys, (size_t)m->nkeys, sizeof *m->keys, key_cmp);
    for (int i = 0; i < m->nkeys; i++) {
        const struct key *k = &m->keys[i];
        if (k->kind == MEMBER) {
            race_flows(m, k);
            continue;
        }
        const rmalab_sync_arrow *a = arrow_of(k);
        int to = a ? arrow_end(m, k, a) : -1;
        if (to >= 0)
            s->flows[s->nflows++] = (rmalab_trace_flow){a->kind, k->event, to};
    }
}

/* Times from the first event; groups as pointers. */
static void finish(struct merge *m)
{
    rmalab_trace_set *s = m->s;
    double origin = 0;
    for (int i = 0; i < s->nevents; i++)
        if (i == 0 || s->events[i].t0 < origin)
            origin = s->events[i].t0;
    for (int i = 0; i < s->nevents; i++) {
        s->events[i].t0 -= origin;
        s->events[i].t1 -= origin;
        s->events[i].group = m->gstart[i] >= 0 ? s->groups + m->gstart[i] : NULL;
        if (m->gstart[i] < 0 && is_group_call(s->events[i].kind))
            s->events[i].count = 0;
    }
}

/* ------------------------------------------------------------------------ */
/* The calls                                                                */

void rmalab_trace_set_destroy(rmalab_trace_set **set)
{
    if (!set || !*set)
        return;
    rmalab_trace_set *s = *set;
    rmalab__mem_free(s->uncertainty);
    rmalab__mem_free(s->dropped);
    rmalab__mem_free(s->wins);
    rmalab__mem_free(s->events);
    rmalab__mem_free(s->flows);
    rmalab__mem_free(s->groups);
    rmalab__mem_free(s);
    *set = NULL;
}

/* Rank 0: an empty set with room for `nev` events (and as many members)
 * in `nwins` windows from `nranks` ranks. */
static int set_new(int nranks, int nwins, int nev, rmalab_trace_set **out, struct merge *m)
{
    rmalab_trace_set *s = rmalab__mem_calloc(1, sizeof *s);
    size_t n = (size_t)nev + 1;
    if (s) {
        s->nranks = nranks;
        s->uncertainty = rmalab__mem_calloc((size_t)nranks, sizeof *s->uncertainty);
        s->dropped = rmalab__mem_calloc((size_t)nranks, sizeof *s->dropped);
        s->wins = rmalab__mem_calloc((size_t)nwins + 1, sizeof *s->wins);
        s->events = rmalab__mem_calloc(n, sizeof *s->events);
        s->flows = rmalab__mem_calloc(n, sizeof *s->flows);
        s->groups = rmalab__mem_calloc(n, sizeof *s->groups);
    }
    *m = (struct merge){.s = s,
                        .keys = rmalab__mem_calloc(n, sizeof *m->keys),
                        .gstart = rmalab__mem_calloc(n, sizeof *m->gstart)};
    if (!s || !s->uncertainty || !s->dropped || !s->wins || !s->events || !s->flows ||
        !s->groups || !m->keys || !m->gstart) {
        rmalab_trace_set_destroy(&s);
        rmalab__mem_free(m->keys);
        rmalab__mem_free(m->gstart);
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory merging the trace");
    }
    *out = s;
    return RMALAB_OK;
}

/* Rank 0: the packed records of `nranks` ranks into a set. */
static int merge_all(const unsigned char *all, const int *displs, int nranks,
                     rmalab_trace_set **out)
{
    int nwins = 0, nev = 0;
    for (int r = 0; r < nranks; r++) {
        struct wire_head h;
        memcpy(&h, all + displs[r], sizeof h);
        nwins += h.nwins;
        nev += h.nevents;
    }
    struct merge m;
    int rc = set_new(nranks, nwins, nev, out, &m);
    if (rc)
        return rc;
    for (int r = 0; r < nranks; r++)
        merge_rank(&m, r, all + displs[r]);
    match_flows(&m);
    finish(&m);
    (*out)->shared_clock = (*out)->max_uncertainty == 0; /* measured ones are never 0 */
    rmalab__mem_free(m.keys);
    rmalab__mem_free(m.gstart);
    return RMALAB_OK;
}

static int gather_set(struct gather *g, rmalab_trace_set **out)
{
    unsigned char *all = NULL;
    int *displs = NULL, rank, size;
    MPI_Comm_rank(g->comm, &rank);
    MPI_Comm_size(g->comm, &size);
    int rc = gather_bytes(g, &all, &displs);
    if (!rc && rank == 0)
        rc = merge_all(all, displs, size, out);
    rmalab__mem_free(all);
    rmalab__mem_free(displs);
    return rc;
}

int rmalab_trace_gather(rmalab_trace_set **out)
{
    int refused = rmalab__err_collective_refused("trace gather");
    if (refused)
        return refused;
    if (!out)
        return rmalab__err_fail(RMALAB_ERR_ARG, "trace gather: out is NULL");
    *out = NULL;
    struct gather g = {.world = true};
    int e = MPI_Comm_dup(MPI_COMM_WORLD, &g.comm);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "MPI_Comm_dup");
    MPI_Comm_set_errhandler(g.comm, MPI_ERRORS_RETURN);
    int rc = rmalab__trace_align(g.comm, &g.offset, &g.uncert);
    if (!rc)
        rc = gather_set(&g, out);
    MPI_Comm_free(&g.comm);
    return rc;
}

int rmalab_win_trace_gather(rmalab_win *w, rmalab_trace_set **out)
{
    int refused = rmalab__err_collective_refused("trace gather");
    if (refused)
        return refused;
    RMALAB__CHECK_WIN(w);
    if (!out)
        return rmalab__err_fail(RMALAB_ERR_ARG, "trace gather: out is NULL");
    *out = NULL;
    const rmalab__trace *t = w->trace ? w->trace : w->trace_paused;
    if (!t)
        return rmalab__err_fail(RMALAB_ERR_WIN,
                                "trace: this window records nothing; create it with the hint "
                                "rmalab_trace = \"true\" (or RMALAB_TRACE=1), or start its "
                                "recording");
    struct gather g = {.comm = w->comm, .only = t};
    return gather_set(&g, out);
}

/* ------------------------------------------------------------------------ */
/* Every live window                                                        */

struct live {
    rmalab_win **wins;
    int n, cap;
    bool failed;
};

static void collect(rmalab_win *w, void *ud)
{
    struct live *l = ud;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        rmalab_win **p = rmalab__mem_realloc(l->wins, (size_t)cap * sizeof *p);
        if (!p) {
            l->failed = true;
            return;
        }
        l->wins = p;
        l->cap = cap;
    }
    l->wins[l->n++] = w;
}

int rmalab_trace_start_all(void)
{
    struct live l = {0};
    rmalab_win_each(collect, &l); /* the windows are this thread's: none goes meanwhile */
    int rc =
        l.failed ? rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory listing windows") : RMALAB_OK;
    rc = rmalab__err_agree(MPI_COMM_WORLD, rc, "starting traces");
    for (int i = 0; i < l.n && !rc; i++)
        rc = rmalab_win_trace_start(l.wins[i]);
    rmalab__mem_free(l.wins);
    rmalab_trace_default(true);
    return rc;
}

static void pause_one(rmalab_win *w, void *ud)
{
    rmalab_trace_status st;
    rmalab_win_trace_status(w, &st);
    if (st.on)
        rmalab_win_trace_pause(w, *(bool *)ud);
}

void rmalab_trace_pause_all(void)
{
    bool paused = true;
    rmalab_win_each(pause_one, &paused);
    rmalab_trace_default(false);
}
