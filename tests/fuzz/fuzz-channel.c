/* fuzz-channel: the control channel's decoder (repl/wire/channel.c) on bytes
 * from the input, alone and behind a connection that receives them in
 * pieces through a socket.
 *
 * Checked against a model of the framing of docs/repl.md and channel.h: a
 * frame is a big-endian length word of 1 to CHAN_MAX_FRAME, a known type
 * byte, then fields each of a length word and that many bytes, at most
 * CHAN_MAX_FIELDS, filling the frame exactly. The decoder must give the
 * model's answer (frame size, need more, or never valid) as soon as the
 * bytes decide it, put every field inside the frame, and re-encode to the
 * same bytes. A connection must yield the same messages whatever the
 * pieces, refuse a declared length over CHAN_MAX_FRAME before it arrives,
 * and hold no more than one frame and a read's worth of bytes. The greeting
 * (session.c) accepts a first frame only when it is a HELLO whose field 0
 * is the session's token; chan_token_ok must say yes to that token and no
 * to anything else. ./do fuzz runs this target with -malloc_limit_mb, so an
 * allocation of unbounded size is a crash too. */
#include <sys/socket.h>
#include <unistd.h>

#include "../../repl/wire/channel.h"
#include "fuzz.h"

static const char token[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
static int sock[2] = {-1, -1};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    return socketpair(AF_UNIX, SOCK_STREAM, 0, sock) == 0 ? 0 : -1;
}

/* ------------------------------------------------------------------------ */
/* The model                                                                */

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The frame at buf[0, n): its size, 0 when more bytes are needed, -1 when
 * no more bytes can make it valid. */
static long model_decode(const uint8_t *buf, size_t n)
{
    if (n < 4)
        return 0;
    uint32_t len = be32(buf);
    if (len == 0 || len > CHAN_MAX_FRAME)
        return -1;
    if (n >= 5 && !memchr("HRODSTICMQBFEU", buf[4], 14))
        return -1;
    if (n < 4 + (size_t)len)
        return 0;
    size_t pos = 5, end = 4 + (size_t)len;
    for (int fields = 0; pos < end; fields++) {
        if (fields == CHAN_MAX_FIELDS || end - pos < 4)
            return -1;
        uint32_t fl = be32(buf + pos);
        pos += 4;
        if (fl > end - pos)
            return -1;
        pos += fl;
    }
    return (long)end;
}

/* ------------------------------------------------------------------------ */
/* One buffer                                                               */

static void check_msg(const uint8_t *buf, long r, const chan_msg *m)
{
    FUZZ_CHECK(r >= 5, "a frame of %ld bytes", r);
    FUZZ_CHECK(m->type == buf[4] && m->nfields >= 0 && m->nfields <= CHAN_MAX_FIELDS,
               "type %d, %d fields", m->type, m->nfields);
    const char *at = (const char *)buf + 5;
    for (int i = 0; i < m->nfields; i++) {
        at += 4; /* each field follows its length word */
        FUZZ_CHECK(m->field[i] == at && m->len[i] <= (size_t)((const char *)buf + r - at),
                   "field %d lies outside the frame", i);
        at += m->len[i];
    }
    FUZZ_CHECK(at == (const char *)buf + r, "the fields do not fill the frame");

    /* Encoding the message gives the frame back. */
    chan_buf b = {0};
    FUZZ_CHECK(chan_encode(&b, m->type, m->nfields, m->field, m->len) == 0, "encode");
    FUZZ_CHECK(b.len == (size_t)r && memcmp(b.p, buf, (size_t)r) == 0,
               "re-encoding gives other bytes");
    chan_buf_free(&b);

    /* chan_field: a NUL-terminated prefix of the field. */
    for (int i = 0; i <= m->nfields && i < 3; i++) {
        char f[9];
        memset(f, '#', sizeof f);
        chan_field(m, i, f, 8);
        size_t want = i < m->nfields ? (m->len[i] < 7 ? m->len[i] : 7) : 0;
        FUZZ_CHECK(f[want] == '\0' && f[8] == '#' && (!want || memcmp(f, m->field[i], want) == 0),
                   "chan_field %d", i);
    }

    /* The greeting: only the session's token passes, as field 0 of a HELLO. */
    int right = m->nfields > 0 && m->len[0] == sizeof token - 1 &&
                memcmp(m->field[0], token, sizeof token - 1) == 0;
    FUZZ_CHECK(chan_token_ok(m, 0, token) == right, "chan_token_ok says %d",
               chan_token_ok(m, 0, token));
    FUZZ_CHECK(!chan_token_ok(m, m->nfields, token), "a missing field passes");
    if (m->nfields > 0 && m->len[0] > 0 && m->len[0] < 80) {
        /* A token that is the field but for one byte, or one byte shorter. */
        char other[80];
        memcpy(other, m->field[0], m->len[0]);
        other[m->len[0]] = '\0';
        if (!memchr(other, '\0', m->len[0])) {
            FUZZ_CHECK(chan_token_ok(m, 0, other), "the field's own text does not pass");
            other[m->len[0] - 1] ^= 1;
            FUZZ_CHECK(other[m->len[0] - 1] == '\0' || !chan_token_ok(m, 0, other),
                       "a token that differs in its last byte passes");
            other[m->len[0] - 1] = '\0';
            FUZZ_CHECK(!chan_token_ok(m, 0, other), "a token one byte short passes");
        }
    }
}

