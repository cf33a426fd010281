/* The arguments of window calls in Lua: types, ops, ranks, displacements,
 * counts, assertions and groups, and typed values between Lua and C
 * buffers (one value, an array, or for "byte" a string). Used by lwin.c and
 * lsync.c; knows nothing of windows but the name that errors about ranks
 * show. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "lnames.h"
#include "lrmalab.h"

/* Every operation names its type: the name is matched by its length and
 * bytes against a copy of the core's names, made once by lrm_open_values,
 * which costs about a fifth of the registry table it replaced (a lookup of
 * the table, then of the name: 330 instructions). */
static struct {
    const char *name;
    size_t len;
} type_names[RMALAB_NTYPES];
static pthread_once_t type_names_once = PTHREAD_ONCE_INIT;

/* Ops the same way: a reduction names its op every call, and
 * rmalab_op_from_name's strcmp of each name in turn cost 46 instructions of
 * an allreduce of one number. Names as rmalab_op_from_name takes them, each
 * as its length and its bytes in one word (op_key), so that a name is
 * matched in one comparison: the byte loop over names was 54 instructions
 * of that allreduce. */
static struct {
    uint64_t key;
    size_t len;
} op_names[RMALAB_OP_NO_OP + 1];

static inline uint32_t load4(const char *s)
{
    uint32_t w;
    memcpy(&w, s, 4); /* one load */
    return w;
}

/* The bytes of a name of 3 to 8 bytes, as one word (0 for other lengths:
 * no op's name has them). A Lua string and a C string end in a NUL, so a
 * name of 3 bytes reads 4, its NUL the last. */
static inline uint64_t op_key(const char *s, size_t len)
{
    if (len < 3 || len > 8)
        return 0;
    return load4(s) | (len > 4 ? (uint64_t)load4(s + len - 4) << 32 : 0);
}

static void type_names_init(void)
{
    for (int i = 0; i < RMALAB_NTYPES; i++) {
        type_names[i].name = rmalab_type_name((rmalab_type)i);
        type_names[i].len = strlen(type_names[i].name);
    }
    for (int i = 0; i <= RMALAB_OP_NO_OP; i++) {
        const char *name = rmalab_op_name((rmalab_op)i);
        op_names[i].len = strlen(name);
        op_names[i].key = op_key(name, op_names[i].len);
    }
}

/* The type matched last, tried first: a program moves one type at a time
 * (a put of "int64" went through six other names first). Any thread's
 * last match will do, so relaxed. */
static atomic_int last_type;

static bool type_is(int i, const char *s, size_t len)
{
    return type_names[i].len == len && type_names[i].name[len - 1] == s[len - 1] &&
           memcmp(type_names[i].name, s, len) == 0; /* "int16" and "int64" end apart */
}

rmalab_type lrm_checktype(lua_State *L, int arg)
{
    size_t len = 0;
    const char *s = lua_type(L, arg) == LUA_TSTRING ? lua_tolstring(L, arg, &len) : NULL;
    int last = atomic_load_explicit(&last_type, memory_order_relaxed);
    if (s && type_is(last, s, len))
        return (rmalab_type)last;
    for (int i = 0; s && i < RMALAB_NTYPES; i++)
        if (type_is(i, s, len)) {
            atomic_store_explicit(&last_type, i, memory_order_relaxed);
            return (rmalab_type)i;
        }
    rmalab_type t;
    const char *name = lrm_checkstring(L, arg, RMALAB_ERR_TYPE, NULL);
    if (rmalab_type_from_name(name, &t))
        lrm_argerror(L, arg, RMALAB_ERR_TYPE, rmalab_errmsg());
    return t;
}

/* An op argument's failure: out of line, with its buffers. */
static int __attribute__((noinline)) bad_op(lua_State *L, int arg, rmalab_op *op)
{
    char msg[400];
    *op = RMALAB_OP_SUM;
    if (lua_type(L, arg) != LUA_TSTRING) {
        snprintf(msg, sizeof msg, "string expected, got %s", luaL_typename(L, arg));
        return lrm_argstatus(L, arg, RMALAB_ERR_OP, msg);
    }
    if (rmalab_op_from_name(lua_tostring(L, arg), op) == RMALAB_OK)
        return RMALAB_OK; /* a name with a NUL in it, as rmalab_op_from_name reads it */
    snprintf(msg, sizeof msg, "%s", rmalab_errmsg());
    *op = RMALAB_OP_SUM;
    return lrm_argstatus(L, arg, RMALAB_ERR_OP, msg);
}

