/* rmalab run: a C MPI program on N ranks with its MPI calls intercepted
 * (docs/c.md). */
#ifndef RMALAB_REPL_CPROG_RUN_H
#define RMALAB_REPL_CPROG_RUN_H

#include <stddef.h>

/* argv[0] is "run". `self` is this executable's path (for the build
 * tree); option_values says how many values an mpiexec option takes
 * (main.c passes the launcher's). Returns the exit status to give: the
 * job's (mpiexec's; 128+N after signal N). */
int cprog_run_main(int argc, char **argv, const char *self, int (*option_values)(const char *));

/* The start of the command that runs a program under the interceptor, into
 * av (room for CPROG_RUN_PREFIX_MAX): mpiexec, the interceptor preloaded
 * (its path in buf when found beside self), the checker's mode (on unless
 * check is 0 or RMALAB_CHECK says), and the folder of the ranks' state
 * files (hang.h) when `states` is not NULL. The count written, or -1 with
 * a message when there is no interceptor. mpiexec's options, the program
 * and its arguments follow. */
#define CPROG_RUN_PREFIX_MAX 12
int cprog_run_prefix(char **av, const char *self, int check, const char *states, char *buf,
                     size_t size);

#endif
