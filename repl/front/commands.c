/* What a line does (repl.h, docs/repl.md): a chunk goes to its target
 * ranks; each `:` command is one row of the table below. Commands that
 * wait (:wait, a pipe's :status) never wait here: they hold the input,
 * and repl.c's loop goes on until the hold is released. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repl.h"

static const char help[] =
    "Lua chunks run on the target ranks; a line is tried as an expression first.\n"
    "  @<ranks> chunk    run on ranks 0, 0,2, 1-3 or all (once)\n"
    "  :on <ranks>       set the default target (shown in the prompt)\n"
    "  :status           what every rank is doing, and where it is blocked\n"
    "  :wait [s]         wait until the target ranks are idle\n"
    "  :interrupt [r]    stop runaway Lua on ranks (Ctrl-C twice does the same),\n"
    "                    and calls blocked in the rma engine (:status says which)\n"
    "  :save FILE        write the session so far as a transcript (a test:\n"
    "                    rmalab test FILE replays it and compares the output)\n"
    "  :record FILE      the same, and keep writing as the session goes\n"
    "  :trace on|off     record every window's epochs (or stop); also\n"
    "  :trace dump FILE  Perfetto JSON, :trace svg FILE a picture, :trace clear\n"
    "  :timeline [win]   the last epochs of a window, a lane per rank\n"
    "  :races [clear]    the races the checker found so far (windows made with\n"
    "                    the hint rmalab_check = \"races\", or RMALAB_CHECK=races)\n"
    "  :ranks            how many ranks; in a notebook, :ranks N restarts the job\n"
    "                    on N ranks (here: :quit, then rmalab -n N)\n"
    "  :quit             free what can be freed and end the job (or Ctrl-D)\n"
    "A rank blocked in an epoch call never blocks the prompt. PSCW in two lines:\n"
    "  win = rmalab.win_allocate(64, {disp_unit = 8})\n"
    "  @1 win:post{0}\n"
    "  @0 win:start{1}; win:put(1, 0, \"int64\", 42); win:complete()\n"
    "  @1 win:wait(); return win:read(0, \"int64\")\n";

rankset commands_every_rank(const repl *r)
{
    rankset all = {.n = r->s.n};
    memset(all.in, 1, (size_t)r->s.n);
    return all;
}

/* When the lines are a notebook's cells (the Jupyter kernel's "cells"
 * request) a chunk is named "cell" and counted from the cell's first
 * line, so that an error or a race on the chunk's line 3 says cell:5 when
 * the chunk began at the cell's line 3. */
void commands_submit(repl *r, const rankset *target, const char *chunk)
{
    cmd *c = r->cells ? session_run_at(&r->s, target, chunk, "cell", r->chunk_line)
                         : session_run(&r->s, target, chunk);
    if (c && r->t.tty)
        r->t.waiting = c->id;
}

/* A chunk for every rank, as the collective calls of :trace, :timeline and
 * :races need; :wait waits for all of them. */
static void submit_all(repl *r, const char *chunk)
{
    r->chunk_target = commands_every_rank(r);
    commands_submit(r, &r->chunk_target, chunk);
}

static void message(repl *r, const char *text)
{
    sink_emit_text(&r->s.out, EV_MESSAGE, text);
}

/* Ask the ranks of s (NULL: the busy ones) to interrupt what they run;
 * each answers (commands_interrupt_answer). */
static void interrupt(repl *r, const rankset *s)
{
    rankset ask = {.n = r->s.n};
    r->intr_waiting = 0;
    for (int k = 0; k < r->s.n; k++)
        if ((s ? s->in[k] : r->s.p[k].busy > 0) && r->s.p[k].fd >= 0 &&
            chan_send(r->s.p[k].fd, CHAN_INTERRUPT, 0, NULL, NULL) == 0) {
            ask.in[k] = 1;
            r->intr_waiting++;
        }
    r->intr_asked = ask;
    if (!r->intr_waiting)
        message(r, "rmalab: nothing is running; nothing to interrupt\n");
}

/* The answers, once all are in: "interrupting [0,2]" (on a terminal and
 * under --json, as before the Lua's error comes), a line per call that
 * ranks are inside MPI in, or that nothing ran. */
