/* The race checker's model (docs/races.md): the race rule, and the log of
 * a window's memory that new records are checked against (THE LOG), with
 * its indexes; the lists of records are races-rlist.c's, the process's
 * clock clock.c's. Its checks return the races they find (races-pairs.c)
 * to races-sync.c, which decides when records are made, moved and checked
 * and hands them to the reports (races-report.c); races-wire.c brings
 * other ranks' records.
 *
 * An access record R has an issuer, a target, bytes [lo, hi) of the
 * target's window, a kind (read, write, atomic with op and type), its issue
 * clock vc and its completion c: the issuer's own clock entry at the
 * release that completed it. Clocks tick only at releases, so:
 *   A happens before B  iff  c(A) <= vc(B)[entry(A)],
 * entry(A) being the issuer's entry (with per-thread entries, clock.h: the
 * entry of the issuer's thread that completed A), or A and B share an
 * issuer and A is a local access issued first (program order). A release
 * ticks this rank's entry and sends the clock; an acquire takes the
 * element-wise max. A local access is a point: its c is the value of the
 * next release. */
#include "races-private.h"
#include "races-pairs.h"
#include "races-rlist.h"
#include "alloc.h"
#include "error-private.h"

#include <string.h>

/* ------------------------------------------------------------------------ */
/* Records                                                                  */

/* The i-th record of a list: every loop over records here asks for it. */
static inline rmalab__racc *record_at(const struct rmalab__rlist *l, int i)
{
    return (rmalab__racc *)(l->p + (size_t)i * rmalab__races_racc_size());
}

/* Every record of `l` completed by the release S, at its clock entry
 * `entry` (the releasing thread's, clock.h). */
static void complete_at(struct rmalab__rlist *l, const int64_t *S, int entry)
{
    for (int i = 0; i < l->n; i++) {
        rmalab__racc *r = record_at(l, i);
        r->c = S[entry];
        r->entry = entry;
    }
}

/* Every record of `l` issued after clock P too: their clocks join it. */
static void join(struct rmalab__rlist *l, const int64_t *P)
{
    for (int i = 0; i < l->n; i++)
        rmalab__clock_max(record_at(l, i)->vc, P);
}

/* ------------------------------------------------------------------------ */
/* The rule                                                                 */

static bool readlike(const rmalab__racc *r)
{
    return r->kind == RMALAB__RK_READ ||
           (r->kind == RMALAB__RK_ATOMIC && r->op == RMALAB_OP_NO_OP);
}

/* Both atomic and MPI makes them atomic with respect to each other: the
 * same basic type on the same elements, and the same op (no_op goes with
 * any under accumulate_ops = same_op_no_op). One origin's atomics are also
 * ordered by accumulate_ordering unless it is none. */
static bool atomic_ok(const struct rmalab__races *R, const rmalab__racc *a, const rmalab__racc *b)
{
    if (a->kind != RMALAB__RK_ATOMIC || b->kind != RMALAB__RK_ATOMIC || a->type != b->type)
        return false;
    int64_t size = rmalab_type_size((rmalab_type)a->type);
    if (size > 0 && (a->lo - b->lo) % size != 0)
        return false;
    if (a->op == b->op)
        return true;
    if (R->same_op_no_op && (a->op == RMALAB_OP_NO_OP || b->op == RMALAB_OP_NO_OP))
        return true;
    return a->issuer == b->issuer && !a->local && !b->local && R->acc_ordered;
}

static bool hb(const rmalab__racc *a, const rmalab__racc *b)
{
    if (a->issuer == b->issuer && a->local)
        return a->id < b->id;
    return a->c <= b->vc[a->entry];
}

/* Different issuers, both under a lock on the target, one exclusive. */
static bool excluded(const rmalab__racc *a, const rmalab__racc *b)
{
    return a->issuer != b->issuer && a->lock && b->lock && (a->lock == 2 || b->lock == 2);
}

/* The rule (docs/races.md): do a and b race. */
static bool is_race(const struct rmalab__races *R, const rmalab__racc *a, const rmalab__racc *b)
{
    return a->lo < b->hi && b->lo < a->hi && !(readlike(a) && readlike(b)) &&
           !atomic_ok(R, a, b) && !excluded(a, b) && !hb(a, b) && !hb(b, a);
}

