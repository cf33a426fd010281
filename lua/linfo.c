/* rl.info: info objects in Lua. The userdata is created in a null state with
 * its metatable first and then given the core object, so that no error can
 * leak it; info objects are local, so __gc, __close and :free() share one
 * idempotent release. */
#include <string.h>

#include "lrmalab.h"

#define LRM_LIST_T "rmalab.list"

typedef struct {
    const void *tag; /* &info_tag (lrm_newud) */
    rmalab_info *info;
    int counted; /* in the context's stats.infos until info:free() or __gc */
} linfo;

static const char info_tag = 'i';

static linfo *newinfo(lua_State *L)
{
    linfo *u = lrm_newud(L, sizeof *u, 0, &info_tag);
    u->info = NULL;
    u->counted = 1;
    luaL_setmetatable(L, LRM_INFO_T);
    lrm_getctx(L)->stats.infos++;
    return u;
}

rmalab_info **lrm_newinfo(lua_State *L)
{
    return &newinfo(L)->info;
}

static linfo *testinfo(lua_State *L, int arg)
{
    return lrm_toud(L, arg, &info_tag, sizeof(linfo));
}

static linfo *toinfo(lua_State *L, int arg)
{
    return lrm_checkud(L, arg, &info_tag, sizeof(linfo), RMALAB_ERR_INFO, "info object expected");
}

static rmalab_info *checkinfo(lua_State *L, int arg)
{
    linfo *u = toinfo(L, arg);
    if (!u->info)
        lrm_raisef(L, RMALAB_ERR_INFO, "this info object was freed; create a new one with "
                                       "rl.info()");
    return u->info;
}

/* A value from Lua as info text: strings as they are, booleans as
 * "true"/"false", integers in decimal. Pushes the text; NULL (nothing
 * pushed) for any other value. */
static const char *tovalue(lua_State *L, int arg, size_t *len)
{
    switch (lua_type(L, arg)) {
    case LUA_TSTRING:
        lua_pushvalue(L, arg);
        break;
    case LUA_TBOOLEAN:
        lua_pushstring(L, lua_toboolean(L, arg) ? "true" : "false");
        break;
    case LUA_TNUMBER:
        if (lua_isinteger(L, arg)) {
            lua_pushfstring(L, "%I", (LUAI_UACINT)lua_tointeger(L, arg));
            break;
        }
        return NULL; /* floats have no standard representation */
    default: return NULL;
    }
    return lua_tolstring(L, -1, len);
}

/* info:set(key, value) (arguments karg and varg), or a table's pair, on
 * the stack's top (karg < 0): a wrong value is named by its argument, or
 * by the call (`what`) and the key. */
static void set_pair(lua_State *L, rmalab_info *info, int karg, int varg, const char *what)
{
    size_t kl, vl;
    const char *k = lrm_checkstring(L, karg, RMALAB_ERR_INFO_KEY, &kl);
    const char *v = tovalue(L, varg, &vl);
    if (!v) {
        char msg[160];
        snprintf(msg, sizeof msg, "info values are strings, booleans or integers; got %s",
                 lua_isnumber(L, varg) ? "a float" : luaL_typename(L, varg));
        if (karg > 0)
            lrm_argerror(L, varg, RMALAB_ERR_INFO_VALUE, msg);
        lrm_raisef(L, RMALAB_ERR_INFO_VALUE, "%s: the value of key \"%s\": %s", what, k, msg);
    }
    int rc = rmalab_info_set_n(info, k, kl, v, vl);
    lua_pop(L, 1);
    if (rc)
        lrm_raise(L, rc, what);
}

static int sort_keys(lua_State *L)
{
    lua_getglobal(L, "table");
    lua_getfield(L, -1, "sort");
    lua_remove(L, -2);
    lua_pushvalue(L, 1);
    lua_call(L, 1, 0);
    return 0;
}

/* Fill `info` from the table at `t`. Lua tables have no order, so keys are
 * taken in sorted order: the result does not change from run to run. */
