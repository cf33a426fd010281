/* rl.trace: what windows recorded (core/include/rmalab/trace.h), as Lua
 * tables, and the writers of trace.lua (Perfetto JSON, the ASCII timeline)
 * and trace-svg.lua (the SVG), shipped inside the module. Adds win:trace_events() and
 * win:trace_status() to the window methods.
 *
 * A set is a table:
 *   { ranks = N, uncertainty = s, shared_clock = b, rank_uncertainty = {..},
 *     dropped = {..},
 *     windows = { {key, name, engine, size, freed}, ... },
 *     events = { {t0, t1, rank, win, kind, peer, flag, count, calls, disp,
 *                 bytes, seq, group = {..} or nil}, ... },
 *     flows = { {kind = "post" | "complete" | "race", from = i, to = j}, ... } }
 * with times in seconds from the first event, indices 1-based, and ranks
 * as the core gives them (0-based). An event may also carry `call`, the
 * name its labels use instead of its kind's (rmalab run --trace gives the
 * C call: "MPI_Win_fence"); the module's own events do not.
 *
 * rmalab_lua_trace_writers (rmalab-embed.h) gives a host the writers alone,
 * for a set it has as a table of this form. */
#include "lrmalab.h"
#include "rmalab-embed.h"

#include "trace-lua.h"
#include "trace-svg-lua.h"

static void setnum(lua_State *L, const char *k, double v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}

static void setint(lua_State *L, const char *k, lua_Integer v)
{
    lua_pushinteger(L, v);
    lua_setfield(L, -2, k);
}

static void push_event(lua_State *L, const rmalab_trace_event *e)
{
    lua_createtable(L, 0, 12);
    setnum(L, "t0", e->t0);
    setnum(L, "t1", e->t1);
    setint(L, "rank", e->rank);
    setint(L, "win", e->win + 1);
    lua_pushstring(L, rmalab_trace_kind_name(e->kind));
    lua_setfield(L, -2, "kind");
    setint(L, "peer", e->peer);
    setint(L, "flag", e->flag);
    setint(L, "count", e->count);
    setint(L, "calls", e->calls);
    setint(L, "disp", e->disp);
    setint(L, "bytes", e->bytes);
    setint(L, "seq", e->seq);
    if (e->group) {
        lua_createtable(L, e->count, 0);
        for (int i = 0; i < e->count; i++) {
            lua_pushinteger(L, e->group[i]);
            lua_rawseti(L, -2, i + 1);
        }
        lua_setfield(L, -2, "group");
    }
}

static void push_windows(lua_State *L, const rmalab_trace_set *s)
{
    lua_createtable(L, s->nwins, 0);
    for (int i = 0; i < s->nwins; i++) {
        const rmalab_trace_window *w = &s->wins[i];
        lua_createtable(L, 0, 5);
        lua_pushstring(L, w->key);
        lua_setfield(L, -2, "key");
        lua_pushstring(L, w->name);
        lua_setfield(L, -2, "name");
        lua_pushstring(L, w->engine);
        lua_setfield(L, -2, "engine");
        setint(L, "size", w->size);
        lua_pushboolean(L, w->freed);
        lua_setfield(L, -2, "freed");
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "windows");
}

static void push_ranks(lua_State *L, const rmalab_trace_set *s)
{
    setint(L, "ranks", s->nranks);
    setnum(L, "uncertainty", s->max_uncertainty);
    lua_pushboolean(L, s->shared_clock);
    lua_setfield(L, -2, "shared_clock");
    lua_createtable(L, s->nranks, 0);
    for (int r = 0; r < s->nranks; r++) {
        lua_pushnumber(L, s->uncertainty[r]);
        lua_rawseti(L, -2, r + 1);
    }
    lua_setfield(L, -2, "rank_uncertainty");
    lua_createtable(L, s->nranks, 0);
    for (int r = 0; r < s->nranks; r++) {
        lua_pushinteger(L, (lua_Integer)s->dropped[r]);
        lua_rawseti(L, -2, r + 1);
    }
    lua_setfield(L, -2, "dropped");
}

