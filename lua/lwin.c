/* Windows in Lua: creation in four flavours, freeing, properties, local
 * memory and hints. RMA operations are in lrma.c, synchronisation in
 * lsync.c and attributes in lattr.c; each adds its methods to the window
 * methods made here.
 *
 * MPI_Win_free is collective, so __gc never frees a window: it warns about
 * one that was never freed and files it for release at exit. win:free()
 * and <close> share one release, but for a scope left by an error, whose
 * <close> files the window as __gc does, without a warning. A
 * weak table maps core windows to their userdata so that attribute
 * callbacks can be handed the Lua window. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lrmalab.h"

#define WINS_KEY "rmalab.wins"

typedef struct {
    const void *tag; /* &win_tag (lrm_newud) */
    rmalab_win *win;
    lrm_ctx *ctx;   /* of the Lua state that made it */
    lrm_leak *leak; /* the note __gc files if the window is never freed */
    int counted;    /* in ctx->stats.wins */
    int let_go;     /* its <close> ran on an error: filed for release at exit */
    int checked;    /* its race checker is on: counted in lrm_checked_wins */
} lwin;

/* lrm_site asks the core for a window's mode only while some window is
 * checked: counted when made, until win:free() frees it (a window filed for
 * release at exit stays counted, as a request or buffer may still name it). */
_Atomic int lrm_checked_wins;

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */

int lrm_raise_win(lua_State *L, int rc, rmalab_win *w, const char *call)
{
    const char *name = w ? rmalab_win_get_name(w) : NULL;
    if (call)
        return lrm_raise_named(L, name, rc, "win:%s: %s", call, rmalab_errmsg());
    return lrm_raise_named(L, name, rc, "win:%s", rmalab_errmsg());
}

/* The core's message already starts with the call's name ("put to rank 2:
 * ..."). */
static int win_error(lua_State *L, int rc, rmalab_win *w)
{
    return lrm_raise_win(L, rc, w, NULL);
}

/* Every window call checks its first argument, by its tag (lrm_toud):
 * luaL_testudata took 22 ns of a 47 ns win:rank() (bench/lua-calls.lua),
 * a quarter of what Lua adds to a PSCW epoch. */
static const char win_tag = 'w';

static lwin *towin(lua_State *L, int arg)
{
    return lrm_checkud(L, arg, &win_tag, sizeof(lwin), RMALAB_ERR_WIN, "window expected");
}

/* The window that passed towin last, while its userdata lives (win_gc lets
 * it go before the collector frees it): the same window again, as in
 * every call of an epoch, is known by its address and its tag, without
 * lua_rawlen and towin's call (about 25 instructions a call, as
 * lrm_checkcommud knows the world). Any other value takes towin's check
 * and its error. */
static _Atomic(lwin *) last_win;

rmalab_win *lrm_checkwin(lua_State *L, int arg)
{
    lwin *u = lua_touserdata(L, arg);
    if (!u || u != atomic_load_explicit(&last_win, memory_order_relaxed) || u->tag != &win_tag) {
        u = towin(L, arg);
        atomic_store_explicit(&last_win, u, memory_order_relaxed);
    }
    if (!u->win)
        lrm_raisef(L, RMALAB_ERR_WIN, "%s; create a new one",
                   u->let_go ? "this window was let go when an error left its <close> scope "
                               "(it is freed at exit)"
                             : "this window was freed");
    lrm_calling(u->ctx);
    return u->win;
}

void lrm_pushwin(lua_State *L, rmalab_win *w)
{
    lua_getfield(L, LUA_REGISTRYINDEX, WINS_KEY);
    lua_rawgetp(L, -1, w);
    lua_remove(L, -2);
}

void lrm_push_win_methods(lua_State *L)
{
    luaL_getmetatable(L, LRM_WIN_T);
    lua_getfield(L, -1, "__index");
    lua_remove(L, -2);
}

static void forget_win(lua_State *L, rmalab_win *w)
{
    lua_getfield(L, LUA_REGISTRYINDEX, WINS_KEY);
    lua_pushnil(L);
    lua_rawsetp(L, -2, w);
    lua_pop(L, 1);
}

/* ------------------------------------------------------------------------ */
/* Creation                                                                 */

/* A constructor's arguments. */
typedef struct {
    rmalab_flavor flavor;
    rmalab_win_opts opts;
} win_args;

/* The size, then the options table at `optarg`: comm, disp_unit, info,
 * name. What they need (a table's info object, the name string) stays on
 * the stack. A mistake is returned with its message set (the caller takes
 * part in the creation with it), except a comm that is not one: without a
 * communicator there is nothing to take part in, and that raises. */
