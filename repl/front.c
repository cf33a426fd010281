/* The front end (front.h, docs/repl.md): one poll loop over the input, the
 * ranks' sockets and a self-pipe for signals. Commands go to their ranks at
 * once and never block the loop; each command's per-rank output and result
 * are gathered and printed folded when every target has finished it. */
#include "front.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "channel.h"
#include "fold.h"
#include "front-private.h"
#include "hint.h"
#include "launch.h"

double front_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void send_all(front *f, const rankset *s, int type, int nfields, const char *const *fl)
{
    for (int r = 0; r < f->n; r++)
        if ((!s || s->in[r]) && f->p[r].fd >= 0)
            chan_send(f->p[r].fd, type, nfields, fl, NULL);
}

/* ------------------------------------------------------------------------ */
/* Commands                                                                 */

static cmd *cmd_new(front *f, int kind, const rankset *target, const char *label)
{
    cmd *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->kind = kind;
    c->id = ++f->next_id;
    c->target = *target;
    c->sent = front_now();
    snprintf(c->label, sizeof c->label, "%s", label);
    c->block = calloc((size_t)f->n, sizeof *c->block);
    c->status = calloc((size_t)f->n, sizeof *c->status);
    c->pending = rankset_count(target);
    ts_expect(&f->ts, c->id);
    if (f->tail)
        f->tail->next = c;
    else
        f->head = c;
    f->tail = c;
    return c;
}

static void cmd_free(front *f, cmd *c)
{
    for (int r = 0; r < f->n; r++)
        free(c->block[r]);
    free(c->block);
    free(c->status);
    free(c->text);
    free(c->plain);
    free(c);
}

static cmd *find_cmd(front *f, int id)
{
    for (cmd *c = f->head; c; c = c->next)
        if (c->id == id)
            return c;
    return NULL;
}

void front_run_chunk(front *f, const rankset *target, const char *chunk)
{
    char label[64], id[16];
    size_t k = strcspn(chunk, "\n");
    snprintf(label, sizeof label, "%.*s%s", (int)(k < 40 ? k : 40), chunk, k > 40 ? "..." : "");
    cmd *c = cmd_new(f, CMD_RUN, target, label);
    if (!c)
        return;
    snprintf(id, sizeof id, "%d", c->id);
    const char *fl[] = {id, chunk, label};
    send_all(f, target, CHAN_RUN, 3, fl);
    for (int r = 0; r < f->n; r++)
        if (target->in[r])
            f->p[r].busy++;
}

/* Append to rank r's block of command c. */
static void block_add(cmd *c, int r, const char *s, size_t n)
{
    size_t have = c->block[r] ? strlen(c->block[r]) : 0;
    char *p = realloc(c->block[r], have + n + 1);
    if (!p)
        return;
    memcpy(p + have, s, n);
    p[have + n] = '\0';
    c->block[r] = p;
}

static void on_done(front *f, int r, const chan_msg *m)
{
    char id[16], st[16], cls[64];
    cmd *c = find_cmd(f, atoi(chan_field(m, 0, id, sizeof id)));
    chan_field(m, 1, st, sizeof st);
    chan_field(m, 3, cls, sizeof cls);
    f->p[r].busy--;
    f->p[r].last_error = strcmp(st, "ok") != 0;
    f->any_error |= f->p[r].last_error;
    f->st[r].last_error = f->p[r].last_error;
    if (!c || c->status[r])
        return;
    if (c->block[r] && c->block[r][0] && c->block[r][strlen(c->block[r]) - 1] != '\n')
        block_add(c, r, "\n", 1);
    if (strcmp(st, "ok") != 0) {
        block_add(c, r, "error ", 6);
        if (cls[0]) {
            block_add(c, r, cls, strlen(cls));
            block_add(c, r, ": ", 2);
        }
    }
    if (m->nfields > 2 && (m->len[2] || strcmp(st, "ok") != 0)) {
        block_add(c, r, m->field[2], m->len[2]);
        block_add(c, r, "\n", 1);
    }
    if (!c->block[r])
        block_add(c, r, "", 0);
    c->status[r] = 1;
    c->pending--;
}

