/* The one growable string of repl/ (strbuf.c): text appended at its end,
 * kept NUL-terminated, grown by doubling. A failed allocation sets `fail`
 * and ignores what follows; what was built stays valid. */
#ifndef RMALAB_REPL_STRBUF_H
#define RMALAB_REPL_STRBUF_H

#include <stddef.h>

typedef struct {
    char *p;     /* NULL until something is added */
    size_t len, cap;
    int fail;    /* an allocation failed */
} strbuf;

/* Append n bytes of s. */
void strbuf_put(strbuf *b, const char *s, size_t n);
/* Append n bytes of s, or as many as keep the text within max bytes. */
void strbuf_put_max(strbuf *b, const char *s, size_t n, size_t max);
/* Append a formatted text. */
void strbuf_add(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The text, "" when empty: valid until the next change. */
const char *strbuf_text(const strbuf *b);
/* Hand the text to the caller (malloc'd, or NULL when empty) and empty b. */
char *strbuf_take(strbuf *b);
void strbuf_free(strbuf *b);

#endif
