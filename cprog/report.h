/* report.c: what the interceptor tells the user, on stderr, in the form
 * compilers use so that editors jump to it:
 *   FILE:LINE: error: MPI_Put: <what rule, and the fix>
 *   FILE:LINE: warning: MPI_Win_allocate: <a hint diagnostic>
 *   FILE:LINE: race: <the access> ... <the other one at FILE:LINE> ...
 * (detail lines, indented, may follow a race). Errors and races are
 * counted: a process that found any ends with status 1 (an atexit handler
 * set up at MPI_Init), so the job's status is non-zero. */
#ifndef RMALAB_CPROG_REPORT_H
#define RMALAB_CPROG_REPORT_H

#include <stdbool.h>

/* At MPI_Init: the exit handler, and the core's warnings routed here. */
void run_report_start(void);

void run_error(const void *pc, const char *call, const char *msg);
void run_warning(const void *pc, const char *call, const char *msg);
/* A note (not counted): `text` follows "SITE: note: CALL: ". */
void run_note(const void *pc, const char *call, const char *text);
/* A race the interceptor found itself (the access bridge): `text` follows
 * "SITE: race: ". Counted. */
void run_race(const char *site, const char *text);
/* Print the races the core found since the last poll, once each. */
void run_races_poll(void);

/* Errors and races so far in this process. */
bool run_found(void);

/* End the job now, after a fatal error: stdio flushed, every rank ended
 * (none is left waiting for this one). */
_Noreturn void run_fatal(void);

#endif
