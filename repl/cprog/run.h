/* rmalab run: a C MPI program on N ranks with its MPI calls intercepted
 * (docs/c.md). */
#ifndef RMALAB_REPL_CPROG_RUN_H
#define RMALAB_REPL_CPROG_RUN_H

/* argv[0] is "run". `self` is this executable's path (for the build
 * tree); option_values says how many values an mpiexec option takes
 * (main.c passes the launcher's). Returns the exit status to give: the
 * job's (mpiexec's; 128+N after signal N). */
int cprog_run_main(int argc, char **argv, const char *self, int (*option_values)(const char *));

#endif