static int check_args(lua_State *L, int optarg, win_args *a)
{
    rmalab_win_opts *opts = &a->opts;
    bool table = lua_istable(L, optarg);
    if (table && lua_getfield(L, optarg, "comm") != LUA_TNIL)
        opts->comm = lrm_checkcomm(L, lua_gettop(L));
    lua_Integer size = 0;
    int rc = a->flavor == RMALAB_FLAVOR_DYNAMIC
                 ? RMALAB_OK
                 : lrm_tointeger_status(L, 1, RMALAB_ERR_ARG, "window size", &size);
    if (!rc && size < 0)
        rc = lrm_argstatus(L, 1, RMALAB_ERR_ARG, "window size must be 0 or more bytes");
    opts->size = (MPI_Aint)size;
    if (rc || lua_isnoneornil(L, optarg))
        return rc;
    if (!table)
        return lrm_argstatus(L, optarg, RMALAB_ERR_ARG, "options table expected");
    if (lua_getfield(L, optarg, "disp_unit") != LUA_TNIL) {
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) <= 0 || lua_tointeger(L, -1) > INT_MAX)
            return rmalab_set_error(RMALAB_ERR_ARG, "disp_unit must be a positive integer");
        opts->disp_unit = (int)lua_tointeger(L, -1);
    }
    lua_getfield(L, optarg, "info"); /* a table's info object stays on the stack */
    rmalab_info *info = NULL;
    if ((rc = lrm_toinfo_status(L, -1, &info)))
        return rc;
    opts->info = info;
    if (lua_getfield(L, optarg, "name") != LUA_TNIL) {
        if (lua_type(L, -1) != LUA_TSTRING) {
            char msg[128];
            snprintf(msg, sizeof msg, "string expected, got %s", luaL_typename(L, -1));
            return lrm_argstatus(L, lua_gettop(L), RMALAB_ERR_ARG, msg);
        }
        opts->name = lua_tostring(L, -1);
    }
    return RMALAB_OK;
}

/* The constructor's arguments into `a`. A mistake on this rank is raised
 * after this rank has taken part in the creation with it, so that the
 * others' creation fails too instead of waiting for this rank. */
static void read_win_args(lua_State *L, win_args *a)
{
    lrm_held h;
    h.status = RMALAB_OK;
    if (!lrm_hold(&h, check_args(L, a->flavor == RMALAB_FLAVOR_DYNAMIC ? 1 : 2, a)))
        return;
    (void)rmalab_win_take_part(a->flavor, &a->opts, h.status);
    lrm_raise_held(L, &h);
}

/* A window userdata holding no window yet, with the note its __gc files if
 * the window is never freed: all the memory a window needs in the binding
 * is there before the core creates it. */
static lwin *newwin(lua_State *L, rmalab_flavor flavor, const char *name)
{
    lwin *u = lrm_newud(L, sizeof *u, 1, &win_tag); /* its result handles (lrma.c) */
    u->win = NULL;
    u->ctx = lrm_getctx(L);
    u->leak = NULL;
    u->counted = 1;
    u->let_go = 0;
    u->checked = 0;
    luaL_setmetatable(L, LRM_WIN_T);
    u->ctx->stats.wins++;
    u->leak = lrm_leak_new();
    if (!u->leak)
        lrm_raise_named(L, name, RMALAB_ERR_NO_MEM, "rl.%s: out of memory", rmalab_flavor_call(flavor));
    return u;
}

/* Collective: rl.win_create and the other constructors -> window,
 * diagnostics. */
