/* `rmalab test` (runner.c, docs/testing.md): the scenario runner. */
#ifndef RMALAB_REPL_RUNNER_H
#define RMALAB_REPL_RUNNER_H

/* argv[0] is "test"; self is this executable. Returns the exit status:
 * 0 when every test point passed, 1 when any failed, 2 on a usage error. */
int runner_main(int argc, char **argv, const char *self);

#endif
