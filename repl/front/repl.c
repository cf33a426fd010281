/* The REPL's front end (repl.h): one loop, session_step, over the input,
 * the ranks and the signals. A line is a chunk for the default ranks,
 * `@ranks chunk` or a `:` command (cmdline.c, commands.c); a chunk
 * continues while the front end's Lua says it is incomplete (chunk.c).
 * Where output goes is the sink's business: the terminal, a pipe, the
 * transcript, or JSON lines. */
#include "repl.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chunk.h"
#include "../wire/trace-dump.h"
#include "render.h"

/* ------------------------------------------------------------------------ */
/* Lines                                                                    */

/* The transcript takes every typed line but those about the session
 * itself (:save, :record, :quit). */
static void transcribe(repl *r, const char *line)
{
    cmdline c;
    if (!r->chunk && cmdline_parse(line, strlen(line), r->s.n, &c) == 0 &&
        c.kind == CMD_COMMAND &&
        (strcmp(c.name, "save") == 0 || strcmp(c.name, "record") == 0 ||
         strcmp(c.name, "quit") == 0))
        return;
    ts_input(&r->s.ts, r->chunk ? ">> " : "> ", line);
}

static int incomplete(repl *r, const char *s)
{
    return chunk_incomplete(r->s.L, s, strlen(s));
}

static void continue_chunk(repl *r, const char *line)
{
    size_t n = strlen(r->chunk), k = strlen(line);
    char *p = realloc(r->chunk, n + k + 2);
    if (!p)
        return;
    p[n] = '\n';
    memcpy(p + n + 1, line, k + 1);
    r->chunk = p;
    if (!incomplete(r, p)) {
        r->chunk = NULL;
        commands_submit(r, &r->chunk_target, p);
        free(p);
    }
}

/* Under --json, a line that is a JSON object is a request to the front
 * end (requests.c), never Lua. */
static int json_request(repl *r, const char *line)
{
    request q;
    int k = request_parse(line, strlen(line), &q);
    if (k > 0)
        requests_run(r, &q);
    request_free(&q);
    return k != 0;
}

/* The input ended inside a chunk that still wanted lines: it is not run,
 * a note says so (its first line), and the exit status will be 1. */
static void unfinished_chunk(repl *r)
{
    char msg[300];
    size_t n = strcspn(r->chunk, "\n");
    snprintf(msg, sizeof msg, "rmalab: the input ended inside an unfinished chunk, which was "
             "not run: %.*s%s\n", (int)(n > 120 ? 120 : n), r->chunk, n > 120 ? "..." : "");
    session_note(&r->s, msg);
    free(r->chunk);
    r->chunk = NULL;
    r->unfinished = 1;
}

static void on_line(void *ud, const char *line)
{
    repl *r = ud;
    if (!line) { /* the end of input: what is queued runs, then quit */
        if (r->chunk)
            unfinished_chunk(r);
        r->quit_asked = 1;
        return;
    }
    if (r->s.o.json && json_request(r, line))
        return;
    transcribe(r, line);
    r->cell_line++;
    if (r->chunk) {
        continue_chunk(r, line);
        return;
    }
    r->chunk_line = r->cell_line;
    cmdline c;
    cmdline_parse(line, strlen(line), r->s.n, &c);
    if (c.kind == CMD_ERROR) {
        char msg[200];
        snprintf(msg, sizeof msg, "rmalab: %s\n", c.err);
        session_note(&r->s, msg);
    } else if (c.kind == CMD_COMMAND) {
        commands_run(r, &c);
    } else if (c.kind == CMD_CHUNK) {
        char *body = strndup(c.body, c.bodylen);
        r->chunk_target = c.has_target ? c.target : r->deflt;
        if (body && incomplete(r, body))
            r->chunk = body;
        else if (body) {
            commands_submit(r, &r->chunk_target, body);
            free(body);
        }
    }
    if (r->quit_asked)
        r->t.ended = 1;
}

static void dropped(void *ud)
{
    repl *r = ud;
    session_note(&r->s, "rmalab: an input line longer than 64 KiB was dropped\n");
}

