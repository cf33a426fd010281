/* The race checker's model (docs/races.md): the process's vector clock,
 * access records, the race rule, the reports and the process's list of
 * races. races-sync.c decides when records are made, moved and checked.
 *
 * An access record R has an issuer, a target, bytes [lo, hi) of the
 * target's window, a kind (read, write, atomic with op and type), its issue
 * clock vc and its completion c: the issuer's own clock entry at the
 * release that completed it. Clocks tick only at releases, so:
 *   A happens before B  iff  c(A) <= vc(B)[issuer(A)],
 * or A and B share an issuer and A is a local access issued first (program
 * order). A release ticks this rank's entry and sends the clock; an
 * acquire takes the element-wise max. A local access is a point: its c is
 * the value of the next release. */
#include "races-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------------ */
/* The process's clock                                                      */

static struct {
    int W, me;
    int64_t *vc;
    uint32_t next_id;
} clk;

int rmalab__clock_ready(void)
{
    if (clk.vc)
        return RMALAB_OK;
    MPI_Comm_size(MPI_COMM_WORLD, &clk.W);
    MPI_Comm_rank(MPI_COMM_WORLD, &clk.me);
    clk.vc = rmalab__calloc((size_t)clk.W, sizeof *clk.vc);
    if (!clk.vc)
        return rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory for the race checker's clock");
    clk.vc[clk.me] = 1;
    return RMALAB_OK;
}

bool rmalab__clock_exists(void) { return clk.vc != NULL; }
const int64_t *rmalab__clock_now(void) { return clk.vc; }
int rmalab__clock_size(void) { return clk.W; }
size_t rmalab__clock_bytes(void) { return (size_t)clk.W * sizeof(int64_t); }

void rmalab__clock_release(int64_t *S)
{
    clk.vc[clk.me]++;
    memcpy(S, clk.vc, (size_t)clk.W * sizeof *S);
}

void rmalab__clock_acquire(const int64_t *V)
{
    for (int i = 0; i < clk.W; i++)
        if (V[i] > clk.vc[i])
            clk.vc[i] = V[i];
}

/* ------------------------------------------------------------------------ */
/* Jitter and call sites                                                    */

static double jitter_max;
static uint64_t jitter_state;

void rmalab_races_jitter(double max_seconds, uint64_t seed)
{
    jitter_max = max_seconds > 0 && max_seconds < 10 ? max_seconds : 0;
    jitter_state = seed * 0x9E3779B97F4A7C15ull + 1;
}

void rmalab__races_jitter_now(void)
{
    if (jitter_max <= 0)
        return;
    jitter_state ^= jitter_state << 13; /* xorshift64 */
    jitter_state ^= jitter_state >> 7;
    jitter_state ^= jitter_state << 17;
    double s = jitter_max * (double)(jitter_state >> 11) / (double)(1ull << 53);
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static _Thread_local char site_now[48];

/* Both run on every access of a checked window: plain copies. */
static void copy(char *dst, size_t size, const char *src)
{
    size_t n = strnlen(src, size - 1);
    memcpy(dst, src, n);
    dst[n] = 0;
}

void rmalab_check_site(const char *site)
{
    copy(site_now, sizeof site_now, site ? site : "");
}

void rmalab__races_site(char *buf, size_t size, const char *fallback)
{
    copy(buf, size, site_now[0] ? site_now : fallback);
    site_now[0] = 0;
}

/* ------------------------------------------------------------------------ */
/* Records and lists                                                        */

size_t rmalab__racc_size(void)
{
    return sizeof(rmalab__racc) + (size_t)clk.W * sizeof(int64_t);
}

rmalab__racc *rmalab__rlist_at(const struct rmalab__rlist *l, int i)
{
    return (rmalab__racc *)(l->p + (size_t)i * rmalab__racc_size());
}

rmalab__racc *rmalab__rlist_push(struct rmalab__rlist *l)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        unsigned char *p = rmalab__realloc(l->p, (size_t)cap * rmalab__racc_size());
        if (!p)
            return NULL;
        l->p = p;
        l->cap = cap;
    }
    return rmalab__rlist_at(l, l->n++);
}

