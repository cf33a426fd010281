/* Folding of per-rank output (fold.c, pure): ranks whose blocks are the
 * same text print once, under their rank set, as clush does. */
#ifndef RMALAB_REPL_FOLD_H
#define RMALAB_REPL_FOLD_H

#include <stdio.h>

#include "cmdline.h"

/* The one grouping every folded text uses (blocks here, :status lines,
 * deadlock hints, TAP's failures): rank r and the ranks after it whose
 * key is the same text, none of them done yet; marks them done. A NULL key
 * is in no group. */
rankset fold_group(const char *const *keys, int n, int r, unsigned char *done);

/* blocks[r] for r in 0..n-1 (NULL: rank not part of it; "" prints
 * nothing). Writes each line as "[set] line" to out, groups in order of
 * their lowest rank. */
void fold_print(FILE *out, char *const *blocks, int n);
/* Blocks of one command, per rank (NULL: none): a race report that ranks
 * echo (wire/race-echo.h) is cut to its first line where the finder's
 * own block, which holds the report, is there too. */
void fold_race_echoes(char **blocks, int n);

#endif
