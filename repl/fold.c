/* Folding (fold.h). */
#include "fold.h"

#include <stdlib.h>
#include <string.h>

#include "cmdline.h"

void fold_print(FILE *out, char *const *blocks, int n)
{
    unsigned char *done = calloc((size_t)n + 1, 1);
    if (!done)
        return;
    for (int r = 0; r < n; r++) {
        if (done[r] || !blocks[r] || !blocks[r][0])
            continue;
        rankset set = {.n = n < RANKSET_MAX ? n : RANKSET_MAX};
        for (int q = r; q < set.n; q++)
            if (!done[q] && blocks[q] && strcmp(blocks[q], blocks[r]) == 0) {
                set.in[q] = 1;
                done[q] = 1;
            }
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
