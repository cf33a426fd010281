/* Keyvals in Lua: rl.keyval{...}, kv:free(), the predefined keyvals
 * rl.WIN_BASE, rl.WIN_SIZE, rl.WIN_DISP_UNIT, rl.WIN_CREATE_FLAVOR and
 * rl.WIN_MODEL, and the way their delete callbacks enter Lua (a copy
 * callback is checked and set aside: MPI has no window duplication).
 * lattr.c has the window methods that use them.
 *
 * A Lua keyval is a core keyval whose extra_state is a `kvstate`: registry
 * references to the delete function and to the extra value,
 * released by the core keyval's free_fn when the core destroys it (after
 * the user's reference and every attribute using it are gone). An attribute
 * value is one registry reference, carried by the core as a void *; the
 * core's delete callback of every Lua keyval is delete_cb, which runs the Lua
 * delete function, if any, and then releases that reference whatever the
 * function did. Callbacks enter Lua only through protected_call, on the
 * thread that the keyval's context says is running a binding call
 * (lrm_ctx_call sets it around every core call that may run callbacks): a
 * Lua error becomes ERR_CALLBACK and never unwinds core frames.
 *
 * The userdata of a keyval may be collected while attributes still use the
 * keyval, so callbacks find it through a weak table keyed by the core
 * keyval's address, and make a stand-in when it has gone. kvstate.ud names
 * the one userdata that stands for the keyval, so that the free_fn can mark
 * it dead. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lrmalab.h"

#define LRM_KEYVAL_T "rmalab.keyval"

typedef struct kvstate kvstate;

typedef struct {
    const void *tag;   /* &keyval_tag (lrm_newud) */
    rmalab_keyval *kv; /* NULL once the core keyval is destroyed */
    kvstate *st;       /* NULL for predefined keyvals and once destroyed */
    int freed;         /* the user's reference is gone (kv:free, __gc) */
    const char *predefined; /* "WIN_BASE"... for rl.WIN_BASE..., else NULL */
} lkeyval;

struct kvstate {
    lrm_ctx *ctx;      /* of the Lua state that made the keyval */
    rmalab_keyval *kv;
    int delete_ref, extra_ref;           /* registry refs; < 0 for none/nil */
    lkeyval *ud;                         /* the userdata standing for kv, if any */
};

/* Key of the weak-valued registry table: core keyval -> its userdata. */
static const char weak_key = 0;

/* ------------------------------------------------------------------------ */
/* Registry references, counted for rl.debug.stats()                       */

int lrm_ref(lua_State *L)
{
    int r = luaL_ref(L, LUA_REGISTRYINDEX);
    if (r >= 0)
        lrm_getctx(L)->stats.refs++;
    return r;
}

/* Never raises: luaL_unref only rewrites slots that exist (Lua >= 5.4.3). */
void lrm_unref(lua_State *L, int r)
{
    if (r >= 0) {
        luaL_unref(L, LUA_REGISTRYINDEX, r);
        lrm_getctx(L)->stats.refs--;
    }
}

static void push_ref(lua_State *L, int r)
{
    if (r >= 0)
        lua_rawgeti(L, LUA_REGISTRYINDEX, r);
    else
        lua_pushnil(L);
}


/* ------------------------------------------------------------------------ */
/* Keyval userdata                                                          */

static const char keyval_tag = 'k';

static lkeyval *testkeyval(lua_State *L, int arg)
{
    return lrm_toud(L, arg, &keyval_tag, sizeof(lkeyval));
}

static lkeyval *tokeyval(lua_State *L, int arg)
{
    return lrm_checkud(L, arg, &keyval_tag, sizeof(lkeyval), RMALAB_ERR_KEYVAL, "keyval expected");
}

static lkeyval *newkeyval(lua_State *L)
{
    lkeyval *u = lrm_newud(L, sizeof *u, 0, &keyval_tag);
    u->kv = NULL;
    u->st = NULL;
    u->freed = 0;
    u->predefined = NULL;
    luaL_setmetatable(L, LRM_KEYVAL_T);
    lrm_getctx(L)->stats.keyvals++;
    return u;
}

static void release_refs(lua_State *L, kvstate *st)
{
    lrm_unref(L, st->delete_ref);
    lrm_unref(L, st->extra_ref);
    st->delete_ref = st->extra_ref = LUA_NOREF;
}

/* The core keyval's free_fn: it is being destroyed. Runs inside core calls
 * made through lrm_ctx_call, so it must not raise. */