static void fill_from_table(lua_State *L, rmalab_info *info, int t, const char *what)
{
    t = lua_absindex(L, t);
    lua_newtable(L);
    int keys = lua_gettop(L), n = 0;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) {
            lrm_raisef(L, RMALAB_ERR_INFO_KEY, "%s: table keys must be strings; got %s", what,
                       luaL_typename(L, -1));
        }
        lua_pushvalue(L, -1);
        lua_rawseti(L, keys, ++n);
    }
    lua_pushcfunction(L, sort_keys);
    lua_pushvalue(L, keys);
    lua_call(L, 1, 0);
    for (int i = 1; i <= n; i++) {
        lua_rawgeti(L, keys, i);
        lua_pushvalue(L, -1);
        lua_gettable(L, t);
        set_pair(L, info, -2, -1, what);
        lua_pop(L, 2);
    }
    lua_pop(L, 1);
}

int lrm_info_new(lua_State *L)
{
    int rc;
    if (lua_isnoneornil(L, 1)) {
        linfo *u = newinfo(L);
        if ((rc = rmalab_info_create(&u->info)))
            return lrm_raise(L, rc, "rl.info");
    } else if (testinfo(L, 1)) {
        rmalab_info *src = checkinfo(L, 1);
        linfo *u = newinfo(L);
        if ((rc = rmalab_info_dup(src, &u->info)))
            return lrm_raise(L, rc, "rl.info");
    } else if (lua_istable(L, 1)) {
        linfo *u = newinfo(L);
        if ((rc = rmalab_info_create(&u->info)))
            return lrm_raise(L, rc, "rl.info");
        fill_from_table(L, u->info, 1, "rl.info");
    } else {
        return lrm_argerror(L, 1, RMALAB_ERR_ARG, "table or info object expected");
    }
    return 1;
}

rmalab_info *lrm_toinfo(lua_State *L, int arg, int optional)
{
    arg = lua_absindex(L, arg);
    if (optional && lua_isnoneornil(L, arg))
        return NULL;
    if (lua_istable(L, arg)) {
        linfo *u = newinfo(L);
        int rc = rmalab_info_create(&u->info);
        if (rc)
            lrm_raise(L, rc, "hints");
        fill_from_table(L, u->info, arg, "hints");
        return u->info;
    }
    if (!testinfo(L, arg))
        lrm_argerror(L, arg, RMALAB_ERR_ARG, "table of hints or info object expected");
    return checkinfo(L, arg);
}

static int toinfo_protected(lua_State *L)
{
    *(rmalab_info **)lua_touserdata(L, 2) = lrm_toinfo(L, 1, 1);
    return 1; /* a table's info object, which must stay anchored */
}

int lrm_toinfo_status(lua_State *L, int arg, rmalab_info **out)
{
    arg = lua_absindex(L, arg);
    *out = NULL;
    if (lua_isnoneornil(L, arg)) {
        lua_pushnil(L);
        return RMALAB_OK;
    }
    if (!lua_istable(L, arg) && !testinfo(L, arg)) { /* worded as lrm_toinfo's, here */
        lua_pushnil(L);
        return lrm_argstatus(L, arg, RMALAB_ERR_ARG, "table of hints or info object expected");
    }
    lua_pushcfunction(L, toinfo_protected);
    lua_pushvalue(L, arg);
    lua_pushlightuserdata(L, out);
    if (lua_pcall(L, 2, 1, 0) == LUA_OK)
        return RMALAB_OK;
    int code = RMALAB_ERR_INFO;
    const char *msg = NULL;
    if (lua_istable(L, -1)) { /* an error object (lerror.c) */
        if (lua_getfield(L, -1, "code") == LUA_TNUMBER && lua_tointeger(L, -1) > 0)
            code = (int)lua_tointeger(L, -1);
        lua_getfield(L, -2, "message");
        msg = lua_tostring(L, -1);
        lua_pop(L, 2);
    }
    return rmalab_set_error(code, "%s", msg ? msg : "hints that cannot be read");
}

int lrm_info_env(lua_State *L)
{
    linfo *u = newinfo(L);
    int rc = rmalab_info_env(&u->info);
    if (rc)
        return lrm_raise(L, rc, "rl.info_env");
    return 1;
}

