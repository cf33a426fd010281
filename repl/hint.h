/* What the front end knows of each rank's state (hint.c, pure): the STATE
 * text of docs/repl.md parsed, the `:status` line of a rank, and the hints
 * for ranks blocked in an epoch call that only another rank can release. */
#ifndef RMALAB_REPL_HINT_H
#define RMALAB_REPL_HINT_H

#include <stddef.h>

#define HINT_MAX_WINS 16
#define HINT_MAX_RANKS 64

typedef struct {
    unsigned long long id;
    char access[16], exposure[16], blocked[32];
    int size;
    int acc[HINT_MAX_RANKS], nacc, posted[HINT_MAX_RANKS], npost;
    int exp[HINT_MAX_RANKS], nexp, arrived[HINT_MAX_RANKS], narr;
    char describe[512];
} hint_win;

typedef struct {
    int valid;
    char state[16];     /* idle, running, blocked */
    double seconds;
    char label[128], call[32];
    char test_case[128]; /* the rmalab.test case that runs, under `rmalab test` */
    int nwins;
    hint_win wins[HINT_MAX_WINS];
    int last_error;     /* set by the front end: its last command failed */
} hint_rank;

/* Parse a STATE text into *r (valid = 1). */
void hint_parse(const char *text, size_t len, hint_rank *r);
/* The `:status` line of rank `me` (without "rank N: "), durations left out
 * when `timings` is 0. */
void hint_status_line(const hint_rank *all, int n, int me, int timings, char *buf, size_t size);
/* The hint lines (each ending in \n) when every busy rank is blocked in a
 * call and none runs Lua; "" otherwise. */
void hint_deadlock(const hint_rank *all, int n, char *buf, size_t size);

#endif
