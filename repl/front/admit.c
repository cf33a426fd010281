/* Admitting the ranks of a session (session.h): each connection to the
 * listening socket must greet with the job's token and a rank not yet seen;
 * anything else is refused and logged. session_open waits here until every
 * rank is in, and then closes the listening socket. */
#include "session.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static void refuse(int fd, const char *why)
{
    struct sockaddr_storage sa;
    socklen_t len = sizeof sa;
    char host[64] = "?";
    if (getpeername(fd, (struct sockaddr *)&sa, &len) == 0 && sa.ss_family == AF_INET)
        inet_ntop(AF_INET, &((struct sockaddr_in *)&sa)->sin_addr, host, sizeof host);
    fprintf(stderr, "rmalab: refused a control connection from %s: %s\n", host, why);
    close(fd);
}

int session_greet(session *s, int fd, double seconds)
{
    chan_conn c = {.fd = fd};
    chan_msg m;
    int k = 0, rank = -1;
    char v[256];
    for (double until = clock_now() + seconds; k == 0 && clock_now() < until;) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 100) > 0 && chan_fill(&c) <= 0)
            break;
        k = chan_next(&c, &m);
    }
    const char *why = k < 0 ? "not a frame of the control channel" : k == 0 ? "no greeting"
                      : m.type != CHAN_HELLO ? "not a greeting"
                      : !chan_token_ok(&m, 0, s->l.token) ? "bad token" : NULL;
    if (!why) {
        rank = atoi(chan_field(&m, 1, v, sizeof v));
        if (rank < 0 || rank >= s->n || s->p[rank].fd >= 0)
            why = "a rank outside the job or seen twice";
    }
    if (why) {
        chan_buf_free(&c.in);
        refuse(fd, why);
        return -1;
    }
    peer *p = &s->p[rank];
    p->fd = fd;
    p->c = c; /* keeps what came after the greeting */
    p->pid = atoi(chan_field(&m, 4, v, sizeof v));
    chan_field(&m, 3, p->host, sizeof p->host);
    if (rank == 0)
        chan_field(&m, 5, s->banner, sizeof s->banner);
    return rank;
}

/* Accept until every rank has greeted, mpiexec is gone, or 60 s. */
int session_admit(session *s)
{
    int have = 0;
    double until = clock_now() + 60;
    while (have < s->n && clock_now() < until) {
        if (s->l.pid > 0 && launch_wait(&s->l, 0) >= 0) {
            fprintf(stderr, "rmalab: mpiexec ended before every rank connected\n");
            return -1;
        }
        struct pollfd p = {s->l.listen_fd, POLLIN, 0};
        if (poll(&p, 1, 100) <= 0)
            continue;
        int fd = accept4(s->l.listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd >= 0 && session_greet(s, fd, 5) >= 0)
            have++;
    }
    if (have < s->n) {
        fprintf(stderr, "rmalab: only %d of %d ranks connected\n", have, s->n);
        return -1;
    }
    close(s->l.listen_fd); /* every rank is in: no one else may connect */
    s->l.listen_fd = -1;
    return 0;
}
