/* Transcripts (transcript.h). The format, line by line:
 *   -- comment            the header (rank count) and anything a person adds
 *   > line                a typed line that starts a command
 *   >> line               a continuation line of a chunk
 *   anything else         output, as pipe mode prints it ("[0-1] 42")
 * Output never starts with ">" or "--": the ranks' lines carry their rank
 * set, the front end's own start with "rmalab:" or "hint:". */
#include "transcript.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct ts_entry {
    int id;      /* the command's, or 0 */
    char *text;  /* NULL while the command has not finished */
    ts_entry *next;
};

void ts_init(transcript *t, int nranks)
{
    memset(t, 0, sizeof *t);
    t->nranks = nranks;
}

void ts_free(transcript *t)
{
    for (ts_entry *e = t->head, *n; e; e = n) {
        n = e->next;
        free(e->text);
        free(e);
    }
    if (t->rec && t->rec != stdout)
        fclose(t->rec);
    strbuf_free(&t->log);
    memset(t, 0, sizeof *t);
}

static void log_add(transcript *t, const char *s)
{
    strbuf_put(&t->log, s, strlen(s));
    if (t->rec) {
        fputs(s, t->rec);
        fflush(t->rec);
    }
}

/* Settle the entries at the head that are complete. */
static void settle(transcript *t)
{
    while (t->head && t->head->text) {
        ts_entry *e = t->head;
        log_add(t, e->text);
        t->head = e->next;
        if (!t->head)
            t->tail = NULL;
        free(e->text);
        free(e);
    }
}

static void push(transcript *t, int id, char *text)
{
    ts_entry *e = calloc(1, sizeof *e);
    if (!e) {
        free(text);
        return;
    }
    e->id = id;
    e->text = text;
    if (t->tail)
        t->tail->next = e;
    else
        t->head = e;
    t->tail = e;
    settle(t);
}

void ts_input(transcript *t, const char *prefix, const char *line)
{
    size_t n = strlen(prefix) + strlen(line) + 2;
    char *s = malloc(n);
    if (s) {
        snprintf(s, n, "%s%s\n", prefix, line);
        push(t, 0, s);
    }
}

void ts_expect(transcript *t, int id)
{
    push(t, id, NULL);
}

void ts_output(transcript *t, int id, const char *text)
{
    for (ts_entry *e = t->head; e; e = e->next)
        if (e->id == id && !e->text) {
            e->text = strdup(text);
            if (!e->text)
                e->text = strdup("");
            settle(t);
            return;
        }
}

void ts_note(transcript *t, const char *text)
{
    char *s = strdup(text);
    if (s)
        push(t, 0, s);
}

static void header(FILE *f, int nranks)
{
    fprintf(f, "-- rmalab transcript: replay it with `rmalab test FILE`\n"
               "-- ranks: %d\n", nranks);
}

static int write_settled(const transcript *t, FILE *f)
{
    header(f, t->nranks);
    if (t->log.len)
        fwrite(t->log.p, 1, t->log.len, f);
    /* Typed lines behind a command that has not finished. */
    for (const ts_entry *e = t->head; e; e = e->next)
        if (e->text && e->id == 0 && e->text[0] == '>')
            fputs(e->text, f);
    return fflush(f);
}

int ts_save(const transcript *t, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int rc = write_settled(t, f);
    return fclose(f) || rc ? -1 : 0;
}

int ts_record(transcript *t, const char *path)
{
    FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    if (!f)
        return -1;
    if (t->rec && t->rec != stdout)
        fclose(t->rec);
    t->rec = f;
    header(f, t->nranks);
    if (t->log.len)
        fwrite(t->log.p, 1, t->log.len, f);
    fflush(f);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                  */

/* A line and its newline. */
static void line(strbuf *b, const char *s, size_t n)
{
    strbuf_put(b, s, n);
    strbuf_put(b, "\n", 1);
}

int ts_parse(const char *text, size_t len, ts_file *out)
{
    strbuf input = {0}, body = {0};
    strbuf_put(&input, "", 0); /* "" when there is none */
    strbuf_put(&body, "", 0);
    out->input = input.p;
    out->body = body.p;
    if (input.fail || body.fail)
        return -1;
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
        const char *s = text + i;
        if (n < 2 || s[0] != '-' || s[1] != '-') {
            line(&body, s, n);
            if (n >= 3 && memcmp(s, ">> ", 3) == 0)
                line(&input, s + 3, n - 3);
            else if (n >= 2 && memcmp(s, "> ", 2) == 0)
                line(&input, s + 2, n - 2);
            else if (n == 1 && s[0] == '>')
                line(&input, "", 0);
            else if (n == 2 && memcmp(s, ">>", 2) == 0)
                line(&input, "", 0);
        }
        i += n + (nl ? 1 : 0);
    }
    out->input = input.p;
    out->body = body.p;
    return 0;
}

char *ts_body(const char *text, size_t len)
{
    ts_file f;
    if (ts_parse(text, len, &f)) {
        free(f.input);
        free(f.body);
        return NULL;
    }
    free(f.input);
    return f.body;
}
