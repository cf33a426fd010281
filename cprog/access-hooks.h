/* The one door between a C program's loads and stores and the checker: the
 * hooks, which the access runtime and the interceptor both include, and
 * which no .c file of its own goes with.
 *
 * Two libraries meet here, and only here:
 * - the access runtime (librmalab-access), linked into every program that
 *   `rmalab cc` builds. gcc's -fsanitize=thread makes each load and store
 *   call __tsan_readN / __tsan_writeN; the runtime defines those instead of
 *   libtsan (access.c, access-atomic*.c), each with the range test of
 *   access-check.c. It is dormant under plain mpiexec: an access then costs
 *   a load of `ranges` and a test of NULL;
 * - the interceptor (librmalab-run.so), which `rmalab run` preloads. It maps
 *   the program's MPI calls onto the core, and it knows which memory is
 *   watched: the windows of this process, and the caller buffers of RMA
 *   operations still in flight (watch.c is its half of this header).
 *
 * At its first __tsan_init (from the constructors of the program's
 * instrumented files, before main) the runtime calls rmalab_run_attach, a
 * weak symbol that only the interceptor defines, with its hooks. Each copy
 * of the runtime attaches on its own: a program, and each shared library
 * that rmalab cc linked, has one, with its own hooks, so the interceptor
 * may be called more than once and publishes its ranges to each. The interceptor
 * publishes the watched ranges there as an immutable set behind one atomic
 * pointer: it builds a new set and swaps the pointer, and keeps the old ones
 * until MPI_Finalize, so that a thread reading one never sees it freed. An
 * access that touches a watched range goes to `access`, with the address of
 * the instruction that made it (its FILE:LINE for reports).
 *
 * The runs: while one thread makes all the MPI calls (MPI_THREAD_SINGLE or
 * _FUNNELED) and no operation is in flight, the interceptor gathers that
 * thread's loads and stores of window memory into runs, an instruction's
 * consecutive bytes (cprog/watch.c), and hands them to the checker at its
 * next MPI call. The run an instruction is extending sits in `hot`, in the
 * runtime's reach: the runtime extends it itself, without a call to
 * `access`, when the access is that thread's (`gatherer`), of that
 * instruction and kind, and touches the bytes the run holds or those that
 * follow them, up to `limit`. Anything else goes to `access`. Only the
 * gathering thread reads or writes `hot`: the runtime from its accesses,
 * the interceptor from that thread's `access` calls and MPI calls.
 *
 * Nothing else passes between the two, and calls go one way: the runtime
 * knows no MPI and no core, and calls the interceptor only at the attach
 * and through `access`; the interceptor never calls the runtime. */
#ifndef RMALAB_CPROG_ACCESS_HOOKS_H
#define RMALAB_CPROG_ACCESS_HOOKS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* A few ranges [lo, lo + len): a program has a window or two and a few
 * operations in flight. More watched memory than fits is merged into the
 * last range (a wider test, the same verdicts: `access` looks again). */
#define RMALAB_ACCESS_RANGES 16

typedef struct {
    int n;
    uintptr_t lo[RMALAB_ACCESS_RANGES];
    uintptr_t len[RMALAB_ACCESS_RANGES];
} rmalab_access_ranges;

/* One instruction's run: it touched [lo, end) in the window that ends at
 * limit. pc is the return address the runtime hands to `access` (NULL: a
 * free slot); write as there. */
typedef struct {
    const void *pc;
    uintptr_t lo, end, limit;
    int write;
} rmalab_access_run;

#define RMALAB_ACCESS_HOT 64

/* The slot of hot that the run of the instruction at pc takes. */
static inline unsigned rmalab_access_hot_slot(const void *pc)
{
    uintptr_t p = (uintptr_t)pc;
    return (unsigned)((p ^ (p >> 6)) % RMALAB_ACCESS_HOT);
}

typedef struct {
    /* NULL while nothing is watched (always, under plain mpiexec). The
     * first member: the gates of rmalab's gcc plugin (cprog/gcc-plugin.cc)
     * load it as a pointer at the start of rmalab_access__hooks, the
     * runtime's hooks (access-check.h). */
    _Atomic(const rmalab_access_ranges *) ranges;
    /* An access of n bytes at addr (write: a store, or an atomic
     * read-modify-write) touched a watched range. pc is the return address
     * of the call that the instrumentation put before the access (or of the
     * program's memcpy, memmove or memset call): symbolise pc - 1 for the
     * access's FILE:LINE, as debuggers do (pc itself can fall on the next
     * line). Called on the accessing thread; set once by rmalab_run_attach
     * before any range is published. */
    void (*access)(const void *addr, size_t n, int write, const void *pc);
    /* The thread pointer (__builtin_thread_pointer) of the thread whose
     * runs are in hot; 0 while none is. Set by the interceptor. */
    _Atomic(uintptr_t) gatherer;
    rmalab_access_run hot[RMALAB_ACCESS_HOT];
} rmalab_access_hooks;

/* Defined by the interceptor (watch.c; weak in the runtime's access.c:
 * absent under plain mpiexec). Keeps `hooks` for the life of the process. */
void rmalab_run_attach(rmalab_access_hooks *hooks);

#endif
