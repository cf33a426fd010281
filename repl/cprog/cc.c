/* rmalab cc (cc.h): mpicc with the loads and stores of C sources
 * instrumented. Reads the command line as gcc does, just enough to tell
 * what it asks for:
 * - a probe (-E, -M, --version, -show, -print-*, no input at all...): to
 *   mpicc untouched;
 * - a compile (-c, -S) with C sources: mpicc with gcc's thread-sanitizer
 *   instrumentation added (its calls go to the access runtime,
 *   cprog/access.c, not to libtsan);
 * - a link: mpicc with the runtime archive and the --wrap of memcpy,
 *   memmove and memset added, never -fsanitize (gcc would link libtsan);
 * - both in one command: each C source compiled alone to a temporary
 *   object, then the link with the objects in the sources' places.
 * The compiler's messages and exit status come through as they are. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cc.h"

static const char usage[] =
    "Usage: rmalab cc [mpicc arguments]\n"
    "Compiles and links a C MPI program as mpicc does, with its loads and stores\n"
    "instrumented so that rmalab run can check those that touch window memory\n"
    "(docs/c.md). The program also runs under plain mpiexec, unchecked, with the\n"
    "same results. Works as CC=\"rmalab cc\" in make, meson and CMake builds.\n"
    "\n"
    "Compile steps (-c, -S, or the compile half of a one-command build) get\n"
    "-fsanitize=thread --param=tsan-instrument-func-entry-exit=0 -g (and rmalab's\n"
    "gcc plugin, which takes the checks out of loops; RMALAB_CC_PLUGIN=off: not);\n"
    "links get\n"
    "rmalab's access runtime and -Wl,--wrap=memcpy,--wrap=memmove,--wrap=memset.\n"
    "-E, -M, -MM, -fsyntax-only, --version, -dumpversion, -show, -print-* and a\n"
    "command with no input go to mpicc untouched. C only: a C++ source is an\n"
    "error. MPICH_CC=clang makes mpicc, and so rmalab cc, use clang.\n";

enum { ARG_OPT, ARG_VALUE, ARG_LINKOPT, ARG_LINKVALUE, ARG_LANG, ARG_C, ARG_INPUT };

typedef struct {
    int argc;
    char **argv;
    int *kind;         /* ARG_* of each argument */
    const char **lang; /* the -x language in force for each input, or NULL */
    int n_c, n_input, compile_only, probe, clang;
    const char *cxx;    /* the first C++ source */
    const char *plugin; /* -fplugin=PATH of rmalab's gcc plugin, or NULL */
} cc_line;

/* gcc's options whose value is the next argument. */
static int takes_value(const char *o)
{
    static const char *const v[] = {
        "-o", "-x", "-I", "-L", "-l", "-D", "-U", "-include", "-imacros", "-iprefix",
        "-iwithprefix", "-iwithprefixbefore", "-isystem", "-idirafter", "-iquote", "-isysroot",
        "-imultilib", "-MF", "-MT", "-MQ", "-Xlinker", "-Xassembler", "-Xpreprocessor", "-u",
        "-T", "-z", "-e", "-aux-info", "-dumpbase", "-dumpdir", "-dumpbase-ext", "--param",
        "-B", "-A", "-wrapper", "-specs"};
    for (size_t k = 0; k < sizeof v / sizeof *v; k++)
        if (strcmp(o, v[k]) == 0)
            return 1;
    return 0;
}

/* Options that only the link uses: left out of the compile steps of a
 * one-command build (gcc warns of an unused -l there). */
static int link_only(const char *o)
{
    return strncmp(o, "-l", 2) == 0 || strncmp(o, "-L", 2) == 0 || strncmp(o, "-Wl,", 4) == 0 ||
           strcmp(o, "-Xlinker") == 0 || strncmp(o, "-o", 2) == 0 ||
           strcmp(o, "-u") == 0 || strcmp(o, "-T") == 0 || strcmp(o, "-z") == 0 ||
           strcmp(o, "-e") == 0;
}

/* What build systems and people ask the compiler about, rather than to
 * build: it goes to mpicc as it is. */
