/* rmalab run --trace FILE: the front's half (trace.c). The interceptor
 * (cprog/trace.c) writes the gathered set on rank 0 at MPI_Finalize, as a
 * Lua table, into a file this half names; after mpiexec ends, it becomes
 * FILE, in the format FILE's extension names, by the Lua module's writers
 * (rmalab_lua_trace_writers): the ones `rmalab --trace` and rl.trace use. */
#ifndef RMALAB_REPL_CPROG_TRACE_H
#define RMALAB_REPL_CPROG_TRACE_H

#include <stddef.h>

typedef struct {
    const char *out;   /* FILE */
    const char *fn;    /* the writer: "chrome" (.json) or "svg_text" (.svg) */
    char dir[4096];    /* the temporary folder, and the set's file in it */
    char set[4200];
} cprog_trace;

/* Checks FILE's extension and makes the temporary folder beside FILE.
 * Prints why not and returns -1 (before the job starts). */
int cprog_trace_open(cprog_trace *t, const char *out);
/* After the job (status rc): FILE written from the set, or a message that
 * no trace was written; the temporary folder removed. Returns the status
 * to give: rc, or 1 for a job that ended well without a trace. */
int cprog_trace_close(cprog_trace *t, int rc);

#endif
