/* The front end's input (front-private.h): the terminal through libedit's
 * readline interface in callback mode (so the poll loop never blocks in the
 * editor), or plain lines from a pipe; the command language on each line;
 * Ctrl-C; tab completion from an idle rank. */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <editline/readline.h>
#include <lauxlib.h>
#include <rmalab/rmalab.h>

#include "chunk.h"
#include "front-private.h"

static front *F; /* libedit's callbacks take no context */
static int installed;
static char history_path[1024];

static const char help[] =
    "Lua chunks run on the target ranks; a line is tried as an expression first.\n"
    "  @<ranks> chunk    run on ranks 0, 0,2, 1-3 or all (once)\n"
    "  :on <ranks>       set the default target (shown in the prompt)\n"
    "  :status           what every rank is doing, and where it is blocked\n"
    "  :wait [s]         wait until the target ranks are idle\n"
    "  :interrupt [r]    stop runaway Lua on ranks (Ctrl-C twice does the same)\n"
    "  :save FILE        write the session so far as a transcript (a test:\n"
    "                    rmalab test FILE replays it and compares the output)\n"
    "  :record FILE      the same, and keep writing as the session goes\n"
    "  :trace on|off     record every window's epochs (or stop); also\n"
    "  :trace dump FILE  Perfetto JSON, :trace svg FILE a picture, :trace clear\n"
    "  :timeline [win]   the last epochs of a window, a lane per rank\n"
    "  :races [clear]    the races the checker found so far (windows made with\n"
    "                    the hint rmalab_check = \"races\", or RMALAB_CHECK=races)\n"
    "  :quit             free what can be freed and end the job (or Ctrl-D)\n"
    "A rank blocked in an epoch call never blocks the prompt. PSCW in two lines:\n"
    "  win = rmalab.win_allocate(64, {disp_unit = 8})\n"
    "  @1 win:post{0}\n"
    "  @0 win:start{1}; win:put(1, 0, \"int64\", 42); win:complete()\n"
    "  @1 win:wait(); return win:read(0, \"int64\")\n";

void front_banner(front *f)
{
    printf("rmalab %s on %d rank%s (%s). :help for commands.\n", rmalab_version(), f->n,
           f->n == 1 ? "" : "s", f->banner);
    fflush(stdout);
}

static const char *prompt_text(front *f)
{
    static char p[300];
    char set[256];
    if (f->chunk)
        return ">> ";
    if (rankset_count(&f->deflt) == f->n)
        snprintf(set, sizeof set, "all");
    else
        rankset_text(&f->deflt, set, sizeof set);
    snprintf(p, sizeof p, "rmalab[%s]> ", set);
    return p;
}

static void on_line(char *line);

/* The prompt: installed once, then only its text changes ("" while the
 * front end waits for a command's results), so that typeahead is never
 * lost between lines. */
void front_prompt(front *f)
{
    if (!f->tty || f->quit_asked)
        return;
    const char *p = f->waiting_for ? "" : prompt_text(f);
    if (!installed) {
        rl_callback_handler_install(p, on_line);
        installed = 1;
    } else {
        rl_set_prompt(p);
        if (!f->waiting_for)
            rl_forced_update_display();
    }
}

static void hide_prompt(void)
{
    if (installed) {
        rl_callback_handler_remove();
        installed = 0;
    }
}

void front_print(front *f, const char *text)
{
    if (f->tty && installed) {
        printf("\r\033[K%s", text);
        fflush(stdout);
        rl_forced_update_display();
        return;
    }
    if (f->record_stdout) /* the transcript is the output */
        return;
    fputs(text, stdout);
    fflush(stdout);
}

int front_input_wanted(const front *f)
{
    if (f->input_eof >= 2) /* inside :wait or a completion */
        return 0;
    return f->tty ? installed : !f->input_eof && !f->quit_asked;
}

/* lua.c's test: a chunk whose syntax error ends at <eof> continues. */
static int incomplete(front *f, const char *s)
{
    return chunk_incomplete(f->L, s, strlen(s));
}

static void submit(front *f, const rankset *target, const char *chunk)
{
    front_run_chunk(f, target, chunk);
    if (f->tty)
        f->waiting_for = f->next_id;
}

