/* fuzz-cmdline: the REPL's command language (repl/front/cmdline.c) and its test
 * for incomplete chunks (repl/front/chunk.c), on lines from the input.
 *
 * Rank sets are checked against a model written from docs/repl.md: "all",
 * or ranks and ranges a-b (a <= b) in decimal, separated by single commas,
 * every rank inside the job; rankset_text of a parsed set parses back to the
 * same set. A line is checked against the language: blank is CMD_EMPTY; a
 * ':' names one of the commands (its arguments trimmed) or is CMD_ERROR; an
 * '@' takes a rank set up to the first white space; everything else is a
 * chunk, whose body lies inside the line. Every error has a message.
 * The input's lines then go through the chunk loop of the front end (term.c
 * handle_line): a chunk that chunk_incomplete calls incomplete never
 * compiles, one that compiles is never incomplete, and the test leaves the
 * Lua stack as it found it. */
#include <ctype.h>
#include <lauxlib.h>
#include <lualib.h>

#include "../../repl/front/chunk.h"
#include "../../repl/front/cmdline.h"
#include "fuzz.h"

static lua_State *L;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    L = luaL_newstate();
    return L ? 0 : -1;
}

/* ------------------------------------------------------------------------ */
/* Rank sets                                                                */

/* docs/repl.md's rank sets; 0 when the text is not one for `size` ranks. */
static int model_rankset(const char *s, size_t len, int size, unsigned char *in)
{
    int n = size < RANKSET_MAX ? size : RANKSET_MAX;
    memset(in, 0, RANKSET_MAX);
    if (len == 3 && memcmp(s, "all", 3) == 0) {
        memset(in, 1, (size_t)n);
        return 1;
    }
    size_t i = 0;
    for (;;) {
        long v[2];
        for (int k = 0; k < 2; k++) {
            size_t start = i;
            v[k] = 0;
            while (i < len && s[i] >= '0' && s[i] <= '9') {
                if (v[k] < 100000000)
                    v[k] = v[k] * 10 + (s[i] - '0');
                i++;
            }
            if (i == start)
                return 0;
            if (k == 0 && !(i < len && s[i] == '-')) {
                v[1] = v[0];
                break;
            }
            if (k == 0)
                i++;
        }
        if (v[1] < v[0] || v[1] >= n)
            return 0;
        for (long r = v[0]; r <= v[1]; r++)
            in[r] = 1;
        if (i == len)
            return 1;
        if (s[i] != ',')
            return 0;
        i++;
    }
}

static void check_rankset(const char *s, size_t len, int size)
{
    rankset got, back;
    unsigned char want[RANKSET_MAX];
    char err[160], text[RANKSET_MAX * 6];
    memset(err, '#', sizeof err);
    int rc = rankset_parse(s, len, size, &got, err, sizeof err);
    int ok = model_rankset(s, len, size, want);
    FUZZ_CHECK((rc == 0) == ok, "rank set \"%.*s\" of %d ranks: parsed %d, model %d", (int)len,
               s, size, rc, ok);
    if (rc) {
        FUZZ_CHECK(rc == -1 && memchr(err, '\0', sizeof err) && err[0] != '\0',
                   "rank set error without a message");
        return;
    }
    FUZZ_CHECK(got.n == (size < RANKSET_MAX ? size : RANKSET_MAX), "n %d for %d ranks", got.n,
               size);
    int count = 0;
    for (int r = 0; r < RANKSET_MAX; r++) {
        FUZZ_CHECK(got.in[r] == (r < got.n ? want[r] : 0), "rank %d of \"%.*s\"", r, (int)len, s);
        count += got.in[r];
    }
    FUZZ_CHECK(rankset_count(&got) == count, "count");
    /* The folded text reads back as the same set. */
    rankset_text(&got, text, sizeof text);
    FUZZ_CHECK(strlen(text) < sizeof text, "text");
    if (count) {
        FUZZ_CHECK(rankset_parse(text, strlen(text), size, &back, err, sizeof err) == 0 &&
                       memcmp(back.in, got.in, sizeof got.in) == 0,
                   "\"%s\" from \"%.*s\" does not read back", text, (int)len, s);
    } else {
        FUZZ_CHECK(text[0] == '\0', "text of an empty set");
    }
    /* A short buffer is cut, never overrun. */
    char small[8];
    memset(small, '#', sizeof small);
    rankset_text(&got, small, 5);
    FUZZ_CHECK(memchr(small, '\0', 5) && small[5] == '#', "rankset_text overran 5 bytes");
}

/* ------------------------------------------------------------------------ */
/* Lines                                                                    */

static int inside(const char *p, size_t n, const char *line, size_t len)
{
    return p >= line && p <= line + len && n <= (size_t)(line + len - p);
}

