/* The access runtime's range test (access-check.h): the hooks this copy of
 * the runtime hands to the interceptor, and what an access does once they
 * hold published ranges. Never instrumented itself (cprog/meson.build), it
 * calls nothing but hooks.access. */
#include "access-check.h"

rmalab_access_hooks rmalab_access__hooks;

/* Whether [a, a + n) overlaps [lo, lo + len). */
static inline int overlaps(uintptr_t a, size_t n, uintptr_t lo, uintptr_t len)
{
    return a < lo + len && lo < a + n;
}

/* The gathering thread's access extends, or falls inside, its
 * instruction's hot run (access-hooks.h). */
static inline int joins_hot(uintptr_t a, size_t n, int write, const void *pc)
{
    uintptr_t tp = (uintptr_t)__builtin_thread_pointer();
    if (atomic_load_explicit(&rmalab_access__hooks.gatherer, memory_order_relaxed) != tp)
        return 0;
    rmalab_access_run *h = &rmalab_access__hooks.hot[rmalab_access_hot_slot(pc)];
    if (h->pc != pc || h->write != write)
        return 0;
    if (a == h->end && a + n <= h->limit) {
        h->end += n;
        return 1;
    }
    return a >= h->lo && a + n <= h->end;
}

void rmalab_access__slow(const rmalab_access_ranges *r, const void *addr, size_t n, int write,
                         const void *pc)
{
    uintptr_t a = (uintptr_t)addr;
    if (joins_hot(a, n, write, pc))
        return;
    for (int k = 0; k < r->n; k++)
        if (overlaps(a, n, r->lo[k], r->len[k])) {
            rmalab_access__hooks.access(addr, n, write, pc);
            return;
        }
}