static int is_probe(const char *o)
{
    static const char *const p[] = {"-E", "-M", "-MM", "-fsyntax-only", "--version",
                                    "-dumpversion", "-dumpfullversion", "-dumpmachine",
                                    "-dumpspecs", "-show", "-compile-info", "-link-info",
                                    "-###", "--target-help", "--help"};
    for (size_t k = 0; k < sizeof p / sizeof *p; k++)
        if (strcmp(o, p[k]) == 0)
            return 1;
    return strncmp(o, "-print-", 7) == 0 || strncmp(o, "--print-", 8) == 0 ||
           strncmp(o, "--help=", 7) == 0;
}

/* An input's kind from its -x language, or else from its suffix. */
static int input_kind(const char *path, const char *lang, int *cxx)
{
    *cxx = 0;
    if (lang) {
        *cxx = strncmp(lang, "c++", 3) == 0 || strncmp(lang, "objective-c", 11) == 0;
        return strcmp(lang, "c") == 0 || strcmp(lang, "cpp-output") == 0 ? ARG_C : ARG_INPUT;
    }
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/'))
        return ARG_INPUT;
    static const char *const cxx_suffixes[] = {".cc", ".cp", ".cxx", ".cpp", ".CPP", ".c++",
                                               ".C", ".ii", ".m", ".mm", ".M"};
    for (size_t k = 0; k < sizeof cxx_suffixes / sizeof *cxx_suffixes; k++)
        *cxx |= strcmp(dot, cxx_suffixes[k]) == 0;
    return strcmp(dot, ".c") == 0 || strcmp(dot, ".i") == 0 ? ARG_C : ARG_INPUT;
}

/* One argument, at i, that starts with '-' (not "-" alone). Returns how
 * many arguments it took. */
static int classify_option(cc_line *l, int i, const char **lang)
{
    const char *o = l->argv[i];
    int lo = link_only(o);
    l->kind[i] = lo ? ARG_LINKOPT : ARG_OPT;
    if (strcmp(o, "-c") == 0 || strcmp(o, "-S") == 0)
        l->compile_only = 1;
    l->probe |= is_probe(o);
    if (strncmp(o, "-x", 2) == 0) {
        l->kind[i] = ARG_LANG;
        const char *v = o[2] ? o + 2 : i + 1 < l->argc ? l->argv[i + 1] : "none";
        *lang = strcmp(v, "none") == 0 ? NULL : v;
        if (!o[2] && i + 1 < l->argc)
            l->kind[i + 1] = ARG_LANG;
        return o[2] ? 1 : 2;
    }
    if (takes_value(o) && i + 1 < l->argc) {
        l->kind[i + 1] = lo ? ARG_LINKVALUE : ARG_VALUE;
        return 2;
    }
    return 1;
}

