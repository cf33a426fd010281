/* The rank side of the REPL (rank.c, exec.c, locals.c): serving commands
 * from the front end, and script mode.
 *
 * The files of rank/, each calling only those on its line and above
 * (tests/layers.py, the repl-layers-rank test):
 *   locals.c stuck.c   REPL locals; a script's rank stuck in one call
 *   exec.c             a rank's Lua state
 *   rank.c             a rank: the control thread, the executor */
#ifndef RMALAB_REPL_RANK_H
#define RMALAB_REPL_RANK_H

/* Serve the front end at `connect` ("host:port") with `token` until QUIT,
 * then free what can be freed, close the Lua state and finalise MPI.
 * Initialises MPI (MPI_THREAD_MULTIPLE) unless it already is. Returns the
 * process's exit status. */
int rank_serve(const char *connect, const char *token);

/* Script mode: run `file` (or, when file is NULL, the chunk `code`) on this
 * rank, with the global `arg` built from argv[0..argc) as lua.c does
 * (arg[0] the script). Errors go to stderr as "[rank] error ..." with a
 * traceback. Returns the exit status (0 or 1). */
int rank_script(const char *file, const char *code, int argc, char **argv);

#endif
