/* Folding (fold.h). */
#include "fold.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>



rankset fold_group(const char *const *keys, int n, int r, unsigned char *done)
{
    rankset set = {.n = n < RANKSET_MAX ? n : RANKSET_MAX};
    for (int q = r; q < set.n && keys[r]; q++)
        if (!done[q] && keys[q] && strcmp(keys[q], keys[r]) == 0)
            set.in[q] = done[q] = 1;
    return set;
}

void fold_print(FILE *out, char *const *blocks, int n)
{
    unsigned char *done = calloc((size_t)n + 1, 1);
    if (!done)
        return;
    for (int r = 0; r < n; r++) {
        if (done[r] || !blocks[r] || !blocks[r][0])
            continue;
        rankset set = fold_group((const char *const *)blocks, n, r, done);
        char name[512];
        rankset_text(&set, name, sizeof name);
        for (const char *p = blocks[r]; *p;) {
            const char *nl = strchr(p, '\n');
            size_t k = nl ? (size_t)(nl - p) : strlen(p);
            fprintf(out, "[%s] %.*s\n", name, (int)k, p);
            p += k + (nl != NULL);
        }
    }
    free(done);
}

void fold_race_echoes(char **blocks, int *finder, const size_t *err_at, int n)
{
    for (int k = 0; k < n; k++) {
        int f = finder[k];
        if (f < 0 || f >= n || f == k || !blocks[k] || !blocks[f] || finder[f] != f ||
            err_at[k] > strlen(blocks[k]))
            continue;
        size_t cut = err_at[k] + strcspn(blocks[k] + err_at[k], "\n");
        cut -= cut > err_at[k] && blocks[k][cut - 1] == ':'; /* "...:" led to the report */
        char tail[48];
        snprintf(tail, sizeof tail, "; rank %d reports it\n", f);
        char *b = realloc(blocks[k], cut + strlen(tail) + 1);
        if (!b)
            continue;
        memcpy(b + cut, tail, strlen(tail) + 1);
        blocks[k] = b;
        finder[k] = -1; /* cut once */
    }
}