static const char *prompt_text(void *ud)
{
    repl *r = ud;
    char set[256];
    if (r->chunk)
        return ">> ";
    if (rankset_count(&r->deflt) == r->s.n)
        snprintf(set, sizeof set, "all");
    else
        rankset_text(&r->deflt, set, sizeof set);
    snprintf(r->prompt, sizeof r->prompt, "rmalab[%s]> ", set);
    return r->prompt;
}

/* ------------------------------------------------------------------------ */
/* Holding the input                                                        */

static int targets_idle(const repl *r, const rankset *t)
{
    for (int k = 0; k < r->s.n; k++)
        if (t->in[k] && r->s.p[k].busy > 0)
            return 0;
    return 1;
}

/* Is the input held (by :wait, a pipe's :status, a completion)? Releases
 * the holds that are over. */
static int held(repl *r)
{
    if (r->hold_status) {
        cmd *c = session_find(&r->s, r->hold_status);
        if (c && c->pending)
            return 1;
        r->hold_status = 0;
    }
    if (r->wait_until) {
        if (!targets_idle(r, &r->wait_target) && clock_now() < r->wait_until)
            return 1;
        r->wait_until = 0;
    }
    return r->completing;
}

static int held_hook(void *ud)
{
    return held(ud);
}

static int input_fd(session *s)
{
    repl *r = s->h.ud;
    return held(r) || r->quit_asked ? -1 : term_fd(&r->t);
}

static void on_input(session *s)
{
    repl *r = s->h.ud;
    term_read(&r->t);
}

/* ------------------------------------------------------------------------ */
/* Completion, signals                                                      */

static int got_matches(session *s)
{
    repl *r = s->h.ud;
    return !r->completing;
}

/* Ask the first idle target rank, for at most 200 ms; else keep the names
 * it last gave. */
static void complete(void *ud, const char *text)
{
    repl *r = ud;
    for (int k = 0; k < r->s.n; k++) {
        if (!r->deflt.in[k] || r->s.p[k].busy || r->s.p[k].fd < 0)
            continue;
        const char *fl[] = {"0", text};
        if (chan_send(r->s.p[k].fd, CHAN_COMPLETE, 2, fl, NULL) == 0) {
            r->completing = 1;
            session_wait_until(&r->s, got_matches, 0.2);
            r->completing = 0;
        }
        break;
    }
}

/* A rank's picture (EVENT "display": id, kind, mime, "", data). */
static void on_display(session *s, int rank, const chan_msg *m)
{
    char id[16], kind[16], mime[64];
    if (strcmp(chan_field(m, 1, kind, sizeof kind), "display") || m->nfields < 5)
        return;
    sink_event e = {.kind = EV_DISPLAY, .id = atoi(chan_field(m, 0, id, sizeof id)),
                    .rank = rank, .mime = chan_field(m, 2, mime, sizeof mime),
                    .text = m->field[4], .len = m->len[4]};
    sink_emit(&s->out, &e);
}

static void on_frame(session *s, int rank, const chan_msg *m)
{
    repl *r = s->h.ud;
    if (m->type == CHAN_EVENT)
        on_display(s, rank, m);
    if (m->type == CHAN_INTERRUPT)
        commands_interrupt_answer(r, rank, m);
    if (m->type == CHAN_MATCHES && r->s.o.json)
        requests_matches(r, m);
    if (m->type != CHAN_MATCHES || r->s.o.json)
        return;
    char **names = calloc((size_t)m->nfields + 1, sizeof *names);
    int n = 0;
    for (int i = 1; names && i < m->nfields; i++)
        names[n++] = strndup(m->field[i], m->len[i]);
    term_set_names(&r->t, names, n);
    r->completing = 0;
}

/* Ctrl-C on a terminal is the ladder of commands_ctrl_c. SIGTERM, SIGHUP,
 * and SIGINT without a terminal end the job: 128 + the signal. */
