/* Attribute caching on windows in Lua: win:set_attr, win:get_attr and
 * win:delete_attr, with the keyvals of lkeyval.c. An attribute value is one
 * registry reference, carried by the core as a void *: the window owns it
 * once the core stores it, and the keyval's delete callback releases it
 * (lkeyval.c). Calls that may run callbacks go through lrm_ctx_call. */
#include <stdint.h>

#include "lrmalab.h"

/* The core calls that may run delete callbacks, for lrm_ctx_call. */
struct attr_call {
    rmalab_win *w;
    rmalab_keyval *kv;
    void *value;
};

static int set_attr(void *p)
{
    struct attr_call *c = p;
    return rmalab_win_set_attr(c->w, c->kv, c->value);
}

static int delete_attr(void *p)
{
    struct attr_call *c = p;
    return rmalab_win_delete_attr(c->w, c->kv);
}

/* A replaced value's reference goes with the old attribute through
 * delete_cb, once its delete callback succeeded; if it fails, the old value
 * stays and the new value's reference is released here. The new value's
 * reference belongs to the window once the core stores it. */
static int win_set_attr(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    const char *predefined;
    rmalab_keyval *kv = lrm_checkkeyval(L, 2, &predefined);
    if (lua_isnoneornil(L, 3))
        return lrm_argerror(L, 3, RMALAB_ERR_ARG,
                            "nil is not an attribute value; use win:delete_attr(kv) to remove "
                            "the attribute");
    if (predefined)
        return lrm_raise_win(L, rmalab_win_set_attr(w, kv, NULL), w, "set_attr");
    lua_settop(L, 3);
    int ref = lrm_ref(L);
    struct attr_call c = {w, kv, lrm_attr_value(ref)};
    int rc = lrm_ctx_call(lrm_getctx(L), L, set_attr, &c);
    if (rc) { /* the new value was not stored */
        lrm_unref(L, ref);
        return lrm_raise_win(L, rc, w, "set_attr");
    }
    return 0;
}

/* The name of MPI's creation flavour `f`, as the core names its own. */
static const char *flavor_name(int f)
{
    static const struct {
        int mpi;
        rmalab_flavor flavor;
    } flavors[] = {
        {MPI_WIN_FLAVOR_CREATE, RMALAB_FLAVOR_CREATE},
        {MPI_WIN_FLAVOR_ALLOCATE, RMALAB_FLAVOR_ALLOCATE},
        {MPI_WIN_FLAVOR_SHARED, RMALAB_FLAVOR_SHARED},
        {MPI_WIN_FLAVOR_DYNAMIC, RMALAB_FLAVOR_DYNAMIC},
    };
    for (size_t i = 0; i < sizeof flavors / sizeof flavors[0]; i++)
        if (flavors[i].mpi == f)
            return rmalab_flavor_name(flavors[i].flavor);
    return "unknown";
}

static void push_predefined(lua_State *L, rmalab_keyval *kv, void *v)
{
    if (kv == RMALAB_WIN_BASE) {
        lua_pushinteger(L, (lua_Integer)(intptr_t)v);
    } else if (kv == RMALAB_WIN_SIZE) {
        lua_pushinteger(L, (lua_Integer)*(MPI_Aint *)v);
    } else if (kv == RMALAB_WIN_DISP_UNIT) {
        lua_pushinteger(L, *(int *)v);
    } else if (kv == RMALAB_WIN_CREATE_FLAVOR) {
        lua_pushstring(L, flavor_name(*(int *)v));
    } else {
        lua_pushstring(L, *(int *)v == MPI_WIN_UNIFIED ? "unified" : "separate");
    }
}

/* value, true -- or nil, false when the window holds no such attribute. */
static int win_get_attr(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    const char *predefined;
    rmalab_keyval *kv = lrm_checkkeyval(L, 2, &predefined);
    void *v = NULL;
    int flag = 0;
    int rc = rmalab_win_get_attr(w, kv, &v, &flag);
    if (rc)
        return lrm_raise_win(L, rc, w, "get_attr");
    if (!flag)
        lua_pushnil(L);
    else if (predefined)
        push_predefined(L, kv, v);
    else
        lua_rawgeti(L, LUA_REGISTRYINDEX, lrm_attr_ref(v));
    lua_pushboolean(L, flag);
    return 2;
}

/* The attribute and its reference go even when the delete callback fails;
 * the failure is raised afterwards. */
static int win_delete_attr(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    const char *predefined;
    struct attr_call c = {w, lrm_checkkeyval(L, 2, &predefined), NULL};
    int rc = lrm_ctx_call(lrm_getctx(L), L, delete_attr, &c);
    if (rc)
        return lrm_raise_win(L, rc, w, "delete_attr");
    return 0;
}

static const luaL_Reg win_attr_methods[] = {
    {"set_attr", win_set_attr},
    {"get_attr", win_get_attr},
    {"delete_attr", win_delete_attr},
    {NULL, NULL},
};

/* Adds set_attr, get_attr and delete_attr to the window methods. */
void lrm_open_attr(lua_State *L)
{
    lrm_push_win_methods(L);
    luaL_setfuncs(L, win_attr_methods, 0);
    lua_pop(L, 1);
}
