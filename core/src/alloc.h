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

#endif
