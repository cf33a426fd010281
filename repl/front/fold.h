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
/* Blocks of one command, per rank (NULL: none), with each rank's error's
 * finder (finder[r]: the rank that found the race it raised, err.finder,
 * or -1) and where the error's message begins (err_at[r]). The error of
 * a rank that did not find the race, which repeats the finder's report,
 * is cut to its message's first line where the finder's own error, which
 * holds the report, is there too: "...; rank F reports it" (its finder
 * then becomes -1: cut once). Read from the fields, never from the
 * message's words. */
void fold_race_echoes(char **blocks, int *finder, const size_t *err_at, int n);

#endif
