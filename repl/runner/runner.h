/* `rmalab test` (runner.c, docs/testing.md): the scenario runner.
 *
 * The files of runner/, each calling only those on its line and above
 * (tests/layers.py, the repl-layers-runner test):
 *   scenario.c              a file's header: rank counts, engines
 *   scenario-run.c tap.c    one run of a scenario; a run's result as TAP
 *   replay.c program.c      one replay of a transcript; one run of a C
 *                           program under the interceptor
 *   runner.c                rmalab test: plans, runs files in parallel */
#ifndef RMALAB_REPL_RUNNER_H
#define RMALAB_REPL_RUNNER_H

/* argv[0] is "test"; self is this executable. Returns the exit status:
 * 0 when every test point passed, 1 when any failed, 2 on a usage error. */
int runner_main(int argc, char **argv, const char *self);

#endif
