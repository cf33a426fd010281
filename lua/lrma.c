/* RMA operations in Lua: put, get, accumulate, get_accumulate,
 * fetch_and_op and compare_and_swap, and the result handles of those that
 * return data (r:value(), r:values(), r:ready()). A result userdata is made
 * before the operation, so it owns the core's result the moment it
 * exists. */
#include "lrmalab.h"

#define LRM_RESULT_T "rmalab.result"

/* A result handle; its user value is the name of its window, for errors. */
typedef struct {
    const void *tag; /* &result_tag (lrm_newud) */
    rmalab_result *r;
} lresult;

static const char result_tag = 'r';

static lresult *toresult(lua_State *L, int arg)
{
    return lrm_checkud(L, arg, &result_tag, sizeof(lresult), RMALAB_ERR_ARG, "RMA result expected");
}

static int win_error(lua_State *L, int rc, rmalab_win *w)
{
    return lrm_raise_win(L, rc, w, NULL);
}

/* Allocate the result userdata before the operation, so it owns the core
 * result the moment it exists. */
static lresult *new_result_ud(lua_State *L, rmalab_win *w)
{
    lresult *u = lrm_newud(L, sizeof *u, 1, &result_tag);
    luaL_setmetatable(L, LRM_RESULT_T);
    lua_pushstring(L, rmalab_win_get_name(w));
    lua_setiuservalue(L, -2, 1);
    return u;
}

static int win_put(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    int target = lrm_checkrank(L, 2, rmalab_win_get_name(w));
    MPI_Aint disp = lrm_checkdisp(L, 3);
    rmalab_type t = lrm_checktype(L, 4);
    int count;
    _Alignas(16) unsigned char small[64];
    void *buf = lrm_checkvalues_buf(L, 5, t, &count, small, sizeof small);
    lrm_site(L, w);
    int rc = rmalab_win_put(w, target, disp, t, count, buf);
    if (rc)
        return win_error(L, rc, w);
    return 0;
}

static int win_get(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    int target = lrm_checkrank(L, 2, rmalab_win_get_name(w));
    MPI_Aint disp = lrm_checkdisp(L, 3);
    rmalab_type t = lrm_checktype(L, 4);
    int count = lua_isnoneornil(L, 5) ? 1 : lrm_checkcount(L, 5);
    lresult *u = new_result_ud(L, w);
    lrm_site(L, w);
    int rc = rmalab_win_get(w, target, disp, t, count, &u->r);
    if (rc)
        return win_error(L, rc, w);
    return 1;
}

static int win_accumulate(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    int target = lrm_checkrank(L, 2, rmalab_win_get_name(w));
    MPI_Aint disp = lrm_checkdisp(L, 3);
    rmalab_type t = lrm_checktype(L, 4);
    rmalab_op op = lrm_checkop(L, 6);
    int count;
    void *buf = lrm_checkvalues(L, 5, t, &count);
    lrm_site(L, w);
    int rc = rmalab_win_accumulate(w, target, disp, t, count, buf, op);
    if (rc)
        return win_error(L, rc, w);
    return 0;
}

static int win_get_accumulate(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    int target = lrm_checkrank(L, 2, rmalab_win_get_name(w));
    MPI_Aint disp = lrm_checkdisp(L, 3);
    rmalab_type t = lrm_checktype(L, 4);
    rmalab_op op = lrm_checkop(L, 6);
    int count;
    void *buf = lrm_checkvalues(L, 5, t, &count);
    lresult *u = new_result_ud(L, w);
    lrm_site(L, w);
    int rc = rmalab_win_get_accumulate(w, target, disp, t, count, buf, op, &u->r);
    if (rc)
        return win_error(L, rc, w);
    return 1;
}