static void interrupt_said(repl *r)
{
    rankset done = {.n = r->s.n}, idle = {.n = r->s.n};
    char set[256], msg[600];
    unsigned char told[RANKSET_MAX] = {0};
    for (int k = 0; k < r->s.n; k++) {
        done.in[k] = r->intr_asked.in[k] && !r->intr_call[k][0];
        idle.in[k] = r->intr_asked.in[k] && strcmp(r->intr_call[k], "-") == 0;
    }
    rankset_text(&done, set, sizeof set);
    snprintf(msg, sizeof msg, "interrupting [%s]\n", set);
    if (rankset_count(&done) && (r->t.tty || r->s.o.json))
        message(r, msg);
    for (int k = 0; k < r->s.n; k++) {
        const char *call = r->intr_call[k];
        if (!r->intr_asked.in[k] || !call[0] || idle.in[k] || told[k])
            continue;
        rankset same = {.n = r->s.n};
        for (int j = k; j < r->s.n; j++)
            if (r->intr_asked.in[j] && strcmp(r->intr_call[j], call) == 0)
                same.in[j] = told[j] = 1;
        int one = rankset_count(&same) == 1;
        rankset_text(&same, set, sizeof set);
        snprintf(msg, sizeof msg, "rmalab: rank%s %s %s inside MPI in %s(), which cannot be "
                 "interrupted; :quit ends the job\n", one ? "" : "s", set, one ? "is" : "are",
                 call);
        message(r, msg);
    }
    if (rankset_count(&idle) == rankset_count(&r->intr_asked)) {
        rankset_text(&idle, set, sizeof set);
        snprintf(msg, sizeof msg, "rmalab: nothing is running on [%s]; nothing to interrupt\n",
                 set);
        message(r, msg);
    }
}

void commands_interrupt_answer(repl *r, int rank, const chan_msg *m)
{
    char what[16], call[24];
    if (rank < 0 || rank >= r->s.n || !r->intr_asked.in[rank] || r->intr_waiting <= 0)
        return;
    chan_field(m, 0, what, sizeof what);
    chan_field(m, 1, call, sizeof call);
    snprintf(r->intr_call[rank], sizeof r->intr_call[rank], "%s",
             strcmp(what, "idle") == 0 ? "-" : strcmp(what, "inside") == 0 && call[0] ? call : "");
    if (--r->intr_waiting == 0)
        interrupt_said(r);
}

/* What the ranks still running command c have printed so far (the first
 * Ctrl-C shows it, as clush does). */
static void partial(repl *r, cmd *c)
{
    char **part = calloc((size_t)r->s.n, sizeof *part);
    int any = 0;
    for (int k = 0; part && k < r->s.n; k++)
        if (c->target.in[k] && !c->status[k] && c->block[k] && c->block[k][0])
            any = 1, part[k] = c->block[k];
    if (any) {
        char head[128];
        snprintf(head, sizeof head, "printed so far by %s:\n", c->label);
        sink_event e = {.kind = EV_DONE, .ranks = &c->target, .blocks = part, .label = c->label};
        char *t = sink_text(&e, 0);
        message(r, head);
        if (t)
            message(r, t);
        free(t);
    }
    free(part);
}

void commands_ctrl_c(repl *r)
{
    term_after_interrupt(&r->t);
    if (r->t.waiting) {
        r->t.waiting = 0;
        term_print(&r->t, "\n");
        for (cmd *c = r->s.head; c; c = c->next) {
            c->noticed = -1; /* the still-running notice, now */
            partial(r, c);
        }
        term_prompt(&r->t);
        return;
    }
    for (int k = 0; k < r->s.n; k++)
        if (r->s.p[k].busy > 0) {
            interrupt(r, NULL);
            return;
        }
    free(r->chunk);
    r->chunk = NULL;
    term_clear_line(&r->t);
}

/* ------------------------------------------------------------------------ */
/* The commands                                                             */