static rankset every_rank(const front *f)
{
    rankset all = {.n = f->n};
    memset(all.in, 1, (size_t)f->n);
    return all;
}

/* A chunk for every rank, as the collective calls of :trace, :timeline and
 * :races need; :wait waits for all of them. */
static void submit_all(front *f, const char *chunk)
{
    f->chunk_target = every_rank(f);
    submit(f, &f->chunk_target, chunk);
}

static int targets_idle(front *f)
{
    for (int r = 0; r < f->n; r++)
        if (f->chunk_target.in[r] && f->p[r].busy > 0)
            return 0;
    return 1;
}

static void interrupt(front *f, const rankset *s)
{
    rankset busy = {.n = f->n};
    for (int r = 0; r < f->n; r++)
        if (s ? s->in[r] : f->p[r].busy > 0) {
            busy.in[r] = 1;
            chan_send(f->p[r].fd, CHAN_INTERRUPT, 0, NULL, NULL);
        }
    char set[256], msg[300];
    rankset_text(&busy, set, sizeof set);
    snprintf(msg, sizeof msg, "interrupting [%s]\n", set);
    if (f->tty)
        front_print(f, msg);
}

/* :save FILE, :record FILE. */
static void transcript_command(front *f, const cmdline *c)
{
    char path[1024], msg[1200];
    snprintf(path, sizeof path, "%.*s", (int)c->bodylen, c->body);
    int save = strcmp(c->name, "save") == 0;
    if (!path[0])
        snprintf(msg, sizeof msg, "rmalab: :%s needs a file name\n", c->name);
    else if (save ? ts_save(&f->ts, path) : ts_record(&f->ts, path))
        snprintf(msg, sizeof msg, "rmalab: cannot write %s: %s\n", path, strerror(errno));
    else
        snprintf(msg, sizeof msg, "rmalab: %s %s (replay it with: rmalab test %s)\n",
                 save ? "saved the session to" : "recording the session to", path, path);
    if (f->tty)
        front_print(f, msg);
    else
        fputs(msg, stderr);
}

/* :trace and :timeline: Lua chunks for every rank, as the calls are
 * collective (rl.trace in docs/trace.md). The argument goes in a long
 * string; one that could close it is refused. */
static void trace_command(front *f, const cmdline *c)
{
    char arg[1024], chunk[1400];
    const char *usage = "rmalab: use :trace on, :trace off, :trace clear, :trace dump FILE, "
                        ":trace svg FILE, or :timeline [window]\n";
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
        front_note(f, usage);
        return;
    }
    if (timeline && !arg[0])
        snprintf(chunk, sizeof chunk, "local t = rmalab.trace.timeline() if t then print(t) end");
    else if (timeline) /* a window in a variable, else a window's name */
        snprintf(chunk, sizeof chunk,
                 "local t = rmalab.trace.timeline((%s) or [==[%s]==]) if t then print(t) end",
                 arg, arg);
    else if ((w == 2 && memcmp(c->body, "on", 2) == 0) ||
             (w == 3 && (memcmp(c->body, "off", 3) == 0)) ||
             (w == 5 && memcmp(c->body, "clear", 5) == 0))
        snprintf(chunk, sizeof chunk, "rmalab.trace.%.*s()", (int)w, c->body);
    else if (arg[0] && ((w == 4 && memcmp(c->body, "dump", 4) == 0) ||
                        (w == 3 && memcmp(c->body, "svg", 3) == 0)))
        snprintf(chunk, sizeof chunk, "return rmalab.trace.%.*s([==[%s]==])", (int)w, c->body,
                 arg);
    else {
        front_note(f, usage);
        return;
    }
    submit_all(f, chunk);
}

/* :races lists every rank's findings (collective over the world, so it
 * runs on every rank); :races clear forgets them. */
static void races_command(front *f, const cmdline *c)
{
    const char *chunk;
    if (!c->bodylen)
        chunk = "local t = rmalab.races.text() if t then print(t) end";
    else if (c->bodylen == 5 && memcmp(c->body, "clear", 5) == 0)
        chunk = "rmalab.races.clear()";
    else {
        front_note(f, "rmalab: use :races, or :races clear\n");
        return;
    }
    submit_all(f, chunk);
}

