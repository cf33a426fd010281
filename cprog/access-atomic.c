/* The access runtime's atomics of 1, 2, 4 and 8 bytes, and the fences
 * (access-atomic.h). The 16-byte ones are in access-atomic128.c, so that
 * only a program that uses them needs libatomic, as in a plain build. */
#include "access-atomic.h"

RMALAB_ATOMICS(8, char)
RMALAB_ATOMICS(16, short)
RMALAB_ATOMICS(32, int)
RMALAB_ATOMICS(64, long)

RMALAB_EXCHANGE(8, char)
RMALAB_EXCHANGE(16, short)
RMALAB_EXCHANGE(32, int)
RMALAB_EXCHANGE(64, long)

/* Fences touch no memory: a relaxed one is nothing, a seq_cst one is
 * seq_cst, the others acq_rel (which covers acquire and release). */
RMALAB_ACCESS_API void __tsan_atomic_thread_fence(int mo);
RMALAB_ACCESS_API void __tsan_atomic_thread_fence(int mo)
{
    if (mo == __ATOMIC_SEQ_CST)
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    else if (mo != __ATOMIC_RELAXED)
        __atomic_thread_fence(__ATOMIC_ACQ_REL);
}

RMALAB_ACCESS_API void __tsan_atomic_signal_fence(int mo);
RMALAB_ACCESS_API void __tsan_atomic_signal_fence(int mo)
{
    if (mo != __ATOMIC_RELAXED)
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
}
