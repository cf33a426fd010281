/* The access runtime (access-hooks.h): what gcc's -fsanitize=thread calls
 * at each load and store of a program that `rmalab cc` built, instead of
 * libtsan. Each entry point makes the range test of access-check.h: dormant
 * until an interceptor publishes ranges; then an access that touches one
 * goes to hooks.access, with the address of the instruction that made it.
 * This file is never instrumented itself (cprog/meson.build builds it with
 * -fno-sanitize=all), so nothing here re-enters it; it calls nothing but
 * the range test, the interceptor's attach and the real memcpy, memmove and
 * memset.
 *
 * Here: the loads and stores, __tsan_init, which attaches the interceptor,
 * and the -Wl,--wrap'ed memcpy, memmove and memset, which gcc leaves as
 * calls. The atomics are in access-atomic.c. */
#include "access-check.h"

/* Defined by the interceptor only; its address is NULL otherwise. Declared
 * with default visibility so that a preloaded library can define it. */
__attribute__((weak, visibility("default"))) void rmalab_run_attach(rmalab_access_hooks *hooks);

/* ------------------------------------------------------------------------ */
/* Loads and stores                                                         */

#define RMALAB_RW(prefix, n)                                                          \
    RMALAB_ACCESS_API void __tsan_##prefix##read##n(void *a);                         \
    RMALAB_ACCESS_API void __tsan_##prefix##write##n(void *a);                        \
    RMALAB_ACCESS_API void __tsan_##prefix##read##n(void *a)                          \
    {                                                                                 \
        rmalab_access__check(a, n, 0, __builtin_return_address(0));                   \
    }                                                                                 \
    RMALAB_ACCESS_API void __tsan_##prefix##write##n(void *a)                         \
    {                                                                                 \
        rmalab_access__check(a, n, 1, __builtin_return_address(0));                   \
    }

RMALAB_RW(, 1)
RMALAB_RW(, 2)
RMALAB_RW(, 4)
RMALAB_RW(, 8)
RMALAB_RW(, 16)
/* Unaligned accesses (gcc 12 emits read_range/write_range for them; clang
 * emits these), and --param=tsan-distinguish-volatile=1's volatile ones:
 * the same test. */
RMALAB_RW(unaligned_, 2)
RMALAB_RW(unaligned_, 4)
RMALAB_RW(unaligned_, 8)
RMALAB_RW(unaligned_, 16)
RMALAB_RW(volatile_, 1)
RMALAB_RW(volatile_, 2)
RMALAB_RW(volatile_, 4)
RMALAB_RW(volatile_, 8)
RMALAB_RW(volatile_, 16)

/* A struct copy or an unaligned access: one access of size bytes. */
RMALAB_ACCESS_API void __tsan_read_range(void *a, unsigned long size);
RMALAB_ACCESS_API void __tsan_write_range(void *a, unsigned long size);
RMALAB_ACCESS_API void __tsan_func_entry(void *pc);
RMALAB_ACCESS_API void __tsan_func_exit(void);
RMALAB_ACCESS_API void __tsan_init(void);
RMALAB_ACCESS_API void __tsan_read_range(void *a, unsigned long size)
{
    rmalab_access__check(a, size, 0, __builtin_return_address(0));
}

RMALAB_ACCESS_API void __tsan_write_range(void *a, unsigned long size)
{
    rmalab_access__check(a, size, 1, __builtin_return_address(0));
}

/* rmalab cc turns these off (--param=tsan-instrument-func-entry-exit=0);
 * objects compiled with plain -fsanitize=thread, or by clang, call them. */
RMALAB_ACCESS_API void __tsan_func_entry(void *pc)
{
    (void)pc;
}

RMALAB_ACCESS_API void __tsan_func_exit(void)
{
}

/* Called from a constructor of every instrumented translation unit, before
 * main: the first call attaches the interceptor, if one is loaded. */
RMALAB_ACCESS_API void __tsan_init(void)
{
    static int attached;
    if (__atomic_exchange_n(&attached, 1, __ATOMIC_ACQ_REL))
        return;
    if (rmalab_run_attach)
        rmalab_run_attach(&rmalab_access__hooks);
}

/* ------------------------------------------------------------------------ */
/* memcpy, memmove, memset (rmalab cc links with -Wl,--wrap=memcpy,...):    */
/* the calls that the program's own objects make, checked, then done.       */

void *__real_memcpy(void *dst, const void *src, size_t n);
void *__real_memmove(void *dst, const void *src, size_t n);
void *__real_memset(void *dst, int c, size_t n);
RMALAB_ACCESS_API void *__wrap_memcpy(void *dst, const void *src, size_t n);
RMALAB_ACCESS_API void *__wrap_memmove(void *dst, const void *src, size_t n);
RMALAB_ACCESS_API void *__wrap_memset(void *dst, int c, size_t n);

/* A copy of n bytes: src read, then dst written. */
static inline __attribute__((always_inline)) void copy_check(void *dst, const void *src, size_t n,
                                                             const void *pc)
{
    const rmalab_access_ranges *r = rmalab_access__ranges();
    if (__builtin_expect(r != NULL, 0) && n) {
        rmalab_access__slow(r, src, n, 0, pc);
        rmalab_access__slow(r, dst, n, 1, pc);
    }
}

RMALAB_ACCESS_API void *__wrap_memcpy(void *dst, const void *src, size_t n)
{
    copy_check(dst, src, n, __builtin_return_address(0));
    return __real_memcpy(dst, src, n);
}

RMALAB_ACCESS_API void *__wrap_memmove(void *dst, const void *src, size_t n)
{
    copy_check(dst, src, n, __builtin_return_address(0));
    return __real_memmove(dst, src, n);
}

RMALAB_ACCESS_API void *__wrap_memset(void *dst, int c, size_t n)
{
    const rmalab_access_ranges *r = rmalab_access__ranges();
    if (__builtin_expect(r != NULL, 0) && n)
        rmalab_access__slow(r, dst, n, 1, __builtin_return_address(0));
    return __real_memset(dst, c, n);
}
