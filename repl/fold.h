/* Folding of per-rank output (fold.c, pure): ranks whose blocks are the
 * same text print once, under their rank set, as clush does. */
#ifndef RMALAB_REPL_FOLD_H
#define RMALAB_REPL_FOLD_H

#include <stdio.h>

/* blocks[r] for r in 0..n-1 (NULL: rank not part of it; "" prints
 * nothing). Writes each line as "[set] line" to out, groups in order of
 * their lowest rank. */
void fold_print(FILE *out, char *const *blocks, int n);

#endif
