/* The scenario runner (runner.h): finds the scenario files (*.lua) and
 * transcripts (*.rlab) under the paths given, plans one run per rank count
 * and engine that each file's header names, runs them (in parallel with
 * -j, as far as the cores allow), each in a process of its own, and prints
 * their TAP in the order of the plan, numbered, with the totals last. */
#include "runner.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../wire/cli.h"
#include "../front/launch.h"
#include "scenario-run.h"
#include "scenario.h"

static const char usage[] =
    "Usage: rmalab test [OPTIONS] [mpiexec options] [--] FILE_OR_FOLDER...\n"
    "       rmalab test [OPTIONS] [mpiexec options] ./PROGRAM [ARGS...] ...\n"
    "Run rmalab scenarios (*.lua, with rmalab.test) and transcripts (*.rlab) under\n"
    "mpiexec, and print TAP version 13. A scenario's header (its first 10 lines)\n"
    "says how to run it: -- ranks: 2 3, -- engines: native rma, -- timeout: 30,\n"
    "-- env: KEY=VALUE. Options that mpiexec takes are passed to it.\n"
    "An executable file among them is a C MPI program, run as rmalab run runs it\n"
    "(2 ranks unless --ranks says), the words after it that are no test as its\n"
    "arguments: ok when it exits with 0 and reports no error or race; when its\n"
    "ranks deadlock the job is ended within seconds and the verdict names each\n"
    "rank's call at its FILE:LINE and what it waits for (docs/c.md).\n"
    "\n"
    "  -j N            run up to N files at once, as far as the cores allow\n"
    "      --engine E  run only engine E of files that name engines\n"
    "      --ranks N,M only these rank counts of each file's (a file that names\n"
    "                  none of them is not run; one with no ranks: line runs\n"
    "                  on them, instead of 2)\n"
    "      --timeout S every file's timeout, in seconds (instead of its header's)\n"
    "      --update    rewrite transcripts whose replay printed something else\n"
    "  -h, --help      display this help and exit\n"
    "      --version   output version information and exit\n"
    "\n"
    "The last line is \"N passed, N failed\". Exit status: 0 when every test point\n"
    "passed, 1 when any failed or there was nothing to run, 2 for a usage error.\n"
    "Documentation: man rmalab, and docs/testing.md in the source tree.\n";

typedef struct {
    int jobs, update, mpiexec_argc;
    int counts[8], ncounts;      /* --ranks; none: every count */
    double timeout;
    const char *engine, *self;
    char **mpiexec_argv;
    char **paths;
    int npaths;
    int *nargs;          /* a C program's: how many words after it are its
                            arguments, and where they are (in argv) */
    char ***args;
} options;

typedef struct {
    run_spec spec;
    char *env[SC_MAX_ENV + 2];
    char engine_env[64];
    int transcript;
    char *bad_header;    /* the file cannot run: why */
    pid_t pid;
    FILE *tap;           /* what the run's process wrote */
    int finished;
} planned;

/* --ranks 2,3: positive counts, at most 8. */
static int parse_counts(const char *s, options *o)
{
    o->ncounts = 0;
    for (const char *p = s; *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > 4096 || o->ncounts == 8 || (*end && *end != ','))
            return -1;
        o->counts[o->ncounts++] = (int)v;
        p = *end ? end + 1 : end;
    }
    return o->ncounts ? 0 : -1;
}

static int count_wanted(const options *o, int n)
{
    for (int i = 0; i < o->ncounts; i++)
        if (o->counts[i] == n)
            return 1;
    return o->ncounts == 0;
}

#define PROG "rmalab test"

/* A whole number in [lo, hi], all of s. */
static int whole(const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n > k && strcmp(s + n - k, tail) == 0;
}

/* A C program: an executable file that is not a scenario or transcript. */
static int is_program(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0 &&
           !ends_with(path, ".lua") && !ends_with(path, ".rlab");
}

/* Something to run: a folder, a scenario, a transcript, a program. */
static int is_test(const char *path)
{
    struct stat st;
    return ends_with(path, ".lua") || ends_with(path, ".rlab") ||
           (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) || is_program(path);
}

/* An option of the runner's own that takes a value v (NULL: none left). 0,
 * or 2 after a usage error's message. */