/* :save FILE, :record FILE. */
static void transcript_command(repl *r, const cmdline *c)
{
    char path[1024], msg[1200];
    snprintf(path, sizeof path, "%.*s", (int)c->bodylen, c->body);
    int save = strcmp(c->name, "save") == 0;
    if (!path[0])
        snprintf(msg, sizeof msg, "rmalab: :%s needs a file name\n", c->name);
    else if (save ? ts_save(&r->s.ts, path) : ts_record(&r->s.ts, path))
        snprintf(msg, sizeof msg, "rmalab: cannot write %s: %s\n", path, strerror(errno));
    else
        snprintf(msg, sizeof msg, "rmalab: %s %s (replay it with: rmalab test %s)\n",
                 save ? "saved the session to" : "recording the session to", path, path);
    message(r, msg);
}

/* The REPL's helpers on a rank (exec.c), where :timeline and :trace svg
 * find what shows a picture under --json. */
static const char json_helpers[] = "debug.getregistry()['rmalab.repl']";

/* :trace and :timeline: Lua chunks for every rank, as the calls are
 * collective (rl.trace in docs/trace.md). The argument goes in a long
 * string; one that could close it is refused. Under --json, :timeline and
 * :trace svg with no file also send the picture (a "display" event).
 * `:trace svg --to-scale FILE` draws time to scale (else in order). */
#define SCALE "--to-scale "
/* rank 0 writes the file (docs/trace.md): it alone answers */
#define WROTE(call) \
    "local p = " call " if rmalab.world:rank() == 0 then return 'wrote ' .. p end"
static void trace_command(repl *r, const cmdline *c)
{
    char arg[1024], chunk[1400];
    const char *usage = "rmalab: use :trace on, :trace off, :trace clear, :trace dump FILE, "
                        ":trace svg [--to-scale] FILE, or :timeline [window]\n";
    size_t w = 0;
    while (w < c->bodylen && !isspace((unsigned char)c->body[w]))
        w++;
    size_t a = w;
    while (a < c->bodylen && isspace((unsigned char)c->body[a]))
        a++;
    int timeline = strcmp(c->name, "timeline") == 0;
    snprintf(arg, sizeof arg, "%.*s", (int)(timeline ? c->bodylen : c->bodylen - a),
             timeline ? c->body : c->body + a);
    if (strstr(arg, "]==]") || c->bodylen >= sizeof arg) {
        session_note(&r->s, usage);
        return;
    }
    if (timeline && r->s.o.json) /* the lanes, then the picture (exec.c's R.timeline) */
        snprintf(chunk, sizeof chunk, "%s.timeline(%s%s%s%s%s)", json_helpers, arg[0] ? "(" : "",
                 arg, arg[0] ? ") or [==[" : "", arg, arg[0] ? "]==]" : "");
    else if (timeline && !arg[0])
        snprintf(chunk, sizeof chunk, "local t = rmalab.trace.timeline() if t then print(t) end");
    else if (timeline) /* a window in a variable, else a window's name */
        snprintf(chunk, sizeof chunk,
                 "local t = rmalab.trace.timeline((%s) or [==[%s]==]) if t then print(t) end",
                 arg, arg);
    else if ((w == 2 && memcmp(c->body, "on", 2) == 0) ||
             (w == 3 && (memcmp(c->body, "off", 3) == 0)) ||
             (w == 5 && memcmp(c->body, "clear", 5) == 0))
        snprintf(chunk, sizeof chunk, "rmalab.trace.%.*s()", (int)w, c->body);
    else if (!arg[0] && r->s.o.json && w == 3 && memcmp(c->body, "svg", 3) == 0)
        snprintf(chunk, sizeof chunk, "%s.trace_svg()", json_helpers);
    else if (w == 3 && memcmp(c->body, "svg", 3) == 0 &&
             strncmp(arg, SCALE, strlen(SCALE)) == 0 && arg[strlen(SCALE)])
        snprintf(chunk, sizeof chunk, WROTE("rmalab.trace.svg([==[%s]==], {scale = 'time'})"),
                 arg + strlen(SCALE));
    else if (arg[0] && ((w == 4 && memcmp(c->body, "dump", 4) == 0) ||
                        (w == 3 && memcmp(c->body, "svg", 3) == 0)))
        snprintf(chunk, sizeof chunk, WROTE("rmalab.trace.%.*s([==[%s]==])"), (int)w, c->body,
                 arg);
    else {
        session_note(&r->s, usage);
        return;
    }
    submit_all(r, chunk);
}

