/* fuzz-transcript: the reader of .rlab files (ts_parse, ts_body in
 * repl/front/transcript.c) against a model of the format of
 * docs/testing.md, and the writer against the reader.
 *
 * The format, line by line: "--" starts a comment (the header's among the
 * first 10, which scenario_parse reads, as the runner does); "> " starts a
 * typed line, ">> " continues a chunk (a bare ">" or ">>" is an empty one);
 * every other line is output. The body is every line that is not a comment;
 * input and body lines each end in "\n". The reader must read only the
 * `len` bytes it is given. The writer's side: a session of typed lines,
 * commands that print (in any order of completion) and notes, saved with
 * ts_save, reads back with every typed line in the order typed, and its
 * header (scenario_parse) with the rank count of the session. */
#include <sys/mman.h>
#include <unistd.h>

#include "../../repl/runner/scenario.h"
#include "../../repl/front/transcript.h"
#include "fuzz.h"

/* ------------------------------------------------------------------------ */
/* The reader                                                               */

typedef struct {
    char *p;
    size_t len, cap;
} sbuf;

static void put(sbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = 2 * (b->len + n + 1);
        b->p = realloc(b->p, b->cap);
        FUZZ_CHECK(b->p != NULL, "out of memory in the model");
    }
    if (n)
        memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void check_reader(const char *text, size_t len)
{
    sbuf in = {0}, body = {0};
    put(&in, "", 0);
    put(&body, "", 0);
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - text - i) : len - i;
        const char *s = text + i;
        i += n + (nl != NULL);
        if (n >= 2 && s[0] == '-' && s[1] == '-')
            continue;
        put(&body, s, n);
        put(&body, "\n", 1);
        if (n >= 3 && memcmp(s, ">> ", 3) == 0)
            put(&in, s + 3, n - 3), put(&in, "\n", 1);
        else if (n >= 2 && memcmp(s, "> ", 2) == 0)
            put(&in, s + 2, n - 2), put(&in, "\n", 1);
        else if ((n == 1 && s[0] == '>') || (n == 2 && memcmp(s, ">>", 2) == 0))
            put(&in, "\n", 1);
    }

    ts_file f;
    FUZZ_CHECK(ts_parse(text, len, &f) == 0, "ts_parse failed");
    FUZZ_CHECK(memcmp(f.input, in.p, in.len + 1) == 0, "input differs from the model");
    FUZZ_CHECK(memcmp(f.body, body.p, body.len + 1) == 0, "body differs from the model");
    char *b = ts_body(text, len);
    FUZZ_CHECK(b && memcmp(b, body.p, body.len + 1) == 0, "ts_body differs from the model");
    free(b);
    free(f.input);
    free(f.body);
    free(in.p);
    free(body.p);
}

/* ------------------------------------------------------------------------ */
/* The writer against the reader                                            */

static int memfd = -1;
static char memfd_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    memfd = memfd_create("fuzz-transcript", 0);
    if (memfd < 0)
        return -1;
    snprintf(memfd_path, sizeof memfd_path, "/proc/self/fd/%d", memfd);
    return 0;
}

/* A line of text from the input without "\n" or NUL; *n bytes. */
static void line_from(fuzz_in *in, char *buf, size_t *n)
{
    size_t len;
    const char *s = fuzz_bytes(in, 40, &len);
    for (size_t i = 0; i < len; i++)
        buf[i] = s[i] == '\n' || s[i] == '\0' ? ' ' : s[i];
    buf[len] = '\0';
    *n = len;
}

static void check_writer(fuzz_in *in)
{
    transcript t;
    int nranks = 1 + (int)(fuzz_byte(in) % 64);
    ts_init(&t, nranks);
    sbuf typed = {0};
    put(&typed, "", 0);
    int next_id = 1;
    for (int step = 0; step < 64 && fuzz_left(in); step++) {
        unsigned op = fuzz_byte(in) % 4;
        char line[64], out[128];
        size_t n;
        line_from(in, line, &n);
        switch (op) {
        case 0: { /* typed */
            int cont = fuzz_byte(in) & 1;
            ts_input(&t, cont ? ">> " : "> ", line);
            put(&typed, line, n);
            put(&typed, "\n", 1);
            break;
        }
        case 1: ts_expect(&t, next_id++); break;
        case 2: /* output lines never start with '>' or "--" (rank sets, "rmalab:") */
            snprintf(out, sizeof out, "[%u] %s\n", fuzz_byte(in) % 8, line);
            ts_output(&t, 1 + (int)(fuzz_byte(in) % (unsigned)next_id), out);
            break;
        default:
            snprintf(out, sizeof out, "rmalab: %s\n", line);
            ts_note(&t, out);
            break;
        }
    }
    FUZZ_CHECK(ftruncate(memfd, 0) == 0, "ftruncate");
    FUZZ_CHECK(ts_save(&t, memfd_path) == 0, "ts_save");
    ts_free(&t);
    off_t size = lseek(memfd, 0, SEEK_END);
    char *text = malloc((size_t)size + 1);
    FUZZ_CHECK(text && pread(memfd, text, (size_t)size, 0) == size, "read back");
    ts_file f;
    FUZZ_CHECK(ts_parse(text, (size_t)size, &f) == 0, "ts_parse");
    scenario sc;
    FUZZ_CHECK(scenario_parse(text, (size_t)size, &sc) == 0, "the saved header: %s", sc.err);
    FUZZ_CHECK(sc.ncounts == 1 && sc.counts[0] == nranks, "ranks %d (of %d counts), saved %d",
               sc.counts[0], sc.ncounts, nranks);
    FUZZ_CHECK(strcmp(f.input, typed.p) == 0, "typed lines lost or reordered:\n%s\nwant\n%s",
               f.input, typed.p);
    free(f.input);
    free(f.body);
    free(text);
    free(typed.p);
}

/* ------------------------------------------------------------------------ */
/* The run                                                                  */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    if (data[0] == 'W') {
        fuzz_in in = {data + 1, size - 1};
        check_writer(&in);
        return 0;
    }
    /* Read exactly the bytes given: a copy without a NUL after them. */
    char *text = malloc(size ? size : 1);
    FUZZ_CHECK(text != NULL, "malloc");
    memcpy(text, data, size);
    check_reader(text, size);
    free(text);
    return 0;
}