static void command(front *f, const cmdline *c)
{
    rankset s = f->deflt;
    char err[160];
    if (strcmp(c->name, "save") == 0 || strcmp(c->name, "record") == 0) {
        transcript_command(f, c);
        return;
    }
    if (strcmp(c->name, "trace") == 0 || strcmp(c->name, "timeline") == 0) {
        trace_command(f, c);
        return;
    }
    if (strcmp(c->name, "races") == 0) {
        races_command(f, c);
        return;
    }
    if (c->bodylen && strcmp(c->name, "wait") != 0 && strcmp(c->name, "help") != 0 &&
        rankset_parse(c->body, c->bodylen, f->n, &s, err, sizeof err)) {
        char msg[200];
        snprintf(msg, sizeof msg, "rmalab: %s\n", err);
        front_note(f, msg);
        return;
    }
    if (strcmp(c->name, "on") == 0) {
        if (rankset_count(&s))
            f->deflt = s;
    } else if (strcmp(c->name, "status") == 0) {
        rankset all = every_rank(f);
        front_status(f, c->bodylen ? &s : &all);
    } else if (strcmp(c->name, "wait") == 0) {
        double secs = c->bodylen ? atof(c->body) : 1e9;
        f->chunk_target = f->deflt;
        f->input_eof += 2; /* no input while waiting */
        front_wait_until(f, targets_idle, secs);
        f->input_eof -= 2;
    } else if (strcmp(c->name, "interrupt") == 0) {
        interrupt(f, c->bodylen ? &s : NULL);
    } else if (strcmp(c->name, "help") == 0) {
        front_note(f, help);
    } else {
        f->quit_asked = 1;
    }
}

/* The transcript takes every typed line but those about the session
 * itself (:save, :record, :quit). */
static void transcribe(front *f, const char *line)
{
    cmdline c;
    if (!f->chunk && cmdline_parse(line, strlen(line), f->n, &c) == 0 && c.kind == CMD_COMMAND &&
        (strcmp(c.name, "save") == 0 || strcmp(c.name, "record") == 0 ||
         strcmp(c.name, "quit") == 0))
        return;
    ts_input(&f->ts, f->chunk ? ">> " : "> ", line);
}

static void handle_line(front *f, const char *line)
{
    transcribe(f, line);
    if (f->chunk) {
        size_t n = strlen(f->chunk), k = strlen(line);
        char *p = realloc(f->chunk, n + k + 2);
        if (!p)
            return;
        p[n] = '\n';
        memcpy(p + n + 1, line, k + 1);
        f->chunk = p;
        if (!incomplete(f, p)) {
            f->chunk = NULL;
            submit(f, &f->chunk_target, p);
            free(p);
        }
        return;
    }
    cmdline c;
    cmdline_parse(line, strlen(line), f->n, &c);
    if (c.kind == CMD_ERROR) {
        char msg[200];
        snprintf(msg, sizeof msg, "rmalab: %s\n", c.err);
        front_note(f, msg);
    } else if (c.kind == CMD_COMMAND) {
        command(f, &c);
    } else if (c.kind == CMD_CHUNK) {
        char *body = strndup(c.body, c.bodylen);
        f->chunk_target = c.has_target ? c.target : f->deflt;
        if (body && incomplete(f, body))
            f->chunk = body;
        else if (body) {
            submit(f, &f->chunk_target, body);
            free(body);
        }
    }
}

static void on_line(char *line)
{
    front *f = F;
    if (!line) {
        hide_prompt();
        printf("\n");
        f->quit_asked = 1;
        return;
    }
    if (*line)
        add_history(line);
    handle_line(f, line);
    free(line);
    if (f->quit_asked) {
        hide_prompt();
        return;
    }
    /* libedit leaves line mode once a line is read: install again, which
     * also shows the prompt ("" while results are awaited). */
    rl_callback_handler_install(f->waiting_for ? "" : prompt_text(f), on_line);
}

