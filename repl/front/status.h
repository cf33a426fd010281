/* The `:status` lines of the ranks' states (status.c, pure). */
#ifndef RMALAB_REPL_STATUS_H
#define RMALAB_REPL_STATUS_H

#include <stddef.h>

#include "../wire/state.h"
#include "cmdline.h"

/* The `:status` line of rank `me` (without "rank N: "), durations left out
 * when `timings` is 0. */
void rstate_status_line(const rstate *all, int n, int me, int timings, char *buf, size_t size);
/* Any rank running Lua (or unknown)? */
int rstate_any_running(const rstate *all, int n);
/* The :status text of the ranks in `target` (a rankset of n ranks): a
 * line each up to 8 ranks, beyond that ranks in the same state folded into
 * one line. malloc'd, or NULL. */
char *rstate_status_text(const rstate *all, int n, const rankset *target, int timings);

#endif
