/* The `rmalab` Lua module: `local rl = require "rmalab"`. This file puts
 * the module together from the binding's files (their order is at the top
 * of lrmalab.h) and adds rl.debug.stats(), rl.debug.races_log(),
 * rl.wtime() and rl.sleep().
 * lruntime.c starts MPI and keeps the context of each Lua state. */
#include "lnames.h"
#include "lrmalab.h"

#include <rmalab/debug.h>
#include <time.h>

/* rl.debug.stats() -> { infos, comms, wins, keyvals, refs, core_allocs }:
 * live binding objects (userdata not yet collected; a window collected
 * without win:free() stays counted, as leaked) and registry references held
 * by this Lua state; and the allocations the core holds in the whole
 * process (rmalab_debug_live_allocs). */
static int l_stats(lua_State *L)
{
    const lrm_stats_t *st = &lrm_getctx(L)->stats;
    lua_createtable(L, 0, 6);
    lua_pushinteger(L, st->infos);
    lua_setfield(L, -2, "infos");
    lua_pushinteger(L, st->comms - 1); /* rl.world lives as long as the module */
    lua_setfield(L, -2, "comms");
    lua_pushinteger(L, st->wins);
    lua_setfield(L, -2, "wins");
    lua_pushinteger(L, st->keyvals);
    lua_setfield(L, -2, "keyvals");
    lua_pushinteger(L, st->refs);
    lua_setfield(L, -2, "refs");
    lua_pushinteger(L, rmalab_debug_live_allocs());
    lua_setfield(L, -2, "core_allocs");
    return 1;
}

/* rl.debug.races_log(win) -> log, past: the records the race checker keeps
 * of accesses to this rank's memory of win (rmalab_debug_races_log). */
static int l_races_log(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    long log, past;
    rmalab_debug_races_log(w, &log, &past);
    lua_pushinteger(L, log);
    lua_pushinteger(L, past);
    return 2;
}

static int l_wtime(lua_State *L)
{
    lua_pushnumber(L, MPI_Wtime());
    return 1;
}

/* Call nothing, so that a host's debug hook (the REPL's interrupt) runs. */
static int l_nothing(lua_State *L)
{
    (void)L;
    return 0;
}

/* rl.sleep(seconds): wait without using the CPU, as a rank that waits on
 * purpose must (a spinning rank takes a core from its peers). It sleeps in
 * slices of at most 50 ms with a call between them, so that a debug hook
 * such as the REPL's interrupt can end it. */
static int l_sleep(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TNUMBER)
        return lrm_argerror(L, 1, RMALAB_ERR_ARG,
                            lua_pushfstring(L, "number expected, got %s", luaL_typename(L, 1)));
    lua_Number s = lua_tonumber(L, 1);
    if (!(s >= 0) || s > 1e6)
        return lrm_argerror(L, 1, RMALAB_ERR_ARG, "seconds from 0 to 1e6 expected");
    double until = MPI_Wtime() + s, left;
    while ((left = until - MPI_Wtime()) > 0) {
        double slice = left < 0.05 ? left : 0.05;
        struct timespec ts = {(time_t)slice, (long)((slice - (double)(time_t)slice) * 1e9)};
        nanosleep(&ts, NULL);
        lua_pushcfunction(L, l_nothing);
        lua_call(L, 0, 0);
    }
    return 0;
}

static const luaL_Reg module_funcs[] = {
    {"info", lrm_info_new},
    {"info_env", lrm_info_env},
    {"wtime", l_wtime},
    {"sleep", l_sleep},
    {"main", lrm_main},
    {NULL, NULL},
};

/* The module's entry point; ltest.c exports the other, luaopen_rmalab_test. */
__attribute__((visibility("default"))) int luaopen_rmalab(lua_State *L);

int luaopen_rmalab(lua_State *L)
{
    lrm_open_runtime(L);
    lrm_open_names(L); /* the names that calls match by address: lnames.h */
    lrm_open_info(L);
    lrm_open_comm(L);
    lrm_open_coll(L);
    lrm_open_p2p(L);

    luaL_newlib(L, module_funcs);
    lrm_open_win(L);
    lrm_open_buffer(L);
    lrm_open_elements(L);
    lrm_open_layout(L);
    lrm_open_request(L);
    lrm_open_rma(L);
    lrm_open_sync(L);
    lrm_open_keyval(L);
    lrm_open_attr(L);
    lrm_open_trace(L);
    lrm_open_races(L);
    lua_pushstring(L, rmalab_version());
    lua_setfield(L, -2, "version");
    lua_pushinteger(L, RMALAB_MAX_INFO_KEY);
    lua_setfield(L, -2, "MAX_INFO_KEY");
    lua_pushinteger(L, RMALAB_MAX_INFO_VAL);
    lua_setfield(L, -2, "MAX_INFO_VAL");
    lrm_open_hints(L);
    lua_setfield(L, -2, "hints");
    lrm_pushworld(L);
    lua_setfield(L, -2, "world");
    lua_createtable(L, 0, 2);
    lua_pushcfunction(L, l_stats);
    lua_setfield(L, -2, "stats");
    lua_pushcfunction(L, l_races_log);
    lua_setfield(L, -2, "races_log");
    lua_setfield(L, -2, "debug");
    return 1;
}
