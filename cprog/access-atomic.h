/* The access runtime's atomics, as macros that access-atomic.c and
 * access-atomic128.c instantiate: what -fsanitize=thread calls for C11
 * atomics, the __atomic and __sync builtins and `#pragma omp atomic`. Each
 * really does the operation, with the order asked or a stronger one (a
 * variable order is seq_cst to the __atomic builtins; relaxed and release
 * loads and stores keep theirs, as they are the ones in loops), and is an
 * access like any other: MPI does not order a window's local atomics with
 * RMA, so the checker sees them (a load reads; a store, exchange or
 * read-modify-write writes; a compare-exchange writes when it succeeds and
 * reads when it fails). Private to the runtime. */
#ifndef RMALAB_CPROG_ACCESS_ATOMIC_H
#define RMALAB_CPROG_ACCESS_ATOMIC_H

#include "access-check.h"

#define PC __builtin_return_address(0)

#define RMALAB_ATOMIC_RMW(N, T, OP)                                                           \
    RMALAB_ACCESS_API T __tsan_atomic##N##_##OP(volatile T *a, T v, int mo);                  \
    RMALAB_ACCESS_API T __tsan_atomic##N##_##OP(volatile T *a, T v, int mo)                   \
    {                                                                                         \
        (void)mo;                                                                             \
        rmalab_access__check((const void *)a, sizeof(T), 1, PC);                              \
        return __atomic_##OP(a, v, __ATOMIC_SEQ_CST);                                         \
    }

#define RMALAB_ATOMIC_CAS(N, T, KIND, WEAK)                                                   \
    RMALAB_ACCESS_API int __tsan_atomic##N##_compare_exchange_##KIND(volatile T *a, T *c, T v, \
                                                                   int mo, int fmo);          \
    RMALAB_ACCESS_API int __tsan_atomic##N##_compare_exchange_##KIND(volatile T *a, T *c, T v, \
                                                                   int mo, int fmo)           \
    {                                                                                         \
        (void)mo, (void)fmo;                                                                  \
        int ok = __atomic_compare_exchange_n(a, c, v, WEAK, __ATOMIC_SEQ_CST,                 \
                                             __ATOMIC_SEQ_CST);                               \
        rmalab_access__check((const void *)a, sizeof(T), ok, PC);                             \
        return ok;                                                                            \
    }

#define RMALAB_ATOMICS(N, T)                                                                  \
    RMALAB_ACCESS_API T __tsan_atomic##N##_load(const volatile T *a, int mo);                 \
    RMALAB_ACCESS_API T __tsan_atomic##N##_load(const volatile T *a, int mo)                  \
    {                                                                                         \
        rmalab_access__check((const void *)a, sizeof(T), 0, PC);                              \
        if (mo == __ATOMIC_RELAXED)                                                           \
            return __atomic_load_n(a, __ATOMIC_RELAXED);                                      \
        return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                          \
    }                                                                                         \
    RMALAB_ACCESS_API void __tsan_atomic##N##_store(volatile T *a, T v, int mo);              \
    RMALAB_ACCESS_API void __tsan_atomic##N##_store(volatile T *a, T v, int mo)               \
    {                                                                                         \
        rmalab_access__check((const void *)a, sizeof(T), 1, PC);                              \
        if (mo == __ATOMIC_RELAXED)                                                           \
            __atomic_store_n(a, v, __ATOMIC_RELAXED);                                         \
        else if (mo == __ATOMIC_RELEASE)                                                      \
            __atomic_store_n(a, v, __ATOMIC_RELEASE);                                         \
        else                                                                                  \
            __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                         \
    }                                                                                         \
    RMALAB_ATOMIC_RMW(N, T, fetch_add)                                                        \
    RMALAB_ATOMIC_RMW(N, T, fetch_sub)                                                        \
    RMALAB_ATOMIC_RMW(N, T, fetch_and)                                                        \
    RMALAB_ATOMIC_RMW(N, T, fetch_or)                                                         \
    RMALAB_ATOMIC_RMW(N, T, fetch_xor)                                                        \
    RMALAB_ATOMIC_RMW(N, T, fetch_nand)                                                       \
    RMALAB_ATOMIC_CAS(N, T, strong, 0)                                                        \
    RMALAB_ATOMIC_CAS(N, T, weak, 1)                                                          \
    RMALAB_ACCESS_API T __tsan_atomic##N##_compare_exchange_val(volatile T *a, T c, T v,      \
                                                                int mo, int fmo);             \
    RMALAB_ACCESS_API T __tsan_atomic##N##_compare_exchange_val(volatile T *a, T c, T v,      \
                                                                int mo, int fmo)              \
    {                                                                                         \
        (void)mo, (void)fmo;                                                                  \
        int ok = __atomic_compare_exchange_n(a, &c, v, 0, __ATOMIC_SEQ_CST,                   \
                                             __ATOMIC_SEQ_CST);                               \
        rmalab_access__check((const void *)a, sizeof(T), ok, PC);                             \
        return c;                                                                             \
    }

/* The exchange: its builtin is __atomic_exchange_n, not __atomic_exchange,
 * so RMALAB_ATOMIC_RMW's naming does not fit it. */
#define RMALAB_EXCHANGE(N, T)                                                                 \
    RMALAB_ACCESS_API T __tsan_atomic##N##_exchange(volatile T *a, T v, int mo);              \
    RMALAB_ACCESS_API T __tsan_atomic##N##_exchange(volatile T *a, T v, int mo)               \
    {                                                                                         \
        (void)mo;                                                                             \
        rmalab_access__check((const void *)a, sizeof(T), 1, PC);                              \
        return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                   \
    }

#endif
