/* The access runtime reaches its hooks (cc.py hooks): each access to
 * `watched` below, once hooks.so publishes it, arrives with its size, its
 * kind and its line; the accesses to `other` do not. A line marked
 * "expect: R|W N OFFSET" makes one access of N bytes at OFFSET in
 * `watched`, a read or a write; every access in the range is marked.
 * Built with rmalab cc -O0, so that each access in the source is made. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hooks_watch(void *p, size_t n) __attribute__((weak));

struct quad {
    double d[4];
};

double watched[32];
double other[32];

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    size_t n = (size_t)(argc + 31); /* 32, known only at run time */
    for (int i = 0; i < 32; i++)
        other[i] = i;
    if (hooks_watch)
        hooks_watch(watched, sizeof watched);
    watched[3] = 1.5; /* expect: W 8 24 */
    double x = watched[5]; /* expect: R 8 40 */
    other[2] = x;
    ((char *)watched)[7] = 1; /* expect: W 1 7 */
    ((short *)watched)[9] = 2; /* expect: W 2 18 */
    ((int *)watched)[11] = 3; /* expect: W 4 44 */
    other[3] = other[4] + 1;
    memcpy(watched + 8, other, n); /* expect: W 32 64 */
    memcpy(other + 8, watched, n); /* expect: R 32 0 */
    memset(watched + 16, 0, n); /* expect: W 32 128 */
    struct quad q = {{1, 2, 3, 4}};
    *(struct quad *)(watched + 20) = q; /* expect: W 32 160 */
    __atomic_fetch_add((long *)(watched + 30), 5, __ATOMIC_RELAXED); /* expect: W 8 240 */
    long v = __atomic_load_n((long *)(watched + 30), __ATOMIC_ACQUIRE); /* expect: R 8 240 */
    printf("x %g other[2] %g v %ld\n", x, other[2], v);
    MPI_Finalize();
    return 0;
}
