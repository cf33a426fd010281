/* The terminal (term.h). libedit's readline interface in callback mode:
 * rl_callback_read_char takes one key at a time, so the poll loop never
 * blocks in the editor, and the handler is installed once and only its
 * prompt changes, so typeahead is never lost between lines. */
#include "term.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <editline/readline.h>
#include <rmalab/rmalab.h>

/* libedit's readline callbacks (the line handler, completion) take no
 * context: the terminal in use. The one file-scope variable of repl/'s
 * front end besides the signal pipe (repl.c); set by term_init. */
static term *active;

static void on_line(char *line);

/* libedit redraws from where it thinks the line starts; the cursor may be
 * after what was typed (a line typed while a command ran, under the ""
 * prompt): go to the start of the line first. */
static void redraw_line(void)
{
    fputs("\r\033[K", stdout);
    fflush(stdout);
    rl_forced_update_display();
}

void term_prompt(term *t)
{
    if (!t->tty || t->ended)
        return;
    const char *p = t->waiting ? "" : t->h.prompt(t->h.ud);
    if (!t->installed) {
        rl_callback_handler_install(p, on_line);
        t->installed = 1;
    } else {
        rl_set_prompt(p);
        if (!t->waiting)
            redraw_line();
    }
}

static void hide_prompt(term *t)
{
    if (t->installed) {
        rl_callback_handler_remove();
        t->installed = 0;
    }
}

void term_print(term *t, const char *text)
{
    if (t->quiet || !text[0])
        return;
    if (t->tty && t->installed) {
        printf("\r\033[K%s", text);
        fflush(stdout);
        rl_forced_update_display();
        return;
    }
    fputs(text, stdout);
    fflush(stdout);
}

static void on_line(char *line)
{
    term *t = active;
    /* libedit has left line mode before calling us, the finished line still
     * in its buffer: until the install below, print plainly (a redisplay
     * would draw that line again, and the next prompt after it). */
    t->installed = 0;
    if (!line) {
        hide_prompt(t);
        printf("\n");
        t->ended = 1;
        t->h.line(t->h.ud, NULL);
        return;
    }
    if (*line)
        add_history(line);
    t->h.line(t->h.ud, line);
    free(line);
    if (t->ended) {
        hide_prompt(t);
        return;
    }
    /* libedit leaves line mode once a line is read: install again, which
     * also shows the prompt ("" while results are awaited). */
    rl_callback_handler_install(t->waiting ? "" : t->h.prompt(t->h.ud), on_line);
    t->installed = 1;
}

int term_fd(const term *t)
{
    if (t->ended || t->eof)
        return -1;
    return t->tty ? (t->installed ? 0 : -1) : 0;
}

#define LINE_MAX_BYTES 65536

/* A pipe: whole lines; one longer than 64 KiB is dropped, and said so.
 * The end of the input comes once every line before it was taken. */
void term_drain(term *t)
{
    char *nl;
    while (!t->ended && !t->h.held(t->h.ud) && (nl = memchr(t->buf, '\n', t->have))) {
        *nl = '\0';
        if (!t->skipping)
            t->h.line(t->h.ud, t->buf);
        t->skipping = 0;
        size_t used = (size_t)(nl - t->buf) + 1;
        memmove(t->buf, nl + 1, t->have - used);
        t->have -= used;
    }
    if (t->eof && !t->ended && !t->have) {
        t->ended = 1;
        t->h.line(t->h.ud, NULL);
    }
}

static void read_pipe(term *t)
{
    if (t->have == LINE_MAX_BYTES - 1) {
        if (!t->skipping)
            t->h.dropped(t->h.ud);
        t->have = 0;
        t->skipping = 1;
    }
    ssize_t r = read(0, t->buf + t->have, LINE_MAX_BYTES - 1 - t->have);
    if (r <= 0) {
        t->eof = 1;
        if (t->have && t->skipping)
            t->have = 0;
        else if (t->have) /* the last line had no newline */
            t->buf[t->have++] = '\n';
    } else {
        t->have += (size_t)r;
    }
    term_drain(t);
}

