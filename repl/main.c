/* The rmalab executable: which mode to run (docs/repl.md). The front end
 * when started by a person; a rank serving the front end (--serve); script
 * mode for a file or -e under mpiexec; and, under mpiexec with no file,
 * every rank serving a front end that rank 0 runs in a thread, reading its
 * plain stdin.
 *
 * repl/ is a folder per program and one of what they share, each using
 * only the folders its line names (tests/repl/folders.py, the
 * repl-folders test, which also finds any circle of calls between files;
 * inside a folder, its files' order is in its header, layers.py's):
 *   wire/    uses nothing     the control channel, the addresses, a rank's
 *                             STATE (written and parsed), the string
 *                             builder, the one clock, the command
 *                             line's conventions
 *   rank/    uses wire/       a rank: its Lua state, the executor, script
 *                             mode (rank.h)
 *   front/   uses wire/       the front end: the session, its commands and
 *                             states, the sink and renderers, the
 *                             terminal, the REPL's loop (repl.h)
 *   runner/  uses cprog/ front/ wire/   rmalab test: runs of files in a
 *                             session of their own, and of C programs under
 *                             the interceptor; their result as TAP (runner.h)
 *   cprog/   uses front/ wire/   C programs: rmalab cc (cc.h), and rmalab run
 *                             under the interceptor (run.h)
 * main.c, this file, chooses the mode and uses them all: it stays at the
 * top because it is the one place that knows every program. */
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rmalab/rmalab.h>
#include <rmalab-embed.h>

#include "wire/cli.h"
#include "front/cmdline.h" /* RANKSET_MAX */
#include "front/repl.h"
#include "front/launch.h"
#include "rank/rank.h"
#include "runner/runner.h"
#include "cprog/cc.h"
#include "cprog/run.h"

static const char usage[] =
    "Usage: rmalab [-n N] [mpiexec options] [--] [FILE.lua [ARGS...]]\n"
    "       rmalab [-n N] [mpiexec options] -e CHUNK\n"
    "       rmalab test [OPTIONS] [mpiexec options] FILE_OR_FOLDER...\n"
    "       rmalab run [-n N] [mpiexec options] PROGRAM [ARGS...]\n"
    "       rmalab cc [mpicc arguments]\n"
    "       rmalab kernel install [--user | --prefix P] [--ranks N] [--name NAME]\n"
    "The interactive multi-rank Lua REPL of rmalab, a lab bench for MPI one-sided\n"
    "communication. With no FILE it opens the REPL on N ranks (default 1), started\n"
    "with mpiexec; with FILE it runs the script on every rank; -e runs CHUNK on\n"
    "every rank and prints the folded results. Options that mpiexec takes (-hosts,\n"
    "-launcher, -bind-to, -genv ...) are passed to it. rmalab test runs scenarios\n"
    "and transcripts and prints TAP (rmalab test --help). rmalab run runs a C MPI\n"
    "program with its MPI calls checked (rmalab run --help). rmalab kernel install\n"
    "writes the Jupyter kernelspec \"Lua (rmalab, N ranks)\" (docs/jupyter.md).\n"
    "rmalab cc builds a C MPI program as mpicc does, its loads and stores\n"
    "instrumented (rmalab cc --help, docs/c.md).\n"
    "\n"
    "  -n, -np N          number of ranks, 1 or more (the REPL and -e: at most 1024)\n"
    "  -e CHUNK           run CHUNK on every rank, print the results, then exit\n"
    "      --json         print JSON lines, one object per event (output, result,\n"
    "                     error, still running, hint, status...), for programs\n"
    "      --record FILE  write the REPL session's transcript to FILE as it goes\n"
    "                     (with piped input, - writes it to stdout instead of the\n"
    "                     output)\n"
    "      --trace FILE   with a script or -e: every window records its epochs, and\n"
    "                     at the end the ranks write them to FILE, Chrome trace-event\n"
    "                     JSON for Perfetto (docs/trace.md); in the REPL, :trace\n"
    "  -h, --help         display this help and exit\n"
    "      --version      output version information and exit\n"
    "\n"
    "Options go before FILE; what follows FILE is the script's (its arg table).\n"
    "In the REPL, :help lists the commands. Exit status: 0 on success, 1 when a\n"
    "script or -e chunk failed, a rank died, a deadlock ended the job or the job\n"
    "could not end cleanly, 2 for a usage error, 128+N when signal N (SIGTERM,\n"
    "SIGHUP; SIGINT without a terminal) ended it. Documentation: man rmalab,\n"
    "README.md and docs/repl.md.\n";