void front_read_input(front *f)
{
    if (f->tty) {
        rl_callback_read_char();
        return;
    }
    static char buf[65536];
    static size_t have;
    static int skipping; /* the rest of a line too long to take */
    if (have == sizeof buf - 1) { /* no newline in 64 KiB: drop the line, say so */
        if (!skipping)
            front_note(f, "rmalab: an input line longer than 64 KiB was dropped\n");
        have = 0;
        skipping = 1;
    }
    ssize_t r = read(0, buf + have, sizeof buf - 1 - have);
    if (r <= 0) {
        if (have && !skipping) {
            buf[have] = '\0';
            handle_line(f, buf);
            have = 0;
        }
        f->input_eof = 1;
        f->quit_asked = 1;
        return;
    }
    have += (size_t)r;
    char *nl;
    while (!f->quit_asked && (nl = memchr(buf, '\n', have))) {
        *nl = '\0';
        if (!skipping)
            handle_line(f, buf);
        skipping = 0;
        size_t used = (size_t)(nl - buf) + 1;
        memmove(buf, nl + 1, have - used);
        have -= used;
    }
}

void front_input_end(front *f)
{
    hide_prompt();
    if (f->tty && history_path[0])
        write_history(history_path);
}

/* Ctrl-C: stop waiting; else interrupt what runs; else clear the line. */
void front_on_signal(front *f, int sig)
{
    if (sig != SIGINT) { /* SIGHUP, SIGTERM: end the session, cleanly */
        f->quit_asked = 1;
        return;
    }
    if (f->tty && f->waiting_for) {
        f->waiting_for = 0;
        front_print(f, "\n");
        for (cmd *c = f->head; c; c = c->next) {
            c->noticed = 0;
            c->sent -= 1e6; /* the still-running notice, now */
            front_partial(f, c);
        }
        front_prompt(f);
        return;
    }
    int busy = 0;
    for (int r = 0; r < f->n; r++)
        busy += f->p[r].busy > 0;
    if (busy) {
        interrupt(f, NULL);
        return;
    }
    free(f->chunk);
    f->chunk = NULL;
    if (f->tty && installed) {
        rl_replace_line("", 0);
        printf("^C\n");
        rl_set_prompt(prompt_text(f));
        rl_forced_update_display();
    }
}

/* ------------------------------------------------------------------------ */
/* Completion                                                               */

void front_on_matches(front *f, const chan_msg *m)
{
    for (int i = 0; i < f->nnames; i++)
        free(f->names[i]);
    free(f->names);
    f->names = calloc((size_t)m->nfields + 1, sizeof *f->names);
    f->nnames = 0;
    for (int i = 1; f->names && i < m->nfields; i++)
        f->names[f->nnames++] = strndup(m->field[i], m->len[i]);
    f->matches_seq++;
}

static int got_matches(front *f)
{
    static int seen;
    if (f->matches_seq != seen) {
        seen = f->matches_seq;
        return 1;
    }
    return 0;
}

static char *generator(const char *text, int state)
{
    static int i;
    if (!state)
        i = 0;
    while (i < F->nnames) {
        const char *n = F->names[i++];
        if (strncmp(n, text, strlen(text)) == 0)
            return strdup(n);
    }
    return NULL;
}

/* Ask the first idle target rank, for at most 200 ms; else use the names
 * it last gave. */
static char **complete(const char *text, int start, int end)
{
    front *f = F;
    (void)start, (void)end;
    rl_attempted_completion_over = 1;
    for (int r = 0; r < f->n; r++) {
        if (!f->deflt.in[r] || f->p[r].busy || f->p[r].fd < 0)
            continue;
        const char *fl[] = {"0", text};
        got_matches(f);
        if (chan_send(f->p[r].fd, CHAN_COMPLETE, 2, fl, NULL) == 0) {
            f->input_eof += 2;
            front_wait_until(f, got_matches, 0.2);
            f->input_eof -= 2;
        }
        break;
    }
    return rl_completion_matches(text, generator);
}

void front_term_init(front *f)
{
    F = f;
    if (!f->tty)
        return;
    const char *home = getenv("HOME");
    if (home)
        snprintf(history_path, sizeof history_path, "%s/.rmalab_history", home);
    using_history();
    if (history_path[0])
        read_history(history_path);
    rl_attempted_completion_function = complete;
    rl_completion_append_character = '\0'; /* "world" is followed by ":" or "(", rarely " " */
    rl_basic_word_break_characters = " \t\n\"\\'`@$><=;|&{(,)+-*/%^#~[]";
}
