/* One run of a C program under `rmalab test` (scenario-run.h,
 * docs/testing.md): mpiexec with the interceptor preloaded and the checker
 * on, as rmalab run starts it (cprog/run.h), the program's arguments after
 * it, its stdout and stderr into one file. While it runs, its ranks' state
 * files are read every 0.1 s (cprog/hang.h): a deadlock that holds for
 * HOLD seconds ends the job, each rank's line saying where it is blocked
 * and what for; so does the timeout. Then the job is ended as a whole
 * (launch_end: nothing is left behind). tap.c judges the rest from the
 * output and mpiexec's status: error: and race: lines, a rank that died. */
#include "scenario-run.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../cprog/hang.h"
#include "../cprog/run.h"
#include "../front/launch.h"
#include "../front/session.h"

#define HOLD 2.0

/* The command: the interceptor's prefix, -n N, mpiexec's options, the
 * file's environment as -genv, the program and its arguments. NULL when
 * the interceptor is missing (message on err). */
static char **command(const run_spec *s, const char *states, const char *prog, char *lib,
                      size_t size, char *nbuf)
{
    int nenv = 0;
    while (s->env && s->env[nenv])
        nenv++;
    char **av = calloc((size_t)(CPROG_RUN_PREFIX_MAX + 3 + s->mpiexec_argc + 3 * nenv + 2 +
                                s->nargs),
                       sizeof *av);
    int k = av ? cprog_run_prefix(av, s->self, 1, states, lib, size) : -1;
    if (k < 0) {
        free(av);
        return NULL;
    }
    snprintf(nbuf, 16, "%d", s->nranks);
    av[k++] = "-n", av[k++] = nbuf;
    for (int i = 0; i < s->mpiexec_argc; i++)
        av[k++] = s->mpiexec_argv[i];
    for (int i = 0; i < nenv; i++) { /* KEY=VALUE: split in place, copies */
        char *key = strdup(s->env[i]), *eq = key ? strchr(key, '=') : NULL;
        if (!eq)
            continue;
        *eq = '\0';
        av[k++] = "-genv", av[k++] = key, av[k++] = eq + 1;
    }
    av[k++] = (char *)prog;
    for (int i = 0; i < s->nargs; i++)
        av[k++] = s->args[i];
    return av;
}

/* mpiexec (av), stdin from /dev/null, stdout and stderr into out. It
 * stays in the runner's process group, so that Ctrl-C at the terminal
 * reaches it (Hydra then ends the ranks), and gets SIGTERM should the
 * run's process die. */
static pid_t spawn(char **av, FILE *out)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGINT, SIG_DFL); /* run_program ignores it; mpiexec must not */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        int in = open("/dev/null", O_RDONLY);
        if (in >= 0)
            dup2(in, 0);
        dup2(fileno(out), 1);
        dup2(fileno(out), 2);
        execvp(av[0], av);
        fprintf(stderr, "rmalab test: mpiexec: cannot run it\n");
        _exit(127);
    }
    return pid;
}

/* The ranks' lines and the deadlock's, when the runner stops the job. */
static void diagnose(run_result *res, hang_t *h)
{
    char rings[4096];
    hang_look(h, clock_now());
    for (int r = 0; r < h->n; r++)
        hang_note(h, r, res->r[r].state, sizeof res->r[r].state);
    hang_rings(h, rings, sizeof rings);
    res->hints = rings[0] ? strdup(rings) : NULL;
}

/* Until the job ends by itself, a deadlock holds for HOLD s, or the
 * timeout. */
static void watch(run_result *res, hang_t *h, launch_t *l, double start)
{
    const run_spec *s = res->spec;
    for (;;) {
        int st;
        if (waitpid(l->pid, &st, WNOHANG) == l->pid) {
            l->pid = 0;
            res->job_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            return;
        }
        double t = clock_now(), held = hang_look(h, t);
        if (held >= HOLD || t - start > s->timeout) {
            res->outcome = held >= HOLD ? RUN_DEADLOCK : RUN_TIMEOUT;
            diagnose(res, h);
            launch_end(l);
            return;
        }
        nanosleep(&(struct timespec){0, 100000000L}, NULL);
    }
}

void run_program(const run_spec *s, run_result *res)
{
    run_result_start(res, s);
    res->program = 1;
    res->job_status = -1;
    res->r = calloc((size_t)s->nranks, sizeof *res->r);
    FILE *out = tmpfile();
    char prog[PATH_MAX], lib[4400], nbuf[16];
    hang_t h;
    int opened = 0;
    char **av = NULL;
    launch_t l = {.pid = 0};
    /* Ctrl-C ends mpiexec, not this process: it then cleans up (the state
     * folder) as after any end of the job. */
    signal(SIGINT, SIG_IGN);
    if (res->r && out && realpath(s->path, prog) && (opened = hang_open(&h, s->nranks) == 0) &&
        (av = command(s, h.dir, prog, lib, sizeof lib, nbuf)) && (l.pid = spawn(av, out)) > 0) {
        double start = clock_now();
        watch(res, &h, &l, start);
        res->seconds = clock_now() - start;
    } else {
        res->outcome = RUN_NOSTART;
    }
    if (l.pid > 0)
        launch_end(&l);
    if (opened)
        hang_close(&h);
    res->errtext = run_file_tail(out, 64 * 1024);
    if (out)
        fclose(out);
    free(av); /* the -genv copies go with the run's process */
}