/* :races lists every rank's findings (collective over the world, so it
 * runs on every rank); :races clear forgets them. */
static void races_command(repl *r, const cmdline *c)
{
    const char *chunk;
    if (!c->bodylen)
        chunk = "local t = rmalab.races.text() if t then print(t) end";
    else if (c->bodylen == 5 && memcmp(c->body, "clear", 5) == 0)
        chunk = "rmalab.races.clear()";
    else {
        session_note(&r->s, "rmalab: use :races, or :races clear\n");
        return;
    }
    submit_all(r, chunk);
}

/* The ranks a command names ("" for none given: *s untouched); -1 after
 * saying what is wrong. */
static int ranks_arg(repl *r, const cmdline *c, rankset *s)
{
    char err[160], msg[200];
    if (!c->bodylen || !rankset_parse(c->body, c->bodylen, r->s.n, s, err, sizeof err))
        return 0;
    snprintf(msg, sizeof msg, "rmalab: %s\n", err);
    session_note(&r->s, msg);
    return -1;
}

static void on_command(repl *r, const cmdline *c)
{
    rankset s = r->deflt;
    if (ranks_arg(r, c, &s) == 0 && rankset_count(&s))
        r->deflt = s;
}

static void status_command(repl *r, const cmdline *c)
{
    rankset s = commands_every_rank(r);
    if (ranks_arg(r, c, &s))
        return;
    cmd *st = session_status(&r->s, &s);
    if (st && r->s.ordered) /* later input waits until the state is taken */
        r->hold_status = st->id;
}

static void wait_command(repl *r, const cmdline *c)
{
    char *end;
    double secs = c->bodylen ? strtod(c->body, &end) : 1e9;
    if (c->bodylen && (end == c->body || secs < 0)) {
        session_note(&r->s, "rmalab: use :wait, or :wait SECONDS\n");
        return;
    }
    r->wait_target = r->deflt;
    r->wait_until = clock_now() + secs;
}

static void interrupt_command(repl *r, const cmdline *c)
{
    rankset s = r->deflt;
    if (ranks_arg(r, c, &s) == 0)
        interrupt(r, c->bodylen ? &s : NULL);
}

static void help_command(repl *r, const cmdline *c)
{
    (void)c;
    session_note(&r->s, help);
}

/* :ranks: the Jupyter kernel's :ranks N restarts the job; a terminal's
 * job keeps its ranks, and this says how to get others. */
static void ranks_command(repl *r, const cmdline *c)
{
    char msg[300];
    snprintf(msg, sizeof msg, "rmalab: %d rank%s%s\n", r->s.n, r->s.n == 1 ? "" : "s",
             c->bodylen ? "; the REPL keeps its ranks: :quit, then start rmalab -n N (in a "
                          "notebook, :ranks N restarts the job)" : "");
    session_note(&r->s, msg);
}

static void quit_command(repl *r, const cmdline *c)
{
    (void)c;
    r->quit_asked = 1;
}

static const struct {
    const char *name;
    void (*run)(repl *r, const cmdline *c);
} table[] = {
    {"on", on_command},         {"status", status_command},
    {"wait", wait_command},     {"interrupt", interrupt_command},
    {"save", transcript_command}, {"record", transcript_command},
    {"trace", trace_command},   {"timeline", trace_command},
    {"races", races_command},   {"help", help_command},
    {"ranks", ranks_command},
    {"quit", quit_command},
};

void commands_run(repl *r, const cmdline *c)
{
    for (size_t k = 0; k < sizeof table / sizeof *table; k++)
        if (strcmp(c->name, table[k].name) == 0) {
            table[k].run(r, c);
            return;
        }
    char msg[120];
    snprintf(msg, sizeof msg, "rmalab: :%s is not a command; :help lists them\n", c->name);
    session_note(&r->s, msg);
}