void rmalab__rlist_free(struct rmalab__rlist *l)
{
    rmalab__free(l->p);
    *l = (struct rmalab__rlist){0};
}

/* Can `r` join `last`: the same access from the same site in the same
 * interval, bytes adjacent (local accesses: or overlapping; they are
 * ordered among themselves, but two remote ones that overlap race). */
static bool mergeable(const rmalab__racc *last, const rmalab__racc *r)
{
    if (last->dead || last->issuer != r->issuer || last->target != r->target || last->kind != r->kind ||
        last->call != r->call || last->op != r->op || last->type != r->type ||
        last->lock != r->lock || last->local != r->local || last->during != r->during ||
        last->c != r->c || strcmp(last->site, r->site) != 0 ||
        memcmp(last->vc, r->vc, (size_t)clk.W * sizeof(int64_t)) != 0)
        return false;
    if (r->local)
        return r->lo <= last->hi && last->lo <= r->hi;
    return r->lo == last->hi;
}

/* The list's last record, just pushed, joins the one before it if it may
 * (mergeable); returns the record that holds the access. */
rmalab__racc *rmalab__rlist_merge_last(struct rmalab__rlist *l)
{
    rmalab__racc *r = rmalab__rlist_at(l, l->n - 1);
    rmalab__racc *prev = l->n > 1 ? rmalab__rlist_at(l, l->n - 2) : NULL;
    if (!prev || !mergeable(prev, r))
        return r;
    prev->lo = r->lo < prev->lo ? r->lo : prev->lo;
    prev->hi = r->hi > prev->hi ? r->hi : prev->hi;
    prev->count += r->count;
    l->n--;
    return prev;
}