static int win_fetch_and_op(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    int target = lrm_checkrank(L, 2, rmalab_win_get_name(w));
    MPI_Aint disp = lrm_checkdisp(L, 3);
    rmalab_type t = lrm_checktype(L, 4);
    rmalab_op op = lrm_checkop(L, 6);
    int count;
    void *buf = lrm_checkvalues(L, 5, t, &count);
    if (count != 1)
        lrm_argerror(L, 5, RMALAB_ERR_ARG, "fetch_and_op takes exactly one value");
    lresult *u = new_result_ud(L, w);
    lrm_site(L, w);
    int rc = rmalab_win_fetch_and_op(w, target, disp, t, buf, op, &u->r);
    if (rc)
        return win_error(L, rc, w);
    return 1;
}

static int win_compare_and_swap(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    int target = lrm_checkrank(L, 2, rmalab_win_get_name(w));
    MPI_Aint disp = lrm_checkdisp(L, 3);
    rmalab_type t = lrm_checktype(L, 4);
    int nc, nv;
    lua_settop(L, 6);
    void *cmp = lrm_checkvalues(L, 5, t, &nc);
    void *val = lrm_checkvalues(L, 6, t, &nv);
    if (nc != 1 || nv != 1)
        lrm_argerror(L, nc != 1 ? 5 : 6, RMALAB_ERR_ARG,
                     "compare_and_swap takes exactly one value");
    lresult *u = new_result_ud(L, w);
    lrm_site(L, w);
    int rc = rmalab_win_compare_and_swap(w, target, disp, t, cmp, val, &u->r);
    if (rc)
        return win_error(L, rc, w);
    return 1;
}

static const rmalab_result *checkresult(lua_State *L, const void **data, rmalab_type *t,
                                        int *count)
{
    lresult *u = toresult(L, 1);
    if (!u->r)
        lrm_argerror(L, 1, RMALAB_ERR_ARG, "RMA result expected");
    int rc = rmalab_result_data(u->r, data, t, count);
    if (rc) {
        lua_getiuservalue(L, 1, 1);
        lrm_raise_named(L, lua_tostring(L, -1), rc, "result:%s: %s", data ? "value" : "ready",
                        rmalab_errmsg());
    }
    return u->r;
}

static int result_value(lua_State *L)
{
    const void *data;
    rmalab_type t;
    int count;
    checkresult(L, &data, &t, &count);
    lrm_pushvalues(L, t, data, count, 0);
    return 1;
}

static int result_values(lua_State *L)
{
    const void *data;
    rmalab_type t;
    int count;
    checkresult(L, &data, &t, &count);
    lrm_pushvalues(L, t, data, count, 1);
    return 1;
}

static int result_ready(lua_State *L)
{
    lresult *u = toresult(L, 1);
    if (!u->r)
        return lrm_argerror(L, 1, RMALAB_ERR_ARG, "RMA result expected");
    lua_pushboolean(L, rmalab_result_ready(u->r));
    return 1;
}

static int result_gc(lua_State *L)
{
    lresult *u = toresult(L, 1);
    rmalab_result_release(u->r);
    u->r = NULL;
    return 0;
}

static const luaL_Reg rma_methods[] = {
    {"put", win_put},
    {"get", win_get},
    {"accumulate", win_accumulate},
    {"get_accumulate", win_get_accumulate},
    {"fetch_and_op", win_fetch_and_op},
    {"compare_and_swap", win_compare_and_swap},
    {NULL, NULL},
};

static const luaL_Reg result_methods[] = {
    {"value", result_value},
    {"values", result_values},
    {"ready", result_ready},
    {NULL, NULL},
};

/* Adds the operations to the window methods, and makes the result type. */
void lrm_open_rma(lua_State *L)
{
    lrm_push_win_methods(L);
    luaL_setfuncs(L, rma_methods, 0);
    lua_pop(L, 1);

    luaL_newmetatable(L, LRM_RESULT_T);
    lua_pushcfunction(L, result_gc);
    lua_setfield(L, -2, "__gc");
    luaL_newlib(L, result_methods);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}
