/* Where the ranks reach the front end (addr.h). On one host the front end
 * listens on 127.0.0.1 (launch.c). When the ranks may be elsewhere it
 * listens on every address, and the ranks try this host's addresses in
 * order: the name of the host is no guide, since Debian's /etc/hosts maps
 * it to 127.0.1.1 (issue 29). */
#include "addr.h"
#include "clock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int addr_wide(int argc, char **argv)
{
    /* Options that name hosts or say how to reach them (Hydra's own, and
     * the older spellings it takes). */
    static const char *const opts[] = {"-hosts", "-host", "-f", "-machinefile", "-hostfile",
                                       "--hosts", "--host", "-iface", "-launcher",
                                       "-launcher-exec", "-bootstrap", "-bootstrap-exec", "-rmk"};
    /* Hydra's environment, and the allocations of the resource managers it
     * detects (with Slurm's, it launches through srun by itself). */
    static const char *const envs[] = {"HYDRA_HOST_FILE", "HYDRA_LAUNCHER", "HYDRA_LAUNCHER_EXEC",
                                       "HYDRA_BOOTSTRAP",
                                       "HYDRA_IFACE", "HYDRA_RMK", "SLURM_JOB_ID",
                                       "SLURM_NODELIST", "PBS_NODEFILE", "LSB_MCPU_HOSTS",
                                       "PE_HOSTFILE", "COBALT_NODEFILE", "LOADL_HOSTFILE"};
    for (int i = 0; i < argc; i++)
        for (size_t k = 0; k < sizeof opts / sizeof *opts; k++)
            if (strcmp(argv[i], opts[k]) == 0)
                return 1;
    for (size_t k = 0; k < sizeof envs / sizeof *envs; k++) {
        const char *v = getenv(envs[k]);
        if (v && *v)
            return 1;
    }
    return 0;
}

const char *addr_iface(int argc, char **argv)
{
    for (int i = 0; i + 1 < argc; i++)
        if (strcmp(argv[i], "-iface") == 0)
            return argv[i + 1];
    const char *env = getenv("HYDRA_IFACE");
    return env && *env ? env : NULL;
}

typedef struct {
    char *buf;
    size_t size;
    int n;
} list;

static void add(list *l, struct in_addr a)
{
    char text[INET_ADDRSTRLEN], *p = l->buf;
    if (l->n == 32 || !inet_ntop(AF_INET, &a, text, sizeof text))
        return;
    for (size_t len = strlen(text); (p = strstr(p, text)); p += len) /* once each */
        if ((p == l->buf || p[-1] == ',') && (p[len] == ',' || !p[len]))
            return;
    size_t used = strlen(l->buf);
    if (used + strlen(text) + 2 > l->size)
        return;
    snprintf(l->buf + used, l->size - used, "%s%s", l->n ? "," : "", text);
    l->n++;
}

static int loopback(struct in_addr a)
{
    return (ntohl(a.s_addr) >> 24) == 127;
}

/* The address of the host's name, if it is one of `ifs`'s and not
 * loopback. */
static void add_named(list *l, const struct ifaddrs *ifs)
{
    char name[256];
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *ai;
    if (gethostname(name, sizeof name) || getaddrinfo(name, NULL, &hints, &ai))
        return;
    struct in_addr a = ((struct sockaddr_in *)ai->ai_addr)->sin_addr;
    freeaddrinfo(ai);
    for (const struct ifaddrs *i = ifs; i; i = i->ifa_next)
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && !loopback(a) &&
            ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr == a.s_addr)
            add(l, a);
}

void addr_candidates(const char *iface, char *buf, size_t size)
{
    list l = {buf, size, 0};
    struct ifaddrs *ifs = NULL;
    buf[0] = '\0';
    if (getifaddrs(&ifs) == 0) {
        for (int pass = 0; pass < 2; pass++) { /* -iface's first, then the others */
            if (pass == 1)
                add_named(&l, ifs);
            for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
                if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
                    !(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK))
                    continue;
                struct in_addr a = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
                if (!loopback(a) && (pass == 1 || (iface && strcmp(i->ifa_name, iface) == 0)))
                    add(&l, a);
            }
        }
        freeifaddrs(ifs);
    }
    add(&l, (struct in_addr){htonl(INADDR_LOOPBACK)});
}

/* ------------------------------------------------------------------------ */
/* Connecting (a rank)                                                      */

enum { OK, REFUSED, UNREACHABLE, SILENT };

/* One connection attempt to host:port, waiting up to 1 s: OK with *fd set,
 * or why not. */
static int attempt(const char *host, const char *port, int *fd)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai;
    if (getaddrinfo(host, port, &hints, &ai))
        return SILENT; /* a name not resolved yet */
    int why = SILENT;
    for (struct addrinfo *a = ai; a && why != OK; a = a->ai_next) {
        int s = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), err = 0;
        socklen_t len = sizeof err;
        if (s < 0)
            continue;
        if (connect(s, a->ai_addr, a->ai_addrlen) == 0) {
            err = 0;
        } else if (errno == EINPROGRESS) {
            struct pollfd p = {s, POLLOUT, 0};
            if (poll(&p, 1, 1000) != 1 || getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len))
                err = ETIMEDOUT;
        } else {
            err = errno;
        }
        why = err == 0 ? OK : err == ECONNREFUSED ? REFUSED
              : err == ENETUNREACH || err == EHOSTUNREACH ? UNREACHABLE : SILENT;
        if (why == OK) {
            fcntl(s, F_SETFL, fcntl(s, F_GETFL) & ~O_NONBLOCK);
            *fd = s;
        } else {
            close(s);
        }
    }
    freeaddrinfo(ai);
    return why;
}

int addr_connect(const char *spec)
{
    char hosts[1024];
    snprintf(hosts, sizeof hosts, "%s", spec);
    char *colon = strrchr(hosts, ':');
    if (!colon)
        return -1;
    *colon = '\0';
    /* The front end listens before any rank starts, so an address that
     * refuses while none answers means the front end is gone (killed while
     * the ranks started): give up after 5 such rounds (0.5 s), instead of
     * 5 s. Other failures (a name or a network still coming up) are retried
     * for 5 s. */
    double until = clock_now() + 5;
    for (int refused = 0; refused < 5 && clock_now() < until;) {
        int all_refused = 1, any_refused = 0, fd = -1;
        char copy[1024], *save = NULL;
        snprintf(copy, sizeof copy, "%s", hosts);
        for (char *h = strtok_r(copy, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
            int why = attempt(h, colon + 1, &fd);
            if (why == OK)
                return fd;
            any_refused |= why == REFUSED;
            all_refused &= why != SILENT;
        }
        refused += all_refused && any_refused;
        nanosleep(&(struct timespec){0, 100000000}, NULL);
    }
    return -1;
}