/* THE LOG of a window's memory (docs/races.md, "Cost and memory"): the
 * records of accesses to this rank's memory that later ones are compared
 * with, kept small however long a window lives. The rule is above;
 * races-wire.c and races-sync.c bring the records.
 *
 * Two things take records out of the log without changing a verdict:
 *   supersede  a record R2 of the same access as R1 (the same issuer, bytes,
 *              kind, op, type, lock, epoch and site) takes R1's place when
 *              every access still to be checked here that races R1 races
 *              R2 too (`supersedes`): a counter or a mailbox under locks
 *              keeps one record per access, however many epochs it runs;
 *   sweep      a record that every access still to be checked here happens
 *              after is dropped: each rank's last batch to this rank said
 *              that its clock had passed the record's completion.
 * An index of each access's latest record makes the first a lookup. Both
 * rely on one origin's batches arriving in the order it completed them (one
 * tag: MPI does not let them overtake). A PSCW epoch's records (tag DONE)
 * may arrive after a later passive batch of their origin, so nothing is
 * superseded or swept while this rank exposes its window. */

/* ------------------------------------------------------------------------ */
/* The index: each access's latest record                                   */

static bool same_access(const rmalab__racc *a, const rmalab__racc *b)
{
    return a->lo == b->lo && a->hi == b->hi && a->issuer == b->issuer &&
           a->target == b->target && a->count == b->count && a->kind == b->kind &&
           a->call == b->call && a->op == b->op && a->type == b->type && a->lock == b->lock &&
           a->local == b->local && a->during == b->during && strcmp(a->site, b->site) == 0;
}

