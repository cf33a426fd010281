/* One run of `rmalab test`: a scenario file on N ranks with one engine
 * (scenario-run.c), the replay of a transcript (replay.c), or a C program
 * (program.c), and what came of it; tap.c turns the result into TAP. */
#ifndef RMALAB_REPL_SCENARIO_RUN_H
#define RMALAB_REPL_SCENARIO_RUN_H

#include <stddef.h>
#include <stdio.h>

#include "../wire/strbuf.h"

typedef struct {
    const char *path;       /* the file as given on the command line */
    int nranks;
    const char *engine;     /* NULL: the environment's (RMALAB_PSCW) */
    double timeout;
    char **env;             /* "KEY=VALUE" for the ranks, NULL-terminated */
    int mpiexec_argc;
    char **mpiexec_argv;
    const char *self;       /* this executable */
    int update;             /* transcripts: rewrite the file from the replay */
    int program;            /* a C program (program.c), not a scenario */
    char **args;            /* the program's arguments, nargs of them */
    int nargs;
} run_spec;

typedef struct {
    char *name, *verdict, *detail;
} run_case;

typedef struct {
    run_case *cases;        /* ended cases, in order */
    int ncases, cap;
    char current[128];      /* a case that started and did not end */
    int done, failed;       /* the file returned (failed: with an error) */
    char *error;
    int gone;               /* the connection closed before the end: 1 for
                               the first rank to go, 2 the next... */
    char crash[200];        /* how the process ended, from mpiexec's report,
                               or from the rank itself before MPI_Abort */
    int aborted;            /* it called MPI_Abort (comm:abort) */
    char exited[200];       /* the same, when it ended badly after the file had
                               ended (a sanitizer's report at exit, say) */
    strbuf out;             /* what it printed (its first 64 KiB) */
    long leaks[5];          /* wins, infos, comms, keyvals, refs */
    int leaks_known;
    char state[700];        /* at a hang: its state, as :status says it */
} run_rank;

enum { RUN_FINISHED, RUN_TIMEOUT, RUN_DEADLOCK, RUN_CRASH, RUN_NOSTART };

typedef struct {
    const run_spec *spec;
    char label[64];         /* "2 ranks" or "2 ranks, native" */
    int outcome;
    double seconds;         /* how long it ran */
    run_rank *r;            /* spec->nranks of them */
    char *hints;            /* at a hang: the deadlock hints */
    char *errtext;          /* mpiexec's stdout and stderr (the tail) */
    int job_status;         /* mpiexec's exit status after a clean end, or -1 */
    int transcript;         /* a replay: */
    char *diff;             /*   the differences, or NULL when none */
    int updated;            /*   the file was rewritten (--update) */
    int program;            /* a C program: errtext is its whole output (the
                               last 64 KiB), r[].state its ranks' lines and
                               hints the deadlock's at a hang */
} run_result;

void run_scenario(const run_spec *s, run_result *res);
/* replay.c: replay a transcript (rmalab -n N --record -) and compare. */
void run_transcript(const run_spec *s, run_result *res);
/* program.c: run a C program under the interceptor, its hangs named. */
void run_program(const run_spec *s, run_result *res);
void run_result_free(run_result *res);
/* An empty result of a run of s, its label set ("2 ranks, native"). */
void run_result_start(run_result *res, const run_spec *s);
/* The last `tail` bytes of a file, from its start (malloc'd), or NULL. */
char *run_file_tail(FILE *f, size_t tail);

/* tap.c: the result as TAP test points, not numbered ("ok - ...", "not ok
 * - ...", YAML diagnostics indented by two spaces); the runner numbers
 * them. */
void tap_write(FILE *out, const run_result *res);

#endif
