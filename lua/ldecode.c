/* The value codec's decoder: bytes to a Lua value (lcodec.h says which
 * values and which bytes), as communicators' collectives and messages
 * receive them. C over the Lua API: no MPI; the core only through
 * rmalab_set_error, which keeps the message of a failure, and its types'
 * names and sizes. The encoder is lcodec.c.
 *
 * Decoding treats the bytes as untrusted (they come off the network): the
 * nesting is bounded, every length is checked against what is left, tables
 * are preallocated only within a budget of the input's size, and malformed
 * input is ERR_ARG saying where it broke. It never reads past the end and
 * never allocates more than a constant times the input (tests/fuzz). */
#include <math.h>

#include "lcodec.h"
#include "lrmalab.h"

typedef struct {
    lua_State *L;
    const unsigned char *p, *start, *end;
    size_t budget; /* table slots that may still be preallocated */
    int depth;
} dec;

static int bad(dec *d, const char *what)
{
    return rmalab_set_error(RMALAB_ERR_ARG, "malformed value at byte %zu of %zu: %s",
                            (size_t)(d->p - d->start), (size_t)(d->end - d->start), what);
}

static int get_varint(dec *d, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (d->p == d->end)
            return bad(d, "a length is cut short");
        unsigned c = *d->p++;
        *v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return *v > LRM_BYTES_MAX ? bad(d, "a length is larger than any message") : 0;
    }
    return bad(d, "a length is longer than 64 bits");
}

static size_t left(const dec *d)
{
    return (size_t)(d->end - d->p);
}

static int dec_value(dec *d);

/* n raw numbers into the table on top; the bytes are there (checked). */
static void dec_raw(dec *d, uint64_t n, int ints)
{
    for (uint64_t i = 1; i <= n; i++, d->p += 8) {
        lrm_number_push(d->L, d->p, ints);
        lua_rawseti(d->L, -2, (lua_Integer)i);
    }
}

static int dec_key(dec *d)
{
    if (d->p == d->end)
        return bad(d, "a key is missing");
    unsigned tag = *d->p;
    if (tag != T_FALSE && tag != T_TRUE && tag != T_INT && tag != T_FLT && tag != T_STR)
        return bad(d, "a key is not a boolean, number or string");
    int rc = dec_value(d);
    if (!rc && tag == T_FLT && isnan(lua_tonumber(d->L, -1))) {
        lua_pop(d->L, 1);
        return bad(d, "a key is NaN");
    }
    return rc;
}

static int dec_table(dec *d, unsigned tag)
{
    uint64_t n;
    uint32_t h;
    int rc = get_varint(d, &n);
    if (rc)
        return rc;
    size_t each = tag == T_TAB ? 1 : 8;
    if (left(d) < 4 || n > (left(d) - 4) / each)
        return bad(d, "a table claims more elements than there are bytes");
    memcpy(&h, d->p, 4);
    d->p += 4;
    if (h > (left(d) - n * each) / 2)
        return bad(d, "a table claims more keys than there are bytes");
    if (d->depth >= LRM_CODEC_DEPTH)
        return bad(d, "tables nested more than " LRM_STR(LRM_CODEC_DEPTH) " deep");
    if (!lua_checkstack(d->L, 4))
        return bad(d, "out of Lua stack");
    uint64_t pre = n + h <= d->budget ? n + h : 0; /* the budget bounds preallocation */
    d->budget -= pre;
    lua_createtable(d->L, pre ? (int)n : 0, pre ? (int)h : 0);
    d->depth++;
    if (tag != T_TAB)
        dec_raw(d, n, tag == T_IARR);
    for (uint64_t i = 1; tag == T_TAB && i <= n && !rc; i++) {
        if (!(rc = dec_value(d)))
            lua_rawseti(d->L, -2, (lua_Integer)i); /* nil: nothing stored */
    }
    for (uint32_t i = 0; i < h && !rc; i++) {
        if (!(rc = dec_key(d)) && !(rc = dec_value(d)))
            lua_rawset(d->L, -3); /* on failure dec_value's caller resets the stack */
    }
    d->depth--;
    return rc;
}

/* A buffer: its type is one of the core's, its elements are there. */
static int dec_buffer(dec *d)
{
    if (left(d) < 1)
        return bad(d, "a buffer's type is missing");
    int type = *d->p++;
    uint64_t n;
    int rc = get_varint(d, &n);
    if (rc)
        return rc;
    if (!rmalab_type_name((rmalab_type)type))
        return bad(d, "a buffer of an unknown type");
    size_t size = (size_t)rmalab_type_size((rmalab_type)type);
    if (n > left(d) / size)
        return bad(d, "a buffer claims more elements than there are bytes");
    lrm_buffer *b = lrm_buffer_new(d->L, (rmalab_type)type, (lua_Integer)n);
    if (n)
        memcpy(b->p, d->p, (size_t)n * size);
    d->p += n * size;
    return RMALAB_OK;
}

static int dec_value(dec *d)
{
    if (d->p == d->end)
        return bad(d, "the value is cut short");
    int top = lua_gettop(d->L), rc = RMALAB_OK;
    unsigned tag = *d->p++;
    switch (tag) {
    case T_NIL: lua_pushnil(d->L); break;
    case T_FALSE:
    case T_TRUE: lua_pushboolean(d->L, tag == T_TRUE); break;
    case T_INT:
    case T_FLT:
        if (left(d) < 8)
            return bad(d, "a number is cut short");
        lrm_number_push(d->L, d->p, tag == T_INT);
        d->p += 8;
        break;
    case T_STR: {
        uint64_t n;
        if ((rc = get_varint(d, &n)))
            return rc;
        if (n > left(d))
            return bad(d, "a string is longer than the bytes left");
        lua_pushlstring(d->L, (const char *)d->p, (size_t)n);
        d->p += n;
        break;
    }
    case T_TAB:
    case T_IARR:
    case T_FARR: rc = dec_table(d, tag); break;
    case T_BUF: rc = dec_buffer(d); break;
    default: d->p--; return bad(d, "unknown tag");
    }
    if (rc)
        lua_settop(d->L, top);
    return rc;
}

int lrm_decode(lua_State *L, const void *p, size_t n)
{
    dec d = {L, p, p, (const unsigned char *)p + n, n, 0};
    if (!lua_checkstack(L, 8))
        return rmalab_set_error(RMALAB_ERR_NO_MEM, "out of Lua stack");
    int rc = dec_value(&d);
    if (!rc && d.p != d.end) {
        lua_pop(L, 1);
        rc = bad(&d, "bytes are left after the value");
    }
    return rc;
}
