/* Cycles in a wait-for graph (cycle.h): a breadth-first search from a
 * rank back to itself gives the shortest ring, the one a hint can name in
 * a line. */
#include "cycle.h"

#include <stdlib.h>

int cycle_through(const rankset *waits, int n, int from, const unsigned char *skip, int *path)
{
    int *prev = malloc((size_t)n * sizeof *prev), *queue = malloc((size_t)n * sizeof *queue);
    int len = 0, head = 0, tail = 0, last = -1;
    if (!prev || !queue || from < 0 || from >= n)
        goto out;
    for (int r = 0; r < n; r++)
        prev[r] = -1;
    queue[tail++] = from;
    while (head < tail && last < 0) {
        int r = queue[head++];
        for (int q = 0; q < n && q < waits[r].n; q++) {
            if (!waits[r].in[q] || (skip && skip[q]))
                continue;
            if (q == from) { /* back at the start: r closes the ring */
                last = r;
                break;
            }
            if (prev[q] < 0) {
                prev[q] = r;
                queue[tail++] = q;
            }
        }
    }
    if (last < 0)
        goto out;
    for (int r = last; r != from; r = prev[r]) /* the ring, backwards */
        len++;
    len++;
    for (int r = last, k = len - 1; k >= 0; r = prev[r], k--)
        path[k] = r;
out:
    free(prev);
    free(queue);
    return len;
}
