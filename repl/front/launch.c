/* Launching (launch.h). mpiexec runs in a session of its own (setsid), as
 * ipyparallel runs its engines, so that the terminal's Ctrl-C reaches only
 * the front end: Hydra forwards one SIGINT and kills the job at the
 * second, so interrupts go to the ranks over the channel instead. */
#include "launch.h"

#include "../wire/addr.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int launch_option_values(const char *opt)
{
    /* Hydra's flags (mpiexec -h); every other option takes one value
     * (-launcher, -launcher-exec, -iface, -f, -hosts, -bootstrap, -rmk,
     * -ppn, ...) */
    static const char *const none[] = {"-genvall", "-genvnone", "-envall", "-envnone", "-l",
                                       "-prepend-rank", "-verbose", "-v", "-info",
                                       "-enable-x", "-disable-x", "-print-all-exitcodes",
                                       "-profile", "-disable-auto-cleanup",
                                       "-disable-hostname-propagation",
                                       "-enable-hostname-propagation", "-pmi-port",
                                       "-skip-launch-node"};
    for (size_t i = 0; i < sizeof none / sizeof *none; i++)
        if (strcmp(opt, none[i]) == 0)
            return 0;
    return strcmp(opt, "-genv") == 0 || strcmp(opt, "-env") == 0 ? 2 : 1;
}

static int make_token(char *token)
{
    unsigned char raw[32];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, raw, sizeof raw) != (ssize_t)sizeof raw) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    for (int i = 0; i < 32; i++)
        snprintf(token + 2 * i, 3, "%02x", raw[i]);
    return 0;
}

/* Bind to the first free port of MPIEXEC_PORT_RANGE (or MPICH_PORT_RANGE),
 * "LOW:HIGH", the range Hydra takes its own ports from, so that one
 * firewall rule covers both; without one, to a port the system picks. */
static int bind_port(int fd, struct sockaddr_in *sa)
{
    const char *range = getenv("MPIEXEC_PORT_RANGE");
    if (!range || !*range)
        range = getenv("MPICH_PORT_RANGE");
    int low = 0, high = 0, end = 0;
    if (range && *range &&
        (sscanf(range, "%d:%d%n", &low, &high, &end) != 2 || range[end] || low < 1 ||
         high < low || high > 65535)) {
        fprintf(stderr, "rmalab: the port range \"%s\" is not LOW:HIGH (MPIEXEC_PORT_RANGE, "
                        "MPICH_PORT_RANGE)\n", range);
        errno = EINVAL;
        return -1;
    }
    for (int port = low; port <= high; port++) {
        sa->sin_port = htons((unsigned short)port);
        if (bind(fd, (struct sockaddr *)sa, sizeof *sa) == 0)
            return 0;
    }
    return -1;
}

int launch_listen(launch_t *l, int argc, char **argv)
{
    const char *env = getenv("RMALAB_LISTEN");
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    if (make_token(l->token)) {
        fprintf(stderr, "rmalab: cannot read /dev/urandom for the session's token\n");
        return -1;
    }
    if (env && *env && inet_pton(AF_INET, env, &sa.sin_addr) != 1) {
        fprintf(stderr, "rmalab: cannot listen on \"%s\" (RMALAB_LISTEN takes an IPv4 address)\n",
                env);
        return -1;
    }
    /* Ranks that may be on other hosts get every address of this one
     * (addr.c); RMALAB_LISTEN=0.0.0.0 asks for the same. */
    if (env && *env ? sa.sin_addr.s_addr == htonl(INADDR_ANY) : l->wide || addr_wide(argc, argv))
        l->wide = 1, sa.sin_addr.s_addr = htonl(INADDR_ANY);
    l->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (l->listen_fd < 0 || bind_port(l->listen_fd, &sa) ||
        listen(l->listen_fd, 64) || getsockname(l->listen_fd, (struct sockaddr *)&sa, &len)) {
        perror("rmalab: listening for the ranks");
        return -1;
    }
    char hosts[sizeof l->addr - 8];
    if (l->wide)
        addr_candidates(addr_iface(argc, argv), hosts, sizeof hosts);
    else
        inet_ntop(AF_INET, &sa.sin_addr, hosts, sizeof hosts);
    snprintf(l->addr, sizeof l->addr, "%s:%d", hosts, ntohs(sa.sin_port));
    return 0;
}