static void kvstate_free(void *extra)
{
    kvstate *st = extra;
    lua_State *L = st->ctx->running;
    if (st->ud) {
        st->ud->kv = NULL;
        st->ud->st = NULL;
        st->ctx->stats.keyvals -= !st->ud->freed;
        st->ud->freed = 1;
    }
    if (L && lua_checkstack(L, 3)) {
        release_refs(L, st);
        if (lua_rawgetp(L, LUA_REGISTRYINDEX, &weak_key) == LUA_TTABLE) {
            lua_pushnil(L); /* setting nil never allocates */
            lua_rawsetp(L, -2, st->kv);
        }
        lua_pop(L, 1);
    }
    free(st);
}

/* Push the userdata of st's keyval. When the user's userdata has been
 * collected (or awaits its __gc) a stand-in takes its place, inheriting the
 * user's reference if the old one still held it. May raise: only called
 * inside protected_call. */
static void push_keyval(lua_State *L, kvstate *st)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &weak_key);
    lua_rawgetp(L, -1, st->kv);
    lkeyval *u = testkeyval(L, -1);
    if (u && u->kv == st->kv) {
        lua_remove(L, -2);
        return;
    }
    lua_pop(L, 1);
    u = newkeyval(L);
    u->kv = st->kv;
    u->st = st;
    u->freed = 1;
    if (st->ud) {
        u->freed = st->ud->freed;
        st->ud->kv = NULL;
        st->ud->st = NULL;
        st->ud->freed = 1;
    }
    /* One count moves: the old userdata's, if it held the user's
     * reference, to the stand-in; else the stand-in is not counted. */
    st->ctx->stats.keyvals--;
    st->ud = u;
    lua_pushvalue(L, -1);
    lua_rawsetp(L, -3, st->kv);
    lua_remove(L, -2);
}

/* Drop the user's reference of a live keyval; runs free_fn when nothing
 * else holds it. */
static int free_keyval(void *kv)
{
    return rmalab_keyval_free(kv);
}

static int drop_user_ref(lua_State *L, lkeyval *u)
{
    rmalab_keyval *kv = u->kv;
    u->freed = 1;
    return lrm_ctx_call(lrm_getctx(L), L, free_keyval, &kv);
}

static lkeyval *checkkeyval(lua_State *L, int arg)
{
    lkeyval *u = testkeyval(L, arg);
    if (!u) {
        char msg[128];
        snprintf(msg, sizeof msg, "keyval expected (make one with rl.keyval{...}), got %s",
                 luaL_typename(L, arg));
        lrm_argerror(L, arg, RMALAB_ERR_KEYVAL, msg);
    }
    if (!u->kv)
        lrm_raisef(L, RMALAB_ERR_KEYVAL,
                   "this keyval was freed and no window holds an attribute of it any more; "
                   "make a new one with rl.keyval{...}");
    return u;
}

static int keyval_free(lua_State *L)
{
    lkeyval *u = tokeyval(L, 1);
    if (u->predefined)
        return lrm_raisef(L, RMALAB_ERR_KEYVAL,
                          "kv:free: rl.%s is predefined and cannot be freed; only keyvals "
                          "made by rl.keyval can",
                          u->predefined);
    if (u->freed || !u->kv)
        return 0;
    lrm_getctx(L)->stats.keyvals--;
    int rc = drop_user_ref(L, u);
    if (rc)
        return lrm_raise(L, rc, "kv:free");
    return 0;
}

static int keyval_close(lua_State *L)
{
    lkeyval *u = tokeyval(L, 1);
    if (!u->predefined)
        keyval_free(L);
    return 0;
}

/* Keyvals are local objects: __gc drops the user's reference if kv:free()
 * did not. The core keyval lives on while attributes use it. */
static int keyval_gc(lua_State *L)
{
    lkeyval *u = tokeyval(L, 1);
    if (u->predefined)
        return 0;
    if (!u->freed)
        lrm_getctx(L)->stats.keyvals--;
    kvstate *st = u->st;
    if (st && !u->kv) { /* rl.keyval failed half-way */
        release_refs(L, st);
        free(st);
    } else if (st) {
        if (st->ud == u)
            st->ud = NULL;
        if (!u->freed)
            drop_user_ref(L, u);
    }
    u->kv = NULL;
    u->st = NULL;
    u->freed = 1;
    return 0;
}

static int keyval_tostring(lua_State *L)
{
    lkeyval *u = tokeyval(L, 1);
    if (u->predefined)
        lua_pushfstring(L, "rmalab.keyval (rl.%s)", u->predefined);
    else if (!u->kv)
        lua_pushliteral(L, "rmalab.keyval (freed)");
    else
        lua_pushfstring(L, "rmalab.keyval (%p%s)", (void *)u->kv,
                        u->freed ? ", freed, still in use" : "");
    return 1;
}

