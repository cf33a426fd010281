/* Windows in Lua: creation in four flavours, local memory, RMA operations
 * with result handles, synchronisation, hints and the epoch state.
 *
 * MPI_Win_free is collective, so __gc never frees a window: it warns about
 * one that was never freed. win:free() and <close> share one release. A
 * weak table maps core windows to their userdata so that attribute
 * callbacks can be handed the Lua window. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lrmalab.h"

#define LRM_RESULT_T "rmalab.result"
#define WINS_KEY "rmalab.wins"

typedef struct {
    rmalab_win *win;
    lrm_ctx *ctx;     /* of the Lua state that made it */
    unsigned long id; /* creation order in that Lua state */
    int counted;      /* in ctx->stats.wins */
} lwin;

typedef struct {
    rmalab_result *r;
} lresult;

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */

int lrm_raise_win(lua_State *L, int rc, rmalab_win *w, const char *call)
{
    const char *name = w ? rmalab_win_get_name(w) : "";
    char named[160] = "";
    if (name && name[0])
        snprintf(named, sizeof named, " [window \"%s\"]", name);
    if (call)
        return lrm_raisef(L, rc, "win:%s: %s%s", call, rmalab_errmsg(), named);
    return lrm_raisef(L, rc, "win:%s%s", rmalab_errmsg(), named);
}

/* The core's message already starts with the call's name ("put to rank 2:
 * ..."). */
static int win_error(lua_State *L, int rc, rmalab_win *w)
{
    return lrm_raise_win(L, rc, w, NULL);
}

static lwin *towin(lua_State *L, int arg)
{
    lwin *u = luaL_testudata(L, arg, LRM_WIN_T);
    if (!u)
        lrm_argerror(L, arg, RMALAB_ERR_WIN, "window expected");
    return u;
}

rmalab_win *lrm_checkwin(lua_State *L, int arg)
{
    lwin *u = towin(L, arg);
    if (!u->win)
        lrm_raisef(L, RMALAB_ERR_WIN, "this window was freed; create a new one");
    return u->win;
}

void lrm_pushwin(lua_State *L, rmalab_win *w)
{
    lua_getfield(L, LUA_REGISTRYINDEX, WINS_KEY);
    lua_rawgetp(L, -1, w);
    lua_remove(L, -2);
}

static void forget_win(lua_State *L, rmalab_win *w)
{
    lua_getfield(L, LUA_REGISTRYINDEX, WINS_KEY);
    lua_pushnil(L);
    lua_rawsetp(L, -2, w);
    lua_pop(L, 1);
}

static const char types_key = 'k';

/* Type names are looked up in a registry table made at load time, as every
 * operation names its type. */
static rmalab_type checktype(lua_State *L, int arg)
{
    if (lua_type(L, arg) == LUA_TSTRING) {
        lua_rawgetp(L, LUA_REGISTRYINDEX, &types_key);
        lua_pushvalue(L, arg);
        int found = lua_rawget(L, -2) == LUA_TNUMBER;
        lua_Integer v = lua_tointeger(L, -1);
        lua_pop(L, 2);
        if (found)
            return (rmalab_type)v;
    }
    rmalab_type t;
    const char *name = lrm_checkstring(L, arg, RMALAB_ERR_TYPE, NULL);
    if (rmalab_type_from_name(name, &t))
        lrm_argerror(L, arg, RMALAB_ERR_TYPE, rmalab_errmsg());
    return t;
}

static rmalab_op checkop(lua_State *L, int arg)
{
    rmalab_op op;
    const char *name = lrm_checkstring(L, arg, RMALAB_ERR_OP, NULL);
    if (rmalab_op_from_name(name, &op))
        lrm_argerror(L, arg, RMALAB_ERR_OP, rmalab_errmsg());
    return op;
}

/* Ranks outside the C int range cannot be in any group: they become -1 after
 * the message has shown them as given. */
static int checkrank(lua_State *L, int arg)
{
    lua_Integer r = lrm_checkinteger(L, arg, RMALAB_ERR_RANK, "rank");
    if (r < INT_MIN || r > INT_MAX)
        lrm_raisef(L, RMALAB_ERR_RANK, "win: rank %lld is not in the window's group",
                   (long long)r);
    return (int)r;
}

static MPI_Aint checkdisp(lua_State *L, int arg)
{
    return (MPI_Aint)lrm_checkinteger(L, arg, RMALAB_ERR_ARG, "displacement");
}