static void check_line(const char *line, size_t len, int size)
{
    cmdline c;
    memset(&c, '#', sizeof c);
    int rc = cmdline_parse(line, len, size, &c);
    size_t i = 0;
    while (i < len && isspace((unsigned char)line[i]))
        i++;
    FUZZ_CHECK(memchr(c.err, '\0', sizeof c.err) && memchr(c.name, '\0', sizeof c.name),
               "unterminated name or message");
    if (c.kind == CMD_ERROR) {
        FUZZ_CHECK(rc == -1 && c.err[0], "an error without a message");
        FUZZ_CHECK(i < len && (line[i] == ':' || line[i] == '@'), "error on a chunk");
        return;
    }
    FUZZ_CHECK(rc == 0, "status %d for kind %d", rc, c.kind);
    if (i == len) {
        FUZZ_CHECK(c.kind == CMD_EMPTY && !c.has_target, "a blank line is kind %d", c.kind);
        return;
    }
    if (line[i] == ':') {
        FUZZ_CHECK(c.kind == CMD_COMMAND, "':' gave kind %d", c.kind);
        size_t k = 0;
        while (cmdline_commands[k] && strcmp(c.name, cmdline_commands[k]) != 0)
            k++;
        FUZZ_CHECK(cmdline_commands[k], "unknown command \"%s\"", c.name);
        size_t nl = strlen(c.name);
        FUZZ_CHECK(len - i - 1 >= nl && memcmp(line + i + 1, c.name, nl) == 0 &&
                       (i + 1 + nl == len || !isalpha((unsigned char)line[i + 1 + nl])),
                   "command \"%s\" is not what the line names", c.name);
        FUZZ_CHECK(inside(c.body, c.bodylen, line, len), "arguments outside the line");
        FUZZ_CHECK(c.bodylen == 0 || (!isspace((unsigned char)c.body[0]) &&
                                      !isspace((unsigned char)c.body[c.bodylen - 1])),
                   "arguments not trimmed");
        return;
    }
    if (line[i] == '@') {
        size_t j = i + 1;
        while (j < len && !isspace((unsigned char)line[j]))
            j++;
        rankset want;
        char err[160];
        FUZZ_CHECK(c.has_target &&
                       rankset_parse(line + i + 1, j - i - 1, size, &want, err, sizeof err) == 0 &&
                       memcmp(&want, &c.target, sizeof want) == 0,
                   "target of \"%.*s\"", (int)len, line);
        while (j < len && isspace((unsigned char)line[j]))
            j++;
        i = j;
    } else {
        FUZZ_CHECK(!c.has_target, "a target without '@'");
    }
    FUZZ_CHECK(c.kind == (i == len ? CMD_EMPTY : CMD_CHUNK), "kind %d", c.kind);
    FUZZ_CHECK(c.body == line + i && c.bodylen == len - i, "the chunk is not the rest");
}

/* ------------------------------------------------------------------------ */
/* Chunks                                                                   */

static int check_chunk(const char *s, size_t n)
{
    int top = lua_gettop(L);
    int inc = chunk_incomplete(L, s, n);
    FUZZ_CHECK(lua_gettop(L) == top, "chunk_incomplete left %d values", lua_gettop(L) - top);
    FUZZ_CHECK(inc == 0 || inc == 1, "chunk_incomplete returned %d", inc);
    int st = luaL_loadbuffer(L, s, n, "=stdin");
    lua_pop(L, 1);
    if (st == LUA_OK)
        FUZZ_CHECK(!inc, "a chunk that compiles is incomplete: \"%.*s\"", (int)n, s);
    if (inc)
        FUZZ_CHECK(st == LUA_ERRSYNTAX, "an incomplete chunk has status %d", st);
    return inc;
}

/* term.c's handle_line: a line starts a command or a chunk, or continues the
 * chunk before it; the chunk grows by "\n" and the line. */
static void chunk_loop(const char *text, size_t len, int size)
{
    static char chunk[2048];
    size_t clen = 0;
    int pending = 0, lines = 0;
    for (size_t i = 0; i < len && lines++ < 24;) { /* each line compiles the chunk anew */
        const char *nl = memchr(text + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - text - i) : len - i;
        const char *line = text + i;
        i += n + (nl != NULL);
        if (memchr(line, '\0', n)) /* the terminal gives C strings */
            continue;
        if (pending) {
            if (clen + 1 + n > sizeof chunk)
                return;
            chunk[clen++] = '\n';
            memcpy(chunk + clen, line, n);
            clen += n;
            pending = check_chunk(chunk, clen);
            continue;
        }
        cmdline c;
        cmdline_parse(line, n, size, &c);
        if (c.kind == CMD_CHUNK && c.bodylen <= sizeof chunk) {
            memcpy(chunk, c.body, c.bodylen);
            clen = c.bodylen;
            pending = check_chunk(chunk, clen);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* The run                                                                  */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    /* The job's size: mostly small, sometimes at or past RANKSET_MAX. */
    int ranks = data[0] < 240 ? 1 + data[0] % 16 : 1000 + (data[0] - 240) * 4;
    unsigned mode = data[1] % 4;
    const char *text = (const char *)data + 2;
    size_t len = size - 2;
    if (mode == 0) {
        check_rankset(text, len, ranks);
        return 0;
    }
    for (size_t i = 0; i < len;) { /* each line by itself */
        const char *nl = memchr(text + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - text - i) : len - i;
        check_line(text + i, n, ranks);
        i += n + (nl != NULL);
    }
    if (mode >= 2)
        chunk_loop(text, len, ranks);
    return 0;
}