static int value_option(options *o, const char *a, const char *v)
{
    if (!v)
        return cli_usage_error(PROG, "option '%s' needs a value", a);
    if (strcmp(a, "-j") == 0) {
        if (whole(v, 1, 4096, &o->jobs))
            return cli_usage_error(PROG, "-j takes how many files may run at once, 1 or more "
                                         "(got '%s')", v);
    } else if (strcmp(a, "--engine") == 0) {
        o->engine = v;
    } else if (strcmp(a, "--ranks") == 0) {
        if (parse_counts(v, o))
            return cli_usage_error(PROG, "--ranks takes up to 8 rank counts from 1 to 4096, "
                                         "separated by commas (got '%s')", v);
    } else {
        char *end;
        o->timeout = strtod(v, &end);
        if (end == v || *end || !(o->timeout > 0 && o->timeout <= 86400))
            return cli_usage_error(PROG, "--timeout takes seconds, more than 0 (got '%s')", v);
    }
    return 0;
}

/* -1 to go on and run, else the exit status: 0 after --help or --version,
 * 2 after a usage error's message. */
static int parse_args(int argc, char **argv, options *o)
{
    static const char *const valued[] = {"-j", "--engine", "--ranks", "--timeout"};
    memset(o, 0, sizeof *o);
    o->jobs = 1;
    o->mpiexec_argv = calloc((size_t)argc + 1, sizeof *o->mpiexec_argv);
    o->paths = calloc((size_t)argc + 1, sizeof *o->paths);
    o->nargs = calloc((size_t)argc + 1, sizeof *o->nargs);
    o->args = calloc((size_t)argc + 1, sizeof *o->args);
    if (!o->mpiexec_argv || !o->paths || !o->nargs || !o->args)
        return 1;
    for (int i = 1, rest = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int mine = 0;
        for (size_t k = 0; k < sizeof valued / sizeof *valued; k++)
            mine |= strcmp(a, valued[k]) == 0;
        if (rest || a[0] != '-') {
            o->paths[o->npaths] = argv[i];
            o->args[o->npaths] = argv + i + 1;
            /* a program's arguments: the words after it that are no test */
            while (is_program(a) && i + 1 < argc && (rest || argv[i + 1][0] != '-') &&
                   !is_test(argv[i + 1]))
                o->nargs[o->npaths]++, i++;
            o->npaths++;
        } else if (strcmp(a, "--") == 0) {
            rest = 1;
        } else if (mine) {
            if (value_option(o, a, v))
                return 2;
            i++;
        } else if (strcmp(a, "--update") == 0) {
            o->update = 1;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            return cli_stdout_done(PROG);
        } else if (strcmp(a, "--version") == 0) {
            return cli_version(PROG);
        } else { /* mpiexec's (launch_option_values): passed on with its values */
            int nv = launch_option_values(a);
            if (i + nv >= argc)
                return cli_usage_error(PROG, "option '%s' needs %s (options that rmalab test "
                                       "does not know go to mpiexec)", a,
                                       nv == 2 ? "two values" : "a value");
            for (int k = 0; k <= nv; k++)
                o->mpiexec_argv[o->mpiexec_argc++] = argv[i + k];
            i += nv;
        }
    }
    return o->npaths ? -1 : cli_usage_error(PROG, "no FILE_OR_FOLDER to run");
}

/* ------------------------------------------------------------------------ */
/* Finding the files                                                        */

typedef struct {
    char **v;
    int n, cap;
} list;

static void add(list *l, const char *s)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        char **v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v)
            return;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = strdup(s);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files under `path`, in name order, folders recursively. */
static void find(list *l, const char *path, int top)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (top)
            add(l, path); /* reported as a file that cannot be read */
        return;
    }
    if (!S_ISDIR(st.st_mode)) {
        if (top || ends_with(path, ".lua") || ends_with(path, ".rlab"))
            add(l, path);
        return;
    }
    DIR *d = opendir(path);
    list here = {0};
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char sub[4096];
        snprintf(sub, sizeof sub, "%s%s%s", path, ends_with(path, "/") ? "" : "/", e->d_name);
        add(&here, sub);
    }
    if (d)
        closedir(d);
    if (here.n)
        qsort(here.v, (size_t)here.n, sizeof *here.v, by_name);
    for (int i = 0; i < here.n; i++) {
        find(l, here.v[i], 0);
        free(here.v[i]);
    }
    free(here.v);
}

