/* alloc.c: the core's allocation.
 * Private to the core, never installed. */
#ifndef RMALAB_ALLOC_H
#define RMALAB_ALLOC_H

#include "private.h"

/* Allocation (alloc.c): malloc and friends, counted and failable for tests
 * (rmalab/debug.h). Every core allocation uses these, and frees with
 * rmalab__mem_free. Sizes of 0 allocate 1 byte. */
void *rmalab__mem_alloc(size_t n);
void *rmalab__mem_calloc(size_t n, size_t size);
void *rmalab__mem_realloc(void *p, size_t n);
int rmalab__mem_align(void **p, size_t align, size_t n);
void rmalab__mem_free(void *p);

/* Could this process have n bytes at all? Sizes of RMALAB__MEM_LARGE and
 * more are measured against the node's memory and swap (*limit: their
 * total), and then asked of the kernel with a trial malloc at once freed
 * (its overcommit policy and the process's limits decide; no page is
 * touched). Smaller sizes are always true, at no cost. */
#define RMALAB__MEM_LARGE ((size_t)64 << 20)
bool rmalab__mem_could_have(size_t n, uint64_t *limit);

#endif