static int win_new(lua_State *L, rmalab_flavor flavor)
{
    win_args a = {.flavor = flavor};
    read_win_args(L, &a);
    rmalab_win_opts opts = a.opts;
    lwin *u = newwin(L, flavor, opts.name);
    rmalab_diags *d = lrm_newdiags(L);
    int rc;
    switch (flavor) {
    case RMALAB_FLAVOR_CREATE: rc = rmalab_win_create(&opts, &u->win, d); break;
    case RMALAB_FLAVOR_ALLOCATE: rc = rmalab_win_allocate(&opts, &u->win, d); break;
    case RMALAB_FLAVOR_SHARED: rc = rmalab_win_allocate_shared(&opts, &u->win, d); break;
    default: rc = rmalab_win_create_dynamic(&opts, &u->win, d); break;
    }
    if (rc)
        return lrm_raise_named(L, opts.name, rc, "rl.%s: %s", rmalab_flavor_call(flavor),
                               rmalab_errmsg());
    /* From here a Lua error leaves the window to __gc, which reports it. */
    if (rmalab_win_check_mode(u->win) != RMALAB_CHECK_OFF) {
        u->checked = 1;
        atomic_fetch_add_explicit(&lrm_checked_wins, 1, memory_order_relaxed);
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

/* The window and this rank's own refusal, if any, for lrm_ctx_call. */
typedef struct {
    rmalab_win **pw;
    int status;
} free_args;

static int free_win(void *ud)
{
    free_args *a = ud;
    return rmalab_win_free_status(a->pw, a->status);
}

/* win:free(): collective. An epoch still open, or a view of the window's
 * memory in flight (a message's buffer, another window's operation), is
 * this rank's refusal: the ranks agree on it (as on the core's own
 * refusals), so the free fails on every rank and the window stays usable
 * everywhere; an error in an attribute's delete callback is raised after
 * the window has been freed all the same. */
static int win_free(lua_State *L)
{
    lwin *u = towin(L, 1);
    if (!u->win)
        return 0;
    rmalab_win *w = u->win;
    char name[128], busy[256];
    snprintf(name, sizeof name, "%s", rmalab_win_get_name(w));
    free_args a = {&u->win, RMALAB_OK};
    if (lrm_buffers_busy(L, w, busy, sizeof busy))
        a.status = rmalab_set_error(RMALAB_ERR_RMA_SYNC, "free: %s", busy);
    lrm_pins_free(L, 1, false);
    int rc = lrm_ctx_call(u->ctx, L, free_win, &a);
    if (!u->win) {
        lrm_pins_free(L, 1, true);
        forget_win(L, w);
        lrm_buffers_gone(L, w);
        u->ctx->stats.wins -= u->counted;
        u->counted = 0;
        atomic_fetch_sub_explicit(&lrm_checked_wins, u->checked, memory_order_relaxed);
        u->checked = 0;
        free(u->leak);
        u->leak = NULL;
    }
    if (rc)
        return lrm_raise_named(L, name, rc, "win:%s", rmalab_errmsg());
    return 0;
}

/* The window of `u` filed for the collective release at exit (in creation
 * order, which every rank shares), as the userdata lets it go: never a
 * collective here. `by_error`: its <close> scope was left by an error, and
 * the user released it; else it leaked, and stays counted. */
static void file_for_exit(lua_State *L, lwin *u, int by_error)
{
    lrm_pins_keep(L, 1, u->win); /* MPI may write into them until then */
    if (by_error) {
        u->ctx->stats.wins -= u->counted;
        u->counted = 0;
        u->let_go = 1;
    }
    lrm_leak_file(u->ctx, u->leak, u->win, by_error);
    u->leak = NULL;
    u->win = NULL;
}

/* A window collected without win:free() stays counted (it leaked) and is
 * filed for release at exit; MPI_Win_free is collective, so never here. */
static int win_gc(lua_State *L)
{
    lwin *u = towin(L, 1);
    lwin *me = u; /* its memory goes after this: lrm_checkwin forgets it */
    atomic_compare_exchange_strong(&last_win, &me, NULL);
    if (!u->win) {
        u->ctx->stats.wins -= u->counted;
        u->counted = 0;
        free(u->leak);
        u->leak = NULL;
        return 0;
    }
    char state[256];
    const char *name = rmalab_win_get_name(u->win);
    rmalab_win_describe(u->win, state, sizeof state);
    /* Always shown: lua_warning is off by default in lua.c. */
    lrm_warn(u->ctx,
             "rmalab: rank %d: a window%s%s%s was never freed (%s); call win:free() on every "
             "rank, or declare it local <close>",
             rmalab_win_rank(u->win), name[0] ? " \"" : "", name, name[0] ? "\"" : "", state);
    file_for_exit(L, u, 0);
    return 0;
}

/* <close>: a scope that ends frees the window as win:free() does. A scope
 * left by an error (Lua hands __close the error object) starts no
 * collective: the error may be this rank's alone, and a free would wait
 * for ranks that are in another call, for ever. The window is released
 * as the garbage collector's are, freed with them at exit (where every
 * rank that failed alike frees it in step), but without a warning and no
 * longer counted: the program let it go. Every later use raises, as after
 * win:free(). A window of one rank is freed all the same: its free waits
 * for no one. error(nil) cannot be told from the scope's end. */
static int win_close(lua_State *L)
{
    lwin *u = towin(L, 1);
    if (lua_isnil(L, 2) || (u->win && rmalab_win_group_size(u->win) == 1))
        return win_free(L); /* a window of this rank alone waits for no one */
    if (u->win)
        file_for_exit(L, u, 1);
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
    int rc = rmalab_win_detach(w, lrm_checkdisp(L, 2));
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
    MPI_Aint disp = lrm_checkdisp(L, 2);
    rmalab_type t = lrm_checktype(L, 3);
    int as_array = !lua_isnoneornil(L, 4);
    int count = as_array ? lrm_checkcount(L, 4) : 1;
    int rc = rmalab_win_read(w, disp, t, count, NULL); /* check before allocating */
    if (rc)
        return win_error(L, rc, w);
    void *buf = lua_newuserdatauv(L, (size_t)(count ? count : 1) * (size_t)rmalab_type_size(t), 0);
    lrm_site(L, w);
    rc = rmalab_win_read(w, disp, t, count, buf);
    if (rc)
        return win_error(L, rc, w);
    lrm_pushvalues(L, t, buf, count, as_array);
    return 1;
}

static int win_write(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    MPI_Aint disp = lrm_checkdisp(L, 2);
    rmalab_type t = lrm_checktype(L, 3);
    int count;
    lrm_valsite site = {"win:write", 3, NULL, rmalab_win_get_name(w), false};
    void *buf = lrm_checkvalues(L, 4, t, &count, &site);
    lrm_site(L, w);
    int rc = rmalab_win_write(w, disp, t, count, buf);
    if (rc)
        return win_error(L, rc, w);
    return 0;
}

/* A buffer of `type` over n bytes of the window's memory at `mem`: a view
 * that keeps the window (argument 1) alive, and is gone once it is freed. */
static int push_view(lua_State *L, rmalab_win *w, int rank, void *mem, MPI_Aint bytes,
                     rmalab_type t)
{
    lrm_buffer *b = lrm_buffer_over(L, mem, (lua_Integer)(bytes / rmalab_type_size(t)), t, 1, w);
    lrm_buffer_seen(b, w, rank);
    return 1;
}

/* win:local_view(type): this rank's window memory as a buffer. */
static int win_local_view(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    rmalab_type t = lrm_checktype(L, 2);
    if (rmalab_win_flavor(w) == RMALAB_FLAVOR_DYNAMIC)
        lrm_raise_named(L, rmalab_win_get_name(w), RMALAB_ERR_WIN,
                        "win:local_view: a dynamic window has no memory of its own; its "
                        "attached regions are read with win:read");
    return push_view(L, w, rmalab_win_rank(w), rmalab_win_base(w), rmalab_win_size(w), t);
}

/* win:shared_query(rank, type): rank's segment of a shared window. */
static int win_shared_query(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    int rank = lrm_checkrank(L, 2, w);
    rmalab_type t = lrm_checktype(L, 3);
    MPI_Aint size;
    int unit;
    void *base;
    int rc = rmalab_win_shared_query(w, rank, &size, &unit, &base);
    if (rc)
        return lrm_raise_win(L, rc, w, NULL);
    return push_view(L, w, rank, base, size, t);
}

/* ------------------------------------------------------------------------ */
/* Hints                                                                    */

static void *h_check(lua_State *L, int arg) { return lrm_checkwin(L, arg); }
static int h_set_info(void *w, const rmalab_info *i, rmalab_diags *d, int status) { return rmalab_win_set_info_status(w, i, d, status); }
static int h_get_info(void *w, rmalab_info **out) { return rmalab_win_get_info(w, out); }
static int h_hints(void *w, rmalab_hints_report **out) { return rmalab_win_hints(w, out); }
static int h_check_hints(void *w, rmalab_agreement **out) { return rmalab_win_check_hints(w, out); }
static int h_raise(lua_State *L, int rc, void *w, const char *call) { return lrm_raise_win(L, rc, w, call); }

static const lrm_hinted win_hinted = {h_check, h_set_info, h_get_info, h_hints, h_check_hints, h_raise};

static int win_tostring(lua_State *L)
{
    lwin *u = towin(L, 1);
    if (!u->win) {
        lua_pushstring(L, u->let_go ? "rmalab.win (let go by an error; freed at exit)"
                                    : "rmalab.win (freed)");
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
    {"local_view", win_local_view},
    {"shared_query", win_shared_query},
    {NULL, NULL},
};

static const luaL_Reg win_meta[] = {
    {"__gc", win_gc},
    {"__close", win_close},
    {"__tostring", win_tostring},
    {"__index", NULL},
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
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);

    lua_newtable(L);
    lua_createtable(L, 0, 1);
    lua_pushstring(L, "v");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, WINS_KEY);

    luaL_setfuncs(L, module_funcs, 0);

    lrm_open_values(L);
}
