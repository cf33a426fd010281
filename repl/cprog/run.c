/* rmalab run (run.h): mpiexec with librmalab-run.so preloaded into the
 * ranks (-genv LD_PRELOAD: the ranks only, not mpiexec and its proxies)
 * and the race checker on (-genv RMALAB_CHECK races:quiet, unless the
 * environment or --no-check says otherwise).
 *
 * mpiexec is a child in rmalab's process group: Hydra's own handling of
 * Ctrl-C, MPI_Abort, a crash or a kill ends every rank. rmalab passes on
 * SIGINT, SIGTERM and SIGHUP to it, and it gets SIGTERM should rmalab
 * die. The exit status is mpiexec's, but 128+N after signal N even when
 * Hydra says 0 (it does when the signal comes while it starts the ranks).
 *
 * While the job runs, rmalab watches its ranks' state files (hang.h): a
 * rank blocked in one call for RMALAB_STUCK seconds (default 10; 0: never)
 * gets a note at its line saying what it waits for across ranks, and a
 * deadlock, once it holds, one line naming the ranks that wait for each
 * other. With --trace FILE the ranks record their windows' epochs and the
 * set becomes FILE once mpiexec ends (trace.h). */
#include "run.h"

#include "hang.h"
#include "../front/session.h"
#include "trace.h"
#include "../wire/cli.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
    "Usage: rmalab run [-n N] [--no-check] [--trace FILE] [mpiexec options] PROGRAM\n"
    "                  [ARGS...]\n"
    "Run a C MPI program (a plain mpicc binary; -g for FILE:LINE in reports) on N\n"
    "ranks with its MPI calls checked by rmalab: epoch errors, hint diagnostics and\n"
    "races come as FILE:LINE: error:, warning: and race: lines on stderr, and the\n"
    "exit status is non-zero when any error or race was found (docs/c.md).\n"
    "\n"
    "  -n, -np N         number of ranks (mpiexec's option)\n"
    "      --no-check    do not check for races (RMALAB_CHECK=off); epoch rules\n"
    "                    and hints are still checked\n"
    "      --trace FILE  record every window's epochs and write them at the end:\n"
    "                    FILE.json a Perfetto trace (ui.perfetto.dev), FILE.svg a\n"
    "                    picture, a lane per rank, each call labelled MPI_...\n"
    "                    (as rmalab --trace draws Lua scripts); no trace when a\n"
    "                    rank ends before MPI_Finalize\n"
    "  -h, --help        display this help and exit\n"
    "Other options before PROGRAM go to mpiexec. A rank blocked in one call for\n"
    "RMALAB_STUCK seconds (default 10; 0: never) is named at its FILE:LINE with\n"
    "what it waits for across ranks, and a deadlock in one line. RMALAB_PSCW=native\n"
    "selects MPICH's own PSCW instead of rmalab's rma engine; RMALAB_RUN_LIBRARY\n"
    "names the interceptor to preload instead of the installed one.\n";

/* The interceptor: RMALAB_RUN_LIBRARY, else the build tree's for an
 * executable in the build tree, else the one beside this executable's
 * prefix (bin/../LIBDIR: an install moved or under a DESTDIR), else the
 * configured prefix's. */
static const char *library(const char *self, char *buf, size_t size)
{
    const char *env = getenv("RMALAB_RUN_LIBRARY");
    if (env && *env)
        return env;
    const char *build = RMALAB_BUILD_ROOT "/";
    if (strncmp(self, build, strlen(build)) == 0)
        return RMALAB_BUILD_ROOT "/cprog/librmalab-run.so";
    const char *slash = strrchr(self, '/');
    if (slash && snprintf(buf, size, "%.*s/../%s/librmalab-run.so", (int)(slash - self), self,
                          RMALAB_RUN_LIBDIR) < (int)size && access(buf, R_OK) == 0)
        return buf;
    return RMALAB_RUN_LIB;
}

/* The signal handler's (it has no context): mpiexec's pid, and the signal
 * that came. */
static volatile sig_atomic_t child;
static volatile sig_atomic_t got;

static void pass_on(int sig)
{
    got = sig;
    if (child > 0)
        kill(child, sig);
}

/* Each rank blocked for `after` seconds: its note, once per call (began[r]:
 * when the call noted last began); then the deadlock, once. */