/* ------------------------------------------------------------------------ */
/* From the core into Lua                                                   */

typedef struct {
    kvstate *st;
    rmalab_win *win;
    int value_ref;
} cbargs;

/* Runs protected: delete(win, kv, value, extra). */
static int cb_body(lua_State *L)
{
    cbargs *a = lua_touserdata(L, 1);
    kvstate *st = a->st;
    luaL_checkstack(L, 8, "attribute callback");
    push_ref(L, st->delete_ref);
    lrm_pushwin(L, a->win);
    push_keyval(L, st);
    lua_rawgeti(L, LUA_REGISTRYINDEX, a->value_ref);
    push_ref(L, st->extra_ref);
    lua_call(L, 4, 0);
    return 0;
}

/* Message handler: the error as text (error objects through __tostring). */
static int cb_msgh(lua_State *L)
{
    int t = lua_type(L, 1);
    if (t == LUA_TSTRING)
        return 1;
    if (t == LUA_TNUMBER || (luaL_getmetafield(L, 1, "__tostring") != LUA_TNIL)) {
        luaL_tolstring(L, 1, NULL);
        return 1;
    }
    if (t == LUA_TTABLE) {
        lua_pushliteral(L, "message");
        if (lua_rawget(L, 1) == LUA_TSTRING)
            return 1;
    }
    lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    return 1;
}

/* The one way from the core into Lua: cb_body under lua_pcall on L. A Lua
 * error becomes ERR_CALLBACK with the error's text; nothing unwinds the
 * core's frames. Leaves L's stack as it found it. */
static int protected_call(lua_State *L, cbargs *a, const char *what)
{
    if (!L)
        return rmalab_set_error(RMALAB_ERR_CALLBACK,
                                "%s callback: no Lua state to run it in (the binding did not "
                                "call the core through lrm_ctx_call)",
                                what);
    if (!lua_checkstack(L, 4))
        return rmalab_set_error(RMALAB_ERR_CALLBACK, "%s callback: Lua stack overflow", what);
    lua_pushcfunction(L, cb_msgh);
    lua_pushcfunction(L, cb_body);
    lua_pushlightuserdata(L, a);
    int status = lua_pcall(L, 1, 0, -3);
    if (status == LUA_OK) {
        lua_pop(L, 1);
        return RMALAB_OK;
    }
    const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1)
                                                     : "(error object is not a string)";
    rmalab_set_error(RMALAB_ERR_CALLBACK, "%s callback: %s", what, msg);
    lua_pop(L, 2);
    return RMALAB_ERR_CALLBACK;
}

/* The core's delete callback of every Lua keyval. The value's reference is
 * released whatever the Lua function does. */
static int delete_cb(rmalab_win *win, rmalab_keyval *kv, void *attr, void *extra)
{
    kvstate *st = extra;
    lua_State *L = st->ctx->running;
    int rc = RMALAB_OK;
    if (st->delete_ref >= 0) {
        cbargs a = {.st = st, .win = win, .value_ref = lrm_attr_ref(attr)};
        rc = protected_call(L, &a, "delete");
    }
    if (L && lua_checkstack(L, 2) && (rc == RMALAB_OK || rmalab_attr_delete_is_final()))
        lrm_unref(L, lrm_attr_ref(attr)); /* a failed replace keeps the old value */
    return rc;
}

/* ------------------------------------------------------------------------ */
/* rl.keyval                                                                */

/* rl.keyval{...}: a table of the known fields only. */
static void check_fields(lua_State *L)
{
    static const char *const fields[] = {"copy", "delete", "extra", NULL};
    if (lua_isnoneornil(L, 1)) {
        lua_settop(L, 0);
        lua_newtable(L);
    } else if (!lua_istable(L, 1)) {
        lrm_argerror(L, 1, RMALAB_ERR_ARG,
                     "table { copy = ..., delete = ..., extra = ... } expected");
    }
    lua_settop(L, 1);
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        lua_pop(L, 1);
        int known = 0;
        for (int i = 0; fields[i] && lua_type(L, -1) == LUA_TSTRING; i++)
            known |= strcmp(lua_tostring(L, -1), fields[i]) == 0;
        if (!known)
            lrm_raisef(L, RMALAB_ERR_ARG,
                       "rl.keyval: unknown field %s; the fields are copy, delete and extra",
                       luaL_tolstring(L, -1, NULL));
    }
}

/* Fields copy (2), delete (3) and extra (4) on the stack. A copy callback
 * is checked as LUA_API.md gives it and then set aside: MPI has no window
 * duplication, so nothing could ever call it. */