typedef struct {
    int n, mpi_argc, file_at, help, version, json;
    char **mpi_argv;
    const char *chunk, *record, *trace;
} args_t;

/* -n N: a whole number, 1 or more. */
static int parse_ranks(const char *s, int *n)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < 1 || v > INT_MAX)
        return -1;
    *n = (int)v;
    return 0;
}

/* One of rmalab's own options that takes a value, with its value v. */
static int own_option(args_t *a, const char *o, const char *v)
{
    if (!v)
        return cli_usage_error("rmalab", "option '%s' needs a value", o);
    if (strcmp(o, "-n") == 0 || strcmp(o, "-np") == 0) {
        if (parse_ranks(v, &a->n))
            return cli_usage_error("rmalab", "%s takes a number of ranks, 1 or more (got '%s')",
                                   o, v);
    } else if (strcmp(o, "-e") == 0) {
        a->chunk = v;
    } else if (strcmp(o, "--record") == 0) {
        a->record = v;
    } else {
        a->trace = v;
    }
    return 0;
}

/* The options together, once FILE is known. */
static int check(const args_t *a)
{
    if (a->chunk && a->file_at)
        return cli_usage_error("rmalab", "-e CHUNK and FILE do not go together: give one");
    if (a->json && a->file_at)
        return cli_usage_error("rmalab", "--json is for the REPL and -e; a script prints "
                                         "what it prints");
    if (a->record && a->file_at)
        return cli_usage_error("rmalab", "--record writes the transcript of a REPL session; "
                                         "a script has none");
    if (a->trace && !a->file_at && !a->chunk)
        return cli_usage_error("rmalab", "--trace FILE records a script or -e chunk; in the "
                                         "REPL, use :trace on and :trace dump FILE");
    if (a->n > RANKSET_MAX && !a->file_at)
        return cli_usage_error("rmalab", "the REPL and -e take at most %d ranks", RANKSET_MAX);
    return 0;
}

/* The options before FILE; those after it are the script's. 0, or 2 after
 * a usage error's message. --help and --version end the options. */
static int parse(int argc, char **argv, args_t *a)
{
    static const char *const own[] = {"-n", "-np", "-e", "--record", "--trace"};
    a->mpi_argv = calloc((size_t)argc + 1, sizeof *a->mpi_argv);
    if (!a->mpi_argv)
        return 1;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int mine = 0;
        for (size_t k = 0; k < sizeof own / sizeof *own; k++)
            mine |= strcmp(o, own[k]) == 0;
        if (strcmp(o, "--") == 0) {
            i++;
            break;
        } else if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
            a->help = 1;
            return 0;
        } else if (strcmp(o, "--version") == 0) {
            a->version = 1;
            return 0;
        } else if (strcmp(o, "--json") == 0) {
            a->json = 1;
        } else if (mine) {
            if (own_option(a, o, v))
                return 2;
            i++;
        } else { /* mpiexec's (launch_option_values): passed on with its values */
            int nv = launch_option_values(o);
            if (i + nv >= argc)
                return cli_usage_error("rmalab", "option '%s' needs %s (options that rmalab "
                                       "does not know go to mpiexec)", o,
                                       nv == 2 ? "two values" : "a value");
            for (int k = 0; k <= nv; k++)
                a->mpi_argv[a->mpi_argc++] = argv[i + k];
            i += nv;
        }
    }
    a->file_at = i < argc ? i : 0;
    return check(a);
}

/* mpiexec -n N rmalab: rank 0 runs the front end in a thread. */
typedef struct {
    session_opts o;
    int status;
} front_job;

static void *front_thread(void *arg)
{
    front_job *j = arg;
    j->status = repl_run(&j->o);
    return NULL;
}

static int serve_under_mpiexec(void)
{
    int provided, rank, size;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
    /* Rank 0 needs MPI to share its address before the executor's Lua
     * state exists; the module ends MPI when that state closes, as under
     * the front end. Otherwise no rank calls MPI_Finalize, and Hydra may
     * kill a rank still running when another exits. */
    rmalab_lua_host_hands_mpi();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* Ranks on other nodes than rank 0's reach it at any of its addresses
     * (addr.c), not at 127.0.0.1. */
    MPI_Comm node;
    int on_node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &on_node);
    MPI_Comm_free(&node);
    launch_t l = {.listen_fd = -1, .wide = on_node < size};
    char addr[sizeof l.addr + 80] = "", connect[sizeof l.addr], token[65];
    if (rank == 0 && launch_listen(&l, 0, NULL) == 0)
        snprintf(addr, sizeof addr, "%s %s", l.addr, l.token);
    MPI_Bcast(addr, sizeof addr, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!addr[0])
        return 1;
    sscanf(addr, "%599s %64s", connect, token);
    pthread_t t;
    front_job j = {.o = {.nranks = size, .launch = 0, .listen_fd = l.listen_fd, .token = token}};
    if (rank == 0 && pthread_create(&t, NULL, front_thread, &j))
        return 1;
    int st = rank_serve(connect, token);
    if (rank == 0) {
        pthread_join(t, NULL);
        st = st ? st : j.status;
    }
    return st;
}