/* Taken once a record (kept in it): compactions re-index every record. */
static uint32_t access_hash(rmalab__racc *r)
{
    if (r->hash)
        return r->hash;
    uint64_t v[] = {(uint64_t)r->lo, (uint64_t)r->hi, (uint64_t)r->issuer, r->count,
                    (uint64_t)r->kind | (uint64_t)r->call << 8 | (uint64_t)r->op << 16 |
                        (uint64_t)r->type << 24 | (uint64_t)r->lock << 32 |
                        (uint64_t)r->local << 40 | (uint64_t)r->during << 48};
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        h = (h ^ v[i]) * 1099511628211ull;
    for (const char *s = r->site; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return r->hash = (uint32_t)(h ^ h >> 32);
}

/* The slot of r's access: its latest record's, or the empty one it takes. */
static struct rmalab__rslot *slot_of(const struct rmalab__rlog *g, const rmalab__racc *r,
                                     uint32_t h)
{
    unsigned mask = (unsigned)g->nslot - 1;
    for (unsigned i = h & mask;; i = (i + 1) & mask) {
        struct rmalab__rslot *s = &g->slot[i];
        if (s->at < 0 || (s->hash == h && same_access(record_at(&g->l, s->at), r)))
            return s;
    }
}

/* The slot of record i's access now points to it. */
static void index_put(struct rmalab__rlog *g, int i, uint32_t h)
{
    struct rmalab__rslot *s = slot_of(g, record_at(&g->l, i), h);
    g->used += s->at < 0;
    *s = (struct rmalab__rslot){h, i};
}

/* Record i (the last) joins its block's span, and the log's own. */
static void span_add(struct rmalab__rlog *g, int i)
{
    const rmalab__racc *r = record_at(&g->l, i);
    int b = i / RMALAB__SPAN, own = r->local ? r->issuer : -1;
    g->own = g->own == -2 || g->own == own ? own : -1;
    if (g->nspan < 0)
        return;
    if (b == g->capspan) {
        int cap = g->capspan ? 2 * g->capspan : 16;
        void *p = rmalab__mem_realloc(g->span, (size_t)cap * sizeof *g->span);
        if (!p) {
            g->nspan = -1;
            return;
        }
        g->span = p;
        g->capspan = cap;
    }
    if (b == g->nspan)
        g->span[g->nspan++] = (struct rmalab__rspan){r->lo, r->hi, own};
    g->span[b].own = g->span[b].own == own ? own : -1;
    g->span[b].lo = r->lo < g->span[b].lo ? r->lo : g->span[b].lo;
    g->span[b].hi = r->hi > g->span[b].hi ? r->hi : g->span[b].hi;
}

/* The index anew, four slots a record (without one, nothing is superseded). */
static void reindex(struct rmalab__rlog *g)
{
    int want = 64;
    while (want < 4 * g->l.n && want < (1 << 28))
        want *= 2;
    if (want != g->nslot) {
        rmalab__mem_free(g->slot);
        g->slot = rmalab__mem_alloc((size_t)want * sizeof *g->slot);
        g->nslot = g->slot ? want : 0;
    }
    g->used = 0;
    for (int i = 0; i < g->nslot; i++)
        g->slot[i].at = -1;
    g->nspan = 0;
    g->own = -2;
    for (int i = 0; i < g->l.n; i++) {
        if (g->nslot && !record_at(&g->l, i)->dead)
            index_put(g, i, access_hash(record_at(&g->l, i)));
        span_add(g, i);
    }
}

/* Superseded and dropped records leave; the index follows. */
static void compact(struct rmalab__rlog *g)
{
    size_t sz = rmalab__races_racc_size();
    int k = 0;
    for (int i = 0; i < g->l.n; i++) {
        rmalab__racc *r = record_at(&g->l, i);
        if (r->dead)
            continue;
        if (k != i)
            memcpy(record_at(&g->l, k), r, sz);
        k++;
    }
    g->l.n = k;
    g->dead = 0;
    reindex(g);
}

/* ------------------------------------------------------------------------ */
/* What leaves the log                                                      */

/* Can r2, a record of the same access as r1 that reached the log after it,
 * take its place? Every access x checked here from now on that races r1
 * must race r2 (docs/races.md has the argument):
 *  - r1 happens before r2 (r1.c <= r2.vc[A]; local: made first), so an x
 *    that r2 happens before, r1 happens before, and r1.c <= r2.c;
 *  - for each other rank B, r2 knows of B what r1 knew, or every access of
 *    B still to come here completes after what r2 knows of B (`seen`, and
 *    this rank's own clock), so an x before r2 is before r1.
 * The issuer A's own x race r1 only in r1's batch, which was checked. */
static bool supersedes(const struct rmalab__races *R, const rmalab__racc *r1,
                       const rmalab__racc *r2)
{
    if (r1->local ? r1->id >= r2->id : r1->c > r2->vc[r1->entry])
        return false;
    const int64_t *now = rmalab__clock_now();
    int N = rmalab__clock_size(), T = rmalab__clock_threads();
    for (int b = 0; b < R->size; b++) {
        if (b == r1->issuer)
            continue;
        for (int e = R->world[b] * T; e < (R->world[b] + 1) * T; e++) {
            int64_t k = r2->vc[e];
            if (k != r1->vc[e] && k > (b == R->rank ? now[e] : R->seen[(size_t)b * N + e]))
                return false;
        }
    }
    return true;
}

/* The least that every access still to come here knows of each window
 * rank's clock entries (front: world-indexed, as a clock): each rank's
 * last batch, and this rank's clock, or its oldest access to itself that
 * it has not completed. */
static void frontier(const struct rmalab__races *R, int64_t *front)
{
    const struct rmalab__rlist *own = &R->out[R->rank];
    const int64_t *mine = own->n ? record_at(own, 0)->vc : rmalab__clock_now();
    int N = rmalab__clock_size(), T = rmalab__clock_threads();
    for (int a = 0; a < R->size; a++)
        for (int e = R->world[a] * T; e < (R->world[a] + 1) * T; e++) {
            front[e] = mine[e];
            for (int b = 0; b < R->size; b++)
                if (b != R->rank && R->seen[(size_t)b * N + e] < front[e])
                    front[e] = R->seen[(size_t)b * N + e];
        }
}

static void drop_passed(struct rmalab__rlog *g, const int64_t *front)
{
    for (int i = 0; i < g->l.n; i++) {
        rmalab__racc *r = record_at(&g->l, i);
        if (!r->dead && r->c <= front[r->entry]) {
            r->dead = 1;
            g->dead++;
        }
    }
    compact(g);
}

/* Every record that each access still to come happens after is dropped;
 * run when the logs have doubled since the last sweep. */
static void sweep(struct rmalab__races *R)
{
    int64_t *front = rmalab__mem_alloc(rmalab__clock_bytes());
    if (front && !R->exposing) {
        frontier(R, front);
        drop_passed(&R->log, front);
        drop_passed(&R->past, front);
    }
    rmalab__mem_free(front);
    int live = R->log.l.n + R->past.l.n;
    R->sweep_at = live < 512 ? 1024 : 2 * live;
}

/* ------------------------------------------------------------------------ */
/* Keeping records                                                          */

static void warn_incomplete(const struct rmalab__races *R, const char *what)
{
    rmalab__err_warn("rmalab: race checking of window \"%s\" on rank %d is incomplete: %s (no "
                     "fence cleared it), and races with the oldest accesses may be missed",
                     R->name[0] ? R->name : "(unnamed)", R->rank, what);
}

/* A log at its cap drops its oldest record, once superseded ones are gone. */
static bool make_room(struct rmalab__rlog *g, int cap)
{
    if (g->l.n < cap)
        return false;
    if (g->dead)
        compact(g);
    if (g->l.n < cap)
        return false;
    size_t sz = rmalab__races_racc_size();
    memmove(g->l.p, g->l.p + sz, (size_t)(g->l.n - 1) * sz);
    g->l.n--;
    reindex(g);
    return true;
}

/* r, the log's last record, takes the place of its access's latest record
 * if it can (the log does not grow: a counter's, a stencil row's records
 * stay put); otherwise r is its access's latest now. */
static bool supersede(const struct rmalab__races *R, struct rmalab__rlog *g, rmalab__racc *r)
{
    uint32_t h = access_hash(r);
    struct rmalab__rslot *s = slot_of(g, r, h);
    rmalab__racc *old = s->at >= 0 ? record_at(&g->l, s->at) : NULL;
    if (old && old != r && !old->dead && !R->exposing && supersedes(R, old, r)) {
        memcpy(old, r, rmalab__races_racc_size());
        g->l.n--;
        return true;
    }
    g->used += s->at < 0;
    *s = (struct rmalab__rslot){h, g->l.n - 1};
    return false;
}

/* Add r to g (`merge`: it may join the record before it, as a local access
 * repeated in one interval does). Returns whether the log was full. */
static bool keep(struct rmalab__races *R, struct rmalab__rlog *g, const rmalab__racc *r,
                 bool merge)
{
    bool full = make_room(g, R->log_cap);
    rmalab__racc *slot = rmalab__races_rlist_push(&g->l);
    if (!slot)
        return full;
    memcpy(slot, r, rmalab__races_racc_size());
    slot->dead = 0;
    slot->hash = 0;
    /* A record that joined the one before it holds another access now: it
     * is left out of the index and supersedes nothing, which is sound. */
    rmalab__racc *holder = merge ? rmalab__races_rlist_merge_last(&g->l) : slot;
    holder->hash = 0;
    if (holder == slot && g->nslot && supersede(R, g, slot))
        return full;
    span_add(g, g->l.n - 1); /* holder: slot, or the last one, which slot joined */
    if (2 * g->used >= g->nslot || 2 * g->dead > g->l.n + 64)
        compact(g);
    return full;
}

/* ------------------------------------------------------------------------ */
/* Checking                                                                 */

/* Records [from, to) of `l` (a log's, or a batch's own earlier ones)
 * against r. The bytes first, here: most of a long log's records are of
 * other bytes (a C program's runs, row by row). */
static int compare(const struct rmalab__races *R, const struct rmalab__rlist *l, int from,
                   int to, const rmalab__racc *r, struct rmalab__rlist *found)
{
    size_t sz = rmalab__races_racc_size();
    const unsigned char *p = l->p + (size_t)from * sz;
    int rc = RMALAB_OK;
    for (int j = from; j < to && !rc; j++, p += sz) {
        const rmalab__racc *x = (const rmalab__racc *)p;
        if (x->lo < r->hi && r->lo < x->hi && !x->dead && is_race(R, x, r))
            rc = rmalab__races_pairs_add(found, x, r);
    }
    return rc;
}

/* The records of one batch with each other only (an origin's
 * passive-target batch, before it ships): each against those before it. */
static int within(const struct rmalab__races *R, const struct rmalab__rlist *l,
                  struct rmalab__rlist *found)
{
    int rc = RMALAB_OK;
    for (int i = 1; i < l->n && !rc; i++)
        rc = compare(R, l, 0, i, record_at(l, i), found);
    return rc;
}

/* A log's records against r: the blocks whose span reaches r's bytes, but
 * those (or the log) holding only local accesses of r's issuer when r is one
 * (hb: program order); a C program's own loads and stores are most of a log. */
static int compare_log(const struct rmalab__races *R, const struct rmalab__rlog *g,
                       const rmalab__racc *r, struct rmalab__rlist *found)
{
    int mine = r->local ? r->issuer : -2;
    if (g->own == mine)
        return RMALAB_OK;
    if (g->nspan < 0)
        return compare(R, &g->l, 0, g->l.n, r, found);
    int rc = RMALAB_OK;
    for (int b = 0; b < g->nspan && !rc; b++)
        if (g->span[b].own != mine && g->span[b].lo < r->hi && r->lo < g->span[b].hi) {
            int from = b * RMALAB__SPAN, to = from + RMALAB__SPAN;
            rc = compare(R, &g->l, from, to < g->l.n ? to : g->l.n, r, found);
        }
    return rc;
}

static void keep_in_log(struct rmalab__races *R, const rmalab__racc *r, bool merge)
{
    if (keep(R, &R->log, r, merge) && !R->log_dropped) {
        warn_incomplete(R, "its log of accesses is full");
        R->log_dropped = true;
    }
    if (R->log.l.n + R->past.l.n >= R->sweep_at)
        sweep(R);
}

int rmalab__races_check(struct rmalab__races *R, const struct rmalab__rlist *l, unsigned how,
                        struct rmalab__rlist *found)
{
    int n = l->n, rc = RMALAB_OK;
    if ((how & RMALAB__CK_PASSIVE) && R->past_dropped && !R->past_warned) {
        warn_incomplete(R, "its record of accesses already ordered is full");
        R->past_warned = true;
    }
    /* With `intra`, the batch's own pairs were compared by its origin: all
     * of it is compared with the log before any of it joins. */
    for (int i = 0; i < n; i++) {
        const rmalab__racc *r = record_at(l, i);
        if (!rc)
            rc = compare_log(R, &R->log, r, found);
        /* Accesses ordered before this rank's clock are done with, but for
         * passive-target ones, which no clock of this rank orders. */
        if ((how & RMALAB__CK_PASSIVE) && !rc)
            rc = compare_log(R, &R->past, r, found);
        if (!(how & RMALAB__CK_INTRA))
            keep_in_log(R, r, n == 1 && r->local); /* a polling loop: one record */
    }
    for (int i = 0; (how & RMALAB__CK_INTRA) && i < n; i++)
        keep_in_log(R, record_at(l, i), false);
    return rc;
}

/* Each record that happens before this rank's clock moves from the log to
 * `past`. Every later access of this rank, of an origin in a later PSCW
 * epoch (which takes this rank's post clock) and of a fence epoch is
 * ordered after it; only passive-target accesses, which no clock of this
 * rank orders, are still compared with `past`. */
static void prune(struct rmalab__races *R)
{
    const int64_t *now = rmalab__clock_now();
    for (int i = 0; i < R->log.l.n; i++) {
        rmalab__racc *r = record_at(&R->log.l, i);
        if (!r->dead && r->c <= now[r->entry]) {
            R->past_dropped += keep(R, &R->past, r, false);
            r->dead = 1;
            R->log.dead++;
        }
    }
    compact(&R->log);
}

void rmalab__races_forget(struct rmalab__races *R, bool joined)
{
    const int64_t *join = joined ? rmalab__clock_now() : NULL;
    R->log.l.n = R->past.l.n = 0;
    compact(&R->log);
    compact(&R->past);
    int W = rmalab__clock_size();
    for (int b = 0; b < R->size; b++)
        for (int k = 0; k < W; k++)
            R->seen[(size_t)b * W + k] = join ? join[k] : 0;
}

int rmalab__races_log_init(struct rmalab__races *R)
{
    R->log_cap = 1 << 16;
    R->sweep_at = 1024;
    R->seen =
        rmalab__mem_calloc((size_t)R->size * (size_t)rmalab__clock_size(), sizeof *R->seen);
    if (!R->seen)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory for the race checker");
    reindex(&R->log);
    reindex(&R->past);
    return RMALAB_OK;
}

void rmalab__races_log_free(struct rmalab__races *R)
{
    rmalab__races_rlist_free(&R->log.l);
    rmalab__races_rlist_free(&R->past.l);
    rmalab__mem_free(R->log.slot);
    rmalab__mem_free(R->past.slot);
    rmalab__mem_free(R->log.span);
    rmalab__mem_free(R->past.span);
    rmalab__mem_free(R->seen);
}

/* ------------------------------------------------------------------------ */
/* A synchronisation's part                                                 */

/* A batch that came in (races-wire.c): a post clock joins the epoch's
 * records to its target; an epoch's records are checked and their clock
 * acquired; a passive batch is checked, its own pairs checked by its
 * origin; a fence's records are completed from their message first. */
static int take_batch(struct rmalab__races *R, struct rmalab__rbatch *b,
                      struct rmalab__rlist *found)
{
    int rc = RMALAB_OK;
    switch (b->kind) {
    case RMALAB__RB_POST: join(&R->out[b->from], b->clock); break;
    case RMALAB__RB_EPOCH:
        rc = rmalab__races_check(R, &b->recs, 0, found);
        rmalab__clock_acquire(b->clock);
        break;
    case RMALAB__RB_PASSIVE:
        rc = rmalab__races_check(R, &b->recs, RMALAB__CK_INTRA | RMALAB__CK_PASSIVE, found);
        /* its clock: what the origin's later batches know */
        rmalab__clock_max(R->seen + (size_t)b->from * rmalab__clock_size(), b->clock);
        break;
    default:
        complete_at(&b->recs, b->clock, b->entry);
        rc = rmalab__races_check(R, &b->recs, 0, found);
    }
    return rc;
}

/* What this rank released (R->S), before it leaves (races-wire.c): post
 * opens an exposure; complete's records are completed; unlock's are
 * completed and checked, here for this rank's memory, or their own pairs
 * before they ship; at a fence, this rank's own records. */
static int released(struct rmalab__races *R, const struct rmalab__races_step *st,
                    struct rmalab__rlist *found)
{
    int rc = RMALAB_OK, entry = rmalab__clock_entry();
    if (st->what == RMALAB__DO_POST)
        R->exposing = true;
    for (int i = 0; st->what == RMALAB__DO_COMPLETE && i < st->n; i++)
        complete_at(&R->out[st->group[i]], R->S, entry);
    for (int t = st->lo; st->what == RMALAB__DO_RELEASED && t < st->hi && !rc; t++) {
        struct rmalab__rlist *l = &R->out[t];
        if (!l->n)
            continue;
        complete_at(l, R->S, entry);
        rc = t == R->rank ? rmalab__races_check(R, l, RMALAB__CK_PASSIVE, found)
                          : within(R, l, found);
    }
    if (st->what == RMALAB__DO_FENCE) {
        complete_at(&R->out[R->rank], R->S, entry);
        rc = rmalab__races_check(R, &R->out[R->rank], 0, found);
    }
    return rc;
}

int rmalab__races_take(struct rmalab__races *R, const struct rmalab__races_step *st,
                       struct rmalab__rlist *found)
{
    int rc = RMALAB_OK, i = 0;
    /* What the call waited for first: post clocks, an epoch's records. */
    for (; i < R->nin && R->in[i].kind <= RMALAB__RB_EPOCH; i++) {
        int rc2 = take_batch(R, &R->in[i], found);
        rc = rc ? rc : rc2;
    }
    if (st->released) {
        int rc2 = released(R, st, found);
        rc = rc ? rc : rc2;
    }
    if (st->what == RMALAB__DO_EXPOSED && i == st->n) {
        R->exposing = false; /* every record of the epoch is in */
        prune(R);
    }
    for (; i < R->nin; i++) {
        int rc2 = take_batch(R, &R->in[i], found);
        rc = rc ? rc : rc2;
    }
    return rc;
}
