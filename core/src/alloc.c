/* Every allocation the core makes goes through here, so that tests can fail
 * the nth one (rmalab_debug_fail_alloc) and count what is still held
 * (rmalab_debug_live_allocs). The lowest layer of the core: it calls
 * nothing else in it. Two relaxed atomic operations per allocation, a few
 * nanoseconds beside the allocator's own cost. */
#include "private.h"
#include "alloc.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <sys/sysinfo.h>

#include <rmalab/debug.h>

static atomic_long countdown; /* 0: off */
static atomic_long live;

void rmalab_debug_fail_alloc(long n)
{
    atomic_store_explicit(&countdown, n > 0 ? n : 0, memory_order_relaxed);
}

long rmalab_debug_live_allocs(void)
{
    return atomic_load_explicit(&live, memory_order_relaxed);
}

/* Does this allocation fail on purpose? The countdown is rarely set, so the
 * common path is one load. */
static bool fail_now(void)
{
    long n = atomic_load_explicit(&countdown, memory_order_relaxed);
    while (n > 0)
        if (atomic_compare_exchange_weak_explicit(&countdown, &n, n - 1, memory_order_relaxed,
                                                  memory_order_relaxed))
            return n == 1;
    return false;
}

static void *counted(void *p)
{
    if (p)
        atomic_fetch_add_explicit(&live, 1, memory_order_relaxed);
    return p;
}

void *rmalab__mem_alloc(size_t n)
{
    return fail_now() ? NULL : counted(malloc(n ? n : 1));
}

void *rmalab__mem_calloc(size_t n, size_t size)
{
    return fail_now() ? NULL : counted(calloc(n ? n : 1, size ? size : 1));
}

void *rmalab__mem_realloc(void *p, size_t n)
{
    if (fail_now())
        return NULL;
    void *q = realloc(p, n ? n : 1);
    return p ? q : counted(q);
}

int rmalab__mem_align(void **p, size_t align, size_t n)
{
    if (fail_now())
        return -1;
    int e = posix_memalign(p, align, n ? n : 1);
    if (!e)
        counted(*p);
    return e;
}

void rmalab__mem_free(void *p)
{
    if (p) {
        atomic_fetch_sub_explicit(&live, 1, memory_order_relaxed);
        free(p);
    }
}

bool rmalab__mem_could_have(size_t n, uint64_t *limit)
{
    struct sysinfo si;
    *limit = UINT64_MAX;
    if (n < RMALAB__MEM_LARGE)
        return true;
    if (sysinfo(&si) == 0)
        *limit = ((uint64_t)si.totalram + si.totalswap) * si.mem_unit;
    if (n > *limit)
        return false;
    void *trial = malloc(n); /* not counted: nothing is kept */
    free(trial);
    return trial != NULL;
}