/* ------------------------------------------------------------------------ */
/* Methods                                                                  */

static int info_set(lua_State *L)
{
    set_pair(L, checkinfo(L, 1), 2, 3, "info:set");
    return 0;
}

static const char *checkkey(lua_State *L, int arg, size_t *kl)
{
    return lrm_checkstring(L, arg, RMALAB_ERR_INFO_KEY, kl);
}

/* Validate a key the way set does, so that get of an over-long key is an
 * error rather than a silent nil. */
static void validate_key(lua_State *L, const char *k, size_t kl, const char *what)
{
    if (kl == 0 || kl > RMALAB_MAX_INFO_KEY || memchr(k, '\0', kl)) {
        rmalab_info *probe;
        if (rmalab_info_create(&probe) == RMALAB_OK) {
            int rc = rmalab_info_set_n(probe, k, kl, "", 0);
            rmalab_info_destroy(&probe);
            if (rc)
                lrm_raise(L, rc, what);
        }
    }
}

static const char *lookup(lua_State *L, const char *what, size_t *vl)
{
    rmalab_info *info = checkinfo(L, 1);
    size_t kl;
    const char *k = checkkey(L, 2, &kl);
    validate_key(L, k, kl, what);
    return rmalab_info_lookup(info, k, kl, vl);
}

static int info_get(lua_State *L)
{
    size_t vl;
    const char *v = lookup(L, "info:get", &vl);
    if (v)
        lua_pushlstring(L, v, vl);
    else
        lua_pushnil(L);
    return 1;
}

static int info_valuelen(lua_State *L)
{
    size_t vl;
    if (lookup(L, "info:valuelen", &vl))
        lua_pushinteger(L, (lua_Integer)vl);
    else
        lua_pushnil(L);
    return 1;
}

static int info_delete(lua_State *L)
{
    rmalab_info *info = checkinfo(L, 1);
    size_t kl;
    const char *k = checkkey(L, 2, &kl);
    int rc = rmalab_info_delete_n(info, k, kl);
    if (rc)
        return lrm_raise(L, rc, "info:delete");
    return 0;
}

static int info_nkeys(lua_State *L)
{
    int n;
    rmalab_info_get_nkeys(checkinfo(L, 1), &n);
    lua_pushinteger(L, n);
    return 1;
}

static int info_nthkey(lua_State *L)
{
    rmalab_info *info = checkinfo(L, 1);
    lua_Integer n = lrm_checkinteger(L, 2, RMALAB_ERR_ARG, "key number");
    const char *k;
    size_t kl;
    int rc = rmalab_info_nth(info, n < 0 || n > 0x7fffffff ? -1 : (int)n, &k, &kl, NULL, NULL);
    if (rc)
        return lrm_raise(L, rc, "info:nthkey");
    lua_pushlstring(L, k, kl);
    return 1;
}

static int info_dup(lua_State *L)
{
    rmalab_info *info = checkinfo(L, 1);
    linfo *u = newinfo(L);
    int rc = rmalab_info_dup(info, &u->info);
    if (rc)
        return lrm_raise(L, rc, "info:dup");
    return 1;
}

static int info_free(lua_State *L)
{
    linfo *u = toinfo(L, 1);
    if (u->info) {
        rmalab_info_destroy(&u->info);
        u->info = NULL;
    }
    lrm_getctx(L)->stats.infos -= u->counted;
    u->counted = 0;
    return 0;
}

static int info_get_bool(lua_State *L)
{
    size_t vl;
    const char *v = lookup(L, "info:get_bool", &vl);
    bool b;
    if (!v) {
        lua_pushnil(L);
        return 1;
    }
    if (rmalab_parse_bool(v, vl, &b))
        return lrm_raisef(L, RMALAB_ERR_ARG, "info:get_bool: key \"%s\": %s",
                          lua_tostring(L, 2), rmalab_errmsg());
    lua_pushboolean(L, b);
    return 1;
}