static int checkcount(lua_State *L, int arg)
{
    lua_Integer n = lrm_checkinteger(L, arg, RMALAB_ERR_ARG, "count");
    if (n < 0 || n > INT_MAX / 8)
        lrm_argerror(L, arg, RMALAB_ERR_ARG, "count out of range");
    return (int)n;
}

/* An assertion: nil, a name, or an array of names. */
static int checkassert(lua_State *L, int arg)
{
    int mode = 0, m;
    if (lua_isnoneornil(L, arg))
        return 0;
    if (lua_type(L, arg) == LUA_TSTRING) {
        if (rmalab_mode_from_name(lua_tostring(L, arg), &m))
            lrm_argerror(L, arg, RMALAB_ERR_ARG, rmalab_errmsg());
        return m;
    }
    if (!lua_istable(L, arg))
        lrm_argerror(L, arg, RMALAB_ERR_ARG, "assertion name or array of names expected");
    lua_Integer n = luaL_len(L, arg);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, arg, i);
        const char *s = lua_tostring(L, -1);
        if (lua_type(L, -1) != LUA_TSTRING || rmalab_mode_from_name(s, &m))
            lrm_argerror(L, arg, RMALAB_ERR_ARG,
                         s ? rmalab_errmsg() : "assertions are strings such as \"nocheck\"");
        mode |= m;
        lua_pop(L, 1);
    }
    return mode;
}

/* A group: an array of ranks. Up to SMALL_GROUP ranks go into the caller's
 * `small` array; a longer group lives in a userdata pushed on the stack, so
 * nothing leaks on error (read the arguments after `arg` before calling
 * this). Every epoch calls it, so the common case allocates nothing. */
#define SMALL_GROUP 16
static int *checkgroup(lua_State *L, int arg, int *n, int *small)
{
    if (!lua_istable(L, arg))
        lrm_argerror(L, arg, RMALAB_ERR_GROUP, "group (an array of ranks, e.g. {1, 2}) expected");
    lua_Integer len = luaL_len(L, arg);
    if (len > 1 << 20)
        lrm_argerror(L, arg, RMALAB_ERR_GROUP, "group too large");
    int *ranks = len <= SMALL_GROUP ? small
                                    : lua_newuserdatauv(L, ((size_t)len + 1) * sizeof *ranks, 0);
    for (lua_Integer i = 1; i <= len; i++) {
        lua_rawgeti(L, arg, i);
        if (!lua_isinteger(L, -1))
            lrm_raisef(L, RMALAB_ERR_GROUP, "group element %d is %s; groups hold integer ranks",
                       (int)i, luaL_typename(L, -1));
        lua_Integer r = lua_tointeger(L, -1);
        if (r < INT_MIN || r > INT_MAX)
            lrm_raisef(L, RMALAB_ERR_RANK, "group element %d: rank %lld is not in the window's "
                       "group", (int)i, (long long)r);
        ranks[i - 1] = (int)r;
        lua_pop(L, 1);
    }
    *n = (int)len;
    return ranks;
}

/* Lua values to a C buffer of `type`: a value or an array (or, for "byte",
 * a string). Values that fit the caller's `small` buffer (nsmall bytes; may
 * be 0) go there; others into a userdata pushed on the stack (read the
 * arguments after `arg` before calling this). */
