/* The front end of the REPL (front.c, term.c, launch.c, fold.c, hint.c,
 * cmdline.c): owns the terminal, launches the ranks, folds their output. */
#ifndef RMALAB_REPL_FRONT_H
#define RMALAB_REPL_FRONT_H

typedef struct {
    int nranks;
    int mpiexec_argc;        /* extra mpiexec options (-hosts a,b ...) */
    char **mpiexec_argv;
    const char *self;        /* this executable, for mpiexec to start */
    int launch;              /* 1: start mpiexec; 0: ranks are already there
                                (mpiexec -n N rmalab: rank 0 runs this in a
                                thread and hands it listen_fd) */
    int listen_fd;           /* -1: create one */
    const char *token;       /* NULL: make one */
    const char *exec_chunk;  /* -e: run this on all ranks, then quit */
    const char *record;      /* --record FILE: the transcript ("-": stdout,
                                instead of the usual output; pipe mode) */
} front_opts;

/* Run the session; returns the exit status. */
int front_run(const front_opts *o);

#endif