static void say_stuck(hang_t *h, double after, double *began, char *told, size_t size)
{
    double t = clock_now(), held = hang_look(h, t);
    int all = 1;
    for (int r = 0; r < h->n; r++) {
        const rstate *s = &h->st[r];
        int blocked = s->valid && strcmp(s->state, "blocked") == 0;
        if (!blocked || s->seconds < after) {
            all &= !blocked;
            continue;
        }
        double b = t - s->seconds;
        if (began[r] >= 0 && b - began[r] < 1.0 && b - began[r] > -1.0)
            continue;
        char line[3000];
        began[r] = b;
        hang_note(h, r, line, sizeof line);
        fprintf(stderr, "%s\n", line);
    }
    char rings[4096];
    hang_rings(h, rings, sizeof rings);
    if (held < 0 || !all || !rings[0] || strcmp(rings, told) == 0)
        return;
    snprintf(told, size, "%s", rings);
    for (char *p = rings, *nl = NULL; *p; p = nl ? nl + 1 : p + strlen(p)) {
        if ((nl = strchr(p, '\n')))
            *nl = '\0';
        fprintf(stderr, "rmalab run: %s; the job cannot go on: Ctrl-C ends it\n", p);
    }
}

/* Wait for mpiexec (pid) to exit, watching its ranks (h: NULL for none). */
static int wait_job(pid_t pid, hang_t *h)
{
    const char *env = getenv("RMALAB_STUCK");
    double after = env && *env ? strtod(env, NULL) : 10.0;
    double *began = h ? calloc((size_t)h->n, sizeof *began) : NULL;
    char told[4096] = "";
    for (int r = 0; began && r < h->n; r++)
        began[r] = -1;
    int st = 0;
    for (;;) {
        pid_t p = waitpid(pid, &st, began ? WNOHANG : 0);
        if (p == pid || (p < 0 && errno != EINTR))
            break;
        if (p == 0) {
            say_stuck(h, after, began, told, sizeof told);
            nanosleep(&(struct timespec){0, 250000000L}, NULL);
        }
    }
    free(began);
    return st;
}

/* Run mpiexec (av) to its end, watching its ranks' states in h (or
 * NULL); its exit status, as a shell gives it. */
static int run_job(char **av, hang_t *h)
{
    struct sigaction sa = {.sa_handler = pass_on};
    sigemptyset(&sa.sa_mask);
    int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaction(sigs[i], &sa, NULL);
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        execvp(av[0], av);
        fprintf(stderr, "rmalab run: mpiexec: %s\n", strerror(errno));
        _exit(127);
    }
    if (pid < 0) {
        fprintf(stderr, "rmalab run: fork: %s\n", strerror(errno));
        return 1;
    }
    child = pid;
    int st = wait_job(pid, h);
    int rc = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
    return rc == 0 && got ? 128 + got : rc;
}

/* Can PROGRAM be run, as a shell would find it? Else its message, and
 * the shell's status (127 not found, 126 not executable), before mpiexec
 * says it once per rank in its own words. */
static int runnable(const char *prog)
{
    struct stat st;
    if (!strchr(prog, '/')) {
        const char *path = getenv("PATH");
        char buf[4096];
        for (const char *p = path ? path : ""; *p;) {
            size_t n = strcspn(p, ":");
            if (snprintf(buf, sizeof buf, "%.*s/%s", (int)n, n ? p : ".", prog) <
                    (int)sizeof buf && stat(buf, &st) == 0 && S_ISREG(st.st_mode) &&
                access(buf, X_OK) == 0)
                return 0;
            p += n + (p[n] == ':');
        }
        fprintf(stderr, "rmalab run: %s: command not found\n", prog);
        return 127;
    }
    if (stat(prog, &st) != 0) {
        fprintf(stderr, "rmalab run: %s: %s\n", prog, strerror(errno));
        return 127;
    }
    if (S_ISDIR(st.st_mode) || access(prog, X_OK) != 0) {
        fprintf(stderr, "rmalab run: %s: %s\n", prog,
                S_ISDIR(st.st_mode) ? "Is a directory" : strerror(errno));
        return 126;
    }
    return 0;
}

/* rmalab run's own options, and where PROGRAM is in argv (from 1). */
typedef struct {
    int check;
    int n;              /* the ranks -n or -np asks for; 0: neither */
    const char *trace;  /* --trace FILE */
    int at;             /* PROGRAM; -1 when absent */
    char *own;          /* argv[i] is rmalab's (not passed to mpiexec) */
} run_opts;

