/* #pragma omp atomic through the access runtime (cc.py omp): 4 threads add
 * to three counters 100,000 times each; the sums must be exact, whether
 * the counters are watched (hooks.so preloaded) or not. The long and int
 * updates are atomic fetch-adds, each of which arrives as a write. gcc
 * makes the double's a CAS loop around one instrumented atomic load, and
 * leaves the CAS itself uninstrumented: that update arrives as a read
 * only (docs/c.md, the limits). */
#include <mpi.h>
#include <stdio.h>

void hooks_watch(void *p, size_t n) __attribute__((weak));

struct counters {
    long hits;
    int small;
    double half;
} watched;

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (hooks_watch)
        hooks_watch(&watched, sizeof watched);
#pragma omp parallel num_threads(4)
    for (int i = 0; i < 100000; i++) {
#pragma omp atomic
        watched.hits++;
#pragma omp atomic
        watched.small += 3;
#pragma omp atomic
        watched.half += 0.5;
    }
    long hits;
#pragma omp atomic read
    hits = watched.hits;
    printf("hits %ld small %d half %g\n", hits, watched.small, watched.half);
    MPI_Finalize();
    return 0;
}