/* ------------------------------------------------------------------------ */
/* The guard of script mode and -e                                          */

static volatile sig_atomic_t guard_sig;
static pid_t guard_child;

static void guard_on_signal(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    /* Ctrl-C on a terminal reaches the whole foreground process group: the
     * job's own handling (mpiexec forwards it to the ranks; the -e front
     * end interrupts the chunk) is the one wanted, as before the guard.
     * A SIGINT sent to this process while input is a terminal goes on to
     * the child, as it went to mpiexec before. */
    if (sig == SIGINT && si && si->si_code == SI_KERNEL)
        return;
    if (sig == SIGINT && isatty(0)) {
        kill(guard_child, SIGINT);
        return;
    }
    guard_sig = sig;
}

/* Script mode runs in a child, under this small parent that stays for the
 * job's lifetime: exec'ing mpiexec directly would leave SIGTERM, SIGHUP and
 * a SIGINT that does not come from the terminal to Hydra, which forwards
 * them to the ranks (a rank that catches or survives them lives on),
 * prints its "BAD TERMINATION" banner and exits 0 or 15. (-e runs the
 * front end, which ends the job on those signals itself: repl.c.) Here
 * those signals end the whole job (the child, mpiexec, its proxies and the
 * ranks: launch_end) at once, one line says so, and the exit status is
 * 128 + the signal. The child keeps stdin, stdout, stderr and the process
 * group; its own exit status, or its death by a signal, is passed on. */