static void *checkvalues_buf(lua_State *L, int arg, rmalab_type type, int *count, void *small,
                             size_t nsmall)
{
    int sz = rmalab_type_size(type);
    if (type == RMALAB_BYTE) {
        size_t len;
        const char *s = lrm_checkstring(L, arg, RMALAB_ERR_ARG, &len);
        if (len > INT_MAX / 8)
            lrm_argerror(L, arg, RMALAB_ERR_ARG, "string too long");
        void *buf = lua_newuserdatauv(L, len ? len : 1, 0);
        memcpy(buf, s, len);
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
    for (int i = 0; i < n; i++) {
        if (is_table)
            lua_rawgeti(L, arg, i + 1);
        else
            lua_pushvalue(L, arg);
        void *p = buf + (size_t)i * (size_t)sz;
        if (type == RMALAB_FLOAT || type == RMALAB_DOUBLE) {
            if (!lua_isnumber(L, -1) || lua_type(L, -1) != LUA_TNUMBER)
                lrm_raisef(L, RMALAB_ERR_ARG, "value %d is %s; %s windows hold numbers", i + 1,
                           luaL_typename(L, -1), rmalab_type_name(type));
            lua_Number v = lua_tonumber(L, -1);
            if (type == RMALAB_FLOAT && isfinite(v) && fabs(v) > FLT_MAX)
                lrm_raisef(L, RMALAB_ERR_ARG, "value %d (%g) does not fit float (largest %g)",
                           i + 1, v, (double)FLT_MAX);
            if (type == RMALAB_FLOAT) {
                float f = (float)v;
                memcpy(p, &f, sizeof f);
            } else {
                memcpy(p, &v, sizeof v);
            }
        } else {
            lua_Integer v = 0;
            int ok = 0;
            if (lua_type(L, -1) == LUA_TNUMBER) {
                if (lua_isinteger(L, -1)) {
                    v = lua_tointeger(L, -1);
                    ok = 1;
                } else {
                    lua_Number d = lua_tonumber(L, -1);
                    ok = d == floor(d) && lua_numbertointeger(d, &v);
                }
            }
            if (!ok)
                lrm_raisef(L, RMALAB_ERR_ARG, "value %d is %s; %s needs an integer", i + 1,
                           lua_type(L, -1) == LUA_TNUMBER ? "not an integer"
                                                          : luaL_typename(L, -1),
                           rmalab_type_name(type));
            static const lua_Integer lo[] = {INT8_MIN, 0, INT16_MIN, 0, INT32_MIN, 0};
            static const lua_Integer hi[] = {INT8_MAX, UINT8_MAX, INT16_MAX, UINT16_MAX,
                                             INT32_MAX, UINT32_MAX};
            if (type <= RMALAB_UINT32 && (v < lo[type] || v > hi[type]))
                lrm_raisef(L, RMALAB_ERR_ARG, "value %d (%lld) does not fit %s", i + 1,
                           (long long)v, rmalab_type_name(type));
            /* uint64: Lua integers are signed, so values from 2^63 up read back
             * negative (as string.unpack("J") gives them) and write back as
             * they read: the 64 bits round-trip. */
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
        lua_pop(L, 1);
    }
    *count = n;
    return buf;
}

static void *checkvalues(lua_State *L, int arg, rmalab_type type, int *count)
{
    return checkvalues_buf(L, arg, type, count, NULL, 0);
}

static void pushvalue(lua_State *L, rmalab_type type, const unsigned char *p)
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
static void pushvalues(lua_State *L, rmalab_type type, const void *data, int count, int as_array)
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
            pushvalue(L, type, p);
        return;
    }
    lua_createtable(L, count, 0);
    for (int i = 0; i < count; i++) {
        pushvalue(L, type, p + (size_t)i * (size_t)sz);
        lua_rawseti(L, -2, i + 1);
    }
}

/* ------------------------------------------------------------------------ */
/* Creation                                                                 */

