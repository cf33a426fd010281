/* A tiny stand-in for the access runtime (cprog/access.c, which `rmalab cc`
 * links), for tests/cprog/run only: gcc's -fsanitize=thread makes each load
 * and store of bridge.c call __tsan_readN / __tsan_writeN, and this
 * forwards those that touch a watched range to the interceptor's hooks
 * (cprog/access-hooks.h), as the real runtime does. Under plain mpiexec
 * rmalab_run_attach is absent and nothing is watched. */
#include <stddef.h>
#include <stdint.h>

#include "access-hooks.h"

#pragma weak rmalab_run_attach

static rmalab_access_hooks hooks;
static int attached;

static void check(const void *addr, size_t n, int write, const void *pc)
{
    const rmalab_access_ranges *r = atomic_load_explicit(&hooks.ranges, memory_order_acquire);
    for (int i = 0; r && i < r->n; i++)
        if ((uintptr_t)addr - r->lo[i] < r->len[i]) {
            hooks.access(addr, n, write, pc);
            return;
        }
}

void __tsan_init(void);
void __tsan_init(void)
{
    if (!attached && rmalab_run_attach) {
        attached = 1;
        rmalab_run_attach(&hooks);
    }
}

#define ENTRY(N)                                                                \
    void __tsan_read##N(void *a);                                              \
    void __tsan_write##N(void *a);                                             \
    void __tsan_unaligned_read##N(void *a);                                    \
    void __tsan_unaligned_write##N(void *a);                                   \
    void __tsan_read##N(void *a) { check(a, N, 0, __builtin_return_address(0)); }   \
    void __tsan_write##N(void *a) { check(a, N, 1, __builtin_return_address(0)); }  \
    void __tsan_unaligned_read##N(void *a) { check(a, N, 0, __builtin_return_address(0)); } \
    void __tsan_unaligned_write##N(void *a) { check(a, N, 1, __builtin_return_address(0)); }
ENTRY(1)
ENTRY(2)
ENTRY(4)
ENTRY(8)
ENTRY(16)

void __tsan_func_entry(void *pc);
void __tsan_func_exit(void);
void __tsan_func_entry(void *pc) {}
void __tsan_func_exit(void) {}