static int guard(int (*body)(void *), void *arg)
{
    fflush(stdout);
    fflush(stderr);
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGINT);
    sigprocmask(SIG_BLOCK, &block, &old); /* until the handlers are in place */
    pid_t pid = fork();
    if (pid < 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        return body(arg);
    }
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        exit(body(arg)); /* exit: the -e front end's output is in stdio's buffers */
    }
    guard_child = pid;
    struct sigaction sa = {.sa_sigaction = guard_on_signal, .sa_flags = SA_SIGINFO};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigprocmask(SIG_SETMASK, &old, NULL);
    int st;
    for (;;) {
        pid_t w = waitpid(pid, &st, 0);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR)
            return 1;
        if (guard_sig) {
            int sig = guard_sig;
            launch_t l = {.pid = pid};
            launch_end(&l);
            fprintf(stderr, "rmalab: %s: ended the job (mpiexec and its ranks)\n",
                    strsignal(sig));
            return 128 + sig;
        }
    }
    if (WIFSIGNALED(st)) { /* as when this process was mpiexec */
        signal(WTERMSIG(st), SIG_DFL);
        raise(WTERMSIG(st));
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

static int exec_mpiexec(void *arg)
{
    char **av = arg;
    execvp("mpiexec", av);
    perror("rmalab: mpiexec");
    return 127;
}

/* What the arguments ask for, once parsed. */
static int run(const args_t *ap, int argc, char **argv, const char *self)
{
    args_t a = *ap;
    if (a.trace) { /* the ranks inherit both through mpiexec (rank_script, trace_dump) */
        setenv("RMALAB_TRACE", "1", 1);
        setenv("RMALAB_TRACE_FILE", a.trace, 1);
    }
    int under_mpiexec = getenv("PMI_RANK") != NULL;
    if (under_mpiexec && (a.file_at || a.chunk))
        return rank_script(a.file_at ? argv[a.file_at] : NULL, a.chunk,
                           a.file_at ? argc - a.file_at - 1 : 0,
                           a.file_at ? argv + a.file_at + 1 : NULL);
    if (under_mpiexec)
        return serve_under_mpiexec();
    if (a.file_at) { /* script mode: every rank runs the file */
        char **av = calloc((size_t)argc + 8, sizeof *av), nb[16];
        if (!av)
            return 1;
        int k = 0;
        snprintf(nb, sizeof nb, "%d", a.n ? a.n : 1);
        av[k++] = "mpiexec";
        av[k++] = "-n";
        av[k++] = nb;
        for (int i = 0; i < a.mpi_argc; i++)
            av[k++] = a.mpi_argv[i];
        av[k++] = (char *)self;
        for (int i = a.file_at; i < argc; i++)
            av[k++] = argv[i];
        int rc = guard(exec_mpiexec, av);
        free(av);
        return rc;
    }
    session_opts o = {.nranks = a.n ? a.n : 1, .mpiexec_argc = a.mpi_argc,
                    .mpiexec_argv = a.mpi_argv, .self = self, .launch = 1, .listen_fd = -1,
                    .exec_chunk = a.chunk, .record = a.record, .json = a.json};
    return repl_run(&o);
}

/* rmalab kernel install ...: the Jupyter kernel's command line
 * (kernel/rmalab_kernel/main.py, docs/jupyter.md), run by Debian's python3
 * with this executable's path, so that the kernelspec it writes names it.
 * The kernel's folder: $RMALAB_KERNEL_DIR, else beside this executable's
 * prefix (share/rmalab/kernel), else the configured prefix's, else, for
 * an executable in the build tree, the source tree's. */
static int kernel_main(int argc, char **argv, const char *self)
{
    if (argc < 2 || strcmp(argv[1], "install"))
        return cli_usage_error("rmalab", "use: rmalab kernel install [--user | --prefix P] "
                                         "[--ranks N] [--name NAME]");
    char rel[4200], *slash;
    snprintf(rel, sizeof rel, "%s", self);
    if ((slash = strrchr(rel, '/')))
        snprintf(slash, sizeof rel - (size_t)(slash - rel), "/../share/rmalab/kernel");
    const char *build = RMALAB_BUILD_ROOT "/";
    const char *dirs[] = {getenv("RMALAB_KERNEL_DIR"), rel, RMALAB_KERNEL_DIR,
                          strncmp(self, build, strlen(build)) ? NULL : RMALAB_KERNEL_SRC};
    const char *dir = NULL;
    char main_py[4300];
    for (size_t k = 0; !dir && k < sizeof dirs / sizeof *dirs; k++) {
        snprintf(main_py, sizeof main_py, "%s/__main__.py", dirs[k] ? dirs[k] : "");
        if (dirs[k] && dirs[k][0] && access(main_py, R_OK) == 0)
            dir = dirs[k];
    }
    if (!dir) {
        fprintf(stderr, "rmalab: the Jupyter kernel is not installed (no %s)\n",
                RMALAB_KERNEL_DIR);
        return 1;
    }
    char **av = calloc((size_t)argc + 4, sizeof *av);
    if (!av)
        return 1;
    int k = 0;
    av[k++] = RMALAB_KERNEL_PYTHON;
    av[k++] = (char *)dir;
    for (int i = 1; i < argc; i++)
        av[k++] = argv[i];
    av[k++] = "--rmalab";
    av[k++] = (char *)self;
    execv(av[0], av);
    fprintf(stderr, "rmalab: %s: %s (Debian's python3-ipykernel is needed)\n", av[0],
            strerror(errno));
    free(av);
    return 127;
}

int main(int argc, char **argv)
{
    char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl > 0)
        self[sl] = '\0';
    else
        snprintf(self, sizeof self, "%s", argv[0]);
    if (argc > 1 && strcmp(argv[1], "test") == 0)
        return runner_main(argc - 1, argv + 1, self);
    if (argc > 1 && strcmp(argv[1], "run") == 0)
        return cprog_run_main(argc - 1, argv + 1, self, launch_option_values);
    if (argc > 1 && strcmp(argv[1], "kernel") == 0)
        return kernel_main(argc - 1, argv + 1, self);
    if (argc > 1 && strcmp(argv[1], "cc") == 0)
        return cc_main(argc - 1, argv + 1, self);
    if (argc > 1 && strcmp(argv[1], "--serve") == 0)
        return rank_serve(getenv("RMALAB_CONNECT"), getenv("RMALAB_TOKEN"));
    args_t a = {0};
    int rc = parse(argc, argv, &a);
    if (rc == 0 && a.help) {
        fputs(usage, stdout);
        rc = cli_stdout_done("rmalab");
    } else if (rc == 0 && a.version) {
        rc = cli_version("rmalab");
    } else if (rc == 0) {
        rc = run(&a, argc, argv, self);
    }
    free(a.mpi_argv);
    return rc;
}
