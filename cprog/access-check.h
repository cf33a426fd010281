/* The access runtime's one test, made by each of its entry points
 * (access.c: loads, stores, ranges, memcpy and the attach;
 * access-atomic*.c: the atomics), and the hooks it reads, which
 * access-check.c defines with the range test. Private to the runtime: the
 * interceptor sees only access-hooks.h.
 *
 * The fast path, inlined into every entry point: one acquire load of
 * hooks.ranges (a plain mov on x86-64) and a test of NULL. Only when ranges
 * are published does an access go to the out-of-line range test. */
#ifndef RMALAB_CPROG_ACCESS_CHECK_H
#define RMALAB_CPROG_ACCESS_CHECK_H

#include "access-hooks.h"

/* The entry points that gcc's instrumentation calls: visible to the
 * program's objects that the archive is linked with, not exported from a
 * shared library that links it (each such library has its own runtime,
 * attached on its own: access-hooks.h). */
#define RMALAB_ACCESS_API __attribute__((visibility("hidden")))

/* The hooks this copy of the runtime hands to rmalab_run_attach. Hidden:
 * a shared library that rmalab cc linked keeps its own, which its own
 * __tsan_init attaches, and the gates that rmalab's gcc plugin puts in
 * the program read its `ranges` (the first member) by this name. */
extern __attribute__((visibility("hidden"))) rmalab_access_hooks rmalab_access__hooks;

/* The range test, out of line: the fast path stays a load and a branch. */
__attribute__((noinline, cold)) void rmalab_access__slow(const rmalab_access_ranges *r,
                                                         const void *addr, size_t n, int write,
                                                         const void *pc);

static inline const rmalab_access_ranges *rmalab_access__ranges(void)
{
    return atomic_load_explicit(&rmalab_access__hooks.ranges, memory_order_acquire);
}

static inline __attribute__((always_inline)) void rmalab_access__check(const void *addr, size_t n,
                                                                       int write, const void *pc)
{
    const rmalab_access_ranges *r = rmalab_access__ranges();
    if (__builtin_expect(r != NULL, 0))
        rmalab_access__slow(r, addr, n, write, pc);
}

#endif
