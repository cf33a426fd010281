/* A session with the ranks of one job (session.h, docs/repl.md): one poll
 * loop over the ranks' sockets, the owner's input and
 * a self-pipe for signals. Commands go to their ranks at once and never
 * block the loop; each command's per-rank output and result are gathered,
 * and every event leaves through the sink. */
#include "session.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "fold.h"
#include "status.h"
#include "waits.h"

/* ------------------------------------------------------------------------ */
/* Opening and closing                                                      */

int session_open(session *s, const session_opts *o)
{
    s->o = *o;
    s->n = o->nranks;
    s->sig_r = -1;
    s->sent_seq = -1;
    s->ep = epoll_create1(EPOLL_CLOEXEC);
    if (!s->deadlock_hold)
        s->deadlock_hold = 1.0;
    s->p = calloc((size_t)s->n, sizeof *s->p);
    s->st = calloc((size_t)s->n, sizeof *s->st);
    s->st_seq = calloc((size_t)s->n, sizeof *s->st_seq);
    s->L = luaL_newstate();
    s->out.nranks = s->n;
    ts_init(&s->ts, s->n);
    if (!s->p || !s->st || !s->st_seq || !s->L || s->n > RANKSET_MAX || s->ep < 0)
        return -1;
    for (int r = 0; r < s->n; r++)
        s->p[r].fd = -1;
    if (o->launch) {
        if (launch_listen(&s->l, o->mpiexec_argc, o->mpiexec_argv) ||
            launch_start(&s->l, s->n, o->mpiexec_argc, o->mpiexec_argv, o->self))
            return -1;
    } else {
        s->l.listen_fd = o->listen_fd;
        snprintf(s->l.token, sizeof s->l.token, "%s", o->token);
    }
    return session_admit(s);
}

void session_close(session *s)
{
    for (int r = 0; r < s->n && s->p; r++) {
        if (s->p[r].fd >= 0)
            close(s->p[r].fd);
        chan_buf_free(&s->p[r].c.in);
    }
    if (s->L)
        lua_close(s->L);
    if (s->ep >= 0)
        close(s->ep);
    while (s->head) {
        cmd *c = s->head;
        s->head = c->next;
        session_cmd_free(s, c);
    }
    s->tail = NULL;
    ts_free(&s->ts);
    free(s->p);
    free(s->st);
    free(s->st_seq);
}

/* ------------------------------------------------------------------------ */
/* Frames from the ranks                                                    */

/* Append to rank r's block of command c. */
static void block_add(cmd *c, int r, const char *t, size_t n)
{
    size_t have = c->block[r] ? strlen(c->block[r]) : 0;
    char *p = realloc(c->block[r], have + n + 1);
    if (!p)
        return;
    memcpy(p + have, t, n);
    p[have + n] = '\0';
    c->block[r] = p;
}

static void on_done(session *s, int r, const chan_msg *m)
{
    char id[16], st[16], cls[64], finder[16];
    cmd *c = session_find(s, atoi(chan_field(m, 0, id, sizeof id)));
    chan_field(m, 1, st, sizeof st);
    chan_field(m, 3, cls, sizeof cls);
    chan_field(m, 4, finder, sizeof finder); /* "" when absent */
    int found_by = finder[0] ? atoi(finder) : -1;
    int failed = strcmp(st, "ok") != 0;
    const char *text = m->nfields > 2 ? m->field[2] : "";
    size_t len = m->nfields > 2 ? m->len[2] : 0;
    s->p[r].busy--;
    s->any_error |= failed;
    s->st[r].last_error = failed; /* kept across STATEs: the hints read it */
    if (!c || c->status[r])
        return;
    sink_event e = {.kind = failed ? EV_ERROR : EV_RESULT, .id = c->id, .label = c->label,
                    .rank = r, .ranks = &c->target, .text = text, .len = len, .cls = cls,
                    .finder = failed ? found_by : -1};
    sink_emit(&s->out, &e);
    if (c->block[r] && c->block[r][0] && c->block[r][strlen(c->block[r]) - 1] != '\n')
        block_add(c, r, "\n", 1);
    if (failed) {
        block_add(c, r, "error ", 6);
        if (cls[0]) {
            block_add(c, r, cls, strlen(cls));
            block_add(c, r, ": ", 2);
        }
        c->finder[r] = found_by;
        c->err_at[r] = c->block[r] ? strlen(c->block[r]) : 0;
    }
    if (len || failed) {
        block_add(c, r, text, len);
        block_add(c, r, "\n", 1);
    }
    if (!c->block[r])
        block_add(c, r, "", 0);
    c->status[r] = 1;
    c->failed[r] = strcmp(st, "error") == 0; /* an interrupt is no news */
    c->pending--;
}