static int info_get_int(lua_State *L)
{
    size_t vl;
    const char *v = lookup(L, "info:get_int", &vl);
    int i;
    if (!v) {
        lua_pushnil(L);
        return 1;
    }
    if (rmalab_parse_int(v, vl, &i))
        return lrm_raisef(L, RMALAB_ERR_ARG, "info:get_int: key \"%s\": %s",
                          lua_tostring(L, 2), rmalab_errmsg());
    lua_pushinteger(L, i);
    return 1;
}

/* The core's list of a get_list, in a userdata made before the core
 * parses it, so that a Lua error while the array is built cannot leak it. */
typedef struct {
    char **items;
    int count;
} llist;

static int list_gc(lua_State *L)
{
    llist *b = luaL_checkudata(L, 1, LRM_LIST_T);
    rmalab_list_free(b->items, b->count);
    b->items = NULL;
    b->count = 0;
    return 0;
}

static int info_get_list(lua_State *L)
{
    size_t vl;
    const char *v = lookup(L, "info:get_list", &vl);
    if (!v) {
        lua_pushnil(L);
        return 1;
    }
    llist *b = lua_newuserdatauv(L, sizeof *b, 0);
    b->items = NULL;
    b->count = 0;
    luaL_setmetatable(L, LRM_LIST_T);
    if (rmalab_parse_list(v, vl, &b->items, &b->count))
        return lrm_raisef(L, RMALAB_ERR_ARG, "info:get_list: key \"%s\": %s",
                          lua_tostring(L, 2), rmalab_errmsg());
    lua_createtable(L, b->count, 0);
    for (int i = 0; i < b->count; i++) {
        lua_pushstring(L, b->items[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1; /* the list goes with its userdata */
}

/* pairs(info): insertion order. The position lives in an upvalue; the
 * iterator stops at the first position past the end. */
static int info_iter(lua_State *L)
{
    rmalab_info *info = checkinfo(L, 1);
    lua_Integer i = lua_tointeger(L, lua_upvalueindex(1));
    int n;
    rmalab_info_get_nkeys(info, &n);
    if (i >= n)
        return 0;
    const char *k, *v;
    size_t kl, vl;
    rmalab_info_nth(info, (int)i, &k, &kl, &v, &vl);
    lua_pushinteger(L, i + 1);
    lua_replace(L, lua_upvalueindex(1));
    lua_pushlstring(L, k, kl);
    lua_pushlstring(L, v, vl);
    return 2;
}

static int info_pairs(lua_State *L)
{
    checkinfo(L, 1);
    lua_pushinteger(L, 0);
    lua_pushcclosure(L, info_iter, 1);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

static int info_gc(lua_State *L)
{
    info_free(L);
    return 0;
}

static int info_tostring(lua_State *L)
{
    linfo *u = toinfo(L, 1);
    int n = 0;
    if (!u->info) {
        lua_pushstring(L, "rmalab.info (freed)");
        return 1;
    }
    rmalab_info_get_nkeys(u->info, &n);
    lua_pushfstring(L, "rmalab.info (%d key%s)", n, n == 1 ? "" : "s");
    return 1;
}

static const luaL_Reg info_methods[] = {
    {"set", info_set},           {"get", info_get},
    {"delete", info_delete},     {"nkeys", info_nkeys},
    {"nthkey", info_nthkey},     {"valuelen", info_valuelen},
    {"dup", info_dup},           {"free", info_free},
    {"get_bool", info_get_bool}, {"get_int", info_get_int},
    {"get_list", info_get_list}, {NULL, NULL},
};

static const luaL_Reg info_meta[] = {
    {"__len", info_nkeys},         {"__pairs", info_pairs}, {"__gc", info_gc},
    {"__close", info_free},        {"__tostring", info_tostring},
    {"__index", NULL},
    {NULL, NULL},
};

void lrm_open_info(lua_State *L)
{
    luaL_newmetatable(L, LRM_INFO_T);
    luaL_setfuncs(L, info_meta, 0);
    luaL_newlib(L, info_methods);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    luaL_newmetatable(L, LRM_LIST_T);
    lua_pushcfunction(L, list_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
}
