/* watch.c: the access bridge (access-hooks.h). When the program was built
 * with `rmalab cc`, its access runtime attaches at its first access; from
 * then on the interceptor publishes the watched memory (this process's
 * windows, the caller buffers of RMA operations not yet done) and judges
 * the loads and stores that reach it. Without the runtime every call here
 * returns at once. */
#ifndef RMALAB_CPROG_WATCH_H
#define RMALAB_CPROG_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "handles.h"

/* A window was made or freed (its operations are then forgotten). */
void run_watch_windows(void);
void run_watch_forget(run_win *s);
/* An operation on s to target (its ticket) reads `len` bytes at buf
 * (result false: a put's origin) or writes them (true: a get's result)
 * until it is done: a call of s completed it, or (rq, the number of its
 * request; 0: none) the program's wait returned its request
 * (run_watch_waited). `call` and pc name it in reports. */
void run_watch_op(run_win *s, int target, uint64_t ticket, uint64_t rq, const void *buf,
                  size_t len, bool result, const void *pc, const char *call);
/* The same for each of the n spans of buf (an MPI datatype's bytes:
 * dtype.h), so that what lies between them stays the program's. */
void run_watch_spans(run_win *s, int target, uint64_t ticket, uint64_t rq, const void *buf,
                     const rmalab_span *sp, int n, bool result, const void *pc,
                     const char *call);
/* The request numbered rq completed, in a call of this thread: its
 * operation's buffers are free (for the other threads of a process that
 * has more than one, once an OpenMP construct orders this call before what
 * they do: threads.h). */
void run_watch_waited(uint64_t rq);
/* A call of this thread on s may have completed operations: drop those
 * done, as above. */
void run_watch_sync(run_win *s);
/* Hand the loads and stores of window memory gathered since the last call
 * to the checker: before every MPI call on a window and every barrier. */
void run_watch_flush(void);
/* MPI_Finalize: nothing is watched any more. */
void run_watch_end(void);

#endif