static void on_signal(session *s, int sig)
{
    repl *r = s->h.ud;
    if (sig == SIGINT && r->t.tty) {
        commands_ctrl_c(r);
        return;
    }
    char why[120];
    snprintf(why, sizeof why, "rmalab: %s; ended the job\n",
             sig == SIGTERM ? "terminated (SIGTERM)" : sig == SIGHUP ? "hung up (SIGHUP)"
                                                                     : "interrupted (SIGINT)");
    term_end(&r->t);
    s->signalled = session_abort(s, why, 128 + sig);
}

/* The signals' self-pipe: a handler has no context (as lua.c's laction). */
static int signal_w = -1;

static void on_os_signal(int sig)
{
    unsigned char b = (unsigned char)sig;
    if (signal_w >= 0 && write(signal_w, &b, 1) < 0) {
        /* nothing to do: the loop will see the next one */
    }
}

static void catch_signals(session *s)
{
    int fds[2];
    if (pipe(fds))
        return;
    s->sig_r = fds[0];
    signal_w = fds[1];
    struct sigaction sa = {.sa_handler = on_os_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* ------------------------------------------------------------------------ */
/* The session                                                              */

static void set_sink(repl *r, const session_opts *o, int record_stdout)
{
    session *s = &r->s;
    if (o->json)
        sink_add(&s->out, render_json, NULL);
    else if (r->t.tty)
        sink_add(&s->out, term_render, &r->t);
    else if (!record_stdout)
        sink_add(&s->out, render_pipe, NULL);
    sink_add(&s->out, render_transcript, &s->ts);
    s->ordered = !o->json && !r->t.tty;
}

static int loop(repl *r)
{
    session *s = &r->s;
    sink_event start = {.kind = EV_START, .rank = s->n, .text = s->banner,
                        .len = strlen(s->banner)};
    if (r->t.tty || s->o.json)
        sink_emit(&s->out, &start);
    term_prompt(&r->t);
    while (!s->dead && !s->signalled && !r->quit_asked) {
        session_step(s, 20);
        if (!r->t.tty && !r->quit_asked)
            term_drain(&r->t); /* lines read before a hold, the end of input */
    }
    term_end(&r->t);
    return s->signalled ? s->signalled : session_finish(s);
}

/* rmalab --trace FILE -e CHUNK: once the chunk has run, every rank writes
 * the trace, as after a script. */
static void trace_dump(repl *r)
{
    const char *path = getenv("RMALAB_TRACE_FILE");
    if (path && *path)
        session_run(&r->s, &r->deflt, trace_dump_chunk);
}

int repl_run(const session_opts *o)
{
    repl r = {0};
    int status = 1, tty = !o->exec_chunk && !o->json && isatty(0) && isatty(1);
    int record_stdout = o->record && strcmp(o->record, "-") == 0;
    if (record_stdout && tty) {
        fprintf(stderr, "rmalab: --record - is for piped input; on a terminal give a file\n");
        return 1;
    }
    r.s.h = (session_hooks){.input_fd = input_fd, .on_input = on_input, .on_frame = on_frame,
                            .on_signal = on_signal, .ud = &r};
    if (session_open(&r.s, o) == 0) {
        catch_signals(&r.s);
        r.deflt = commands_every_rank(&r);
        term_init(&r.t, tty, (term_hooks){on_line, prompt_text, complete, held_hook, dropped, &r});
        r.t.quiet = record_stdout;
        set_sink(&r, o, record_stdout);
        if (o->record && ts_record(&r.s.ts, o->record))
            fprintf(stderr, "rmalab: cannot write %s\n", o->record);
        else if (o->exec_chunk) {
            session_run(&r.s, &r.deflt, o->exec_chunk);
            trace_dump(&r);
            r.quit_asked = 1;
            status = loop(&r);
            if (r.s.any_error && status == 0)
                status = 1;
        } else {
            status = loop(&r);
            if (r.unfinished && status == 0)
                status = 1;
        }
        term_end(&r.t);
    } else {
        launch_end(&r.s.l);
    }
    free(r.chunk);
    session_close(&r.s);
    return status;
}