static void check_buffer(const uint8_t *buf, size_t n)
{
    chan_msg m;
    long r = chan_decode(buf, n, &m);
    long want = model_decode(buf, n);
    FUZZ_CHECK(r == want, "chan_decode %ld, model %ld", r, want);
    FUZZ_CHECK(r <= (long)n, "decoded %ld of %zu bytes", r, n);
    if (r <= 0)
        return;
    check_msg(buf, r, &m);
    /* Every shorter prefix of a valid frame only asks for more. */
    for (size_t k = 0; k < (size_t)r; k += 1 + k / 4) {
        chan_msg p;
        FUZZ_CHECK(chan_decode(buf, k, &p) == 0, "a prefix of %zu bytes is not 'more'", k);
    }
}

/* ------------------------------------------------------------------------ */
/* A connection fed in pieces                                               */

static uint8_t filler[CHAN_MAX_FRAME + 65536];

/* The stream so far, as the model sees it, and the connection's view. */
typedef struct {
    chan_conn c;
    uint8_t all[2 * CHAN_MAX_FRAME + 262144];
    size_t alen, done; /* bytes received, and decoded */
    int dropped;
} stream;

/* Bytes arrive: the socket takes at most one read's worth at a time, and
 * after each read the connection yields what it can, as read_rank in
 * session.c does. */
static void deliver(stream *st, const uint8_t *p, size_t n)
{
    const size_t bound = 2 * ((size_t)CHAN_MAX_FRAME + 4 + 2 * 65536);
    while (n && !st->dropped) {
        size_t k = n < 65536 ? n : 65536;
        FUZZ_CHECK(write(sock[1], p, k) == (ssize_t)k, "write to the socket");
        for (size_t got = 0; got < k;) {
            long r = chan_fill(&st->c);
            FUZZ_CHECK(r > 0, "chan_fill returned %ld", r);
            got += (size_t)r;
        }
        memcpy(st->all + st->alen, p, k);
        st->alen += k;
        p += k;
        n -= k;
        FUZZ_CHECK(st->c.in.cap <= bound, "the connection holds %zu bytes", st->c.in.cap);

        chan_msg m;
        int got;
        while ((got = chan_next(&st->c, &m)) == 1) {
            long want = model_decode(st->all + st->done, st->alen - st->done);
            FUZZ_CHECK(want > 0, "chan_next gave a frame the model does not see");
            const uint8_t *frame = st->c.in.p + st->c.off - want;
            check_msg(frame, want, &m);
            FUZZ_CHECK(memcmp(frame, st->all + st->done, (size_t)want) == 0,
                       "chan_next's frame is not the stream's");
            st->done += (size_t)want;
        }
        long want = model_decode(st->all + st->done, st->alen - st->done);
        FUZZ_CHECK(got == (want < 0 ? -1 : 0), "chan_next %d where the model says %ld", got,
                   want);
        FUZZ_CHECK(st->c.in.len - st->c.off == st->alen - st->done, "undecoded bytes differ");
        st->dropped = got < 0; /* the peer is dropped: nothing more is read */
    }
}