/* A rank's passive-target calls need the progress of the ranks named
 * (rank.c): they are told to hurry. */
static void hurry(session *s, const chan_msg *m)
{
    rankset to = {.n = s->n};
    char q[16];
    for (int i = 0; i < m->nfields; i++) {
        int t = atoi(chan_field(m, i, q, sizeof q));
        if (t >= 0 && t < s->n && t < RANKSET_MAX)
            to.in[t] = 1;
    }
    session_send_all(s, &to, CHAN_HURRY, 0, NULL);
}

static void on_frame(session *s, int r, const chan_msg *m)
{
    char id[16];
    cmd *c;
    switch (m->type) {
    case CHAN_OUT:
        if ((c = session_find(s, atoi(chan_field(m, 0, id, sizeof id)))) && m->nfields > 1) {
            block_add(c, r, m->field[1], m->len[1]);
            s->progress++;
            sink_event e = {.kind = EV_OUTPUT, .id = c->id, .label = c->label, .rank = r,
                            .ranks = &c->target, .text = m->field[1], .len = m->len[1]};
            sink_emit(&s->out, &e);
        }
        break;
    case CHAN_DONE: on_done(s, r, m), s->progress++; break;
    case CHAN_STATE:
        if (m->nfields > 1)
            rstate_parse(m->field[1], m->len[1], &s->st[r]);
        s->st_seq[r] = atoi(chan_field(m, 0, id, sizeof id));
        break;
    case CHAN_BYE: s->p[r].bye = 1; break;
    case CHAN_HURRY: hurry(s, m); break;
    default:
        if (s->h.on_frame)
            s->h.on_frame(s, r, m);
    }
}

/* The first rank to go is named; mpiexec then ends the others, and those
 * are not news. Each rank that went without BYE gets its place in that
 * order (peer.gone: 1 for the first). */
static void rank_died(session *s, int r)
{
    peer *p = &s->p[r];
    close(p->fd);
    p->fd = -1;
    p->in_ep = p->unread = 0;
    if (p->bye || s->quitting)
        return;
    p->gone = ++s->ngone;
    if (!s->dead) {
        char line[300];
        snprintf(line, sizeof line, "rmalab: rank %d (pid %d on %s) is gone; ending the session\n",
                 r, p->pid, p->host);
        sink_emit_text(&s->out, EV_MESSAGE, line);
    }
    s->dead = 1;
}

/* A rank's socket may be readable: what is there is read to its end, as
 * an edge-triggered epoll set needs (read_ranks), up to READ_ROUNDS reads a
 * look so that a rank that floods output cannot hold the others up. Each
 * read is preceded by a look that does not wait (the socket blocks, and an
 * event can come for data an earlier read already took). Returns -1 when
 * it closed, 1 when more is left, else 0. */
#define READ_ROUNDS 64

