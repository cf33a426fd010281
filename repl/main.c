/* The rmalab executable: which mode to run (docs/repl.md). The front end
 * when started by a person; a rank serving the front end (--serve); script
 * mode for a file or -e under mpiexec; and, under mpiexec with no file,
 * every rank serving a front end that rank 0 runs in a thread, reading its
 * plain stdin. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rmalab/rmalab.h>

#include "front.h"
#include "lrmalab.h" /* lrm_host_hands_mpi */
#include "launch.h"
#include "rank.h"
#include "runner.h"

static const char usage[] =
    "Usage: rmalab [-n N] [mpiexec options] [--] [FILE.lua [ARGS...]]\n"
    "       rmalab [-n N] [mpiexec options] -e CHUNK\n"
    "       rmalab test [OPTIONS] [mpiexec options] FILE_OR_FOLDER...\n"
    "The interactive multi-rank Lua REPL of rmalab, a lab bench for MPI one-sided\n"
    "communication. With no FILE it opens the REPL on N ranks (default 1), started\n"
    "with mpiexec; with FILE it runs the script on every rank; -e runs CHUNK on\n"
    "every rank and prints the folded results. Options that mpiexec takes (-hosts,\n"
    "-launcher, -bind-to, -genv ...) are passed to it. rmalab test runs scenarios\n"
    "and transcripts and prints TAP (rmalab test --help).\n"
    "\n"
    "  -n, -np N      number of ranks\n"
    "  -e CHUNK       run CHUNK on every rank, then exit\n"
    "      --record FILE  write the session's transcript to FILE as it goes (with\n"
    "                 piped input, - writes it to stdout instead of the output)\n"
    "      --trace FILE   with a script or -e: every window records its epochs, and\n"
    "                 at the end the ranks write them to FILE, Chrome trace-event\n"
    "                 JSON for Perfetto (docs/trace.md); in the REPL, :trace\n"
    "      --help     display this help and exit\n"
    "      --version  output version information and exit\n"
    "\n"
    "In the REPL, :help lists the commands. Exit status: 0 on success, 1 when a\n"
    "rank failed or the job could not end cleanly, 2 for a usage error.\n";

typedef struct {
    int n, mpi_argc, file_at;
    char **mpi_argv;
    const char *chunk, *record, *trace;
} args_t;

static int parse(int argc, char **argv, args_t *a)
{
    a->n = 0;
    a->mpi_argv = calloc((size_t)argc + 1, sizeof *a->mpi_argv);
    a->file_at = 0;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *o = argv[i];
        if (strcmp(o, "--") == 0) {
            i++;
            break;
        }
        if ((strcmp(o, "-n") == 0 || strcmp(o, "-np") == 0) && i + 1 < argc) {
            a->n = atoi(argv[++i]);
        } else if (strcmp(o, "-e") == 0 && i + 1 < argc) {
            a->chunk = argv[++i];
        } else if (strcmp(o, "--record") == 0 && i + 1 < argc) {
            a->record = argv[++i];
        } else if (strcmp(o, "--trace") == 0 && i + 1 < argc) {
            a->trace = argv[++i];
        } else {
            int v = launch_option_values(o);
            if (i + v >= argc)
                return -1;
            for (int k = 0; k <= v; k++)
                a->mpi_argv[a->mpi_argc++] = argv[i + k];
            i += v;
        }
    }
    a->file_at = i < argc ? i : 0;
    return a->n < 0 ? -1 : 0;
}

/* mpiexec -n N rmalab: rank 0 runs the front end in a thread. */
static void *front_thread(void *arg)
{
    static int status;
    status = front_run(arg);
    return &status;
}

static int serve_under_mpiexec(void)
{
    int provided, rank, size;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
    /* Rank 0 needs MPI to share its address before the executor's Lua
     * state exists; the module ends MPI when that state closes, as under
     * the front end. Otherwise no rank calls MPI_Finalize, and Hydra may
     * kill a rank still running when another exits. */
    lrm_host_hands_mpi();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    launch_t l = {.listen_fd = -1};
    char addr[400] = "";
    if (rank == 0 && launch_listen(&l, 0, NULL) == 0)
        snprintf(addr, sizeof addr, "%s %s", l.addr, l.token);
    MPI_Bcast(addr, sizeof addr, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!addr[0])
        return 1;
    char connect[300], token[65];
    sscanf(addr, "%299s %64s", connect, token);
    pthread_t t;
    front_opts o = {.nranks = size, .launch = 0, .listen_fd = l.listen_fd, .token = token};
    if (rank == 0 && pthread_create(&t, NULL, front_thread, &o))
        return 1;
    int st = rank_serve(connect, token);
    if (rank == 0) {
        void *ret;
        pthread_join(t, &ret);
        st = st ? st : *(int *)ret;
    }
    return st;
}

/* What the arguments ask for, once parsed. */
static int run(const args_t *ap, int argc, char **argv, const char *self)
{
    args_t a = *ap;
    if (a.trace && !a.file_at && !a.chunk) {
        fputs("rmalab: --trace FILE records a script or -e chunk; in the REPL, use :trace on "
              "and :trace dump FILE\n", stderr);
        return 2;
    }
    if (a.trace) { /* the ranks inherit both through mpiexec (rank_script) */
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
        execvp("mpiexec", av);
        perror("rmalab: mpiexec");
        free(av);
        return 1;
    }
    front_opts o = {.nranks = a.n ? a.n : 1, .mpiexec_argc = a.mpi_argc,
                    .mpiexec_argv = a.mpi_argv, .self = self, .launch = 1, .listen_fd = -1,
                    .exec_chunk = a.chunk, .record = a.record};
    return front_run(&o);
}

int main(int argc, char **argv)
{
    args_t a = {0};
    static char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl > 0)
        self[sl] = '\0';
    else
        snprintf(self, sizeof self, "%s", argv[0]);
    if (argc > 1 && strcmp(argv[1], "test") == 0)
        return runner_main(argc - 1, argv + 1, self);
    if (argc > 1 && strcmp(argv[1], "--serve") == 0)
        return rank_serve(getenv("RMALAB_CONNECT"), getenv("RMALAB_TOKEN"));
    if (argc > 1 && strcmp(argv[1], "--help") == 0)
        return fputs(usage, stdout), 0;
    if (argc > 1 && strcmp(argv[1], "--version") == 0)
        return printf("rmalab %s\n", rmalab_version()), 0;
    int rc = 2;
    if (parse(argc, argv, &a))
        fputs(usage, stderr);
    else
        rc = run(&a, argc, argv, self);
    free(a.mpi_argv);
    return rc;
}