static int win_new(lua_State *L, rmalab_flavor flavor)
{
    rmalab_win_opts opts = {0};
    int optarg = flavor == RMALAB_FLAVOR_DYNAMIC ? 1 : 2;
    if (flavor != RMALAB_FLAVOR_DYNAMIC) {
        lua_Integer size = lrm_checkinteger(L, 1, RMALAB_ERR_ARG, "window size");
        if (size < 0)
            lrm_argerror(L, 1, RMALAB_ERR_ARG, "window size must be 0 or more bytes");
        opts.size = (MPI_Aint)size;
    }
    if (!lua_isnoneornil(L, optarg)) {
        if (!lua_istable(L, optarg))
            lrm_argerror(L, optarg, RMALAB_ERR_ARG, "options table expected");
        if (lua_getfield(L, optarg, "disp_unit") != LUA_TNIL) {
            if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) <= 0 ||
                lua_tointeger(L, -1) > INT_MAX)
                lrm_raisef(L, RMALAB_ERR_ARG, "disp_unit must be a positive integer");
            opts.disp_unit = (int)lua_tointeger(L, -1);
        }
        lua_pop(L, 1);
        if (lua_getfield(L, optarg, "info") != LUA_TNIL)
            opts.info = lrm_toinfo(L, -1, 0); /* a table's info stays on the stack */
        else
            lua_pop(L, 1);
        if (lua_getfield(L, optarg, "comm") != LUA_TNIL)
            opts.comm = lrm_checkcomm(L, lua_gettop(L));
        if (lua_getfield(L, optarg, "name") != LUA_TNIL)
            opts.name = lrm_checkstring(L, lua_gettop(L), RMALAB_ERR_ARG, NULL);
    }
    lwin *u = lua_newuserdatauv(L, sizeof *u, 0);
    u->win = NULL;
    u->ctx = lrm_getctx(L);
    u->id = u->ctx->next_win_id++;
    u->counted = 1;
    luaL_setmetatable(L, LRM_WIN_T);
    u->ctx->stats.wins++;
    rmalab_diags *d = lrm_newdiags(L);
    int rc;
    switch (flavor) {
    case RMALAB_FLAVOR_CREATE: rc = rmalab_win_create(&opts, &u->win, d); break;
    case RMALAB_FLAVOR_ALLOCATE: rc = rmalab_win_allocate(&opts, &u->win, d); break;
    case RMALAB_FLAVOR_SHARED: rc = rmalab_win_allocate_shared(&opts, &u->win, d); break;
    default: rc = rmalab_win_create_dynamic(&opts, &u->win, d); break;
    }
    if (rc) {
        static const char *const ctor[] = {"win_create", "win_allocate", "win_allocate_shared",
                                           "win_create_dynamic"};
        return lrm_raisef(L, rc, "rl.%s: %s", ctor[flavor], rmalab_errmsg());
    }
    lua_getfield(L, LUA_REGISTRYINDEX, WINS_KEY);
    lua_pushvalue(L, -3);
    lua_rawsetp(L, -2, u->win);
    lua_pop(L, 1);
    lua_pushvalue(L, -2); /* the window, then its diagnostics */
    lrm_pushdiags(L, d);
    return 2;
}

static int l_win_create(lua_State *L) { return win_new(L, RMALAB_FLAVOR_CREATE); }
static int l_win_allocate(lua_State *L) { return win_new(L, RMALAB_FLAVOR_ALLOCATE); }
static int l_win_allocate_shared(lua_State *L) { return win_new(L, RMALAB_FLAVOR_SHARED); }
static int l_win_create_dynamic(lua_State *L) { return win_new(L, RMALAB_FLAVOR_DYNAMIC); }

static int free_win(void *pw)
{
    return rmalab_win_free(pw);
}

/* win:free(): collective. An epoch still open is an error and the window
 * stays usable; an error in an attribute's delete callback is raised after
 * the window has been freed all the same. */
static int win_free(lua_State *L)
{
    lwin *u = towin(L, 1);
    if (!u->win)
        return 0;
    rmalab_win *w = u->win;
    int rc = lrm_ctx_call(u->ctx, L, free_win, &u->win);
    if (!u->win) {
        forget_win(L, w);
        u->ctx->stats.wins -= u->counted;
        u->counted = 0;
    }
    if (rc)
        return win_error(L, rc, u->win);
    return 0;
}