/* The options before PROGRAM: rmalab's own marked, mpiexec's skipped with
 * their values. -1 (said) for --trace without a file. */
static int parse(int argc, char **argv, int (*option_values)(const char *), run_opts *o)
{
    o->at = -1;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-') {
            o->at = i;
            break;
        }
        if (strcmp(argv[i], "--") == 0) { /* rmalab's: Hydra refuses "--" */
            o->own[i] = 1;
            o->at = i + 1 < argc ? i + 1 : -1;
            break;
        }
        if ((strcmp(argv[i], "-n") == 0 || strcmp(argv[i], "-np") == 0) && i + 1 < argc)
            o->n = atoi(argv[i + 1]);
        if (strcmp(argv[i], "--no-check") == 0) {
            o->check = 0;
            o->own[i] = 1;
        } else if (strncmp(argv[i], "--trace=", 8) == 0) {
            o->trace = argv[i] + 8;
            o->own[i] = 1;
        } else if (strcmp(argv[i], "--trace") == 0) {
            if (i + 1 >= argc)
                return cli_usage_error("rmalab run", "--trace needs a FILE (.json or .svg)"),
                       -1;
            o->trace = argv[i + 1];
            o->own[i] = o->own[i + 1] = 1;
            i++;
        } else {
            i += option_values(argv[i]);
        }
    }
    return 0;
}

int cprog_run_prefix(char **av, const char *self, int check, const char *states, char *buf,
                     size_t size)
{
    const char *lib = library(self, buf, size);
    if (access(lib, R_OK) != 0) {
        fprintf(stderr, "rmalab: the interceptor %s: %s\n", lib, strerror(errno));
        return -1;
    }
    const char *mode = getenv("RMALAB_CHECK");
    mode = !check ? "off" : mode && *mode ? mode : "races:quiet";
    int k = 0;
    av[k++] = "mpiexec";
    av[k++] = "-genv", av[k++] = "LD_PRELOAD", av[k++] = (char *)lib;
    av[k++] = "-genv", av[k++] = "RMALAB_CHECK", av[k++] = (char *)mode;
    if (states)
        av[k++] = "-genv", av[k++] = HANG_DIR_ENV, av[k++] = (char *)states;
    return k;
}

/* The job, watched and traced as asked; its status. */
static int job(int argc, char **argv, const char *self, const run_opts *o)
{
    if (o->at < 0)
        return cli_usage_error("rmalab run", "no program to run");
    int bad = runnable(argv[o->at]);
    if (bad)
        return bad;
    cprog_trace t = {0};
    if (o->trace && cprog_trace_open(&t, o->trace))
        return 2;
    const char *stuck = getenv("RMALAB_STUCK");
    hang_t h;
    int watch = o->n > 0 && !(stuck && *stuck && strtod(stuck, NULL) <= 0) &&
                hang_open(&h, o->n) == 0;
    char beside[4400];
    char **av = calloc((size_t)argc + CPROG_RUN_PREFIX_MAX + 3, sizeof *av);
    int k = av ? cprog_run_prefix(av, self, o->check, watch ? h.dir : NULL, beside,
                                  sizeof beside)
               : -1;
    int rc = 1;
    if (k >= 0) {
        if (o->trace)
            av[k++] = "-genv", av[k++] = "RMALAB_RUN_TRACE", av[k++] = (char *)t.set;
        for (int i = 1; i < argc; i++)
            if (i >= o->at || !o->own[i])
                av[k++] = argv[i];
        rc = run_job(av, watch ? &h : NULL);
    }
    if (watch)
        hang_close(&h);
    free(av);
    return o->trace ? cprog_trace_close(&t, rc) : rc;
}

int cprog_run_main(int argc, char **argv, const char *self, int (*option_values)(const char *))
{
    for (int i = 1; i < argc && argv[i][0] == '-'; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(usage, stdout);
            return cli_stdout_done("rmalab run");
        }
    run_opts o = {.check = 1, .own = calloc((size_t)argc + 1, 1)};
    if (!o.own || parse(argc, argv, option_values, &o) < 0) {
        free(o.own);
        return 2;
    }
    int rc = job(argc, argv, self, &o);
    free(o.own);
    return rc;
}
