/* Private to the core: the calls of races-report.c, the race checker's
 * reports and the call sites they name (docs/races.md). The checker's
 * files alone include it. Never installed. */
#ifndef RMALAB_RACES_REPORT_H
#define RMALAB_RACES_REPORT_H

#include "races-private.h"

/* The call's site (rmalab_check_site), or `fallback`; clears it. */
void rmalab__races_report_site(char *buf, size_t size, const char *fallback);
/* The same, keeping the site for the next record (an operation's blocks). */
void rmalab__races_report_site_keep(char *buf, size_t size, const char *fallback);
/* Report each race of `pairs` (two records each, as races.c's checks
 * return them; `at`: the call that found them; NULL: each pair's second
 * record, the access checked), and empty it; a new one joins R->found
 * too. */
void rmalab__races_report(struct rmalab__races *R, struct rmalab__rlist *pairs, const char *at);
/* "wait() at x.lua:31": `call` and the site the caller named, for reports. */
void rmalab__races_report_where(char *buf, size_t size, const char *call);
/* What this rank found during `call` (rc: the call's own status, returned
 * first): raised (mode races), warned of or kept. */
int rmalab__races_report_finish(struct rmalab__races *R, const char *call, int rc);
/* Collective: the lowest rank that found a race tells the others, so that
 * in mode races every rank raises at the same fence or free. `S` holds
 * this rank's release clock and gets the join; NULL: no clock. */
int rmalab__races_report_finish_together(struct rmalab__races *R, int64_t *S, const char *call);

#endif