static void on_state(front *f, int r, const chan_msg *m)
{
    if (m->nfields > 1)
        hint_parse(m->field[1], m->len[1], &f->st[r]);
    f->st_fresh[r] = 1;
}

static int on_frame(front *f, int r, const chan_msg *m)
{
    char id[16];
    cmd *c;
    switch (m->type) {
    case CHAN_OUT:
        if ((c = find_cmd(f, atoi(chan_field(m, 0, id, sizeof id)))) && m->nfields > 1)
            block_add(c, r, m->field[1], m->len[1]);
        break;
    case CHAN_DONE: on_done(f, r, m); break;
    case CHAN_STATE: on_state(f, r, m); break;
    case CHAN_MATCHES: front_on_matches(f, m); break;
    case CHAN_BYE: f->p[r].bye = 1; break;
    default: return -1;
    }
    return 0;
}

/* A rank's socket is readable. Returns -1 when it closed. */
static int read_rank(front *f, int r)
{
    peer *p = &f->p[r];
    long got = chan_fill(&p->c);
    if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN))
        return -1;
    chan_msg m;
    int k;
    while ((k = chan_next(&p->c, &m)) == 1)
        on_frame(f, r, &m);
    return k < 0 ? -1 : 0;
}

/* ------------------------------------------------------------------------ */
/* Status and hints                                                         */

/* Ask every rank for its state; the answers land in f->st. */
void front_poll_states(front *f)
{
    char id[16];
    snprintf(id, sizeof id, "%d", ++f->status_seq);
    const char *fl[] = {id};
    memset(f->st_fresh, 0, (size_t)f->n);
    send_all(f, NULL, CHAN_STATUS, 1, fl);
    f->polled_at = front_now();
}

static int states_fresh(const front *f)
{
    for (int r = 0; r < f->n; r++)
        if (!f->st_fresh[r] && f->p[r].fd >= 0)
            return 0;
    return 1;
}

static int any_running(const front *f)
{
    for (int r = 0; r < f->n; r++)
        if (strcmp(f->st[r].state, "running") == 0)
            return 1;
    return 0;
}

/* One line per rank, up to 8 ranks; beyond that, ranks in the same state
 * (the line without its durations) fold into one line, as STAT and DDT
 * group stacks: "ranks 0,2-7: blocked 3.1 s in wait(); ...". */
static char *status_text(front *f, cmd *c, int timings)
{
    char line[1200], key[1200], other[1200], set[512];
    size_t cap = (size_t)f->n * sizeof line + 1, off = 0;
    int fold = rankset_count(&c->target) > 8;
    unsigned char *done = calloc((size_t)f->n, 1);
    char *text = calloc(1, cap);
    if (!text || !done) {
        free(done);
        free(text);
        return NULL;
    }
    for (int r = 0; r < f->n; r++) {
        if (!c->target.in[r] || done[r])
            continue;
        hint_status_line(f->st, f->n, r, timings, line, sizeof line);
        hint_status_line(f->st, f->n, r, 0, key, sizeof key);
        rankset g = {.n = f->n};
        for (int q = r; q < f->n && fold; q++) {
            if (!c->target.in[q] || done[q])
                continue;
            hint_status_line(f->st, f->n, q, 0, other, sizeof other);
            g.in[q] = done[q] = strcmp(other, key) == 0;
        }
        g.in[r] = done[r] = 1;
        rankset_text(&g, set, sizeof set);
        off += (size_t)snprintf(text + off, cap - off, "rank%s %s: %s\n",
                                rankset_count(&g) > 1 ? "s" : "", set, line);
    }
    free(done);
    return text;
}

/* A pending :status entry: complete once every rank answered (and, in pipe
 * mode, once no rank runs Lua, so that the text does not depend on timing). */
/* From a pipe, the state is taken once it no longer depends on timing:
 * every command before it has finished, or no rank runs Lua and the same
 * ranks have stayed blocked in the same calls for 0.3 s. */
