/* JSON requests (request.h): a flat JSON object of string values, decoded
 * without a JSON library. Strings take the escapes of RFC 8259, \uXXXX
 * (surrogate pairs too) becoming UTF-8; a decoded string is never longer
 * than its source. */
#include "request.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *s;
    size_t n, i;
} cursor;

static void skip_space(cursor *c)
{
    while (c->i < c->n && strchr(" \t\r\n", c->s[c->i]) && c->s[c->i])
        c->i++;
}

static int hex4(cursor *c, unsigned *v)
{
    *v = 0;
    for (int k = 0; k < 4; k++, c->i++) {
        if (c->i >= c->n)
            return -1;
        char h = c->s[c->i];
        int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
              : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        *v = *v * 16 + (unsigned)d;
    }
    return 0;
}

static size_t utf8(unsigned cp, char *out)
{
    if (cp < 0x80)
        return out[0] = (char)cp, 1;
    if (cp < 0x800)
        return out[0] = (char)(0xc0 | cp >> 6), out[1] = (char)(0x80 | (cp & 0x3f)), 2;
    if (cp < 0x10000)
        return out[0] = (char)(0xe0 | cp >> 12), out[1] = (char)(0x80 | ((cp >> 6) & 0x3f)),
               out[2] = (char)(0x80 | (cp & 0x3f)), 3;
    out[0] = (char)(0xf0 | cp >> 18);
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* \uXXXX, after the "\u": a code point, a surrogate pair joined. */
static int unicode(cursor *c, unsigned *cp)
{
    unsigned lo;
    if (hex4(c, cp))
        return -1;
    if (*cp < 0xd800 || *cp > 0xdfff)
        return 0;
    if (*cp > 0xdbff || c->i + 2 > c->n || c->s[c->i] != '\\' || c->s[c->i + 1] != 'u')
        return -1;
    c->i += 2;
    if (hex4(c, &lo) || lo < 0xdc00 || lo > 0xdfff)
        return -1;
    *cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
    return 0;
}

/* A string at the cursor (its opening quote), decoded into out (room for
 * the source's length); its decoded length, or -1. */
static long string(cursor *c, char *out)
{
    static const char esc[] = "\"\"\\\\//b\bf\fn\nr\rt\t";
    size_t k = 0;
    if (c->i >= c->n || c->s[c->i++] != '"')
        return -1;
    while (c->i < c->n) {
        unsigned char ch = (unsigned char)c->s[c->i++];
        if (ch == '"')
            return (long)k;
        if (ch < 0x20)
            return -1;
        if (ch != '\\') {
            out[k++] = (char)ch;
            continue;
        }
        if (c->i >= c->n)
            return -1;
        char e = c->s[c->i++];
        const char *m = e ? strchr(esc, e) : NULL;
        unsigned cp;
        if (e == 'u') {
            if (unicode(c, &cp))
                return -1;
            k += utf8(cp, out + k);
        } else if (m && (m - esc) % 2 == 0) {
            out[k++] = m[1];
        } else {
            return -1;
        }
    }
    return -1;
}

static void keep(request *q, const char *key, size_t klen, char *val, size_t vlen)
{
    char *dst = klen == 7 && memcmp(key, "request", 7) == 0 ? q->name
              : klen == 3 && memcmp(key, "tag", 3) == 0 ? q->tag : NULL;
    size_t size = dst == q->name ? sizeof q->name : sizeof q->tag;
    if (dst) {
        size_t m = vlen < size ? vlen : size - 1;
        memcpy(dst, val, m);
        dst[m] = '\0';
    } else if (klen == 4 && memcmp(key, "text", 4) == 0) {
        memcpy(q->text, val, vlen);
        q->text[vlen] = '\0';
        q->textlen = vlen;
    }
}

/* The members of the object, after its "{": one at least, as `{}` is a
 * Lua line (an empty table). */
static int members(cursor *c, request *q, char *key, char *val)
{
    for (;;) {
        skip_space(c);
        long kl = string(c, key);
        skip_space(c);
        if (kl < 0 || c->i >= c->n || c->s[c->i++] != ':')
            return -1;
        skip_space(c);
        long vl = string(c, val);
        if (vl < 0)
            return -1;
        keep(q, key, (size_t)kl, val, (size_t)vl);
        skip_space(c);
        if (c->i < c->n && c->s[c->i] == ',') {
            c->i++;
            continue;
        }
        return c->i < c->n && c->s[c->i++] == '}' ? 0 : -1;
    }
}

int request_parse(const char *line, size_t n, request *q)
{
    memset(q, 0, sizeof *q);
    cursor c = {line, n, 0};
    skip_space(&c);
    if (c.i + 1 >= n || line[c.i] != '{')
        return 0;
    c.i++;
    char *key = malloc(n + 1), *val = malloc(n + 1);
    q->text = calloc(1, n + 1);
    if (!key || !val || !q->text) {
        free(key), free(val), request_free(q);
        return -1;
    }
    int bad = members(&c, q, key, val);
    free(key);
    free(val);
    skip_space(&c);
    if (bad || c.i != n) {
        request_free(q);
        memset(q, 0, sizeof *q);
        return 0;
    }
    return 1;
}

void request_free(request *q)
{
    free(q->text);
    q->text = NULL;
}