/* ------------------------------------------------------------------------ */
/* The plan                                                                 */

static planned *plan_one(planned **runs, int *n, int *cap)
{
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 64;
        planned *p = realloc(*runs, (size_t)c * sizeof *p);
        if (!p)
            return NULL;
        *runs = p;
        *cap = c;
    }
    planned *p = &(*runs)[(*n)++];
    memset(p, 0, sizeof *p);
    return p;
}

static char *header_of(const char *path, scenario *sc, char *why, size_t size)
{
    FILE *f = fopen(path, "rb");
    char text[8192];
    size_t len = f ? fread(text, 1, sizeof text, f) : 0;
    if (!f) {
        memset(sc, 0, sizeof *sc); /* plan_file reads its counts and engines */
        snprintf(why, size, "cannot read the file: %s", strerror(errno));
        return why;
    }
    fclose(f);
    if (scenario_parse(text, len, sc)) {
        snprintf(why, size, "a bad header: %s", sc->err);
        return why;
    }
    return NULL;
}

/* One run per rank count and engine. */
static void plan_file(const options *o, const char *path, planned **runs, int *n, int *cap)
{
    scenario sc;
    char why[300];
    int bad = header_of(path, &sc, why, sizeof why) != NULL;
    int transcript = ends_with(path, ".rlab");
    int nengines = sc.nengines && !transcript ? sc.nengines : 1;
    if (!bad && !sc.counts_given && o->ncounts) { /* --ranks, for a file that names none */
        for (sc.ncounts = 0; sc.ncounts < o->ncounts && sc.ncounts < SC_MAX_COUNTS; sc.ncounts++)
            sc.counts[sc.ncounts] = o->counts[sc.ncounts];
    }
    for (int c = 0; c < (bad ? 1 : sc.ncounts); c++) {
        if (!bad && !count_wanted(o, sc.counts[c]))
            continue;
        for (int e = 0; e < nengines; e++) {
            const char *engine = sc.nengines ? sc.engines[e] : NULL;
            if (o->engine && engine && strcmp(engine, o->engine) != 0)
                continue;
            planned *p = plan_one(runs, n, cap);
            if (!p)
                return;
            p->bad_header = bad ? strdup(why) : NULL;
            p->transcript = transcript;
            int k = 0;
            for (int i = 0; i < sc.nenv; i++)
                p->env[k++] = strdup(sc.env[i]);
            if (engine) {
                snprintf(p->engine_env, sizeof p->engine_env, "RMALAB_PSCW=%s", engine);
                p->env[k++] = p->engine_env;
            }
            p->spec = (run_spec){.path = path, .nranks = bad ? 1 : sc.counts[c],
                                 .engine = engine ? strdup(engine) : NULL,
                                 .timeout = o->timeout > 0 ? o->timeout : sc.timeout,
                                 .mpiexec_argc = o->mpiexec_argc,
                                 .mpiexec_argv = o->mpiexec_argv, .self = o->self,
                                 .update = o->update};
        }
    }
}

/* A C program: one run per rank count of --ranks (else 2 ranks), with
 * --engine's PSCW engine if given. */
static void plan_program(const options *o, int at, planned **runs, int *n, int *cap)
{
    int two = 2;
    const int *counts = o->ncounts ? o->counts : &two;
    for (int c = 0; c < (o->ncounts ? o->ncounts : 1); c++) {
        planned *p = plan_one(runs, n, cap);
        if (!p)
            return;
        if (o->engine) {
            snprintf(p->engine_env, sizeof p->engine_env, "RMALAB_PSCW=%s", o->engine);
            p->env[0] = p->engine_env;
        }
        p->spec = (run_spec){.path = o->paths[at], .nranks = counts[c], .engine = o->engine,
                             .timeout = o->timeout > 0 ? o->timeout : 60,
                             .mpiexec_argc = o->mpiexec_argc, .mpiexec_argv = o->mpiexec_argv,
                             .self = o->self, .program = 1, .args = o->args[at],
                             .nargs = o->nargs[at]};
    }
}

/* ------------------------------------------------------------------------ */
/* Running                                                                  */