static int settled(front *f, cmd *c)
{
    int earlier = 0;
    for (cmd *e = f->head; e && e != c; e = e->next)
        earlier |= e->kind == CMD_RUN && e->pending;
    if (!earlier) /* states polled before the last DONE may still say running */
        return !any_running(f);
    char sig[2048] = "";
    size_t off = 0;
    for (int r = 0; r < f->n && off < sizeof sig; r++)
        off += (size_t)snprintf(sig + off, sizeof sig - off, "%s:%s;", f->st[r].state,
                                f->st[r].call);
    if (any_running(f) || strcmp(sig, c->sig) != 0) {
        snprintf(c->sig, sizeof c->sig, "%s", sig);
        c->retry_at = front_now();
        return 0;
    }
    return front_now() - c->retry_at >= 0.3;
}

static void step_status(front *f, cmd *c)
{
    if (c->status_asked && states_fresh(f)) {
        if (!f->tty && !settled(f, c) && front_now() - c->sent < 60) {
            c->status_asked = 0; /* ask again */
            return;
        }
        free(c->text);
        free(c->plain);
        c->text = status_text(f, c, f->tty);
        c->plain = status_text(f, c, 0);
        c->pending = 0;
    } else if (!c->status_asked && front_now() - f->polled_at >= 0.05) {
        front_poll_states(f);
        c->status_asked = 1;
    }
}

/* The :status a pipe waits for, by id: once taken, flush_cmds prints and
 * frees it, so a pointer to it would dangle. */
static int status_id;

static int status_taken(front *f)
{
    const cmd *c = find_cmd(f, status_id);
    return !c || !c->pending;
}

/* From a pipe, later input waits until the state has been taken, so that
 * it shows what the commands before it did, every time. */
void front_status(front *f, const rankset *target)
{
    cmd *c = cmd_new(f, CMD_STATUS, target, ":status");
    if (!c)
        return;
    c->pending = 1;
    if (f->tty)
        return;
    status_id = c->id;
    f->input_eof += 2;
    front_wait_until(f, status_taken, 15);
    f->input_eof -= 2;
    status_id = 0;
}

/* Deadlock hints: when the same hint holds for 1.5 s. */
static void step_hints(front *f)
{
    int busy = 0;
    for (int r = 0; r < f->n; r++)
        busy += f->p[r].busy > 0;
    if (!busy) {
        f->hint_sig[0] = '\0';
        return;
    }
    if (front_now() - f->polled_at > 0.5 && !f->status_cmd_pending)
        front_poll_states(f);
    if (!states_fresh(f))
        return;
    char h[4096];
    hint_deadlock(f->st, f->n, h, sizeof h);
    if (!h[0] || strcmp(h, f->hint_sig) != 0) {
        snprintf(f->hint_sig, sizeof f->hint_sig, "%s", h);
        f->hint_since = front_now();
        return;
    }
    if (front_now() - f->hint_since >= 1.5 && strcmp(h, f->hint_shown) != 0) {
        snprintf(f->hint_shown, sizeof f->hint_shown, "%s", h);
        if (f->tty)
            front_print(f, h);
        f->deadlocked = 1;
    }
}

/* ------------------------------------------------------------------------ */
/* Printing                                                                 */

/* A line of the front end's own (an error in a command line): in order
 * with the commands' output when it comes from a pipe. */
void front_note(front *f, const char *text)
{
    if (f->tty) {
        front_print(f, text);
        ts_note(&f->ts, text);
        return;
    }
    rankset none = {.n = f->n};
    cmd *c = cmd_new(f, CMD_STATUS, &none, "note");
    if (c)
        c->text = strdup(text);
}

