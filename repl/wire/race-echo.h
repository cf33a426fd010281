/* A race report echoed by the ranks that did not find the race. In races
 * mode every rank of the window raises ERR_RMA_CONFLICT at the call that
 * noticed it (core/src/races-report.c): the finder with its report, the
 * others with "CALL: rank F found a race on this window:" and the same
 * report. Shown per rank, the report came once per rank (three times on
 * 3 ranks); where the finder's report is shown too (the REPL's command
 * blocks, script mode's stderr), the others say only their first line.
 * Header-only: the front end and the rank both read it. */
#ifndef RMALAB_REPL_RACE_ECHO_H
#define RMALAB_REPL_RACE_ECHO_H

#include <stdio.h>
#include <string.h>

#define RACE_ECHO " found a race on this window:\n"

/* In text, an echo's header: its length up to the ':' before the report
 * (*finder: the rank that found it), or 0 when text is no echo. */
static inline size_t race_echo_cut(const char *text, int *finder)
{
    const char *at = strstr(text, RACE_ECHO), *r = at;
    if (!at || !strstr(text, "ERR_RMA_CONFLICT"))
        return 0;
    while (r > text && r[-1] >= '0' && r[-1] <= '9')
        r--;
    if (r == at || r - text < 6 || memcmp(r - 5, "rank ", 5) != 0 ||
        sscanf(r, "%d", finder) != 1)
        return 0;
    return (size_t)(at - text) + strlen(RACE_ECHO) - 2;
}

#endif
