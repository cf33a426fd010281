/* The one growable string of repl/ (strbuf.h). */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for `more` bytes and the NUL: 0, or -1 (b->fail set). */
static int grow(strbuf *b, size_t more)
{
    if (b->fail)
        return -1;
    if (b->len + more + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap * 2 : 256;
    while (cap < b->len + more + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->fail = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

void strbuf_put(strbuf *b, const char *s, size_t n)
{
    if (grow(b, n))
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void strbuf_put_max(strbuf *b, const char *s, size_t n, size_t max)
{
    if (b->len >= max)
        return;
    strbuf_put(b, s, n < max - b->len ? n : max - b->len);
}

void strbuf_add(strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || grow(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

const char *strbuf_text(const strbuf *b)
{
    return b->p ? b->p : "";
}

char *strbuf_take(strbuf *b)
{
    char *p = b->p;
    memset(b, 0, sizeof *b);
    return p;
}

void strbuf_free(strbuf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}