static int classify(cc_line *l)
{
    l->kind = calloc((size_t)l->argc + 1, sizeof *l->kind);
    l->lang = calloc((size_t)l->argc + 1, sizeof *l->lang);
    if (!l->kind || !l->lang)
        return -1;
    const char *lang = NULL;
    const char *mc = getenv("MPICH_CC");
    l->clang = mc && strstr(mc, "clang") != NULL;
    for (int i = 0; i < l->argc;) {
        const char *a = l->argv[i];
        if (a[0] == '-' && a[1]) {
            i += classify_option(l, i, &lang);
            continue;
        }
        int cxx;
        l->kind[i] = a[0] == '@' ? ARG_OPT : input_kind(a, lang, &cxx);
        if (l->kind[i] != ARG_OPT) {
            l->lang[i] = lang;
            l->n_input++;
            l->n_c += l->kind[i] == ARG_C;
            if (cxx && !l->cxx)
                l->cxx = a;
        }
        i++;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Running mpicc                                                            */

/* Runs av (av[0] "mpicc") and waits: its exit status, 128 + N when signal
 * N ended it, 127 when it could not be started. */
static int run(char **av)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        perror("rmalab cc: fork");
        return 1;
    }
    if (pid == 0) {
        execvp(av[0], av);
        fprintf(stderr, "rmalab cc: %s: %s\n", av[0], strerror(errno));
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return 1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The instrumentation of a compile step, before the user's options (so
 * that a later -g0 or -fno-sanitize=thread of theirs still wins). gcc's
 * -Wtsan warning (atomic_thread_fence) is rmalab's concern, not the
 * program's: a -Werror build must not fail on it. */
static void add_compile_flags(const cc_line *l, char **av, int *k)
{
    av[(*k)++] = "-fsanitize=thread";
    if (l->clang) {
        av[(*k)++] = "-mllvm";
        av[(*k)++] = "-tsan-instrument-func-entry-exit=0";
    } else {
        av[(*k)++] = "--param=tsan-instrument-func-entry-exit=0";
        av[(*k)++] = "-Wno-tsan";
        if (l->plugin)
            av[(*k)++] = (char *)l->plugin;
    }
    av[(*k)++] = "-g";
}

/* What every link gets after the user's arguments: the runtime, the wraps,
 * and libatomic for the runtime's 16-byte atomics, only if they are used. */
static void add_link_flags(char **av, int *k, const char *runtime)
{
    av[(*k)++] = (char *)runtime;
    av[(*k)++] = "-Wl,--wrap=memcpy,--wrap=memmove,--wrap=memset";
    av[(*k)++] = "-Wl,--push-state,--as-needed";
    av[(*k)++] = "-latomic";
    av[(*k)++] = "-Wl,--pop-state";
}

/* A file of rmalab's: `built`, the build tree's, for an executable in the
 * build tree, else `name` installed beside this executable's prefix, else
 * `installed`, the configured prefix's. 0 when the one chosen is readable. */
static int find_file(const char *self, const char *built, const char *name,
                     const char *installed, char *out, size_t size)
{
    const char *build = RMALAB_BUILD_ROOT "/";
    if (strncmp(self, build, strlen(build)) == 0) {
        snprintf(out, size, "%s", built);
        return access(out, R_OK);
    }
    char *slash;
    snprintf(out, size, "%s", self);
    if ((slash = strrchr(out, '/')))
        snprintf(slash, size - (size_t)(slash - out), "/../%s/%s", RMALAB_ACCESS_LIBDIR, name);
    if (access(out, R_OK) == 0)
        return 0;
    snprintf(out, size, "%s", installed);
    return access(out, R_OK);
}

/* The runtime archive. */
static int find_runtime(const char *self, char *out, size_t size)
{
    return find_file(self, RMALAB_ACCESS_BUILD, "librmalab-access.a", RMALAB_ACCESS_INSTALLED,
                     out, size);
}

/* The -fplugin= option of rmalab's gcc plugin (cprog/gcc-plugin.cc), found
 * as the runtime is: NULL when it was not built (no gcc plugin headers),
 * is not installed, or RMALAB_CC_PLUGIN=off asks for the plain
 * -fsanitize=thread build. */
static const char *find_plugin(const char *self, char *out, size_t size)
{
    const char *off = getenv("RMALAB_CC_PLUGIN");
    if (!RMALAB_PLUGIN_BUILD[0] || (off && strcmp(off, "off") == 0))
        return NULL;
    int n = snprintf(out, size, "-fplugin=");
    return find_file(self, RMALAB_PLUGIN_BUILD, "rmalab-gcc.so", RMALAB_PLUGIN_INSTALLED, out + n,
                     size - (size_t)n)
               ? NULL
               : out;
}

/* ------------------------------------------------------------------------ */
/* The three kinds of command                                               */

/* The link, with the object objs[i] in the place of each C source i (all
 * NULL: a link of objects alone). An input that had a -x language other
 * than C keeps it, around itself only. */
static int link_step(const cc_line *l, char **objs, const char *runtime)
{
    char **av = calloc((size_t)l->argc * 3 + 16, sizeof *av);
    if (!av)
        return 1;
    int k = 0;
    av[k++] = "mpicc";
    for (int i = 0; i < l->argc; i++) {
        if (l->kind[i] == ARG_LANG)
            continue;
        if (l->kind[i] == ARG_C && objs) {
            av[k++] = objs[i];
        } else if (l->kind[i] == ARG_INPUT && l->lang[i]) {
            av[k++] = "-x";
            av[k++] = (char *)l->lang[i];
            av[k++] = l->argv[i];
            av[k++] = "-x";
            av[k++] = "none";
        } else {
            av[k++] = l->argv[i];
        }
    }
    add_link_flags(av, &k, runtime);
    int rc = run(av);
    free(av);
    return rc;
}

/* A compile: with at < 0, the user's command (-c or -S) as it is; else
 * one C source (argument at) of a one-command build to obj, with the
 * user's options but those of the link, and no other input. */
static int compile(const cc_line *l, int at, const char *obj)
{
    char **av = calloc((size_t)l->argc + 20, sizeof *av);
    if (!av)
        return 1;
    int k = 0;
    av[k++] = "mpicc";
    add_compile_flags(l, av, &k);
    for (int i = 0; i < l->argc; i++)
        if (at < 0 || l->kind[i] == ARG_OPT || l->kind[i] == ARG_VALUE)
            av[k++] = l->argv[i];
    if (at >= 0) {
        av[k++] = "-c";
        if (l->lang[at]) {
            av[k++] = "-x";
            av[k++] = (char *)l->lang[at];
        }
        av[k++] = l->argv[at];
        av[k++] = "-o";
        av[k++] = (char *)obj;
    }
    int rc = run(av);
    free(av);
    return rc;
}

/* A one-command build: every C source compiled (all of them, as gcc goes
 * on after an error, so that each one's messages come), then, if all
 * compiled, the link; the objects are removed. */
static int build(const cc_line *l, const char *runtime)
{
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/rmalab-cc.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "rmalab cc: cannot make a temporary folder %s: %s\n", dir,
                strerror(errno));
        return 1;
    }
    char **objs = calloc((size_t)l->argc + 1, sizeof *objs);
    int rc = objs ? 0 : 1;
    for (int i = 0; objs && i < l->argc; i++) {
        if (l->kind[i] != ARG_C)
            continue;
        const char *base = strrchr(l->argv[i], '/');
        base = base ? base + 1 : l->argv[i];
        size_t n = strlen(dir) + strlen(base) + 32;
        if (!(objs[i] = malloc(n))) {
            rc = 1;
            break;
        }
        snprintf(objs[i], n, "%s/%d-%s.o", dir, i, base);
        int st = compile(l, i, objs[i]);
        rc = rc ? rc : st;
    }
    if (rc == 0)
        rc = link_step(l, objs, runtime);
    for (int i = 0; objs && i < l->argc; i++) {
        if (objs[i])
            unlink(objs[i]);
        free(objs[i]);
    }
    free(objs);
    rmdir(dir);
    return rc;
}