int launch_start(launch_t *l, int n, int argc, char **argv, const char *self)
{
    char **av = calloc((size_t)argc + 8, sizeof *av), nbuf[16];
    if (!av)
        return -1;
    int k = 0;
    snprintf(nbuf, sizeof nbuf, "%d", n);
    av[k++] = "mpiexec";
    av[k++] = "-n";
    av[k++] = nbuf;
    for (int i = 0; i < argc; i++)
        av[k++] = argv[i];
    av[k++] = (char *)self;
    av[k++] = "--serve";
    av[k] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        setsid();
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        if (l->err_fd > 0)
            dup2(l->err_fd, 2);
        dup2(2, 1); /* Hydra's own messages: stdout is the session's output */
        for (char **e = l->env; e && *e; e++)
            putenv(*e);
        setenv("RMALAB_CONNECT", l->addr, 1);
        setenv("RMALAB_TOKEN", l->token, 1);
        execvp("mpiexec", av);
        perror("rmalab: mpiexec");
        _exit(127);
    }
    free(av);
    if (pid < 0) {
        perror("rmalab: fork");
        return -1;
    }
    l->pid = pid;
    return 0;
}

int launch_wait(launch_t *l, double seconds)
{
    if (l->pid <= 0)
        return -1;
    for (double t = 0; t <= seconds; t += 0.02) {
        int st;
        pid_t p = waitpid(l->pid, &st, WNOHANG);
        if (p == l->pid) {
            l->pid = 0;
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        }
        nanosleep(&(struct timespec){0, 20000000}, NULL);
    }
    return -1;
}

/* ------------------------------------------------------------------------ */
/* Ending the job: the process tree under mpiexec                          */

typedef struct {
    pid_t *v;
    int n, cap;
} pidset;

static int has(const pidset *s, pid_t p)
{
    for (int i = 0; i < s->n; i++)
        if (s->v[i] == p)
            return 1;
    return 0;
}

static void put(pidset *s, pid_t p)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 32;
        pid_t *v = realloc(s->v, (size_t)cap * sizeof *v);
        if (!v)
            return;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = p;
}

/* A process's state letter and parent from /proc/PID/stat; 0 when gone. */
static char proc_stat(pid_t pid, pid_t *ppid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    char *rp = strrchr(buf, ')'), st = 0; /* the name may hold spaces and ')' */
    int pp = 0;
    if (!rp || sscanf(rp + 1, " %c %d", &st, &pp) != 2)
        return 0;
    if (ppid)
        *ppid = pp;
    return st;
}

/* Add every process whose parent is in s (stopping each); how many. */
static int add_children(pidset *s)
{
    DIR *d = opendir("/proc");
    int added = 0;
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d));) {
        char *end;
        long v = strtol(e->d_name, &end, 10);
        pid_t p = (pid_t)v, pp;
        if (*end || v <= 0 || has(s, p) || !proc_stat(p, &pp) || !has(s, pp))
            continue;
        kill(p, SIGSTOP);
        put(s, p);
        added++;
    }
    closedir(d);
    return added;
}

/* Whether every process of s is stopped, a zombie or gone: then none can
 * fork any more. */
static int all_still(const pidset *s)
{
    for (int i = 0; i < s->n; i++) {
        char st = proc_stat(s->v[i], NULL);
        if (st && st != 'T' && st != 't' && st != 'Z' && st != 'X')
            return 0;
    }
    return 1;
}

int launch_end(launch_t *l)
{
    if (l->pid <= 0)
        return 0;
    pidset s = {0};
    put(&s, l->pid);
    if (!s.n)
        return 0;
    kill(l->pid, SIGSTOP);
    /* Walk until the tree is stopped and a walk finds no one new (SIGSTOP
     * takes effect asynchronously: a process may finish a fork first). */
    for (int i = 0; i < 500; i++) {
        int added = add_children(&s), still = all_still(&s);
        if (!added && still && !add_children(&s))
            break;
        if (!added)
            nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    for (int i = 0; i < s.n; i++) /* mpiexec first: it reports nothing */
        kill(s.v[i], SIGKILL);
    for (int i = 0; i < s.n; i++)
        kill(s.v[i], SIGCONT); /* a stopped process dies at once anyway; harmless */
    int st;
    if (waitpid(l->pid, &st, 0) == l->pid || errno == ECHILD)
        l->pid = 0;
    /* The others are reaped by whoever inherits them (init): wait until no
     * process of the tree is left but zombies, for up to 2 s. */
    for (int t = 0; t < 200; t++) {
        int left = 0;
        for (int i = 1; i < s.n; i++) {
            char c = proc_stat(s.v[i], NULL);
            left += c && c != 'Z' && c != 'X';
        }
        if (!left)
            break;
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    int n = s.n;
    free(s.v);
    return n;
}

void launch_kill(launch_t *l, double grace)
{
    if (l->pid <= 0)
        return;
    if (grace > 0 && launch_wait(l, grace) >= 0)
        return;
    launch_end(l);
}
