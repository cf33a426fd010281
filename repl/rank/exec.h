/* The Lua side of a rank (exec.c): one Lua state with the rmalab module
 * preloaded, that runs REPL chunks (results formatted, output captured,
 * top-level locals kept) or a script. */
#ifndef RMALAB_REPL_EXEC_H
#define RMALAB_REPL_EXEC_H

#include <stddef.h>

typedef struct exec exec;

/* Where print and io.write go during a REPL chunk. */
typedef void (*exec_out_fn)(void *ud, const char *text, size_t len);

/* A Lua state with the standard libraries and the global `rmalab` (the
 * module; require "rmalab" returns it). In REPL mode print and io.write are
 * captured and os.exit raises an error. NULL when out of memory or when
 * the module cannot load (the reason on stderr). */
exec *exec_new(int repl);
/* lua_close: the module's exit path frees leaked windows when it can. */
void exec_free(exec *x);

enum { EXEC_OK, EXEC_ERROR, EXEC_INTERRUPTED };


/* From any thread: make the running chunk raise "interrupted" at its next
 * Lua instruction (as lua.c's laction does from a signal handler). */
void exec_interrupt(exec *x);

/* Names that complete `prefix` (a global, t.field or obj:method), as a
 * malloc'd list of n malloc'd strings. */
int exec_complete(exec *x, const char *prefix, char ***names, int *n);

/* What rmalab.test reports while a scenario runs (lua/ltest.c): kind
 * "case" (name) or "end" (name, verdict "pass"/"fail"/"skip", detail). */
typedef void (*exec_event_fn)(void *ud, const char *kind, const char *name, const char *verdict,
                              const char *detail);

/* Run one complete chunk, named `name` in messages and tracebacks
 * ("stdin", or "cell" for a notebook's), tried as `return <chunk>` first. The results
 * (formatted, tab-separated) or the error message go to *text (malloc'd);
 * cls gets the rmalab error class ("ERR_RMA_SYNC") or "" for a plain Lua
 * error. A picture the chunk shows (the REPL helpers' display, as
 * :timeline does under --json) goes to ev as kind "display" (name: the
 * MIME type, detail: the data). Returns EXEC_*. */
int exec_chunk(exec *x, const char *name, const char *chunk, size_t len, exec_out_fn out,
               exec_event_fn ev, void *ud, char **text, char *cls, size_t clssize);

/* Run the scenario `path` in the REPL's state, as `rmalab test` asks: print
 * and io.write go to `out`, rmalab.test's events to `ev`. On an error,
 * *text gets the message with a traceback and cls the rmalab class.
 * Returns EXEC_*. */
int exec_file(exec *x, const char *path, exec_out_fn out, exec_event_fn ev, void *ud, char **text,
              char *cls, size_t clssize);

/* The rank that found the race behind the last chunk's, scenario's or
 * script's error (its err.finder: every rank raises it, and that rank's
 * message is the report), or -1. */
int exec_error_finder(const exec *x);

/* Whether this rank's passive-target calls have their targets hurried
 * (rank.c): yes, unless a chunk turned it off with the REPL helpers'
 * hurry(false), as a test does to compare. */
int exec_hurries(const exec *x);

/* Script mode: run a file (or a chunk when file is NULL) with `arg` from
 * argv; errors go to stderr with the rank and a traceback. Returns 0 or 1. */
int exec_script(exec *x, const char *file, const char *code, int argc, char **argv, int rank);

#endif
