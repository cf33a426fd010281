/* Starting a session (front.h): the ranks are launched (or already there),
 * each connects and says HELLO with the session's token; connections that
 * do not are refused and logged, and the session goes on. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "front-private.h"
#include "rank.h" /* rank_trace_dump */

/* Read one HELLO from a new connection, within `seconds`; the rank, or
 * -1 (refused, closed and logged). */
int front_greet(front *f, int fd, double seconds)
{
    chan_conn c = {.fd = fd};
    chan_msg m;
    int k = 0, rank = -1;
    char v[256];
    for (double until = front_now() + seconds; k == 0 && front_now() < until;) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 100) > 0 && chan_fill(&c) <= 0)
            break;
        k = chan_next(&c, &m);
    }
    const char *why = k < 0 ? "not a frame of the control channel" : k == 0 ? "no greeting"
                      : m.type != CHAN_HELLO ? "not a greeting"
                      : !chan_token_ok(&m, 0, f->l.token) ? "bad token" : NULL;
    if (!why) {
        rank = atoi(chan_field(&m, 1, v, sizeof v));
        if (rank < 0 || rank >= f->n || f->p[rank].fd >= 0)
            why = "a rank outside the job or seen twice";
    }
    if (why) {
        struct sockaddr_storage sa;
        socklen_t len = sizeof sa;
        char host[64] = "?";
        if (getpeername(fd, (struct sockaddr *)&sa, &len) == 0 && sa.ss_family == AF_INET)
            inet_ntop(AF_INET, &((struct sockaddr_in *)&sa)->sin_addr, host, sizeof host);
        fprintf(stderr, "rmalab: refused a control connection from %s: %s\n", host, why);
        chan_buf_free(&c.in);
        close(fd);
        return -1;
    }
    peer *p = &f->p[rank];
    p->fd = fd;
    p->c = c; /* keeps what came after the greeting */
    p->pid = atoi(chan_field(&m, 4, v, sizeof v));
    chan_field(&m, 3, p->host, sizeof p->host);
    if (rank == 0)
        chan_field(&m, 5, f->banner, sizeof f->banner);
    return rank;
}

/* Accept until every rank has greeted, mpiexec is gone, or 60 s. */
static int gather(front *f)
{
    int have = 0;
    double until = front_now() + 60;
    while (have < f->n && front_now() < until) {
        if (f->l.pid > 0 && launch_wait(&f->l, 0) >= 0) {
            fprintf(stderr, "rmalab: mpiexec ended before every rank connected\n");
            return -1;
        }
        struct pollfd p = {f->l.listen_fd, POLLIN, 0};
        if (poll(&p, 1, 100) <= 0)
            continue;
        int fd = accept4(f->l.listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd >= 0 && front_greet(f, fd, 5) >= 0)
            have++;
    }
    if (have < f->n)
        fprintf(stderr, "rmalab: only %d of %d ranks connected\n", have, f->n);
    return have == f->n ? 0 : -1;
}

int front_setup(front *f, const front_opts *o)
{
    f->o = *o;
    f->n = o->nranks;
    f->p = calloc((size_t)f->n, sizeof *f->p);
    f->st = calloc((size_t)f->n, sizeof *f->st);
    f->st_fresh = calloc((size_t)f->n, 1);
    f->L = luaL_newstate();
    if (!f->p || !f->st || !f->st_fresh || !f->L || f->n > RANKSET_MAX)
        return -1;
    for (int r = 0; r < f->n; r++)
        f->p[r].fd = -1;
    f->deflt.n = f->n;
    memset(f->deflt.in, 1, (size_t)f->n);
    f->tty = !o->exec_chunk && isatty(0) && isatty(1);
    ts_init(&f->ts, f->n);
    if (o->record && strcmp(o->record, "-") == 0) {
        if (f->tty) {
            fprintf(stderr, "rmalab: --record - is for piped input; on a terminal give a file\n");
            return -1;
        }
        f->record_stdout = 1;
    }
    if (o->record && ts_record(&f->ts, o->record)) {
        fprintf(stderr, "rmalab: cannot write %s: %s\n", o->record, strerror(errno));
        return -1;
    }
    if (o->launch) {
        if (launch_listen(&f->l, o->mpiexec_argc, o->mpiexec_argv) ||
            launch_start(&f->l, f->n, o->mpiexec_argc, o->mpiexec_argv, o->self))
            return -1;
    } else {
        f->l.listen_fd = o->listen_fd;
        snprintf(f->l.token, sizeof f->l.token, "%s", o->token);
    }
    return gather(f);
}

void front_teardown(front *f)
{
    for (int r = 0; r < f->n && f->p; r++) {
        if (f->p[r].fd >= 0)
            close(f->p[r].fd);
        chan_buf_free(&f->p[r].c.in);
    }
    if (f->L)
        lua_close(f->L);
    front_drop_cmds(f);
    for (int i = 0; i < f->nnames; i++)
        free(f->names[i]);
    free(f->names);
    ts_free(&f->ts);
    free(f->p);
    free(f->st);
    free(f->st_fresh);
}

/* rmalab --trace FILE -e CHUNK: once the chunk has run, every rank writes
 * the trace, as after a script. */
static void trace_dump(front *f)
{
    const char *path = getenv("RMALAB_TRACE_FILE");
    if (path && *path)
        front_run_chunk(f, &f->deflt, rank_trace_dump);
}

int front_run(const front_opts *o)
{
    front f = {0};
    int status = 1;
    if (front_setup(&f, o) == 0) {
        front_term_init(&f);
        if (o->exec_chunk) {
            front_run_chunk(&f, &f.deflt, o->exec_chunk);
            trace_dump(&f);
            f.input_eof = 1;
            f.quit_asked = 1;
            f.banner[0] = '\0';
        }
        status = front_loop(&f);
        if (o->exec_chunk && f.any_error)
            status = 1;
    } else {
        launch_kill(&f.l, 2);
    }
    front_teardown(&f);
    return status;
}