static int pass_through(char **argv)
{
    argv[0] = "mpicc";
    fflush(stdout);
    execvp("mpicc", argv);
    fprintf(stderr, "rmalab cc: mpicc: %s\n", strerror(errno));
    return 127;
}

int cc_main(int argc, char **argv, const char *self)
{
    if (argc < 2 || (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : fflush(stdout) != 0;
    }
    cc_line l = {.argc = argc - 1, .argv = argv + 1};
    if (classify(&l)) {
        fprintf(stderr, "rmalab cc: out of memory\n");
        return 1;
    }
    int rc;
    char runtime[4200], plugin[4200];
    if (!l.clang)
        l.plugin = find_plugin(self, plugin, sizeof plugin);
    if (l.probe || l.n_input == 0) {
        rc = pass_through(argv);
    } else if (l.cxx) {
        fprintf(stderr, "rmalab cc: %s: C++ is not supported: rmalab cc instruments C "
                        "sources only (compile C++ with mpicxx; its objects link with "
                        "rmalab cc, unchecked)\n", l.cxx);
        rc = 1;
    } else if (l.compile_only && l.n_c == 0) { /* assembly alone */
        rc = pass_through(argv);
    } else if (l.compile_only) {
        rc = compile(&l, -1, NULL);
    } else if (find_runtime(self, runtime, sizeof runtime)) {
        fprintf(stderr, "rmalab cc: the access runtime is not installed (no %s)\n", runtime);
        rc = 1;
    } else {
        rc = l.n_c ? build(&l, runtime) : link_step(&l, NULL, runtime);
    }
    free(l.kind);
    free(l.lang);
    return rc;
}