/* Push the set in box b (on rank 0), or nil. */
static int push_set(lua_State *L, lrm_box *b)
{
    const rmalab_trace_set *s = b->p;
    if (!s) {
        lua_pushnil(L);
        return 1;
    }
    lua_createtable(L, 0, 7);
    push_ranks(L, s);
    push_windows(L, s);
    lua_createtable(L, s->nevents, 0);
    for (int i = 0; i < s->nevents; i++) {
        push_event(L, &s->events[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "events");
    lua_createtable(L, s->nflows, 0);
    for (int i = 0; i < s->nflows; i++) {
        const rmalab_trace_flow *f = &s->flows[i];
        lua_createtable(L, 0, 3);
        lua_pushstring(L, rmalab_flow_kind_name(f->kind));
        lua_setfield(L, -2, "kind");
        setint(L, "from", f->from + 1);
        setint(L, "to", f->to + 1);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "flows");
    return 1;
}

static void destroy_set(void *p)
{
    rmalab_trace_set *s = p;
    rmalab_trace_set_destroy(&s);
}

/* rl.trace.events(): collective over the world; the set on rank 0. */
static int l_events(lua_State *L)
{
    lrm_box *b = lrm_newbox(L, destroy_set);
    int rc = rmalab_trace_gather((rmalab_trace_set **)&b->p);
    if (rc)
        return lrm_raise(L, rc, "trace.events");
    return push_set(L, b);
}

/* win:trace_events(): collective over the window; the set on its rank 0. */
static int l_win_events(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    lrm_box *b = lrm_newbox(L, destroy_set);
    int rc = rmalab_win_trace_gather(w, (rmalab_trace_set **)&b->p);
    if (rc)
        return lrm_raise_win(L, rc, w, "trace_events");
    return push_set(L, b);
}

/* win:trace_status() -> { on, paused, capacity, recorded, dropped,
 * offset, uncertainty } */
static int l_win_status(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    rmalab_trace_status st;
    rmalab_win_trace_status(w, &st);
    lua_createtable(L, 0, 7);
    lua_pushboolean(L, st.on);
    lua_setfield(L, -2, "on");
    lua_pushboolean(L, st.paused);
    lua_setfield(L, -2, "paused");
    setint(L, "capacity", st.capacity);
    setint(L, "recorded", (lua_Integer)st.recorded);
    setint(L, "dropped", (lua_Integer)st.dropped);
    setnum(L, "offset", st.offset);
    setnum(L, "uncertainty", st.uncertainty);
    return 1;
}

/* rl.trace.on(): collective over the world. */
static int l_on(lua_State *L)
{
    int rc = rmalab_trace_start_all();
    if (rc)
        return lrm_raise(L, rc, "trace.on");
    return 0;
}

static int l_off(lua_State *L)
{
    (void)L;
    rmalab_trace_pause_all();
    return 0;
}

static int l_clear(lua_State *L)
{
    (void)L;
    rmalab_trace_clear();
    return 0;
}

/* rl.trace._agree(ok [, class, message]): collective over the world, in
 * which every rank gives whether its part went well (its arguments, and
 * rank 0's writing of the file): every rank returns true, or false with
 * the lowest failing rank, its class and its message, so that a failure on
 * any rank raises on every rank. */
static int l_agree(lua_State *L)
{
    int rank, size, ok = lua_toboolean(L, 1), first;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int mine = ok ? size : rank;
    int e = MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    char what[2][512] = {"", ""}; /* class, message */
    if (!ok) {
        snprintf(what[0], sizeof what[0], "%s", luaL_optstring(L, 2, "ERR_OTHER"));
        snprintf(what[1], sizeof what[1], "%s", luaL_optstring(L, 3, "failed"));
    }
    if (e == MPI_SUCCESS && first < size)
        e = MPI_Bcast(what, sizeof what, MPI_CHAR, first, MPI_COMM_WORLD);
    if (e != MPI_SUCCESS)
        return lrm_raisef(L, RMALAB_ERR_OTHER, "trace: MPI_Allreduce failed");
    lua_pushboolean(L, first == size);
    if (first == size)
        return 1;
    lua_pushinteger(L, first);
    lua_pushstring(L, what[0]);
    lua_pushstring(L, what[1]);
    return 4;
}

/* rl.trace._raise(class, message): an error object, for trace.lua. */
static int l_raise(lua_State *L)
{
    static const char *const classes[] = {"ERR_ARG", "ERR_OTHER", NULL};
    static const int codes[] = {RMALAB_ERR_ARG, RMALAB_ERR_OTHER};
    int c = luaL_checkoption(L, 1, NULL, classes);
    return lrm_raisef(L, codes[c], "%s", luaL_checkstring(L, 2));
}

static const luaL_Reg trace_funcs[] = {
    {"_raise", l_raise},
    {"events", l_events},
    {"on", l_on},
    {"off", l_off},
    {"clear", l_clear},
    {"_agree", l_agree},
    {NULL, NULL},
};

static const luaL_Reg win_methods[] = {
    {"trace_events", l_win_events},
    {"trace_status", l_win_status},
    {NULL, NULL},
};

/* T._sync: the core's synchronisation kinds by name (rmalab/sync.h), with
 * what the writers need: scope (rmalab_sync_scope_name) and collective. */
static void push_sync_kinds(lua_State *L)
{
    lua_createtable(L, 0, RMALAB_SYNC_NKINDS);
    for (int i = 0; i < RMALAB_SYNC_NKINDS; i++) {
        const rmalab_sync_kind *k = rmalab_sync_kind_get((rmalab_sync_id)i);
        lua_createtable(L, 0, 2);
        lua_pushstring(L, rmalab_sync_scope_name(k->scope));
        lua_setfield(L, -2, "scope");
        lua_pushboolean(L, k->collective);
        lua_setfield(L, -2, "collective");
        lua_setfield(L, -2, k->name);
    }
}

/* Runs trace.lua with the table of C functions and the module, the two on
 * the top of the stack, which become the writers' table T; then
 * trace-svg.lua, which adds svg_text to T. */
static void load_writers(lua_State *L)
{
    if (luaL_loadbufferx(L, rmalab_trace_lua, sizeof rmalab_trace_lua, "=rmalab.trace", "t"))
        lua_error(L);
    lua_insert(L, -3);
    lua_call(L, 2, 1);
    if (luaL_loadbufferx(L, rmalab_trace_svg_lua, sizeof rmalab_trace_svg_lua,
                         "=rmalab.trace.svg", "t"))
        lua_error(L);
    lua_pushvalue(L, -2);
    lua_call(L, 1, 0);
}

/* Adds the window methods, and sets rl.trace in the module table on top. */
void lrm_open_trace(lua_State *L)
{
    lrm_push_win_methods(L);
    luaL_setfuncs(L, win_methods, 0);
    lua_pop(L, 1);
    luaL_newlib(L, trace_funcs);
    push_sync_kinds(L);
    lua_setfield(L, -2, "_sync");
    lua_pushvalue(L, -2); /* the module, for the writers */
    load_writers(L);
    lua_setfield(L, -2, "trace");
}

/* The writers' errors, for a host: a plain Lua error with the message. */
static int l_host_raise(lua_State *L)
{
    return luaL_error(L, "%s", luaL_checkstring(L, 2));
}

/* rmalab-embed.h: the writers without the module, MPI or a window. */
int rmalab_lua_trace_writers(lua_State *L)
{
    lua_createtable(L, 0, 2);
    lua_pushcfunction(L, l_host_raise);
    lua_setfield(L, -2, "_raise");
    push_sync_kinds(L);
    lua_setfield(L, -2, "_sync");
    lua_createtable(L, 0, 1); /* what the writers use of the module */
    lua_pushstring(L, rmalab_version());
    lua_setfield(L, -2, "version");
    load_writers(L);
    return 1;
}
