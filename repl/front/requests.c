/* The front end's answers to JSON requests (repl.h, request.h,
 * docs/repl-json.md "Requests"): what a program, the Jupyter kernel, asks the
 * front end itself rather than the ranks. Each is answered by one object
 * on stdout, at once, but completion, which an idle rank answers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rmalab/hints.h>

#include "chunk.h"
#include "render.h"
#include "repl.h"

static json_field str_field(const char *key, const char *s)
{
    return (json_field){.key = key, .kind = JSON_STR, .str = s, .len = strlen(s)};
}

/* The end of a cell: a chunk still incomplete goes to its ranks as it is
 * (they say what Lua expected), and the reply gives the next command id,
 * so every id below it came from lines before the mark. */
static void mark(repl *r, const request *q)
{
    int pending = r->chunk != NULL;
    if (pending) {
        char *p = r->chunk;
        r->chunk = NULL;
        commands_submit(r, &r->chunk_target, p);
        free(p);
    }
    r->cell_line = 0; /* the next cell's lines count from 1 */
    json_field f[] = {str_field("tag", q->tag),
                      {.key = "next", .kind = JSON_INT, .num = r->s.next_id + 1},
                      {.key = "pending", .kind = JSON_BOOL, .num = pending}};
    render_json_reply("mark", f, 3);
}

/* Would these lines, typed in order, leave a chunk waiting for more (the
 * <eof> rule of lua.c, as the REPL applies it)? "invalid" for a line the
 * command language refuses (a rank outside the job). */
static const char *completeness(repl *r, const char *code)
{
    char *chunk = NULL;
    const char *verdict = "complete";
    for (const char *line = code; line && verdict[0] == 'c';) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        cmdline c;
        if (chunk) {
            size_t have = strlen(chunk);
            char *p = realloc(chunk, have + n + 2);
            if (!p)
                break;
            chunk = p;
            chunk[have] = '\n';
            memcpy(chunk + have + 1, line, n);
            chunk[have + 1 + n] = '\0';
            if (!chunk_incomplete(r->s.L, chunk, strlen(chunk)))
                free(chunk), chunk = NULL;
        } else {
            cmdline_parse(line, n, r->s.n, &c);
            if (c.kind == CMD_ERROR)
                verdict = "invalid";
            else if (c.kind == CMD_CHUNK && chunk_incomplete(r->s.L, c.body, c.bodylen))
                chunk = strndup(c.body, c.bodylen);
        }
        line = nl ? nl + 1 : NULL;
    }
    if (chunk && verdict[0] == 'c')
        verdict = "incomplete";
    free(chunk);
    return verdict;
}

static void is_complete(repl *r, const request *q)
{
    json_field f[] = {str_field("tag", q->tag), str_field("status", completeness(r, q->text))};
    render_json_reply("is_complete", f, 2);
}

static void matches(const char *tag, char *const *names, int n, int busy)
{
    json_field f[] = {str_field("tag", tag),
                      {.key = "names", .kind = JSON_STRS, .strs = names, .num = n},
                      {.key = "busy", .kind = JSON_BOOL, .num = busy}};
    render_json_reply("matches", f, 3);
}

/* Names that complete the text, from the first idle rank (of the default
 * target first), which answers with MATCHES (requests_matches); when every
 * rank is busy, none, at once. */
static void complete(repl *r, const request *q)
{
    for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < r->s.n; k++) {
            if ((!pass && !r->deflt.in[k]) || r->s.p[k].busy || r->s.p[k].fd < 0)
                continue;
            const char *fl[] = {q->tag, q->text};
            if (chan_send(r->s.p[k].fd, CHAN_COMPLETE, 2, fl, NULL) == 0)
                return;
        }
    matches(q->tag, NULL, 0, 1);
}

void requests_matches(repl *r, const chan_msg *m)
{
    (void)r;
    char tag[64];
    char **names = calloc((size_t)m->nfields + 1, sizeof *names);
    int n = 0;
    for (int i = 1; names && i < m->nfields; i++)
        if ((names[n] = strndup(m->field[i], m->len[i])))
            n++;
    matches(chan_field(m, 0, tag, sizeof tag), names, n, 0);
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* A hint of the catalogue, as Shift-Tab in a notebook shows it. */
static void hint_doc(const rmalab_hint_def *d, char *buf, size_t size)
{
    char values[256] = "";
    for (int i = 0; d->values && d->values[i]; i++)
        snprintf(values + strlen(values), sizeof values - strlen(values), "%s%s",
                 i ? ", " : ": ", d->values[i]);
    snprintf(buf + strlen(buf), size - strlen(buf),
             "%s: a %s hint (%s%s; default %s)%s\n%s\n%s%s", d->key,
             rmalab_hint_scope_name(d->scope), rmalab_hint_type_name(d->type), values,
             d->default_value ? d->default_value : "none",
             d->rmalab_own ? ", read by rmalab itself, never passed to MPI" : "", d->doc,
             d->must_agree ? "Every rank must give the same value.\n" : "",
             d->after_create ? "Honoured by set_info after creation too.\n"
                             : "Read at creation only.\n");
}

/* The documentation of a word: a hint of the catalogue, window or
 * communicator (functions are documented by the kernel itself). */
static void inspect(repl *r, const request *q)
{
    (void)r;
    char doc[2048] = "";
    const rmalab_hint_def *w = rmalab_hints_find(RMALAB_SCOPE_WIN, q->text);
    const rmalab_hint_def *c = rmalab_hints_find(RMALAB_SCOPE_COMM, q->text);
    if (w)
        hint_doc(w, doc, sizeof doc);
    if (c)
        hint_doc(c, doc, sizeof doc);
    json_field f[] = {str_field("tag", q->tag), str_field("text", q->text),
                      {.key = "found", .kind = JSON_BOOL, .num = w || c}, str_field("doc", doc)};
    render_json_reply("inspect", f, 4);
}

/* The lines are a notebook's cells, each ended by a mark: chunks are
 * named "cell" and counted from their cell's first line (commands.c). No
 * reply. */
static void cells(repl *r, const request *q)
{
    (void)q;
    r->cells = 1;
}

static const struct {
    const char *name;
    void (*run)(repl *r, const request *q);
} table[] = {
    {"mark", mark}, {"is_complete", is_complete}, {"complete", complete}, {"inspect", inspect},
    {"cells", cells},
};

void requests_run(repl *r, const request *q)
{
    for (size_t k = 0; k < sizeof table / sizeof *table; k++)
        if (strcmp(q->name, table[k].name) == 0) {
            table[k].run(r, q);
            return;
        }
    char msg[160];
    snprintf(msg, sizeof msg, "rmalab: \"%s\" is not a request: use mark, is_complete, "
             "complete, inspect or cells\n", q->name);
    session_note(&r->s, msg);
}