static void check_callbacks(lua_State *L)
{
    lua_getfield(L, 1, "copy");   /* 2 */
    lua_getfield(L, 1, "delete"); /* 3 */
    lua_getfield(L, 1, "extra");  /* 4 */
    int copy_ok = lua_isnil(L, 2) || lua_isfunction(L, 2) ||
                  (lua_type(L, 2) == LUA_TSTRING && (strcmp(lua_tostring(L, 2), "dup") == 0 ||
                                                      strcmp(lua_tostring(L, 2), "null") == 0));
    if (!copy_ok)
        lrm_raisef(L, RMALAB_ERR_ARG,
                   "rl.keyval: copy must be a function, \"null\" or \"dup\"; got %s",
                   luaL_typename(L, 2));
    if (!lua_isnil(L, 3) && !lua_isfunction(L, 3) &&
        !(lua_type(L, 3) == LUA_TSTRING && strcmp(lua_tostring(L, 3), "null") == 0))
        lrm_raisef(L, RMALAB_ERR_ARG, "rl.keyval: delete must be a function or \"null\"; got %s",
                   luaL_typename(L, 3));
}

static int l_keyval(lua_State *L)
{
    check_fields(L);
    check_callbacks(L);
    lkeyval *u = newkeyval(L); /* 5; __gc cleans up from here on */
    kvstate *st = malloc(sizeof *st);
    if (!st)
        return lrm_raisef(L, RMALAB_ERR_NO_MEM, "rl.keyval: out of memory");
    *st = (kvstate){.ctx = lrm_getctx(L), .delete_ref = LUA_NOREF, .extra_ref = LUA_NOREF};
    u->st = st; /* keyval_gc releases it if anything below fails */
    if (lua_isfunction(L, 3)) {
        lua_pushvalue(L, 3);
        st->delete_ref = lrm_ref(L);
    }
    lua_pushvalue(L, 4);
    st->extra_ref = lrm_ref(L);

    rmalab_keyval *kv = NULL;
    int rc = rmalab_keyval_create(NULL, delete_cb, st,
                                  kvstate_free, &kv);
    if (rc)
        return lrm_raise(L, rc, "rl.keyval");
    u->kv = kv;
    st->kv = kv;
    st->ud = u;
    lua_rawgetp(L, LUA_REGISTRYINDEX, &weak_key);
    lua_pushvalue(L, 5);
    lua_rawsetp(L, -2, kv);
    lua_pop(L, 1);
    return 1;
}

/* A keyval argument for the window methods (lattr.c). */
rmalab_keyval *lrm_checkkeyval(lua_State *L, int arg, const char **predefined)
{
    lkeyval *u = checkkeyval(L, arg);
    *predefined = u->predefined;
    return u->kv;
}

/* ------------------------------------------------------------------------ */
/* Registration                                                             */

static const luaL_Reg keyval_methods[] = {
    {"free", keyval_free},
    {NULL, NULL},
};

static const luaL_Reg keyval_meta[] = {
    {"__gc", keyval_gc},
    {"__close", keyval_close},
    {"__tostring", keyval_tostring},
    {"__index", NULL},
    {NULL, NULL},
};

void lrm_open_keyval(lua_State *L)
{
    static const struct {
        const char *name;
        rmalab_keyval *const *kv;
    } predefined[] = {
        {"WIN_BASE", &RMALAB_WIN_BASE},
        {"WIN_SIZE", &RMALAB_WIN_SIZE},
        {"WIN_DISP_UNIT", &RMALAB_WIN_DISP_UNIT},
        {"WIN_CREATE_FLAVOR", &RMALAB_WIN_CREATE_FLAVOR},
        {"WIN_MODEL", &RMALAB_WIN_MODEL},
    };
    if (luaL_newmetatable(L, LRM_KEYVAL_T)) {
        luaL_setfuncs(L, keyval_meta, 0);
        luaL_newlib(L, keyval_methods);
        lua_setfield(L, -2, "__index");
    }
    lua_pop(L, 1);

    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &weak_key) != LUA_TTABLE) {
        lua_newtable(L);
        lua_createtable(L, 0, 1);
        lua_pushliteral(L, "v");
        lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &weak_key);
    }
    lua_pop(L, 1);

    lua_pushcfunction(L, l_keyval);
    lua_setfield(L, -2, "keyval");
    for (size_t i = 0; i < sizeof predefined / sizeof predefined[0]; i++) {
        lkeyval *u = lrm_newud(L, sizeof *u, 0, &keyval_tag);
        u->kv = *predefined[i].kv;
        u->st = NULL;
        u->freed = 1;
        u->predefined = predefined[i].name;
        luaL_setmetatable(L, LRM_KEYVAL_T);
        lua_setfield(L, -2, predefined[i].name);
    }
}