/* The stream: the input's bytes, cut in pieces by the lengths in `cuts`,
 * with now and then a piece of filler up to a whole frame's size. */
static void check_stream(fuzz_in *cuts, const uint8_t *data, size_t size)
{
    static stream st;
    st.c = (chan_conn){.fd = sock[0]};
    st.alen = st.done = 0;
    st.dropped = 0;
    for (size_t i = 0; i < size && !st.dropped;) {
        unsigned cut = fuzz_byte(cuts);
        if (cut == 0xff && st.alen + sizeof filler <= sizeof st.all) { /* a big piece */
            size_t k = fuzz_u16(cuts) * 16u + 1;
            memset(filler, (int)fuzz_byte(cuts), k);
            deliver(&st, filler, k);
        } else {
            size_t k = 1 + cut % 64;
            if (k > size - i)
                k = size - i;
            deliver(&st, data + i, k);
            i += k;
        }
    }
    chan_buf_free(&st.c.in);
}

/* ------------------------------------------------------------------------ */
/* Encoding                                                                 */

/* Fields cut from the input, encoded, decoded: the same message. Lengths
 * may also point into a large buffer, to reach CHAN_MAX_FRAME. */
static void check_encode(fuzz_in *in)
{
    static const char types[] = "HRODSTICMQBFEU";
    const char *field[CHAN_MAX_FIELDS + 2];
    size_t len[CHAN_MAX_FIELDS + 2];
    int type = types[fuzz_byte(in) % 14];
    int nfields = (int)(fuzz_byte(in) % (CHAN_MAX_FIELDS + 3));
    size_t total = 1;
    for (int i = 0; i < nfields; i++) {
        unsigned r = fuzz_byte(in);
        if (r == 0xff) {
            len[i] = fuzz_u16(in) * 32u;
            field[i] = (const char *)filler;
        } else {
            field[i] = fuzz_bytes(in, 32, &len[i]);
        }
        total += 4 + len[i];
    }
    chan_buf b = {0};
    int rc = chan_encode(&b, type, nfields, field, len);
    int fits = nfields <= CHAN_MAX_FIELDS && total <= CHAN_MAX_FRAME;
    FUZZ_CHECK((rc == 0) == fits, "encode of %d fields, %zu bytes: %d", nfields, total, rc);
    if (rc == 0) {
        chan_msg m;
        FUZZ_CHECK(chan_decode(b.p, b.len, &m) == (long)b.len && b.len == 4 + total,
                   "an encoded frame does not decode whole");
        FUZZ_CHECK(m.type == type && m.nfields == nfields, "type or field count changed");
        for (int i = 0; i < nfields; i++)
            FUZZ_CHECK(m.len[i] == len[i] && (!len[i] || memcmp(m.field[i], field[i], len[i]) == 0),
                       "field %d changed", i);
    }
    chan_buf_free(&b);
}

/* ------------------------------------------------------------------------ */
/* The run                                                                  */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    /* Byte 0 picks the mode; byte 1 says how much of the rest cuts the
     * stream into pieces, for the connection. */
    unsigned mode = data[0] % 3;
    if (mode == 0) {
        check_buffer(data + 1, size - 1);
        return 0;
    }
    if (mode == 1) {
        fuzz_in in = {data + 1, size - 1};
        check_encode(&in);
        return 0;
    }
    size_t ncuts = data[1] % 32 < size - 2 ? data[1] % 32 : size - 2;
    fuzz_in cuts = {data + 2, ncuts};
    check_buffer(data + 2 + ncuts, size - 2 - ncuts);
    check_stream(&cuts, data + 2 + ncuts, size - 2 - ncuts);
    return 0;
}