static int win_gc(lua_State *L)
{
    lwin *u = luaL_checkudata(L, 1, LRM_WIN_T);
    /* A window collected without win:free() stays counted: it leaked. */
    if (!u->win) {
        u->ctx->stats.wins -= u->counted;
        u->counted = 0;
    }
    if (u->win) {
        char state[256], msg[512];
        rmalab_win_describe(u->win, state, sizeof state);
        snprintf(msg, sizeof msg,
                 "rmalab: rank %d: a window%s%s%s was never freed (%s); call win:free() on "
                 "every rank, or declare it local <close>",
                 rmalab_win_rank(u->win), rmalab_win_get_name(u->win)[0] ? " \"" : "",
                 rmalab_win_get_name(u->win), rmalab_win_get_name(u->win)[0] ? "\"" : "",
                 state);
        /* Always shown: lua_warning is off by default in lua.c. */
        fprintf(stderr, "%s\n", msg);
        lrm_leaked_win(u->ctx, u->win, u->id);
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Properties and local memory                                              */

static int win_attach(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    lua_Integer size = lrm_checkinteger(L, 2, RMALAB_ERR_ARG, "size");
    MPI_Aint addr;
    int rc = rmalab_win_attach(w, (MPI_Aint)size, &addr);
    if (rc)
        return win_error(L, rc, w);
    lua_pushinteger(L, (lua_Integer)addr);
    return 1;
}

static int win_detach(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    int rc = rmalab_win_detach(w, checkdisp(L, 2));
    if (rc)
        return win_error(L, rc, w);
    return 0;
}

static int win_set_name(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    int rc = rmalab_win_set_name(w, lrm_checkstring(L, 2, RMALAB_ERR_ARG, NULL));
    if (rc)
        return win_error(L, rc, w);
    return 0;
}

static int win_get_name(lua_State *L)
{
    lua_pushstring(L, rmalab_win_get_name(lrm_checkwin(L, 1)));
    return 1;
}

/* win:group() -> the ranks of the window's group, as ranks of rl.world. */
static int win_group(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    int n = rmalab_win_group_size(w);
    const int *wr = rmalab_win_world_ranks(w);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushinteger(L, wr[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int win_rank(lua_State *L)
{
    lua_pushinteger(L, rmalab_win_rank(lrm_checkwin(L, 1)));
    return 1;
}

static int win_size(lua_State *L)
{
    lua_pushinteger(L, rmalab_win_group_size(lrm_checkwin(L, 1)));
    return 1;
}

/* win:read(disp, type [, count]): a value, or an array when count is given
 * (a string for "byte"). */
static int win_read(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    MPI_Aint disp = checkdisp(L, 2);
    rmalab_type t = checktype(L, 3);
    int as_array = !lua_isnoneornil(L, 4);
    int count = as_array ? checkcount(L, 4) : 1;
    int rc = rmalab_win_read(w, disp, t, count, NULL); /* check before allocating */
    if (rc)
        return win_error(L, rc, w);
    void *buf = lua_newuserdatauv(L, (size_t)(count ? count : 1) * (size_t)rmalab_type_size(t), 0);
    rc = rmalab_win_read(w, disp, t, count, buf);
    if (rc)
        return win_error(L, rc, w);
    pushvalues(L, t, buf, count, as_array);
    return 1;
}

static int win_write(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    MPI_Aint disp = checkdisp(L, 2);
    rmalab_type t = checktype(L, 3);
    int count;
    void *buf = checkvalues(L, 4, t, &count);
    int rc = rmalab_win_write(w, disp, t, count, buf);
    if (rc)
        return win_error(L, rc, w);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* RMA operations and results                                               */

/* Allocate the result userdata before the operation, so it owns the core
 * result the moment it exists. */
static lresult *new_result_ud(lua_State *L)
{
    lresult *u = lua_newuserdatauv(L, sizeof *u, 0);
    u->r = NULL;
    luaL_setmetatable(L, LRM_RESULT_T);
    return u;
}

static int win_put(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    int target = checkrank(L, 2);
    MPI_Aint disp = checkdisp(L, 3);
    rmalab_type t = checktype(L, 4);
    int count;
    _Alignas(16) unsigned char small[64];
    void *buf = checkvalues_buf(L, 5, t, &count, small, sizeof small);
    int rc = rmalab_win_put(w, target, disp, t, count, buf);
    if (rc)
        return win_error(L, rc, w);
    return 0;
}

static int win_get(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    int target = checkrank(L, 2);
    MPI_Aint disp = checkdisp(L, 3);
    rmalab_type t = checktype(L, 4);
    int count = lua_isnoneornil(L, 5) ? 1 : checkcount(L, 5);
    lresult *u = new_result_ud(L);
    int rc = rmalab_win_get(w, target, disp, t, count, &u->r);
    if (rc)
        return win_error(L, rc, w);
    return 1;
}

static int win_accumulate(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    int target = checkrank(L, 2);
    MPI_Aint disp = checkdisp(L, 3);
    rmalab_type t = checktype(L, 4);
    rmalab_op op = checkop(L, 6);
    int count;
    void *buf = checkvalues(L, 5, t, &count);
    int rc = rmalab_win_accumulate(w, target, disp, t, count, buf, op);
    if (rc)
        return win_error(L, rc, w);
    return 0;
}

static int win_get_accumulate(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    int target = checkrank(L, 2);
    MPI_Aint disp = checkdisp(L, 3);
    rmalab_type t = checktype(L, 4);
    rmalab_op op = checkop(L, 6);
    int count;
    void *buf = checkvalues(L, 5, t, &count);
    lresult *u = new_result_ud(L);
    int rc = rmalab_win_get_accumulate(w, target, disp, t, count, buf, op, &u->r);
    if (rc)
        return win_error(L, rc, w);
    return 1;
}

static int win_fetch_and_op(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    int target = checkrank(L, 2);
    MPI_Aint disp = checkdisp(L, 3);
    rmalab_type t = checktype(L, 4);
    rmalab_op op = checkop(L, 6);
    int count;
    void *buf = checkvalues(L, 5, t, &count);
    if (count != 1)
        lrm_argerror(L, 5, RMALAB_ERR_ARG, "fetch_and_op takes exactly one value");
    lresult *u = new_result_ud(L);
    int rc = rmalab_win_fetch_and_op(w, target, disp, t, buf, op, &u->r);
    if (rc)
        return win_error(L, rc, w);
    return 1;
}

static int win_compare_and_swap(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    int target = checkrank(L, 2);
    MPI_Aint disp = checkdisp(L, 3);
    rmalab_type t = checktype(L, 4);
    int nc, nv;
    lua_settop(L, 6);
    void *cmp = checkvalues(L, 5, t, &nc);
    void *val = checkvalues(L, 6, t, &nv);
    if (nc != 1 || nv != 1)
        lrm_argerror(L, nc != 1 ? 5 : 6, RMALAB_ERR_ARG,
                     "compare_and_swap takes exactly one value");
    lresult *u = new_result_ud(L);
    int rc = rmalab_win_compare_and_swap(w, target, disp, t, cmp, val, &u->r);
    if (rc)
        return win_error(L, rc, w);
    return 1;
}

static const rmalab_result *checkresult(lua_State *L, const void **data, rmalab_type *t,
                                        int *count)
{
    lresult *u = luaL_testudata(L, 1, LRM_RESULT_T);
    if (!u || !u->r)
        lrm_argerror(L, 1, RMALAB_ERR_ARG, "RMA result expected");
    int rc = rmalab_result_data(u->r, data, t, count);
    if (rc)
        lrm_raisef(L, rc, "result:%s: %s", data ? "value" : "ready", rmalab_errmsg());
    return u->r;
}

static int result_value(lua_State *L)
{
    const void *data;
    rmalab_type t;
    int count;
    checkresult(L, &data, &t, &count);
    pushvalues(L, t, data, count, 0);
    return 1;
}

static int result_values(lua_State *L)
{
    const void *data;
    rmalab_type t;
    int count;
    checkresult(L, &data, &t, &count);
    pushvalues(L, t, data, count, 1);
    return 1;
}

static int result_ready(lua_State *L)
{
    lresult *u = luaL_testudata(L, 1, LRM_RESULT_T);
    if (!u || !u->r)
        return lrm_argerror(L, 1, RMALAB_ERR_ARG, "RMA result expected");
    lua_pushboolean(L, rmalab_result_ready(u->r));
    return 1;
}

static int result_gc(lua_State *L)
{
    lresult *u = luaL_checkudata(L, 1, LRM_RESULT_T);
    rmalab_result_release(u->r);
    u->r = NULL;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Synchronisation                                                          */

#define SYNC0(fname, call)                                                     \
    static int fname(lua_State *L)                                             \
    {                                                                          \
        rmalab_win *w = lrm_checkwin(L, 1);                                    \
        int rc = call;                                                         \
        if (rc)                                                                \
            return win_error(L, rc, w);                                        \
        return 0;                                                              \
    }

static int win_post(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    int small[SMALL_GROUP];
    int mode = checkassert(L, 3), n, *g = checkgroup(L, 2, &n, small);
    int rc = rmalab_win_post(w, g, n, mode);
    if (rc)
        return win_error(L, rc, w);
    return 0;
}

static int win_start(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    int small[SMALL_GROUP];
    int mode = checkassert(L, 3), n, *g = checkgroup(L, 2, &n, small);
    int rc = rmalab_win_start(w, g, n, mode);
    if (rc)
        return win_error(L, rc, w);
    return 0;
}

SYNC0(win_complete, rmalab_win_complete(w))
SYNC0(win_wait, rmalab_win_wait(w))
SYNC0(win_fence, rmalab_win_fence(w, checkassert(L, 2)))
SYNC0(win_unlock, rmalab_win_unlock(w, checkrank(L, 2)))
SYNC0(win_lock_all, rmalab_win_lock_all(w, checkassert(L, 2)))
SYNC0(win_unlock_all, rmalab_win_unlock_all(w))
SYNC0(win_flush, rmalab_win_flush(w, checkrank(L, 2)))
SYNC0(win_flush_all, rmalab_win_flush_all(w))

static int win_test(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    bool done = false;
    int rc = rmalab_win_test(w, &done);
    if (rc)
        return win_error(L, rc, w);
    lua_pushboolean(L, done);
    return 1;
}

/* win:lock(target [, "exclusive" | "shared" [, assert]]); exclusive by
 * default. */
static int win_lock(lua_State *L)
{
    static const char *const kinds[] = {"exclusive", "shared", NULL};
    rmalab_win *w = lrm_checkwin(L, 1);
    int target = checkrank(L, 2);
    int kind = lrm_checkoption(L, 3, "exclusive", kinds);
    int rc = rmalab_win_lock(w, target, kind == 0, checkassert(L, 4));
    if (rc)
        return win_error(L, rc, w);
    return 0;
}

static void push_ranks(lua_State *L, const int *ranks, int n)
{
    lua_createtable(L, n, 0);
    for (int i = 0; i < n && i < RMALAB_STATE_MAX_RANKS; i++) {
        lua_pushinteger(L, ranks[i]);
        lua_rawseti(L, -2, i + 1);
    }
}

/* win:epochs() -> { access, exposure, access_group, exposure_group, locks,
 * ops, epochs, blocked_in, blocked_for, engine, text, and for the rma engine
 * posted = {[target] = bool}, arrived = {[origin] = bool} } */
static int win_epochs(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    rmalab_epoch_state s;
    char text[512];
    rmalab_win_state(w, &s);
    rmalab_win_describe(w, text, sizeof text);
    lua_createtable(L, 0, 11);
    lua_pushstring(L, rmalab_access_name(s.access));
    lua_setfield(L, -2, "access");
    lua_pushstring(L, rmalab_exposure_name(s.exposure));
    lua_setfield(L, -2, "exposure");
    if (s.access == RMALAB_ACCESS_START || s.access == RMALAB_ACCESS_LOCK) {
        push_ranks(L, s.access_ranks, s.n_access);
        lua_setfield(L, -2, "access_group");
    }
    if (s.access == RMALAB_ACCESS_LOCK) {
        lua_newtable(L);
        for (int i = 0; i < s.n_access && i < RMALAB_STATE_MAX_RANKS; i++) {
            lua_pushstring(L, s.lock_exclusive[i] ? "exclusive" : "shared");
            lua_rawseti(L, -2, s.access_ranks[i]);
        }
        lua_setfield(L, -2, "locks");
    }
    if (s.exposure == RMALAB_EXPOSURE_POST) {
        push_ranks(L, s.exposure_ranks, s.n_exposure);
        lua_setfield(L, -2, "exposure_group");
    }
    /* rma engine: the matching, rank by rank. */
    if (s.access == RMALAB_ACCESS_START && s.n_access && s.posted[0] >= 0) {
        lua_newtable(L);
        for (int i = 0; i < s.n_access && i < RMALAB_STATE_MAX_RANKS; i++) {
            lua_pushboolean(L, s.posted[i]);
            lua_rawseti(L, -2, s.access_ranks[i]);
        }
        lua_setfield(L, -2, "posted");
    }
    if (s.exposure == RMALAB_EXPOSURE_POST && s.n_exposure && s.arrived[0] >= 0) {
        lua_newtable(L);
        for (int i = 0; i < s.n_exposure && i < RMALAB_STATE_MAX_RANKS; i++) {
            lua_pushboolean(L, s.arrived[i]);
            lua_rawseti(L, -2, s.exposure_ranks[i]);
        }
        lua_setfield(L, -2, "arrived");
    }
    lua_pushinteger(L, (lua_Integer)s.ops_in_epoch);
    lua_setfield(L, -2, "ops");
    lua_pushinteger(L, (lua_Integer)s.epochs);
    lua_setfield(L, -2, "epochs");
    if (s.blocked_in) {
        lua_pushstring(L, s.blocked_in);
        lua_setfield(L, -2, "blocked_in");
        lua_pushnumber(L, s.blocked_for);
        lua_setfield(L, -2, "blocked_for");
    }
    lua_pushstring(L, s.engine);
    lua_setfield(L, -2, "engine");
    lua_pushstring(L, text);
    lua_setfield(L, -2, "text");
    return 1;
}

/* ------------------------------------------------------------------------ */
/* Hints                                                                    */

static void *h_check(lua_State *L, int arg) { return lrm_checkwin(L, arg); }
static int h_set_info(void *w, const rmalab_info *i, rmalab_diags *d) { return rmalab_win_set_info(w, i, d); }
static int h_get_info(void *w, rmalab_info **out) { return rmalab_win_get_info(w, out); }
static int h_hints(void *w, rmalab_hints_report **out) { return rmalab_win_hints(w, out); }
static int h_check_hints(void *w, rmalab_agreement **out) { return rmalab_win_check_hints(w, out); }
static int h_raise(lua_State *L, int rc, void *w, const char *call) { return lrm_raise_win(L, rc, w, call); }

static const lrm_hinted win_hinted = {h_check, h_set_info, h_get_info, h_hints, h_check_hints, h_raise};

static int win_tostring(lua_State *L)
{
    lwin *u = luaL_checkudata(L, 1, LRM_WIN_T);
    if (!u->win) {
        lua_pushstring(L, "rmalab.win (freed)");
        return 1;
    }
    char text[256];
    rmalab_win_describe(u->win, text, sizeof text);
    lua_pushfstring(L, "rmalab.win (%s%s%s, %I bytes, rank %d of %d; %s)",
                    rmalab_flavor_name(rmalab_win_flavor(u->win)),
                    rmalab_win_get_name(u->win)[0] ? " " : "", rmalab_win_get_name(u->win),
                    (LUAI_UACINT)rmalab_win_size(u->win), rmalab_win_rank(u->win),
                    rmalab_win_group_size(u->win), text);
    return 1;
}

static const luaL_Reg win_methods[] = {
    {"free", win_free},
    {"attach", win_attach},
    {"detach", win_detach},
    {"set_name", win_set_name},
    {"get_name", win_get_name},
    {"group", win_group},
    {"rank", win_rank},
    {"size", win_size},
    {"read", win_read},
    {"write", win_write},
    {"put", win_put},
    {"get", win_get},
    {"accumulate", win_accumulate},
    {"get_accumulate", win_get_accumulate},
    {"fetch_and_op", win_fetch_and_op},
    {"compare_and_swap", win_compare_and_swap},
    {"post", win_post},
    {"start", win_start},
    {"complete", win_complete},
    {"wait", win_wait},
    {"test", win_test},
    {"fence", win_fence},
    {"lock", win_lock},
    {"unlock", win_unlock},
    {"lock_all", win_lock_all},
    {"unlock_all", win_unlock_all},
    {"flush", win_flush},
    {"flush_all", win_flush_all},
    {"epochs", win_epochs},
    {NULL, NULL},
};

static const luaL_Reg win_meta[] = {
    {"__gc", win_gc},
    {"__close", win_free},
    {"__tostring", win_tostring},
    {"__index", NULL},
    {NULL, NULL},
};

static const luaL_Reg result_methods[] = {
    {"value", result_value},
    {"values", result_values},
    {"ready", result_ready},
    {NULL, NULL},
};

static const luaL_Reg module_funcs[] = {
    {"win_create", l_win_create},
    {"win_allocate", l_win_allocate},
    {"win_allocate_shared", l_win_allocate_shared},
    {"win_create_dynamic", l_win_create_dynamic},
    {NULL, NULL},
};

/* Adds the window constructors to the module table at the top of the
 * stack. */
void lrm_open_win(lua_State *L)
{
    luaL_newmetatable(L, LRM_WIN_T);
    luaL_setfuncs(L, win_meta, 0);
    luaL_newlib(L, win_methods);
    lrm_hinted_methods(L, &win_hinted);
    lrm_attr_methods(L);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);

    luaL_newmetatable(L, LRM_RESULT_T);
    lua_pushcfunction(L, result_gc);
    lua_setfield(L, -2, "__gc");
    luaL_newlib(L, result_methods);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);

    lua_newtable(L);
    lua_createtable(L, 0, 1);
    lua_pushstring(L, "v");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, WINS_KEY);

    luaL_setfuncs(L, module_funcs, 0);

    lua_createtable(L, 0, RMALAB_NTYPES);
    for (int i = 0; i < RMALAB_NTYPES; i++) {
        lua_pushinteger(L, i);
        lua_setfield(L, -2, rmalab_type_name((rmalab_type)i));
    }
    lua_rawsetp(L, LUA_REGISTRYINDEX, &types_key);
}
