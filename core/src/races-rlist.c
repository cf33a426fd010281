/* The checker's lists of records (races-private.h): a log's, what an
 * origin has not completed yet, a batch being made. They grow at the end,
 * and a record just pushed may join the one before it when the two are one
 * access, as a polling loop's reads or a C program's run of bytes are. */
#include "races-rlist.h"
#include "alloc.h"

#include <string.h>

/* The i-th record of a list. */
static inline rmalab__racc *nth(const struct rmalab__rlist *l, int i)
{
    return (rmalab__racc *)(l->p + (size_t)i * rmalab__races_racc_size());
}

rmalab__racc *rmalab__races_rlist_push(struct rmalab__rlist *l)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        unsigned char *p = rmalab__mem_realloc(l->p, (size_t)cap * rmalab__races_racc_size());
        if (!p)
            return NULL;
        l->p = p;
        l->cap = cap;
    }
    return nth(l, l->n++);
}

void rmalab__races_rlist_free(struct rmalab__rlist *l)
{
    rmalab__mem_free(l->p);
    *l = (struct rmalab__rlist){0};
}

/* Can `r` join `last`: the same access from the same site in the same
 * interval, bytes adjacent (local accesses: or overlapping; they are
 * ordered among themselves, but two remote ones that overlap race). */
static bool mergeable(const rmalab__racc *last, const rmalab__racc *r)
{
    if (last->dead || last->issuer != r->issuer || last->target != r->target ||
        last->kind != r->kind || last->call != r->call || last->op != r->op ||
        last->type != r->type || last->lock != r->lock || last->local != r->local ||
        last->during != r->during || last->c != r->c || last->entry != r->entry ||
        strcmp(last->site, r->site) != 0 ||
        memcmp(last->vc, r->vc, rmalab__clock_bytes()) != 0)
        return false;
    if (r->local)
        return r->lo <= last->hi && last->lo <= r->hi;
    return r->lo == last->hi;
}

/* The list's last record, just pushed, joins the one before it if it may
 * (mergeable); returns the record that holds the access. */
rmalab__racc *rmalab__races_rlist_merge_last(struct rmalab__rlist *l)
{
    rmalab__racc *r = nth(l, l->n - 1);
    rmalab__racc *prev = l->n > 1 ? nth(l, l->n - 2) : NULL;
    if (!prev || !mergeable(prev, r))
        return r;
    prev->lo = r->lo < prev->lo ? r->lo : prev->lo;
    prev->hi = r->hi > prev->hi ? r->hi : prev->hi;
    prev->count += r->count;
    l->n--;
    return prev;
}
