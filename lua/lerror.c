/* Error objects: every failure at the Lua boundary raises a table
 * {class = "ERR_...", message = "...", code = n, where = "file:line: "}
 * whose __tostring gives "ERR_CLASS: message", so scripts can test
 * err.class and people can read tostring(err). A race raised on every
 * rank of a window (ERR_RMA_CONFLICT) also has `finder`, the world rank
 * that found it, whose message is the report (rmalab_err_finder). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lrmalab.h"

static int error_tostring(lua_State *L)
{
    lua_getfield(L, 1, "class");
    lua_getfield(L, 1, "message");
    lua_pushfstring(L, "%s: %s", luaL_optstring(L, -2, "ERR_UNKNOWN"),
                    luaL_optstring(L, -1, "(no message)"));
    return 1;
}

static void push_error(lua_State *L, int code, const char *msg)
{
    lua_createtable(L, 0, 4);
    lua_pushstring(L, rmalab_err_name(code));
    lua_setfield(L, -2, "class");
    lua_pushstring(L, msg);
    lua_setfield(L, -2, "message");
    lua_pushinteger(L, code);
    lua_setfield(L, -2, "code");
    luaL_where(L, 1);
    lua_setfield(L, -2, "where");
    /* A race every rank of the window raises: which rank found it. Only the
     * core raises ERR_RMA_CONFLICT, so the finder is this failure's. */
    if (code == RMALAB_ERR_RMA_CONFLICT && rmalab_err_finder() >= 0) {
        lua_pushinteger(L, rmalab_err_finder());
        lua_setfield(L, -2, "finder");
    }
    if (luaL_newmetatable(L, LRM_ERROR_T)) {
        lua_pushcfunction(L, error_tostring);
        lua_setfield(L, -2, "__tostring");
    }
    lua_setmetatable(L, -2);
}

int lrm_raise(lua_State *L, int code, const char *what)
{
    char msg[2600];
    snprintf(msg, sizeof msg, "%s: %s", what, rmalab_errmsg());
    push_error(L, code, msg);
    return lua_error(L);
}

void lrm_pusherrorv(lua_State *L, int code, const char *suffix, const char *fmt, va_list ap)
{
    char msg[2600];
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    if (suffix && n >= 0 && (size_t)n < sizeof msg)
        snprintf(msg + n, sizeof msg - (size_t)n, "%s", suffix);
    push_error(L, code, msg);
}

int lrm_raisef(lua_State *L, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lrm_pusherrorv(L, code, NULL, fmt, ap);
    va_end(ap);
    return lua_error(L);
}

int lrm_raise_named(lua_State *L, const char *name, int code, const char *fmt, ...)
{
    char named[160] = "";
    if (name && name[0])
        snprintf(named, sizeof named, " [window \"%s\"]", name);
    va_list ap;
    va_start(ap, fmt);
    lrm_pusherrorv(L, code, named, fmt, ap);
    va_end(ap);
    return lua_error(L);
}

void *lrm_newud(lua_State *L, size_t size, int nuv, const void *tag)
{
    void *u = lua_newuserdatauv(L, size, nuv);
    memset(u, 0, size);
    memcpy(u, &tag, sizeof tag);
    return u;
}

int lrm_checkud_fail(lua_State *L, int arg, int code, const char *what)
{
    return lrm_argerror(L, arg, code, what);
}

/* "bad argument #n to 'f' (msg)", as luaL_argerror words it: its
 * message in out, or 0 (self) when the argument is the method's self. */
static int argmsg(lua_State *L, int arg, const char *msg, char *out, size_t size)
{
    lua_Debug ar;
    const char *name = "?";
    if (lua_getstack(L, 0, &ar)) {
        lua_getinfo(L, "n", &ar);
        if (ar.name)
            name = ar.name;
        if (ar.namewhat && strcmp(ar.namewhat, "method") == 0)
            arg--;
    }
    if (arg == 0)
        snprintf(out, size, "calling '%s' on bad self (%s)", name, msg);
    else
        snprintf(out, size, "bad argument #%d to '%s' (%s)", arg, name, msg);
    return arg;
}

int lrm_argerror(lua_State *L, int arg, int code, const char *msg)
{
    char out[2400];
    argmsg(L, arg, msg, out, sizeof out);
    return lrm_raisef(L, code, "%s", out);
}

int lrm_hold(lrm_held *h, int rc)
{
    if (rc && !h->status) {
        h->status = rc;
        snprintf(h->msg, sizeof h->msg, "%s", rmalab_errmsg());
    }
    return rc;
}

int lrm_raise_held(lua_State *L, const lrm_held *h)
{
    return lrm_raisef(L, h->status, "%s", h->msg);
}

int lrm_argstatus(lua_State *L, int arg, int code, const char *msg)
{
    char out[2400];
    argmsg(L, arg, msg, out, sizeof out);
    return rmalab_set_error(code, "%s", out);
}

const char *lrm_checkstring(lua_State *L, int arg, int code, size_t *len)
{
    if (lua_type(L, arg) != LUA_TSTRING) {
        char msg[128];
        snprintf(msg, sizeof msg, "string expected, got %s", luaL_typename(L, arg));
        lrm_argerror(L, arg, code, msg);
    }
    return lua_tolstring(L, arg, len);
}

int lrm_tointeger_status(lua_State *L, int arg, int code, const char *what, lua_Integer *v)
{
    int isnum = 0;
    *v = lua_tointegerx(L, arg, &isnum);
    if (isnum && lua_type(L, arg) == LUA_TNUMBER)
        return RMALAB_OK;
    char msg[160];
    snprintf(msg, sizeof msg, "%s (an integer) expected, got %s", what,
             lua_type(L, arg) == LUA_TNUMBER ? "a number with no integer representation"
                                             : luaL_typename(L, arg));
    return lrm_argstatus(L, arg, code, msg);
}

lua_Integer lrm_checkinteger(lua_State *L, int arg, int code, const char *what)
{
    /* An integer first, as ranks and displacements are: two API calls and no
     * call of the general path below, whose message buffer the stack
     * protector guards (about 90 instructions a check before) */
    if (lua_isinteger(L, arg))
        return lua_tointegerx(L, arg, NULL);
    lua_Integer v;
    int rc = lrm_tointeger_status(L, arg, code, what, &v);
    if (rc)
        lrm_raisef(L, rc, "%s", rmalab_errmsg());
    return v;
}

int lrm_checkoption(lua_State *L, int arg, const char *def, const char *const list[])
{
    const char *name = def && lua_isnoneornil(L, arg) ? def : NULL;
    if (!name)
        name = lrm_checkstring(L, arg, RMALAB_ERR_ARG, NULL);
    for (int i = 0; list[i]; i++) /* the first letters first: no call for most misses */
        if (list[i][0] == name[0] && strcmp(list[i], name) == 0)
            return i;
    char msg[512];
    int off = snprintf(msg, sizeof msg, "invalid option '%s'; expected one of", name);
    for (int i = 0; list[i] && off < (int)sizeof msg; i++)
        off += snprintf(msg + off, sizeof msg - (size_t)off, "%s '%s'", i ? "," : "", list[i]);
    return lrm_argerror(L, arg, RMALAB_ERR_ARG, msg);
}