static void print_cmd(front *f, cmd *c)
{
    if (c->kind == CMD_STATUS) {
        front_print(f, c->text ? c->text : "");
        ts_output(&f->ts, c->id, c->plain ? c->plain : c->text ? c->text : "");
        return;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return;
    fold_print(m, c->block, f->n);
    fclose(m);
    if (len)
        front_print(f, buf);
    ts_output(&f->ts, c->id, buf ? buf : "");
    free(buf);
}

/* What the ranks still running command c have printed so far (the first
 * Ctrl-C shows it, as clush does). */
void front_partial(front *f, cmd *c)
{
    char **part = calloc((size_t)f->n, sizeof *part);
    if (!part)
        return;
    int any = 0;
    for (int r = 0; r < f->n; r++)
        if (c->target.in[r] && !c->status[r] && c->block[r] && c->block[r][0])
            any = 1, part[r] = c->block[r];
    if (any) {
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        if (m) {
            fprintf(m, "printed so far by %s:\n", c->label);
            fold_print(m, part, f->n);
            fclose(m);
            front_print(f, buf);
        }
        free(buf);
    }
    free(part);
}

/* Still running after a second, on a terminal: say so, once. */
static void notice(front *f, cmd *c)
{
    if (!f->tty || c->noticed || c->kind != CMD_RUN || front_now() - c->sent < 1.0)
        return;
    c->noticed = 1;
    if (f->waiting_for == c->id)
        f->waiting_for = 0;
    rankset s = {.n = f->n};
    for (int r = 0; r < f->n; r++)
        s.in[r] = c->target.in[r] && !c->status[r];
    char set[256], line[512];
    rankset_text(&s, set, sizeof set);
    snprintf(line, sizeof line, "[%s] \xe2\x80\xa6 still running: %s  (%.1f s)\n", set, c->label,
             front_now() - c->sent);
    front_print(f, line);
    front_prompt(f);
}

/* Print what is complete: on a terminal as it completes, from a pipe in
 * the order the commands were given. */
static void flush_cmds(front *f)
{
    cmd **pp = &f->head, *prev = NULL;
    for (cmd *c = f->head; c; c = c->next)
        if (c->kind == CMD_STATUS && c->pending)
            step_status(f, c);
    while (*pp) {
        cmd *c = *pp;
        if (c->pending) {
            notice(f, c);
            if (!f->tty)
                break;
            prev = c;
            pp = &c->next;
            continue;
        }
        print_cmd(f, c);
        *pp = c->next;
        if (f->tail == c)
            f->tail = prev;
        if (f->waiting_for == c->id) {
            f->waiting_for = 0;
            front_prompt(f);
        }
        cmd_free(f, c);
    }
    f->status_cmd_pending = 0;
    for (cmd *c = f->head; c; c = c->next)
        f->status_cmd_pending |= c->kind == CMD_STATUS;
}

/* The session cannot go on (the input ended on a deadlock, or a rank is
 * gone): print, in order, what finished and what never will, then `note`. */
static void flush_unfinished(front *f, const char *note)
{
    for (cmd *c = f->head; c; c = c->next) {
        if (!c->pending || c->kind != CMD_RUN) {
            print_cmd(f, c);
            continue;
        }
        rankset s = {.n = f->n};
        for (int r = 0; r < f->n; r++)
            s.in[r] = c->target.in[r] && !c->status[r];
        char set[256], line[512];
        rankset_text(&s, set, sizeof set);
        snprintf(line, sizeof line, "[%s] \xe2\x80\xa6 never finished: %s\n", set, c->label);
        /* what it printed (all of it where it ended, so far elsewhere) */
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        if (m) {
            fold_print(m, c->block, f->n);
            fputs(line, m);
            fclose(m);
        }
        front_print(f, buf ? buf : line);
        ts_output(&f->ts, c->id, buf ? buf : line);
        free(buf);
    }
    if (note[0]) {
        front_print(f, note);
        ts_note(&f->ts, note);
    }
}

/* ------------------------------------------------------------------------ */
/* The loop                                                                 */

static int sigpipe_w = -1;

static void on_signal(int sig)
{
    unsigned char b = (unsigned char)sig;
    if (sigpipe_w >= 0 && write(sigpipe_w, &b, 1) < 0) {
        /* nothing to do: the loop will see the next one */
    }
}

/* The first rank to go is named; mpiexec then ends the others, and those
 * are not news. */
static void rank_died(front *f, int r)
{
    f->p[r].fd = -1;
    if (f->p[r].bye || f->quitting || f->dead)
        return;
    fprintf(stderr, "rmalab: rank %d (pid %d on %s) is gone; ending the session\n", r,
            f->p[r].pid, f->p[r].host);
    f->dead = 1;
}

static int build_fds(front *f, struct pollfd *fds, int *map)
{
    int k = 0;
    fds[k] = (struct pollfd){f->sig_r, POLLIN, 0};
    map[k++] = -2;
    if (f->l.listen_fd >= 0) { /* late connections are refused and logged */
        fds[k] = (struct pollfd){f->l.listen_fd, POLLIN, 0};
        map[k++] = -3;
    }
    if (front_input_wanted(f)) {
        fds[k] = (struct pollfd){0, POLLIN, 0};
        map[k++] = -1;
    }
    for (int r = 0; r < f->n; r++)
        if (f->p[r].fd >= 0) {
            fds[k] = (struct pollfd){f->p[r].fd, POLLIN, 0};
            map[k++] = r;
        }
    return k;
}

static void step(front *f)
{
    struct pollfd fds[RANKSET_MAX + 3];
    int map[RANKSET_MAX + 3];
    int k = build_fds(f, fds, map);
    if (poll(fds, (nfds_t)k, 20) < 0 && errno != EINTR)
        f->dead = 1;
    for (int i = 0; i < k; i++) {
        if (!fds[i].revents)
            continue;
        if (map[i] == -3) {
            int fd = accept4(f->l.listen_fd, NULL, NULL, SOCK_CLOEXEC);
            if (fd >= 0)
                front_greet(f, fd, 0.5);
        } else if (map[i] == -2) {
            unsigned char b;
            if (read(f->sig_r, &b, 1) == 1)
                front_on_signal(f, b);
        } else if (map[i] == -1) {
            if (fds[i].revents & (POLLHUP | POLLERR | POLLNVAL) && !(fds[i].revents & POLLIN))
                f->quit_asked = f->input_eof = 1; /* the terminal is gone */
            else
                front_read_input(f);
        } else if (read_rank(f, map[i]) < 0) {
            rank_died(f, map[i]);
        }
    }
    flush_cmds(f);
    step_hints(f);
}

int front_idle(const front *f)
{
    return f->head == NULL;
}

int front_ranks_open(const front *f)
{
    for (int r = 0; r < f->n; r++)
        if (f->p[r].fd >= 0)
            return 1;
    return 0;
}

void front_drop_cmds(front *f)
{
    while (f->head) {
        cmd *c = f->head;
        f->head = c->next;
        cmd_free(f, c);
    }
    f->tail = NULL;
}

void front_wait_until(front *f, int (*done)(front *), double seconds)
{
    double until = front_now() + seconds;
    while (!done(f) && !f->dead && front_now() < until)
        step(f);
}

/* After a death: read what the other ranks still send (what they finished
 * before mpiexec ended them) for up to a second, then print it in order
 * with what never finished, so that no output is lost. */
static void after_death(front *f)
{
    for (double until = front_now() + 1; front_ranks_open(f) && front_now() < until;)
        step(f);
    flush_unfinished(f, "");
    front_drop_cmds(f); /* told once: finish() must not tell them again */
}

/* Quit: wait for what runs (pipe mode: unless the ranks are deadlocked),
 * then QUIT, BYE from every rank, and mpiexec's exit. */
static int finish(front *f)
{
    int status = 0;
    while (!f->dead && !front_idle(f) && !(f->deadlocked && !f->tty)) {
        step(f);
        if (f->tty)
            break;
    }
    if (f->dead) /* in the session, or while waiting for it to end */
        after_death(f);
    if (f->deadlocked && !front_idle(f)) {
        if (!f->tty)
            flush_unfinished(f, f->hint_shown);
        fprintf(stderr, "rmalab: ranks are blocked in epoch calls that cannot end; ending the job\n");
        status = 1;
    }
    f->quitting = 1;
    send_all(f, NULL, CHAN_QUIT, 0, NULL);
    double until = front_now() + 40; /* ranks may wait 30 s for each other */
    int open = 1;
    while (open && front_now() < until && !f->dead) {
        step(f);
        open = front_ranks_open(f);
    }
    if (open || f->dead)
        status = 1;
    fflush(stdout);
    if (f->l.pid > 0 && launch_wait(&f->l, open ? 0 : 10) < 0)
        launch_kill(&f->l, 2);
    return f->dead ? 1 : status;
}

int front_loop(front *f)
{
    int pipefd[2];
    if (pipe(pipefd))
        return 1;
    f->sig_r = pipefd[0];
    sigpipe_w = pipefd[1];
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (f->tty)
        front_banner(f);
    front_prompt(f);
    while (!f->dead && !f->quit_asked)
        step(f);
    front_input_end(f);
    int st = finish(f);
    if (f->dead)
        launch_kill(&f->l, 2);
    return st;
}