int lrm_op_status(lua_State *L, int arg, rmalab_op *op)
{
    size_t len;
    const char *s = lua_type(L, arg) == LUA_TSTRING ? lua_tolstring(L, arg, &len) : NULL;
    uint64_t key = s ? op_key(s, len) : 0;
    for (int i = 0; key && i <= RMALAB_OP_NO_OP; i++)
        if (op_names[i].key == key && op_names[i].len == len) {
            *op = (rmalab_op)i;
            return RMALAB_OK;
        }
    return bad_op(L, arg, op);
}

rmalab_op lrm_checkop(lua_State *L, int arg)
{
    rmalab_op op;
    int rc = lrm_op_status(L, arg, &op);
    if (rc)
        lrm_raisef(L, rc, "%s", rmalab_errmsg());
    return op;
}

/* Ranks outside the C int range cannot be in any group. An integer in
 * range at once (lrm_checkinteger's call and the window's name, asked of
 * the core before the check, were about 40 instructions a rank). */
int lrm_checkrank(lua_State *L, int arg, rmalab_win *w)
{
    if (lua_isinteger(L, arg)) {
        lua_Integer r = lua_tointegerx(L, arg, NULL);
        if (r >= INT_MIN && r <= INT_MAX)
            return (int)r;
    }
    lua_Integer r = lrm_checkinteger(L, arg, RMALAB_ERR_RANK, "rank"); /* a float, or an error */
    if (r < INT_MIN || r > INT_MAX)
        lrm_raise_named(L, rmalab_win_get_name(w), RMALAB_ERR_RANK,
                        "win: rank %lld is not in the window's group", (long long)r);
    return (int)r;
}

MPI_Aint lrm_checkdisp(lua_State *L, int arg)
{
    return (MPI_Aint)lrm_checkinteger(L, arg, RMALAB_ERR_ARG, "displacement");
}

int lrm_checkcount(lua_State *L, int arg)
{
    lua_Integer n = lrm_checkinteger(L, arg, RMALAB_ERR_ARG, "count");
    if (n < 0 || n > INT_MAX / 8)
        lrm_argerror(L, arg, RMALAB_ERR_ARG, "count out of range");
    return (int)n;
}

/* An assertion: nil, a name, or an array of names. */
int lrm_assert_status(lua_State *L, int arg, int *out)
{
    int mode = 0, m;
    *out = 0;
    if (lua_isnoneornil(L, arg))
        return RMALAB_OK;
    if (lua_type(L, arg) == LUA_TSTRING) {
        if (rmalab_mode_from_name(lua_tostring(L, arg), &m))
            return lrm_argstatus(L, arg, RMALAB_ERR_ARG, rmalab_errmsg());
        *out = m;
        return RMALAB_OK;
    }
    if (!lua_istable(L, arg))
        return lrm_argstatus(L, arg, RMALAB_ERR_ARG, "assertion name or array of names expected");
    lua_Integer n = luaL_len(L, arg);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, arg, i);
        const char *s = lua_tostring(L, -1); /* numbers too: "unknown assertion \"1\"" */
        int rc = !s || rmalab_mode_from_name(s, &m)
                     ? lrm_argstatus(L, arg, RMALAB_ERR_ARG,
                                     s ? rmalab_errmsg()
                                       : "assertions are strings such as \"nocheck\"")
                     : RMALAB_OK;
        lua_pop(L, 1);
        if (rc)
            return rc;
        mode |= m;
    }
    *out = mode;
    return RMALAB_OK;
}

int lrm_checkassert(lua_State *L, int arg)
{
    int mode;
    if (lua_type(L, arg) <= LUA_TNIL) /* none or nil: every epoch of most programs */
        return 0;
    if (lrm_assert_status(L, arg, &mode))
        lrm_raisef(L, RMALAB_ERR_ARG, "%s", rmalab_errmsg());
    return mode;
}

/* A group: an array of ranks. Up to LRM_SMALL_GROUP ranks go into the caller's
 * `small` array; a longer group lives in a userdata pushed on the stack, so
 * nothing leaks on error (read the arguments after `arg` before calling
 * this). Every epoch calls it, so the common case allocates nothing. */
