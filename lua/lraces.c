/* rl.races: the race checker's findings (core/include/rmalab/races.h,
 * docs/races.md) as Lua values, and win:check_mode(). The checker itself
 * is the core's; the binding tells it where each call comes from
 * (lrm_site). */
#include "lrmalab.h"

#include <stdlib.h>

static void push_access(lua_State *L, const rmalab_race_access *a)
{
    lua_createtable(L, 0, 5);
    lua_pushinteger(L, a->rank);
    lua_setfield(L, -2, "rank");
    lua_pushstring(L, a->call);
    lua_setfield(L, -2, "call");
    lua_pushstring(L, a->kind);
    lua_setfield(L, -2, "kind");
    lua_pushstring(L, a->site);
    lua_setfield(L, -2, "site");
    lua_pushstring(L, a->during);
    lua_setfield(L, -2, "during");
}

static void push_race(lua_State *L, const rmalab_race *r)
{
    lua_createtable(L, 0, 12);
    lua_pushinteger(L, (lua_Integer)r->seq);
    lua_setfield(L, -2, "seq");
    lua_pushstring(L, r->window);
    lua_setfield(L, -2, "window");
    lua_pushinteger(L, r->target);
    lua_setfield(L, -2, "target");
    lua_pushinteger(L, r->lo);
    lua_setfield(L, -2, "lo");
    lua_pushinteger(L, r->hi);
    lua_setfield(L, -2, "hi");
    push_access(L, &r->a);
    lua_setfield(L, -2, "a");
    push_access(L, &r->b);
    lua_setfield(L, -2, "b");
    lua_pushstring(L, r->why);
    lua_setfield(L, -2, "why");
    lua_pushstring(L, r->found_at);
    lua_setfield(L, -2, "found_at");
    lua_pushinteger(L, r->found_by);
    lua_setfield(L, -2, "found_by");
    lua_pushstring(L, r->text);
    lua_setfield(L, -2, "text");
}

/* rl.races.list(): this rank's reports, oldest first. */
static int races_list(lua_State *L)
{
    const rmalab_race *l;
    int n;
    rmalab_races(&l, &n, NULL);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        push_race(L, &l[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* rl.races.total(): collective over the world. */
static int races_total(lua_State *L)
{
    uint64_t total = 0;
    int rc = rmalab_races_total(MPI_COMM_WORLD, &total);
    if (rc)
        return lrm_raise(L, rc, "races.total");
    lua_pushinteger(L, (lua_Integer)total);
    return 1;
}

/* rl.races.text(): collective over the world; rank 0 gets the text. */
static int races_text(lua_State *L)
{
    char *text = NULL;
    int rc = rmalab_races_text(MPI_COMM_WORLD, &text);
    if (rc)
        return lrm_raise(L, rc, "races.text");
    if (!text)
        return 0;
    lua_pushstring(L, text);
    free(text);
    return 1;
}

static int races_clear(lua_State *L)
{
    (void)L;
    rmalab_races_clear();
    return 0;
}

/* rl.races.jitter(max_seconds [, seed]): 0 turns it off. */
static int races_jitter(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TNUMBER)
        return lrm_argerror(L, 1, RMALAB_ERR_ARG,
                            lua_pushfstring(L, "number expected, got %s", luaL_typename(L, 1)));
    lua_Number max = lua_tonumber(L, 1);
    if (!(max >= 0) || max > 10)
        return lrm_argerror(L, 1, RMALAB_ERR_ARG, "seconds from 0 to 10 expected");
    lua_Integer seed = lua_isnoneornil(L, 2) ? 1 : lrm_checkinteger(L, 2, RMALAB_ERR_ARG, "seed");
    rmalab_races_jitter(max, (uint64_t)seed);
    return 0;
}

/* win:check_mode(): "off", "races", "races:warn" or "races:quiet". */
static int win_check_mode(lua_State *L)
{
    lua_pushstring(L, rmalab_check_mode_name(rmalab_win_check_mode(lrm_checkwin(L, 1))));
    return 1;
}

static const luaL_Reg races_funcs[] = {
    {"list", races_list},   {"total", races_total},   {"text", races_text},
    {"clear", races_clear}, {"jitter", races_jitter}, {NULL, NULL},
};

static const luaL_Reg win_methods[] = {
    {"check_mode", win_check_mode},
    {NULL, NULL},
};

void lrm_open_races(lua_State *L)
{
    lrm_push_win_methods(L);
    luaL_setfuncs(L, win_methods, 0);
    lua_pop(L, 1);
    luaL_newlib(L, races_funcs);
    lua_setfield(L, -2, "races");
}
