/* The value codec's encoder: Lua values to bytes (lcodec.h says which
 * values and which bytes), for communicators' collectives and messages. C
 * over the Lua API: no MPI; the core only through rmalab_set_error, which
 * keeps the message of a failure, and lbuffer.c's check that a buffer can
 * be read. The decoder is ldecode.c.
 *
 * A cycle, a function, a thread, another userdata or a table used as a key
 * is refused with ERR_ARG naming where in the value it sits
 * ("value.config[3]: a function cannot be sent"); a buffer that cannot be
 * read now (a get in flight writes it, its window was freed) with the
 * class of that refusal. */
#include <math.h>
#include <stdlib.h>

#include "lcodec.h"
#include "lrmalab.h"

/* ------------------------------------------------------------------------ */
/* Bytes                                                                    */

void lrm_bytes_free(lrm_bytes *b)
{
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

int lrm_bytes_reserve(lrm_bytes *b, size_t more)
{
    if (more <= b->cap - b->n)
        return RMALAB_OK;
    if (more > LRM_BYTES_MAX - b->n)
        return rmalab_set_error(RMALAB_ERR_ARG, "more than %d bytes: too large to send",
                                LRM_BYTES_MAX);
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->n < more)
        cap = cap > (size_t)LRM_BYTES_MAX / 2 ? (size_t)LRM_BYTES_MAX + 64 : 2 * cap;
    unsigned char *p = realloc(b->p, cap);
    if (!p)
        return rmalab_set_error(RMALAB_ERR_NO_MEM, "out of memory for %zu bytes", cap);
    b->p = p;
    b->cap = cap;
    return RMALAB_OK;
}

static int put(lrm_bytes *b, const void *p, size_t n)
{
    int rc = lrm_bytes_reserve(b, n);
    if (!rc) {
        memcpy(b->p + b->n, p, n);
        b->n += n;
    }
    return rc;
}

static int put_byte(lrm_bytes *b, unsigned c)
{
    unsigned char x = (unsigned char)c;
    return put(b, &x, 1);
}

