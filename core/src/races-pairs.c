/* The races that the checker's model finds (races.c), as it returns them
 * to the caller for the reports (races-report.c): a list of records, two a
 * race, the earlier record (in the log) first, then the access checked.
 * The same race, as the reports tell one from another, is kept once: a
 * polling loop's reads against one put would fill the list with it. */
#include "races-private.h"
#include "races-pairs.h"
#include "races-rlist.h"
#include "error-private.h"

#include <string.h>

/* The pair (a, b) in the order races-report.c writes it: the lower
 * (issuer, id) first. */
static void ordered(const rmalab__racc **a, const rmalab__racc **b)
{
    if ((*a)->issuer > (*b)->issuer || ((*a)->issuer == (*b)->issuer && (*a)->id > (*b)->id)) {
        const rmalab__racc *t = *a;
        *a = *b;
        *b = t;
    }
}

/* Is the pair at p the same race as (a, b), ordered, as races-report.c
 * tells one from another (the same target, bytes, issuers, calls and
 * sites)? It would not report it twice; a polling loop's reads against one
 * put would fill the list with it. */
static bool same_race(const unsigned char *p, const rmalab__racc *a, const rmalab__racc *b)
{
    const rmalab__racc *x = (const rmalab__racc *)p;
    const rmalab__racc *y = (const rmalab__racc *)(p + rmalab__races_racc_size());
    ordered(&x, &y);
    return x->target == a->target && x->issuer == a->issuer && y->issuer == b->issuer &&
           (x->lo > y->lo ? x->lo : y->lo) == (a->lo > b->lo ? a->lo : b->lo) &&
           (x->hi < y->hi ? x->hi : y->hi) == (a->hi < b->hi ? a->hi : b->hi) &&
           x->call == a->call && y->call == b->call && strcmp(x->site, a->site) == 0 &&
           strcmp(y->site, b->site) == 0;
}

/* The race of a and b (b: the access being checked) joins `found` as two
 * records, a then b, unless the list holds the same race already. */
int rmalab__races_pairs_add(struct rmalab__rlist *found, const rmalab__racc *a,
                            const rmalab__racc *b)
{
    size_t sz = rmalab__races_racc_size();
    const rmalab__racc *x = a, *y = b;
    ordered(&x, &y);
    for (int i = found->n - 2; i >= 0; i -= 2)
        if (same_race(found->p + (size_t)i * sz, x, y))
            return RMALAB_OK;
    rmalab__racc *first = rmalab__races_rlist_push(found);
    if (first)
        memcpy(first, a, sz);
    rmalab__racc *second = first ? rmalab__races_rlist_push(found) : NULL;
    if (!second) {
        found->n -= first != NULL; /* never half a pair */
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    }
    memcpy(second, b, sz);
    return RMALAB_OK;
}