int *lrm_checkgroup(lua_State *L, int arg, int *n, int *small, const char *name)
{
    if (!lua_istable(L, arg))
        lrm_argerror(L, arg, RMALAB_ERR_GROUP, "group (an array of ranks, e.g. {1, 2}) expected");
    lua_Integer len = (lua_Integer)lua_rawlen(L, arg); /* read raw, as the elements are */
    if (len > 1 << 20)
        lrm_argerror(L, arg, RMALAB_ERR_GROUP, "group too large");
    int *ranks = len <= LRM_SMALL_GROUP ? small
                                    : lua_newuserdatauv(L, ((size_t)len + 1) * sizeof *ranks, 0);
    for (lua_Integer i = 1; i <= len; i++) {
        if (i > 1)
            lua_pop(L, 1); /* the element before; the last is left for the caller */
        lua_rawgeti(L, arg, i);
        if (!lua_isinteger(L, -1))
            lrm_raise_named(L, name, RMALAB_ERR_GROUP,
                            "group element %d is %s; groups hold integer ranks", (int)i,
                            luaL_typename(L, -1));
        lua_Integer r = lua_tointeger(L, -1);
        if (r < INT_MIN || r > INT_MAX)
            lrm_raise_named(L, name, RMALAB_ERR_RANK,
                            "group element %d: rank %lld is not in the window's group", (int)i,
                            (long long)r);
        ranks[i - 1] = (int)r;
    }
    *n = (int)len;
    return ranks;
}

/* A value that cannot be stored names the call, the argument and, for an
 * array, the element: "win:write: element 2 of the values (argument 3) is
 * not an integer (2.5); int64 needs an integer [window "w"]", or for one
 * value "win:put: the value (argument 4) does not fit int8 (300)". i is the
 * element (from 1), 0 for a value given alone. */