static int put_varint(lrm_bytes *b, uint64_t v)
{
    unsigned char tmp[10];
    size_t n = 0;
    do {
        tmp[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return put(b, tmp, n);
}

/* ------------------------------------------------------------------------ */
/* Encoding                                                                 */

typedef struct {
    lua_State *L;
    lrm_bytes *b;
    const char *root;
    int depth;
    int table[LRM_CODEC_DEPTH]; /* stack indices of the tables on the path */
    int key[LRM_CODEC_DEPTH];   /* the key of the element below: stack index, */
    lua_Integer idx[LRM_CODEC_DEPTH]; /* or 0 and the array index */
} enc;

static int is_name(const char *s, size_t n)
{
    if (!n || n > 40 || !(s[0] == '_' || ((s[0] | 32) >= 'a' && (s[0] | 32) <= 'z')))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!(s[i] == '_' || (s[i] >= '0' && s[i] <= '9') ||
              ((s[i] | 32) >= 'a' && (s[i] | 32) <= 'z')))
            return 0;
    return 1;
}

/* "value.config[3]" for the elements on the path to the current one. */
static void path(enc *e, char *out, size_t size)
{
    size_t n = (size_t)snprintf(out, size, "%s", e->root);
    for (int d = 0; d < e->depth && n < size; d++) {
        int k = e->key[d];
        lua_State *L = e->L;
        size_t len = 0;
        const char *ks = lua_type(L, k) == LUA_TSTRING ? lua_tolstring(L, k, &len) : NULL;
        if (!k)
            n += (size_t)snprintf(out + n, size - n, "[%lld]", (long long)e->idx[d]);
        else if (ks && is_name(ks, len))
            n += (size_t)snprintf(out + n, size - n, ".%s", ks);
        else if (ks)
            n += (size_t)snprintf(out + n, size - n, "[\"%.24s%s\"]", ks, len > 24 ? "..." : "");
        else if (lua_isinteger(L, k))
            n += (size_t)snprintf(out + n, size - n, "[%lld]", (long long)lua_tointeger(L, k));
        else if (lua_type(L, k) == LUA_TNUMBER)
            n += (size_t)snprintf(out + n, size - n, "[%.14g]", lua_tonumber(L, k));
        else
            n += (size_t)snprintf(out + n, size - n, "[%s]", lua_toboolean(L, k) ? "true" : "false");
    }
}

/* The value cannot be sent: why, after where it sits, of class `code`. */
static int refuse_as(enc *e, int code, const char *what)
{
    char where[200];
    path(e, where, sizeof where);
    return rmalab_set_error(code, "%s: %s", where, what);
}

static int refuse(enc *e, const char *what)
{
    return refuse_as(e, RMALAB_ERR_ARG, what);
}

static int enc_value(enc *e, int i);

static int enc_key(enc *e, int k)
{
    switch (lua_type(e->L, k)) {
    case LUA_TBOOLEAN:
    case LUA_TNUMBER:
    case LUA_TSTRING: return enc_value(e, k);
    default: {
        char what[80];
        snprintf(what, sizeof what, "a %s key cannot be sent (keys are booleans, numbers or "
                                    "strings)", luaL_typename(e->L, k));
        e->depth--; /* the path is the table's, not the key's */
        int rc = refuse(e, what);
        e->depth++;
        return rc;
    }
    }
}

static size_t varint_len(uint64_t v)
{
    size_t n = 1;
    while (v > 0x7f) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Up to BATCH elements are pushed, read and popped together: the stack
 * calls dominate an array's cost (bench-comm). */
#define BATCH 32

/* The number at idx as 8 raw bytes at p, if it is of subtype `kind` (1
 * integer, 2 float). A float with a fraction needs one API call, not
 * two: an integer converts to a whole float. */
static bool raw_number(lua_State *L, int idx, int kind, unsigned char *p)
{
    if (kind == 1) {
        lua_Integer v = lua_tointegerx(L, idx, NULL);
        memcpy(p, &v, 8);
        return lua_isinteger(L, idx);
    }
    lua_Number v = lua_tonumberx(L, idx, NULL);
    memcpy(p, &v, 8);
    return (fabs(v) < 0x1p52 && v != (lua_Number)(int64_t)v) || !lua_isinteger(L, idx);
}

/* Elements i..i+m-1 at p as raw numbers when they are numbers of `*kind`
 * (0: not yet known; 1 integers, 2 floats): false when one is not. */
static bool raw_batch(lua_State *L, int t, lua_Integer i, int m, int *kind, unsigned char *p)
{
    int top = lua_gettop(L), ok = 1;
    for (int j = 0; j < m && ok; j++)
        ok = lua_rawgeti(L, t, i + j) == LUA_TNUMBER;
    if (ok && !*kind)
        *kind = lua_isinteger(L, top + 1) ? 1 : 2;
    for (int idx = top + 1; ok && idx <= top + m; idx++, p += 8)
        ok = raw_number(L, idx, *kind, p);
    lua_settop(L, top);
    return ok;
}

/* A table whose t[1..n] are all integers or all floats: its head (IARR or
 * FARR, n, a zero key count at *hat) and the raw numbers written; false,
 * and nothing written, for any other table. */
static bool enc_raw(enc *e, int t, lua_Integer n, size_t *hat)
{
    size_t head = 1 + varint_len((uint64_t)n) + 4;
    if (n < 1 || (uint64_t)n > LRM_BYTES_MAX / 8 || !lua_checkstack(e->L, BATCH + 2) ||
        lrm_bytes_reserve(e->b, head + (size_t)n * 8))
        return false; /* the general path reports what is wrong */
    unsigned char *p = e->b->p + e->b->n + head;
    int kind = 0;
    for (lua_Integer i = 1; i <= n; i += BATCH, p += 8 * BATCH) {
        int m = n - i + 1 < BATCH ? (int)(n - i + 1) : BATCH;
        if (!raw_batch(e->L, t, i, m, &kind, p))
            return false;
    }
    put_byte(e->b, kind == 1 ? T_IARR : T_FARR); /* room was reserved */
    put_varint(e->b, (uint64_t)n);
    *hat = e->b->n;
    e->b->n += 4 + (size_t)n * 8;
    return true;
}

/* The array part t[1..n], as values; *set counts those not nil. */
static int enc_array(enc *e, int t, lua_Integer n, lua_Integer *set)
{
    int rc = RMALAB_OK;
    for (lua_Integer i = 1; i <= n && !rc; i++) {
        *set += lua_rawgeti(e->L, t, i) != LUA_TNIL;
        e->key[e->depth - 1] = 0;
        e->idx[e->depth - 1] = i;
        rc = enc_value(e, lua_gettop(e->L));
        lua_pop(e->L, 1);
    }
    return rc;
}

/* Whether t has more keys than the `set` ones of t[1..n]: counting them
 * takes two API calls a key, where enc_pairs's test of each key takes
 * four, and most tables sent are arrays (bench-comm's table bcast). */
static bool more_keys(lua_State *L, int t, lua_Integer set)
{
    lua_Integer count = 0;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        if (++count > set) {
            lua_pop(L, 1);
            return true;
        }
    }
    return false;
}

/* Whether a key follows n (a key of t, or 0) in lua_next's order. Lua
 * documents no order, so this is a hint that chooses between more_keys
 * and going to enc_pairs at once, never what is sent: Lua 5.4 gives the
 * array part first, and an array without other keys has none after n. */
static bool key_after(lua_State *L, int t, lua_Integer n)
{
    if (n < 1)
        return true;
    lua_pushinteger(L, n);
    bool after = lua_next(L, t);
    lua_pop(L, after ? 2 : 0);
    return after;
}

/* Whether t certainly has no hash part, so that every key it has lies in
 * its array part (integers): read from the head of Lua 5.4's Table, whose
 * `lastfree` is NULL exactly when the hash part is the shared empty one.
 * The API cannot tell this, and counting the keys (more_keys) took half
 * of a 1,000-number array's encoding (two lua_next calls and a pop a key).
 * The header is trusted only after it read right on tables of all four
 * kinds (with and without a hash part and a metatable); otherwise, or on
 * another Lua, this says false and the keys are counted. */
struct table_head { /* Lua 5.4's Table up to lastfree (lobject.h) */
    void *next;
    unsigned char tt, marked, flags, lsizenode;
    unsigned int alimit;
    void *array, *node, *lastfree;
};

static bool hashless(lua_State *L, int t)
{
    return ((const struct table_head *)lua_topointer(L, t))->lastfree == NULL;
}

static bool head_reads_right(lua_State *L)
{
    bool right = lua_checkstack(L, 3);
    for (int kind = 0; right && kind < 4; kind++) {
        lua_createtable(L, 2, 0);
        for (int i = 1; i <= 2; i++) {
            lua_pushinteger(L, i);
            lua_rawseti(L, -2, i);
        }
        if (kind & 1) { /* a hash part */
            lua_pushboolean(L, 1);
            lua_setfield(L, -2, "x");
        }
        if (kind & 2) {
            lua_createtable(L, 0, 0);
            lua_setmetatable(L, -2);
        }
        right = hashless(L, -1) == !(kind & 1);
        lua_pop(L, 1);
    }
    return right;
}

static bool no_hash_part(lua_State *L, int t)
{
#if LUA_VERSION_NUM == 504
    static _Atomic int trusted; /* 0 not yet known, 1 yes, 2 no */
    if (!trusted)
        trusted = head_reads_right(L) ? 1 : 2;
    return trusted == 1 && hashless(L, t);
#else
    (void)L, (void)t;
    return false;
#endif
}

/* The other keys: every pair but t[1..n]; returns their count in *h. */
static int enc_pairs(enc *e, int t, lua_Integer n, uint32_t *h)
{
    lua_State *L = e->L;
    int rc = RMALAB_OK;
    *h = 0;
    lua_pushnil(L);
    int k = lua_gettop(L);
    while (!rc && lua_next(L, t)) {
        if (lua_isinteger(L, k)) { /* t[1..n] went already */
            lua_Integer i = lua_tointegerx(L, k, NULL);
            if (i >= 1 && i <= n) {
                lua_settop(L, k);
                continue;
            }
        }
        e->key[e->depth - 1] = k;
        rc = enc_key(e, k);
        if (!rc)
            rc = enc_value(e, k + 1);
        if (!rc && ++*h == UINT32_MAX)
            rc = refuse(e, "a table of more than 2^32 keys cannot be sent");
        lua_pop(L, rc ? 2 : 1);
    }
    return rc;
}

static int enc_table(enc *e, int t)
{
    lua_State *L = e->L;
    for (int d = 0; d < e->depth; d++)
        if (lua_rawequal(L, e->table[d], t))
            return refuse(e, "a table that contains itself (a cycle) cannot be sent");
    if (e->depth == LRM_CODEC_DEPTH)
        return refuse(e, "tables nested more than " LRM_STR(LRM_CODEC_DEPTH)
                         " deep cannot be sent");
    if (!lua_checkstack(L, 4))
        return refuse(e, "out of Lua stack");
    lua_Integer n = (lua_Integer)lua_rawlen(L, t);
    size_t at = 0;
    uint32_t h = 0;
    bool raw = enc_raw(e, t, n, &at);
    lua_Integer set = raw ? n : 0;
    int rc = raw ? RMALAB_OK : put_byte(e->b, T_TAB);
    if (!raw && !rc)
        rc = put_varint(e->b, (uint64_t)n);
    if (!raw && !rc) {
        at = e->b->n;
        rc = put(e->b, &h, 4);
    }
    e->table[e->depth++] = t;
    if (!rc && !raw)
        rc = enc_array(e, t, n, &set);
    /* with no hash part, t's keys past n would follow n in lua_next */
    if (!rc && (key_after(L, t, n) || (!no_hash_part(L, t) && more_keys(L, t, set))))
        rc = enc_pairs(e, t, n, &h);
    if (!rc) {
        memcpy(e->b->p + at, &h, 4);
        e->depth--;
    }
    return rc;
}

/* A buffer, read now; what a read of it would raise is the refusal. */
static int enc_buffer(enc *e, int i, const lrm_buffer *b)
{
    int rc = lrm_buffer_status(e->L, i, false, "it cannot be sent");
    if (rc) {
        char what[600]; /* the message, before refuse_as sets the next */
        snprintf(what, sizeof what, "%s", rmalab_errmsg());
        return refuse_as(e, rc, what);
    }
    size_t bytes = (size_t)b->n * (size_t)b->size;
    rc = put_byte(e->b, T_BUF);
    if (!rc)
        rc = put_byte(e->b, (unsigned)b->type);
    if (!rc)
        rc = put_varint(e->b, (uint64_t)b->n);
    return rc ? rc : put(e->b, b->p, bytes);
}

static int enc_value(enc *e, int i)
{
    lua_State *L = e->L;
    const lrm_buffer *b;
    switch (lua_type(L, i)) {
    case LUA_TNIL: return put_byte(e->b, T_NIL);
    case LUA_TBOOLEAN: return put_byte(e->b, lua_toboolean(L, i) ? T_TRUE : T_FALSE);
    case LUA_TNUMBER: {
        unsigned char x[9];
        lrm_number_code(L, i, x);
        return put(e->b, x, 9);
    }
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(L, i, &n);
        int rc = put_byte(e->b, T_STR);
        if (!rc)
            rc = put_varint(e->b, n);
        return rc ? rc : put(e->b, s, n);
    }
    case LUA_TTABLE: return enc_table(e, i);
    case LUA_TUSERDATA:
        if ((b = lrm_tobuffer(L, i)))
            return enc_buffer(e, i, b);
        __attribute__((fallthrough)); /* another userdata */
    default: {
        char what[64];
        snprintf(what, sizeof what, "a %s cannot be sent", luaL_typename(L, i));
        return refuse(e, what);
    }
    }
}

int lrm_encode(lua_State *L, int idx, lrm_bytes *b, const char *root)
{
    enc e;
    e.L = L;
    e.b = b;
    e.root = root;
    e.depth = 0;
    int top = lua_gettop(L), rc = enc_value(&e, lua_absindex(L, idx));
    lua_settop(L, top);
    return rc;
}