static int read_rank(session *s, int r)
{
    peer *p = &s->p[r];
    for (int round = 0; round < READ_ROUNDS; round++) {
        char b;
        ssize_t there = recv(p->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
        if (there < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return 0;
        if (there <= 0 || chan_fill(&p->c) <= 0)
            return -1;
        chan_msg m;
        int k;
        while ((k = chan_next(&p->c, &m)) == 1)
            on_frame(s, r, &m);
        if (k < 0)
            return -1;
    }
    return 1;
}

/* ------------------------------------------------------------------------ */
/* Handing finished commands to the sink                                    */

/* From a pipe, the state is taken once it no longer depends on timing:
 * every command before it has finished, or no rank runs Lua or is in a
 * collective that all its members have reached, and the same ranks have
 * stayed blocked in the same calls for 0.3 s. */
static int settled(session *s, cmd *c)
{
    int earlier = 0;
    for (cmd *e = s->head; e && e != c; e = e->next)
        earlier |= e->kind != CMD_STATUS && e->kind != CMD_NOTE && e->pending;
    if (!earlier) /* states polled before the last DONE may still say running */
        return !rstate_any_running(s->st, s->n);
    char sig[2048] = "";
    size_t off = 0;
    for (int r = 0; r < s->n && off < sizeof sig; r++)
        off += (size_t)snprintf(sig + off, sizeof sig - off, "%s:%s;", s->st[r].state,
                                s->st[r].call);
    if (rstate_any_running(s->st, s->n) || rstate_progressing(s->st, s->n) ||
        strcmp(sig, c->sig) != 0) {
        snprintf(c->sig, sizeof c->sig, "%s", sig);
        c->retry_at = clock_now();
        return 0;
    }
    return clock_now() - c->retry_at >= 0.3;
}

static void step_status(session *s, cmd *c)
{
    if (c->status_asked && session_states_fresh(s)) {
        if (s->ordered && !settled(s, c) && clock_now() - c->sent < 60) {
            c->status_asked = 0; /* ask again */
            return;
        }
        free(c->text);
        free(c->plain);
        c->text = rstate_status_text(s->st, s->n, &c->target, !s->ordered);
        c->plain = rstate_status_text(s->st, s->n, &c->target, 0);
        c->pending = 0;
    } else if (!c->status_asked && clock_now() - s->polled_at >= 0.05) {
        session_poll_states(s);
        c->status_asked = 1;
    }
}

static void emit_cmd(session *s, cmd *c, int kind, const rankset *ranks)
{
    if (c->block)
        fold_race_echoes(c->block, c->finder, c->err_at, s->n);
    sink_event e = {.kind = kind, .id = c->id, .label = c->label, .ranks = ranks,
                    .blocks = c->kind == CMD_RUN || c->kind == CMD_FILE ? c->block : NULL,
                    .text = c->text, .len = c->text ? strlen(c->text) : 0, .plain = c->plain,
                    .shown = c->shown};
    sink_emit(&s->out, &e);
}

static rankset unfinished(const session *s, const cmd *c)
{
    rankset still = {.n = s->n};
    for (int r = 0; r < s->n; r++)
        still.in[r] = c->target.in[r] && !c->status[r];
    return still;
}

/* Still running after a second, where notices are shown: say so, once
 * (noticed -1: now, as the first Ctrl-C asks), with the errors of the
 * ranks that finished, often why the others wait; again when another rank
 * fails while the rest still run. */
static void notice(session *s, cmd *c)
{
    int due = c->noticed < 0 || (!c->noticed && clock_now() - c->sent >= 1.0), news = 0;
    for (int r = 0; r < s->n; r++)
        news |= c->failed[r] && !c->shown[r];
    if (s->ordered || c->kind != CMD_RUN || !(due || (c->noticed > 0 && news)))
        return;
    c->noticed = 1;
    rankset still = unfinished(s, c);
    char **errs = calloc((size_t)s->n, sizeof *errs);
    for (int r = 0; errs && r < s->n; r++)
        errs[r] = c->failed[r] ? c->block[r] : NULL;
    sink_event e = {.kind = EV_RUNNING, .id = c->id, .label = c->label, .ranks = &still,
                    .seconds = clock_now() - c->sent, .blocks = errs, .shown = c->shown};
    sink_emit(&s->out, &e);
    for (int r = 0; r < s->n; r++)
        c->shown[r] |= c->failed[r];
    free(errs);
}

/* Hand what is complete to the sink: as it completes, or, when the sink is
 * ordered (a pipe), in the order the commands were given. */
static void flush_cmds(session *s)
{
    cmd **pp = &s->head, *prev = NULL;
    int was_busy = s->head != NULL;
    for (cmd *c = s->head; c; c = c->next)
        if (c->kind == CMD_STATUS && c->pending)
            step_status(s, c);
    while (*pp) {
        cmd *c = *pp;
        if (c->pending) {
            notice(s, c);
            if (s->ordered)
                break;
            prev = c;
            pp = &c->next;
            continue;
        }
        emit_cmd(s, c, EV_DONE, &c->target);
        *pp = c->next;
        if (s->tail == c)
            s->tail = prev;
        session_cmd_free(s, c);
    }
    if (was_busy && !s->head)
        sink_emit_text(&s->out, EV_IDLE, "");
}

/* Deadlock hints where they are shown as they come (not to a pipe, whose
 * hint comes at the end): when the same hint holds for deadlock_hold. */
static void step_hints(session *s)
{
    if (!session_deadlock_now(s) || s->ordered || strcmp(s->hint_sig, s->hint_shown) == 0)
        return;
    snprintf(s->hint_shown, sizeof s->hint_shown, "%s", s->hint_sig);
    sink_emit_text(&s->out, EV_HINT, s->hint_sig);
}

/* ------------------------------------------------------------------------ */
/* The loop                                                                 */

static int build_fds(session *s, struct pollfd *fds, int *map)
{
    int k = 0;
    if (s->sig_r >= 0) {
        fds[k] = (struct pollfd){s->sig_r, POLLIN, 0};
        map[k++] = -2;
    }
    int in = s->h.input_fd ? s->h.input_fd(s) : -1;
    if (in >= 0) {
        fds[k] = (struct pollfd){in, POLLIN, 0};
        map[k++] = -1;
    }
    fds[k] = (struct pollfd){s->ep, POLLIN, 0};
    map[k++] = -3;
    for (int r = 0; r < s->n; r++)
        if (s->p[r].fd >= 0 && !s->p[r].in_ep) {
            struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.u32 = (uint32_t)r};
            s->p[r].in_ep = epoll_ctl(s->ep, EPOLL_CTL_ADD, s->p[r].fd, &ev) == 0;
        }
    return k;
}

/* The ranks' sockets that are readable, through epoll: it lists them in
 * the order they became so, where poll gave them in rank order. When one
 * rank dies and mpiexec's cleanup kills the others, a front end that looks
 * late finds every socket closed; by rank order it took rank 0 for the
 * rank that died (5 to 7 runs in 400 of crash.lua and crash-epoch.lua
 * beside two busy loops; a kernel trace of one showed rank 1's close 7 ms
 * before rank 0's). Edge-triggered, a socket takes its place when
 * something arrives after it was read to its end; level-triggered, a
 * socket listed at an earlier look kept that place (1 run in 200 wrong;
 * edge-triggered, 0 in 1700). A close behind data takes the data's place:
 * whether it came before another rank's close cannot be known; putting
 * such closes last instead was wrong in 2 runs of 400. */
static void read_ranks(session *s)
{
    struct epoll_event ev[RANKSET_MAX];
    int n = epoll_wait(s->ep, ev, RANKSET_MAX, 0);
    for (int i = 0; i < n; i++) {
        int r = (int)ev[i].data.u32, st = 0;
        if (r < s->n && s->p[r].fd >= 0 && (st = read_rank(s, r)) < 0)
            rank_died(s, r);
        else if (r < s->n)
            s->p[r].unread = st;
    }
    for (int r = 0; r < s->n; r++) /* what READ_ROUNDS left */
        if (s->p[r].unread && s->p[r].fd >= 0) {
            int st = read_rank(s, r);
            if (st < 0)
                rank_died(s, r);
            else
                s->p[r].unread = st;
        }
}

static int any_unread(const session *s)
{
    for (int r = 0; r < s->n; r++)
        if (s->p[r].unread && s->p[r].fd >= 0)
            return 1;
    return 0;
}

void session_step(session *s, int ms)
{
    struct pollfd fds[3];
    int map[3];
    int k = build_fds(s, fds, map), ranks = any_unread(s);
    if (poll(fds, (nfds_t)k, ranks ? 0 : ms) < 0 && errno != EINTR)
        s->dead = -1;
    for (int i = 0; i < k; i++) {
        if (!fds[i].revents)
            continue;
        if (map[i] == -2) {
            unsigned char b;
            if (read(s->sig_r, &b, 1) == 1 && s->h.on_signal)
                s->h.on_signal(s, b);
        } else if (map[i] == -1) {
            s->h.on_input(s);
        } else {
            ranks = 1;
        }
    }
    if (ranks)
        read_ranks(s);
    flush_cmds(s);
    step_hints(s);
}

void session_wait_until(session *s, int (*done)(session *), double seconds)
{
    double until = clock_now() + seconds;
    while (!done(s) && !s->signalled && clock_now() < until)
        session_step(s, 20);
}

int session_idle(const session *s)
{
    return s->head == NULL;
}

int session_ranks_open(const session *s)
{
    for (int r = 0; r < s->n; r++)
        if (s->p[r].fd >= 0)
            return 1;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The end                                                                  */

/* What finished goes out in order, then what never will. */
static void flush_unfinished(session *s)
{
    while (s->head) {
        cmd *c = s->head;
        rankset still = unfinished(s, c);
        if (!c->pending || c->kind == CMD_STATUS || c->kind == CMD_NOTE)
            emit_cmd(s, c, EV_DONE, &c->target);
        else
            emit_cmd(s, c, EV_NEVER, &still);
        s->head = c->next;
        session_cmd_free(s, c);
    }
    s->tail = NULL;
}

/* After a death: read what the other ranks still send (what they finished
 * before mpiexec ended them) for up to a second, then hand it out in order
 * with what never finished, so that no output is lost. */
static void after_death(session *s)
{
    for (double until = clock_now() + 1; session_ranks_open(s) && clock_now() < until;)
        session_step(s, 20);
    flush_unfinished(s);
}

int session_abort(session *s, const char *why, int status)
{
    s->quitting = 1;
    flush_unfinished(s);
    launch_end(&s->l); /* ranks it did not launch, or on other hosts, end
                          once session_close closes their channel (rank.c) */
    if (why[0])
        sink_emit_text(&s->out, EV_MESSAGE, why);
    sink_event e = {.kind = EV_END, .status = status, .text = why, .len = strlen(why)};
    sink_emit(&s->out, &e);
    return status;
}

/* Every command already sent, run to its end, unless the job ends first:
 * a death, a signal, a deadlock that holds now, or ranks that have not
 * moved for QUIT_STUCK_HOLD s (their reason in why). */
#define QUIT_STUCK_HOLD 5.0

static void drain(session *s, char *why, size_t size)
{
    s->stuck_sig[0] = why[0] = '\0';
    while (!s->dead && !s->signalled && !session_idle(s) && !session_deadlock_now(s) &&
           !session_stuck_now(s, QUIT_STUCK_HOLD, why, size))
        session_step(s, 20);
}

/* The job cannot end by itself: what finished, what never will, the hint
 * (if the ranks are deadlocked), and why it was ended. */
static int end_blocked(session *s, const char *why)
{
    flush_unfinished(s);
    if (!why[0]) {
        snprintf(s->hint_shown, sizeof s->hint_shown, "%s", s->hint_sig);
        sink_event e = {.kind = EV_HINT, .text = s->hint_sig, .len = strlen(s->hint_sig),
                        .status = 1};
        sink_emit(&s->out, &e);
    }
    return session_abort(s, why[0] ? why : "rmalab: ranks are blocked in calls that cannot "
                                           "end; ending the job\n", 1);
}

int session_finish(session *s)
{
    char why[1024];
    drain(s, why, sizeof why);
    if (s->signalled)
        return s->signalled; /* the owner's signal handling has ended it */
    if (s->dead) {
        after_death(s);
        return session_abort(s, "", 1);
    }
    if (!session_idle(s)) /* deadlocked or stuck now */
        return end_blocked(s, why);
    s->quitting = 1;
    session_send_all(s, NULL, CHAN_QUIT, 0, NULL);
    double until = clock_now() + 40; /* ranks may wait 30 s for each other */
    while (session_ranks_open(s) && clock_now() < until && !s->signalled)
        session_step(s, 20);
    if (s->signalled)
        return s->signalled;
    int open = session_ranks_open(s), status = 0;
    fflush(stdout);
    if (open || (s->l.pid > 0 && launch_wait(&s->l, 10) < 0)) {
        launch_end(&s->l);
        sink_emit_text(&s->out, EV_MESSAGE,
                       "rmalab: the ranks did not end after :quit; ended the job\n");
        status = 1;
    }
    sink_event e = {.kind = EV_END, .status = status, .text = ""};
    sink_emit(&s->out, &e);
    return status;
}