static int bad_value(lua_State *L, int idx, const lrm_valsite *s, lua_Integer i,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int bad_value(lua_State *L, int idx, const lrm_valsite *s, lua_Integer i,
                     const char *fmt, ...)
{
    char subject[160], arg[32] = "", shown[48] = "", pred[256];
    const char *what = s->what ? s->what : "";
    if (s->arg > 0)
        snprintf(arg, sizeof arg, " (argument %d)", s->arg);
    if (i > 0)
        snprintf(subject, sizeof subject, "element %lld of the %s%svalues%s", (long long)i,
                 what, *what ? " " : "", arg);
    else
        snprintf(subject, sizeof subject, "the %s%svalue%s", what, *what ? " " : "", arg);
    int t = lua_type(L, idx);
    if (t == LUA_TNUMBER || t == LUA_TBOOLEAN) {
        snprintf(shown, sizeof shown, " (%s)", luaL_tolstring(L, idx, NULL));
        lua_pop(L, 1);
    } else if (t == LUA_TSTRING) {
        size_t len;
        const char *str = lua_tolstring(L, idx, &len);
        snprintf(shown, sizeof shown, len > 20 ? " (\"%.20s...\")" : " (\"%s\")", str);
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pred, sizeof pred, fmt, ap);
    va_end(ap);
    /* pred: "is %s%s; ..." with the value's kind and what it shows */
    char name[160] = "";
    if (s->name && s->name[0])
        snprintf(name, sizeof name, " [window \"%s\"]", s->name);
    const char *semi = strchr(pred, ';');
    int head = semi ? (int)(semi - pred) : (int)strlen(pred);
    return lrm_raisef(L, RMALAB_ERR_ARG, "%s: %s %.*s%s%s%s", s->call, subject, head, pred,
                      shown, semi ? semi : "", name);
}

/* "a string", "a table", "nil": what a value that is no number is. */
static const char *kind(lua_State *L, int idx)
{
    static const char *const kinds[] = {"nil", "a boolean", "a light userdata", "a number",
                                        "a string", "a table", "a function", "a userdata",
                                        "a thread"};
    int t = lua_type(L, idx);
    return t >= 0 && t < (int)(sizeof kinds / sizeof *kinds) ? kinds[t] : "no value";
}

static const char *holder(const lrm_valsite *s) { return s->buffer ? "buffers" : "windows"; }

/* The value at idx, the i-th (from 1; 0 alone), as a float or double at p. */
static void store_number(lua_State *L, int idx, lua_Integer i, rmalab_type type, void *p,
                         const lrm_valsite *s)
{
    if (!lua_isnumber(L, idx) || lua_type(L, idx) != LUA_TNUMBER)
        bad_value(L, idx, s, i, "is %s; %s %s hold numbers", kind(L, idx),
                  rmalab_type_name(type), holder(s));
    lua_Number v = lua_tonumber(L, idx);
    if (type == RMALAB_FLOAT && isfinite(v) && fabs(v) > FLT_MAX)
        bad_value(L, idx, s, i, "does not fit float; the largest float is %g", (double)FLT_MAX);
    if (type == RMALAB_FLOAT) {
        float f = (float)v;
        memcpy(p, &f, sizeof f);
    } else {
        memcpy(p, &v, sizeof v);
    }
}

/* The value at idx, the i-th (from 1; 0 alone), as an integer of `type` at p. */
static void store_integer(lua_State *L, int idx, lua_Integer i, rmalab_type type, void *p,
                          const lrm_valsite *s)
{
    lua_Integer v = 0;
    int ok = 0;
    if (lua_isinteger(L, idx)) { /* the common case first: no lua_type */
        v = lua_tointeger(L, idx);
        ok = 1;
    } else if (lua_type(L, idx) == LUA_TNUMBER) {
        lua_Number d = lua_tonumber(L, idx);
        ok = d == floor(d) && lua_numbertointeger(d, &v);
    }
    if (!ok)
        bad_value(L, idx, s, i, "is %s; %s needs an integer",
                  lua_type(L, idx) == LUA_TNUMBER ? "not an integer" : kind(L, idx),
                  rmalab_type_name(type));
    static const lua_Integer lo[] = {INT8_MIN, 0, INT16_MIN, 0, INT32_MIN, 0};
    static const lua_Integer hi[] = {INT8_MAX, UINT8_MAX, INT16_MAX, UINT16_MAX,
                                     INT32_MAX, UINT32_MAX};
    if (type <= RMALAB_UINT32 && (v < lo[type] || v > hi[type]))
        bad_value(L, idx, s, i, "does not fit %s; %s holds %lld to %lld", rmalab_type_name(type),
                  rmalab_type_name(type), (long long)lo[type], (long long)hi[type]);
    /* uint64: Lua integers are signed, so values from 2^63 up read back
     * negative (as string.unpack("J") gives them) and write back as they
     * read: the 64 bits round-trip. */
    switch (type) {
    case RMALAB_INT8: { int8_t x = (int8_t)v; memcpy(p, &x, 1); break; }
    case RMALAB_UINT8: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    case RMALAB_INT16: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
    case RMALAB_UINT16: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case RMALAB_INT32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
    case RMALAB_UINT32: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    default: { int64_t x = (int64_t)v; memcpy(p, &x, 8); break; }
    }
}

/* One element of a buffer: what the window calls accept for one value of
 * `type`, and for "byte" a string of one character (as win:read gives). */
void lrm_storeelement(lua_State *L, int idx, lua_Integer i, rmalab_type type, void *p,
                      const lrm_valsite *s)
{
    size_t len;
    if (type == RMALAB_FLOAT || type == RMALAB_DOUBLE) {
        store_number(L, idx, i, type, p, s);
    } else if (type != RMALAB_BYTE) {
        store_integer(L, idx, i, type, p, s);
    } else {
        const char *str = lua_type(L, idx) == LUA_TSTRING ? lua_tolstring(L, idx, &len) : NULL;
        if (!str || len != 1)
            bad_value(L, idx, s, i, "is %s; byte buffers hold strings of one character",
                      str ? (len ? "a longer string" : "an empty string") : kind(L, idx));
        memcpy(p, str, 1);
    }
}

/* Lua values to a C buffer of `type`: a value or an array (or, for "byte",
 * a string). Values that fit the caller's `small` buffer (nsmall bytes; may
 * be 0) go there; others into a userdata pushed on the stack (read the
 * arguments after `arg` before calling this). */
void *lrm_checkvalues_buf(lua_State *L, int arg, rmalab_type type, int *count, void *small,
                          size_t nsmall, const lrm_valsite *s)
{
    int sz = rmalab_type_size(type);
    if (type == RMALAB_BYTE) {
        size_t len;
        const char *str = lrm_checkstring(L, arg, RMALAB_ERR_ARG, &len);
        if (len > INT_MAX / 8)
            lrm_argerror(L, arg, RMALAB_ERR_ARG, "string too long");
        void *buf = lua_newuserdatauv(L, len ? len : 1, 0);
        memcpy(buf, str, len);
        *count = (int)len;
        return buf;
    }
    int n = 1, is_table = lua_istable(L, arg);
    if (is_table) {
        lua_Integer len = luaL_len(L, arg);
        if (len > INT_MAX / 8)
            lrm_argerror(L, arg, RMALAB_ERR_ARG, "array too long");
        n = (int)len;
    }
    size_t need = (size_t)(n ? n : 1) * (size_t)sz;
    unsigned char *buf = need <= nsmall ? small : lua_newuserdatauv(L, need, 0);
    if (!is_table && buf == small) { /* a value alone: read where it is */
        if (type == RMALAB_FLOAT || type == RMALAB_DOUBLE)
            store_number(L, arg, 0, type, buf, s);
        else
            store_integer(L, arg, 0, type, buf, s);
        *count = 1;
        return buf;
    }
    for (int i = 0; i < n; i++) {
        if (is_table)
            lua_rawgeti(L, arg, i + 1);
        else
            lua_pushvalue(L, arg);
        void *p = buf + (size_t)i * (size_t)sz;
        lua_Integer at = is_table ? i + 1 : 0;
        if (type == RMALAB_FLOAT || type == RMALAB_DOUBLE)
            store_number(L, -1, at, type, p, s);
        else
            store_integer(L, -1, at, type, p, s);
        lua_pop(L, 1);
    }
    *count = n;
    return buf;
}

void *lrm_checkvalues(lua_State *L, int arg, rmalab_type type, int *count,
                      const lrm_valsite *s)
{
    return lrm_checkvalues_buf(L, arg, type, count, NULL, 0, s);
}

void lrm_pushvalue(lua_State *L, rmalab_type type, const unsigned char *p)
{
    switch (type) {
    case RMALAB_INT8: { int8_t x; memcpy(&x, p, 1); lua_pushinteger(L, x); break; }
    case RMALAB_UINT8: { uint8_t x; memcpy(&x, p, 1); lua_pushinteger(L, x); break; }
    case RMALAB_INT16: { int16_t x; memcpy(&x, p, 2); lua_pushinteger(L, x); break; }
    case RMALAB_UINT16: { uint16_t x; memcpy(&x, p, 2); lua_pushinteger(L, x); break; }
    case RMALAB_INT32: { int32_t x; memcpy(&x, p, 4); lua_pushinteger(L, x); break; }
    case RMALAB_UINT32: { uint32_t x; memcpy(&x, p, 4); lua_pushinteger(L, x); break; }
    case RMALAB_INT64: case RMALAB_UINT64: { int64_t x; memcpy(&x, p, 8); lua_pushinteger(L, (lua_Integer)x); break; }
    case RMALAB_FLOAT: { float x; memcpy(&x, p, 4); lua_pushnumber(L, x); break; }
    case RMALAB_DOUBLE: { double x; memcpy(&x, p, 8); lua_pushnumber(L, x); break; }
    default: lua_pushlstring(L, (const char *)p, 1); break;
    }
}

/* Push count values: bytes as one string, others as an array (as_array) or
 * a single value. */
void lrm_pushvalues(lua_State *L, rmalab_type type, const void *data, int count, int as_array)
{
    const unsigned char *p = data;
    int sz = rmalab_type_size(type);
    if (type == RMALAB_BYTE) {
        lua_pushlstring(L, data, (size_t)count);
        return;
    }
    if (!as_array) {
        if (count == 0)
            lua_pushnil(L);
        else
            lrm_pushvalue(L, type, p);
        return;
    }
    lua_createtable(L, count, 0);
    for (int i = 0; i < count; i++) {
        lrm_pushvalue(L, type, p + (size_t)i * (size_t)sz);
        lua_rawseti(L, -2, i + 1);
    }
}

/* The copy of the core's type names (once per process, whichever state
 * loads the module first). */
void lrm_open_values(lua_State *L)
{
    (void)L;
    pthread_once(&type_names_once, type_names_init);
}

/* lnames.h: the registry holds each state's names under this key. */
static const char names_key = 'n';
_Atomic(const lrm_names *) lrm_names_kept;
const char *const lrm_lock_kinds[] = {"exclusive", "shared", NULL};

/* The names' __gc, in lua_close before any string is freed. */
static int names_gc(lua_State *L)
{
    const lrm_names *n = lua_touserdata(L, 1);
    atomic_compare_exchange_strong(&lrm_names_kept, &n, NULL);
    return 0;
}

void lrm_open_names(lua_State *L)
{
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &names_key) != LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    lrm_names *n = lua_newuserdatauv(L, sizeof *n, 1);
    lua_createtable(L, LRM_NAMES, 0);
    for (int i = 0; i < LRM_NAMES; i++) {
        lua_pushstring(L, i < LRM_NAME_TYPE   ? rmalab_op_name((rmalab_op)(i - LRM_NAME_OP))
                          : i < LRM_NAME_LOCK ? rmalab_type_name((rmalab_type)(i - LRM_NAME_TYPE))
                                              : lrm_lock_kinds[i - LRM_NAME_LOCK]);
        n->p[i] = lua_topointer(L, -1); /* all short: interned */
        lua_rawseti(L, -2, i + 1);      /* kept alive as long as the userdata */
    }
    lua_setiuservalue(L, -2, 1);
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, names_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &names_key);
    const lrm_names *none = NULL;
    atomic_compare_exchange_strong(&lrm_names_kept, &none, n);
}