/* In the run's own process: run it and write its TAP to p->tap. */
static void child(planned *p)
{
    p->spec.env = p->env;
    if (p->bad_header) {
        fprintf(p->tap, "not ok - %s: %s\n", p->spec.path, p->bad_header);
        return;
    }
    run_result res;
    if (p->spec.program)
        run_program(&p->spec, &res);
    else if (p->transcript)
        run_transcript(&p->spec, &res);
    else
        run_scenario(&p->spec, &res);
    tap_write(p->tap, &res);
    fprintf(p->tap, "# %s [%s]: %.1f s\n", p->spec.path, res.label, res.seconds);
    run_result_free(&res);
}

static int start_run(planned *p)
{
    p->tap = tmpfile();
    if (!p->tap)
        return -1;
    fflush(stdout);
    p->pid = fork();
    if (p->pid == 0) {
        child(p);
        fflush(p->tap);
        _exit(0);
    }
    return p->pid > 0 ? 0 : -1;
}

/* Number the run's test points, print them and count them. */
static void print_run(planned *p, int *number, int *passed, int *failed)
{
    char line[65536];
    int any = 0;
    if (p->tap)
        rewind(p->tap);
    while (p->tap && fgets(line, sizeof line, p->tap)) {
        int ok = strncmp(line, "ok - ", 5) == 0, bad = strncmp(line, "not ok - ", 9) == 0;
        if (ok || bad) {
            any = 1;
            ++*number;
            *(ok ? passed : failed) += 1;
            printf("%s %d%s", ok ? "ok" : "not ok", *number, line + (ok ? 2 : 6));
        } else {
            fputs(line, stdout);
        }
    }
    if (!any) { /* the run's process died before it said anything */
        ++*failed;
        printf("not ok %d - %s: the runner's process for this file failed\n", ++*number,
               p->spec.path);
    }
    if (p->tap)
        fclose(p->tap);
    fflush(stdout);
}

static int ncores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* Start runs while the jobs and the cores allow: a run may start when it
 * fits beside the ranks already running, or when nothing runs. */
static void schedule(planned *runs, int n, const options *o)
{
    int number = 0, passed = 0, failed = 0, next = 0, printed = 0, running = 0, ranks = 0;
    int cores = ncores();
    while (printed < n) {
        while (next < n && running < o->jobs &&
               (running == 0 || ranks + runs[next].spec.nranks <= cores)) {
            if (start_run(&runs[next]) == 0) {
                running++;
                ranks += runs[next].spec.nranks;
            } else {
                runs[next].finished = 1;
            }
            next++;
        }
        int st;
        pid_t pid = wait(&st);
        for (int i = 0; pid > 0 && i < next; i++)
            if (runs[i].pid == pid && !runs[i].finished) {
                runs[i].finished = 1;
                running--;
                ranks -= runs[i].spec.nranks;
            }
        while (printed < next && runs[printed].finished)
            print_run(&runs[printed++], &number, &passed, &failed);
        if (pid < 0 && errno == ECHILD && running > 0)
            running = 0;
    }
    printf("1..%d\n%d passed, %d failed\n", number, passed, failed);
    exit(failed || number == 0 ? 1 : 0);
}

int runner_main(int argc, char **argv, const char *self)
{
    options o;
    int st = parse_args(argc, argv, &o);
    if (st >= 0) { /* --help, --version or a usage error: nothing to run */
        free(o.mpiexec_argv);
        free(o.paths);
        free(o.nargs);
        free(o.args);
        return st;
    }
    o.self = self;
    list files = {0};
    planned *runs = NULL;
    int n = 0, cap = 0;
    for (int i = 0; i < o.npaths; i++) {
        if (is_program(o.paths[i])) {
            plan_program(&o, i, &runs, &n, &cap);
            continue;
        }
        int from = files.n;
        find(&files, o.paths[i], 1);
        for (int k = from; k < files.n; k++)
            plan_file(&o, files.v[k], &runs, &n, &cap);
    }
    printf("TAP version 13\n");
    if (n == 0) {
        printf("1..0\n0 passed, 0 failed\n");
        fprintf(stderr, files.n ? "rmalab test: the files name none of the engines or rank "
                                  "counts asked for (--engine, --ranks)\n"
                                : "rmalab test: no *.lua or *.rlab files or programs under the "
                                  "paths given\n");
        return 1;
    }
    schedule(runs, n, &o);
    return 1;
}
