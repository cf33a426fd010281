/* The control channel (channel.h, docs/repl.md): frames of a type byte and
 * length-prefixed fields, decoded without allocation from whatever bytes
 * have arrived, and written whole. */
#include "channel.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static int known_type(int t)
{
    return t && strchr("HRODSTICMQBFEU", t) != NULL;
}

long chan_decode(const unsigned char *buf, size_t n, chan_msg *m)
{
    if (n < 4)
        return 0;
    uint32_t len = get32(buf);
    if (len < 1 || len > CHAN_MAX_FRAME)
        return -1;
    if (n > 4 && !known_type(buf[4]))
        return -1;
    if (n < 4 + (size_t)len)
        return 0;
    const unsigned char *p = buf + 5, *end = buf + 4 + len;
    m->type = buf[4];
    m->nfields = 0;
    while (p < end) {
        if (m->nfields == CHAN_MAX_FIELDS || end - p < 4)
            return -1;
        uint32_t fl = get32(p);
        p += 4;
        if (fl > (size_t)(end - p))
            return -1;
        m->field[m->nfields] = (const char *)p;
        m->len[m->nfields++] = fl;
        p += fl;
    }
    return (long)(4 + len);
}

void chan_buf_free(chan_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

static int reserve(chan_buf *b, size_t more)
{
    if (b->len + more <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more)
        cap *= 2;
    unsigned char *p = realloc(b->p, cap);
    if (!p)
        return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}

int chan_encode(chan_buf *b, int type, int nfields, const char *const *fields,
                const size_t *lens)
{
    size_t total = 1;
    if (nfields < 0 || nfields > CHAN_MAX_FIELDS)
        return -1;
    for (int i = 0; i < nfields; i++)
        total += 4 + (lens ? lens[i] : strlen(fields[i]));
    if (total > CHAN_MAX_FRAME || reserve(b, 4 + total))
        return -1;
    unsigned char *p = b->p + b->len;
    put32(p, (uint32_t)total);
    p[4] = (unsigned char)type;
    p += 5;
    for (int i = 0; i < nfields; i++) {
        size_t l = lens ? lens[i] : strlen(fields[i]);
        put32(p, (uint32_t)l);
        if (l)
            memcpy(p + 4, fields[i], l);
        p += 4 + l;
    }
    b->len += 4 + total;
    return 0;
}

long chan_fill(chan_conn *c)
{
    if (c->off && c->off == c->in.len) {
        c->in.len = c->off = 0;
    } else if (c->off > 65536) {
        memmove(c->in.p, c->in.p + c->off, c->in.len - c->off);
        c->in.len -= c->off;
        c->off = 0;
    }
    if (reserve(&c->in, 65536))
        return -1;
    ssize_t r = read(c->fd, c->in.p + c->in.len, c->in.cap - c->in.len);
    if (r > 0)
        c->in.len += (size_t)r;
    return r;
}

int chan_next(chan_conn *c, chan_msg *m)
{
    long r = chan_decode(c->in.p + c->off, c->in.len - c->off, m);
    if (r <= 0)
        return (int)r;
    c->off += (size_t)r;
    return 1;
}

int chan_send(int fd, int type, int nfields, const char *const *fields, const size_t *lens)
{
    chan_buf b = {0};
    if (chan_encode(&b, type, nfields, fields, lens)) {
        chan_buf_free(&b);
        return -1;
    }
    size_t off = 0;
    while (off < b.len) {
        ssize_t w = send(fd, b.p + off, b.len - off, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            chan_buf_free(&b);
            return -1;
        }
        off += (size_t)w;
    }
    chan_buf_free(&b);
    return 0;
}

const char *chan_field(const chan_msg *m, int i, char *buf, size_t size)
{
    size_t n = i < m->nfields ? m->len[i] : 0;
    if (n >= size)
        n = size - 1;
    if (n)
        memcpy(buf, m->field[i], n);
    buf[n] = '\0';
    return buf;
}

int chan_token_ok(const chan_msg *m, int i, const char *token)
{
    size_t n = strlen(token);
    if (i >= m->nfields || m->len[i] != n)
        return 0;
    unsigned char diff = 0;
    for (size_t k = 0; k < n; k++)
        diff |= (unsigned char)(m->field[i][k] ^ token[k]);
    return diff == 0;
}
