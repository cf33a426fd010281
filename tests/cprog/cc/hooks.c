/* A stand-in for rmalab run's interceptor, for the tests of rmalab cc's
 * access runtime (cc.py hooks, omp): preloaded into a program that rmalab cc
 * built, it defines rmalab_run_attach (cprog/access-hooks.h), publishes the one
 * range that the program hands to hooks_watch, and logs each access that
 * reaches it as "ACCESS offset n write object+pcoffset" lines (at most
 * HOOKS_MAX; then only counted), written at exit to $HOOKS_LOG. */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "access-hooks.h"

#define HOOKS_MAX 4096

typedef struct {
    uintptr_t off;
    size_t n;
    int write;
    const void *pc;
} record;

static rmalab_access_hooks *hooks;
static rmalab_access_ranges range;
static record records[HOOKS_MAX];
static atomic_long count, writes;

static void on_access(const void *addr, size_t n, int write, const void *pc)
{
    long k = atomic_fetch_add(&count, 1);
    if (write)
        atomic_fetch_add(&writes, 1);
    if (k < HOOKS_MAX)
        records[k] = (record){(uintptr_t)addr - range.lo[0], n, write, pc};
}

__attribute__((visibility("default"))) void rmalab_run_attach(rmalab_access_hooks *h)
{
    hooks = h;
    hooks->access = on_access;
}

/* Called by the program (a weak symbol there): watch [p, p + n). */
__attribute__((visibility("default"))) void hooks_watch(void *p, size_t n);
__attribute__((visibility("default"))) void hooks_watch(void *p, size_t n)
{
    if (!hooks) {
        fprintf(stderr, "hooks: rmalab_run_attach was never called\n");
        exit(3);
    }
    range = (rmalab_access_ranges){.n = 1, .lo = {(uintptr_t)p}, .len = {n}};
    atomic_store_explicit(&hooks->ranges, &range, memory_order_release);
}

__attribute__((destructor)) static void dump(void)
{
    const char *path = getenv("HOOKS_LOG");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (!f)
        return;
    long n = atomic_load(&count);
    fprintf(f, "ATTACHED %d\nCOUNT %ld %ld\n", hooks != NULL, n, atomic_load(&writes));
    for (long k = 0; k < n && k < HOOKS_MAX; k++) {
        Dl_info di;
        uintptr_t base = 0;
        const char *obj = "?";
        if (dladdr(records[k].pc, &di) && di.dli_fname) {
            base = (uintptr_t)di.dli_fbase;
            obj = di.dli_fname;
        }
        fprintf(f, "ACCESS %lu %zu %d %s+0x%lx\n", (unsigned long)records[k].off, records[k].n,
                records[k].write, obj, (unsigned long)((uintptr_t)records[k].pc - base));
    }
    fclose(f);
}
