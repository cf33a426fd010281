/* The race checker's model (docs/races.md): access records, their lists
 * and the race rule. The process's clock is clock.c's, the reports
 * races-report.c's. races-sync.c decides when records are made,
 * moved and checked.
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
#include "alloc.h"
#include "error-private.h"
#include "hints-private.h"

#include <string.h>

/* ------------------------------------------------------------------------ */
/* Call sites                                                               */

static _Thread_local char site_now[48];
static uint32_t next_id; /* the last access record's number */

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
        memcmp(last->vc, r->vc, rmalab__clock_bytes()) != 0)
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
    r->id = ++next_id;
    memcpy(r->vc, rmalab__clock_now(), rmalab__clock_bytes());
    if (r->local) /* a point: completed by the next release */
        r->c = rmalab__clock_mine() + 1;
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

int rmalab__races_model_init(rmalab_win *w, struct rmalab__races *R)
{
    const char *ops = rmalab__hint_value(w->at_create, RMALAB_KEY_ACCUMULATE_OPS);
    const char *ord = rmalab__hint_value(w->at_create, RMALAB_KEY_ACCUMULATE_ORDERING);
    R->same_op_no_op = !ops || strcmp(ops, "same_op") != 0;
    R->acc_ordered = !ord || strcmp(ord, "none") != 0;
    return rmalab__clock_ready();
}