int rmalab__racc_add(struct rmalab__rlist *l, const rmalab__racc *proto, uint32_t *id)
{
    rmalab__racc *r = rmalab__rlist_push(l);
    if (!r)
        return rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory recording an access");
    memcpy(r, proto, sizeof *r);
    r->id = ++clk.next_id;
    memcpy(r->vc, clk.vc, (size_t)clk.W * sizeof(int64_t));
    if (r->local) /* a point: completed by the next release */
        r->c = clk.vc[clk.me] + 1;
    *id = rmalab__rlist_merge_last(l)->id;
    return RMALAB_OK;
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

static bool hb(const rmalab_win *w, const rmalab__racc *a, const rmalab__racc *b)
{
    if (a->issuer == b->issuer && a->local)
        return a->id < b->id;
    return a->c <= b->vc[w->lay.world_ranks[a->issuer]];
}

/* Different issuers, both under a lock on the target, one exclusive. */
static bool excluded(const rmalab__racc *a, const rmalab__racc *b)
{
    return a->issuer != b->issuer && a->lock && b->lock && (a->lock == 2 || b->lock == 2);
}

bool rmalab__races_is_race(const rmalab_win *w, const rmalab__racc *a, const rmalab__racc *b)
{
    return a->lo < b->hi && b->lo < a->hi && !(readlike(a) && readlike(b)) &&
           !atomic_ok(w->races, a, b) && !excluded(a, b) && !hb(w, a, b) && !hb(w, b, a);
}

/* ------------------------------------------------------------------------ */
/* Reports                                                                  */

static struct {
    rmalab_race *list;
    int n, cap;
    uint64_t found, seq;
} session;

void rmalab_races(const rmalab_race **list, int *n, uint64_t *found)
{
    *list = session.list;
    *n = session.n;
    if (found)
        *found = session.found;
}

void rmalab_races_clear(void)
{
    session.n = 0;
    session.found = 0;
}

static const char *kind_name(const rmalab__racc *r)
{
    return r->kind == RMALAB__RK_READ ? "read" : r->kind == RMALAB__RK_WRITE ? "write" : "atomic";
}

static const char *call_name(const rmalab__racc *r)
{
    if (r->call == RMALAB__RC_READ)
        return "win:read";
    if (r->call == RMALAB__RC_WRITE)
        return "win:write";
    return rmalab_trace_kind_name((rmalab_trace_kind)r->call);
}

/* The epoch an access was made in (rmalab/sync.h), NULL for none. */
static const rmalab_sync_epoch *epoch_of(const rmalab__racc *r)
{
    return r->during < RMALAB_SYNC_NKINDS ? rmalab__sync_kinds[r->during].opens : NULL;
}

static void during_text(const rmalab__racc *r, char *buf, size_t size)
{
    static const char *const lock[] = {"", ", holding a shared lock on itself",
                                       ", holding an exclusive lock on itself"};
    const rmalab_sync_epoch *e = epoch_of(r);
    if (r->local)
        snprintf(buf, size, "%s%s", e ? e->exposure_text : "outside any exposure epoch",
                 lock[r->lock % 3]);
    else if (rmalab__sync_kinds[r->during].scope == RMALAB_SYNC_PEER) /* lock */
        snprintf(buf, size, "%s(%d, \"%s\")", e->access_text, r->target,
                 r->lock == 2 ? "exclusive" : "shared");
    else
        snprintf(buf, size, "%s", e->access_text);
}

/* What completes a remote access. */
static const char *completer(const rmalab__racc *r)
{
    return epoch_of(r)->completed_by;
}

/* A local access during the exposure epoch in which the remote one may
 * land (fence, post and start), or NULL. */
static const rmalab_sync_epoch *landing(const rmalab__racc *loc, const rmalab__racc *rem)
{
    const rmalab_sync_epoch *e = epoch_of(loc);
    return e && e->landed_by == rem->during ? e : NULL;
}

/* Why neither access is ordered, and the fix: the first rule that matches.
 * Pure functions of the two records, so the same on every run. */
static void why(const rmalab_win *w, const rmalab__racc *a, const rmalab__racc *b, char *buf,
                size_t size)
{
    const char *ta = rmalab_type_name((rmalab_type)a->type);
    if (a->kind == RMALAB__RK_ATOMIC && b->kind == RMALAB__RK_ATOMIC) {
        if (a->type != b->type)
            snprintf(buf, size, "accumulates of %s and %s are not atomic with respect to each "
                     "other: MPI's atomicity needs the same basic type\n  fix: use one type "
                     "for a location", ta, rmalab_type_name((rmalab_type)b->type));
        else if ((a->lo - b->lo) % rmalab_type_size((rmalab_type)a->type))
            snprintf(buf, size, "their %s elements start %lld byte%s apart: atomicity is per "
                     "element\n  fix: use the same displacements", ta,
                     (long long)llabs((long long)(a->lo - b->lo)),
                     llabs((long long)(a->lo - b->lo)) == 1 ? "" : "s");
        else
            snprintf(buf, size, "ops %s and %s differ: MPI makes accumulates atomic only with "
                     "the same op (and no_op)\n  fix: one op per location in an epoch, or "
                     "order them", a->op == RMALAB_NOPS ? "compare_and_swap"
                                                        : rmalab_op_name((rmalab_op)a->op),
                     b->op == RMALAB_NOPS ? "compare_and_swap" : rmalab_op_name((rmalab_op)b->op));
        return;
    }
    if (a->issuer == b->issuer) {
        const rmalab__racc *first = a->id < b->id ? a : b;
        snprintf(buf, size, "both from rank %d, and its %s completes only at %s, after the %s "
                 "was issued: MPI does not order one origin's operations before that\n  fix: "
                 "flush between them (passive target), or put them in different epochs",
                 a->issuer, call_name(first), completer(first),
                 call_name(first == a ? b : a));
        return;
    }
    if (!a->local && !b->local) {
        if (a->lock && b->lock)
            snprintf(buf, size, "both under shared locks of rank %d (lock_all counts as "
                     "shared): shared locks do not exclude each other\n  fix: take "
                     "lock(%d, \"exclusive\"), or a barrier after the first unlock",
                     a->target, a->target);
        else if (a->during == b->during && epoch_of(a)->together)
            snprintf(buf, size, "%s of rank %d, from different origins\n  fix: %s",
                     epoch_of(a)->together, a->target, epoch_of(a)->together_fix);
        else
            snprintf(buf, size, "no synchronisation orders rank %d's %s and rank %d's %s\n"
                     "  fix: order them with a barrier, fence or PSCW epoch",
                     a->issuer, call_name(a), b->issuer, call_name(b));
        return;
    }
    const rmalab__racc *rem = a->local ? b : a, *loc = a->local ? a : b;
    int o = rem->issuer, t = loc->issuer;
    const rmalab_sync_epoch *x = landing(loc, rem);
    if (x)
        snprintf(buf, size, "rank %d's %s happened %s, in which rank %d's %s may land%s\n"
                 "  fix: access local memory %s", t, call_name(loc), x->landing_when, o,
                 call_name(rem), x->landing_until, x->landing_fix);
    else if (rem->lock && loc->lock)
        snprintf(buf, size, "rank %d's %s and rank %d's %s both hold shared locks on rank %d "
                 "(lock_all counts as shared): shared locks do not exclude each other\n  fix: "
                 "take lock(%d, \"exclusive\") for one of them, or a barrier after the unlock",
                 t, call_name(loc), o, call_name(rem), t, t);
    else if (rem->lock && !loc->lock)
        snprintf(buf, size, "rank %d's %s holds no lock on itself, and nothing orders rank "
                 "%d's %s (complete only at %s) before or after it\n  fix: access under "
                 "lock(%d, \"exclusive\") on itself, or a barrier after the unlock",
                 t, call_name(loc), o, call_name(rem), completer(rem), t);
    else if (rem->vc[w->lay.world_ranks[t]] >= loc->c && rem->c > loc->vc[w->lay.world_ranks[o]])
        snprintf(buf, size, "rank %d's %s completes only at %s, and nothing orders that "
                 "before rank %d's %s\n  fix: complete it before the synchronisation that "
                 "orders them", o, call_name(rem), completer(rem), t, call_name(loc));
    else
        snprintf(buf, size, "no synchronisation orders rank %d's %s and rank %d's %s\n"
                 "  fix: order them with a barrier, fence or PSCW epoch",
                 o, call_name(rem), t, call_name(loc));
}

static void fill_access(const rmalab__racc *r, rmalab_race_access *x)
{
    x->rank = r->issuer;
    snprintf(x->call, sizeof x->call, "%s", call_name(r));
    snprintf(x->kind, sizeof x->kind, "%s", kind_name(r));
    snprintf(x->site, sizeof x->site, "%s", r->site);
    during_text(r, x->during, sizeof x->during);
}

static int access_line(char *buf, size_t size, const rmalab_race_access *x,
                       const rmalab__racc *r)
{
    return snprintf(buf, size, "  rank %d  %-6s %s(%s x%u) at %s, %s\n", x->rank, x->kind,
                    x->call, rmalab_type_name((rmalab_type)r->type), r->count, x->site,
                    x->during);
}

/* `at` names the call that found it; NULL: the access `b` itself. */
/* The same race again: the same window, rank, bytes and pair of calls from
 * the same sites (a polling loop's reads against one put). */
static bool known(const rmalab_race *x)
{
    for (int i = session.n - 1; i >= 0; i--) {
        const rmalab_race *y = &session.list[i];
        if (y->target == x->target && y->lo == x->lo && y->hi == x->hi &&
            y->a.rank == x->a.rank && y->b.rank == x->b.rank &&
            strcmp(y->a.site, x->a.site) == 0 && strcmp(y->b.site, x->b.site) == 0 &&
            strcmp(y->a.call, x->a.call) == 0 && strcmp(y->b.call, x->b.call) == 0 &&
            strcmp(y->window, x->window) == 0)
            return true;
    }
    return false;
}

void rmalab__races_report(rmalab_win *w, const rmalab__racc *a, const rmalab__racc *b,
                          const char *at)
{
    struct rmalab__races *R = w->races;
    rmalab_race x = {0};
    if (at)
        snprintf(x.found_at, sizeof x.found_at, "%s", at);
    else
        snprintf(x.found_at, sizeof x.found_at, "%s() at %s", call_name(b), b->site);
    if (a->issuer > b->issuer || (a->issuer == b->issuer && a->id > b->id)) {
        const rmalab__racc *t = a;
        a = b;
        b = t;
    }
    snprintf(x.window, sizeof x.window, "%s", w->name);
    x.target = a->target;
    x.lo = a->lo > b->lo ? a->lo : b->lo;
    x.hi = a->hi < b->hi ? a->hi : b->hi;
    fill_access(a, &x.a);
    fill_access(b, &x.b);
    if (known(&x))
        return;
    x.seq = ++session.seq;
    why(w, a, b, x.why, sizeof x.why);
    x.found_by = w->rank;
    size_t n = (size_t)snprintf(x.text, sizeof x.text, "race on window %s%s%s, rank %d, %s "
                                "%lld-%lld:\n", x.window[0] ? "\"" : "",
                                x.window[0] ? x.window : "(unnamed)", x.window[0] ? "\"" : "",
                                x.target,
                                w->flavor == RMALAB_FLAVOR_DYNAMIC ? "addresses" : "bytes",
                                (long long)x.lo, (long long)x.hi - 1);
    if (n < sizeof x.text)
        n += (size_t)access_line(x.text + n, sizeof x.text - n, &x.a, a);
    if (n < sizeof x.text)
        n += (size_t)access_line(x.text + n, sizeof x.text - n, &x.b, b);
    if (n < sizeof x.text)
        snprintf(x.text + n, sizeof x.text - n, "  not ordered: %s\n  found by rank %d at %s",
                 x.why, x.found_by, x.found_at);
    session.found++;
    if (R->found_now++ == 0)
        snprintf(R->now_text, sizeof R->now_text, "%s", x.text);
    if (session.n == session.cap && session.cap < RMALAB_RACES_KEEP) {
        int cap = session.cap ? 2 * session.cap : 16;
        rmalab_race *p = rmalab__realloc(session.list, (size_t)cap * sizeof *p);
        if (p) {
            session.list = p;
            session.cap = cap;
        }
    }
    if (session.n < session.cap)
        session.list[session.n++] = x;
    if (w->trace) {
        int issuer[2] = {a->issuer, b->issuer};
        uint32_t id[2] = {a->id, b->id};
        rmalab__trace_race(w, (uint32_t)x.seq, x.target, x.lo, x.hi, issuer, id);
    }
}

/* ------------------------------------------------------------------------ */
/* Checking                                                                 */

unsigned rmalab__races_within(rmalab_win *w, const rmalab__racc *recs, int n, const char *at)
{
    unsigned before = w->races->found_now;
    size_t sz = rmalab__racc_size();
    const unsigned char *p = (const unsigned char *)recs;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) {
            const rmalab__racc *a = (const rmalab__racc *)(p + j * sz);
            const rmalab__racc *b = (const rmalab__racc *)(p + i * sz);
            if (rmalab__races_is_race(w, a, b))
                rmalab__races_report(w, a, b, at);
        }
    return w->races->found_now - before;
}

int rmalab__races_model_init(rmalab_win *w, struct rmalab__races *R)
{
    const char *ops = rmalab__hint_value(w->at_create, RMALAB_KEY_ACCUMULATE_OPS);
    const char *ord = rmalab__hint_value(w->at_create, RMALAB_KEY_ACCUMULATE_ORDERING);
    R->same_op_no_op = !ops || strcmp(ops, "same_op") != 0;
    R->acc_ordered = !ord || strcmp(ord, "none") != 0;
    return rmalab__clock_ready();
}