void term_read(term *t)
{
    if (t->tty)
        rl_callback_read_char();
    else
        read_pipe(t);
}

void term_clear_line(term *t)
{
    if (!t->tty || !t->installed)
        return;
    /* a fresh line (rl_replace_line("") does nothing in libedit) */
    rl_callback_handler_remove();
    printf("^C\n");
    rl_callback_handler_install(t->h.prompt(t->h.ud), on_line);
}

/* libedit's own SIGINT handler (rl_catch_signals) puts the terminal back in
 * cooked mode, echo on, before passing the signal on: it expects el_gets to
 * be called again, which sets raw mode. In callback mode nothing does until
 * the line ends, so the terminal echoed each key and libedit drew it too. */
void term_after_interrupt(term *t)
{
    if (t->tty && t->installed)
        rl_prep_terminal(1);
}

/* ------------------------------------------------------------------------ */
/* Completion                                                               */

void term_set_names(term *t, char **names, int n)
{
    for (int i = 0; i < t->nnames; i++)
        free(t->names[i]);
    free(t->names);
    t->names = names;
    t->nnames = n;
}

static char *generator(const char *text, int state)
{
    term *t = active;
    if (!state)
        t->next_name = 0;
    while (t->next_name < t->nnames) {
        const char *n = t->names[t->next_name++];
        if (strncmp(n, text, strlen(text)) == 0)
            return strdup(n);
    }
    return NULL;
}

static char **complete(const char *text, int start, int end)
{
    (void)start, (void)end;
    rl_attempted_completion_over = 1;
    active->h.complete(active->h.ud, text);
    return rl_completion_matches(text, generator);
}

void term_init(term *t, int tty, term_hooks h)
{
    active = t;
    t->tty = tty;
    t->h = h;
    if (!tty) {
        t->buf = malloc(LINE_MAX_BYTES);
        if (!t->buf)
            t->ended = 1;
        return;
    }
    const char *home = getenv("HOME");
    if (home)
        snprintf(t->history, sizeof t->history, "%s/.rmalab_history", home);
    using_history();
    if (t->history[0])
        read_history(t->history);
    rl_attempted_completion_function = complete;
    rl_completion_append_character = '\0'; /* "world" is followed by ":" or "(", rarely " " */
    rl_basic_word_break_characters = " \t\n\"\\'`@$><=;|&{(,)+-*/%^#~[]";
}

void term_end(term *t)
{
    hide_prompt(t);
    t->ended = 1;
    if (t->tty && t->history[0])
        write_history(t->history);
    term_set_names(t, NULL, 0);
    free(t->buf);
    t->buf = NULL;
}

/* ------------------------------------------------------------------------ */
/* The terminal renderer                                                    */

/* Blocks print as they complete, above the prompt; a command still
 * running after a second says so once, with the errors of its ranks that
 * finished (and again when another fails); the prompt comes back when the
 * command it waits for is done or has said that it still runs. */
void term_render(void *ud, const sink_event *e)
{
    term *t = ud;
    char line[700], *text;
    switch (e->kind) {
    case EV_START:
        snprintf(line, sizeof line, "rmalab %s on %d rank%s (%.*s). :help for commands.\n",
                 rmalab_version(), e->rank, e->rank == 1 ? "" : "s", (int)e->len, e->text);
        term_print(t, line);
        return;
    case EV_DONE:
    case EV_NEVER:
    case EV_RUNNING: /* what an earlier RUNNING showed is not printed again */
        if ((text = sink_text_new(e))) {
            term_print(t, text);
            free(text);
        }
        break;
    case EV_HINT:
    case EV_NOTE:
    case EV_MESSAGE: term_print(t, e->text); break;
    default: return;
    }
    if (t->waiting && t->waiting == e->id && e->kind != EV_NEVER) {
        t->waiting = 0;
        term_prompt(t);
    }
}
