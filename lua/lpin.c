/* What MPI writes into until an operation of a window completes (lrma.c's
 * result handles, which hold their operation's memory), kept alive by the
 * window until then: its pins, the window userdata's user value, so
 * that the collector never frees memory MPI may still write and a handle
 * needs no finaliser. Buffers in flight have pins of their own (lbuffer.c),
 * with flights recorded on their memory. */
#include "lrmalab.h"

/* Its window is alive while p->w is set: p is pinned then, and freeing the
 * window clears it. */
bool lrm_landed(lrm_pinned *p)
{
    if (p->w && rmalab_win_done(p->w, p->target, p->ticket))
        p->w = NULL;
    return !p->w;
}

/* The pins table at t holds n handles in the order issued: those landed
 * are let go (the rest move down, in order). Returns how many are left. */
static lua_Integer unpin_landed(lua_State *L, int t, lua_Integer n)
{
    lua_Integer k = 0;
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, t, i);
        if (lrm_landed(lua_touserdata(L, -1)))
            lua_pop(L, 1);
        else
            lua_rawseti(L, t, ++k);
    }
    for (lua_Integer i = k + 1; i <= n; i++) {
        lua_pushnil(L);
        lua_rawseti(L, t, i);
    }
    return k;
}

/* The pins table at t and the handle below it: the handle appended, after
 * those landed have gone when the oldest has (a scan at every get while
 * the oldest is in flight would cost an epoch of n gets n^2; one landed
 * behind one in flight stays pinned until a later scan, or the window's
 * free). With none left in flight, the handle alone is pinned again. */
static void more(lua_State *L, int t)
{
    lua_Integer n = (lua_Integer)lua_rawlen(L, t);
    lua_rawgeti(L, t, 1);
    bool oldest = lrm_landed(lua_touserdata(L, -1));
    lua_pop(L, 1);
    if (oldest && (n = unpin_landed(L, t, n)) == 0) {
        lua_pushvalue(L, t - 1);
        lua_setiuservalue(L, 1, 1);
    } else {
        lua_pushvalue(L, t - 1);
        lua_rawseti(L, t, n + 1);
    }
    lua_pop(L, 1);
}

/* The window at index 1 keeps the userdata on top alive while MPI may write
 * into it: its user value is the one pinned, or when several may be in
 * flight a table of them in the order issued. The usual case, the handle
 * of an epoch that has ended replaced by the next, costs five Lua API
 * calls, where a table always cost ten (about 180 instructions more). */
void lrm_win_pin(lua_State *L)
{
    int kind = lua_getiuservalue(L, 1, 1);
    if (kind == LUA_TNIL || (kind == LUA_TUSERDATA && lrm_landed(lua_touserdata(L, -1)))) {
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, 1, 1);
        return;
    }
    if (kind == LUA_TUSERDATA) { /* a second one in flight */
        lua_createtable(L, 4, 0);
        lua_insert(L, -2);
        lua_rawseti(L, -2, 1);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, 1, 1);
    }
    more(L, lua_gettop(L));
}

/* The window at `win` is about to be freed: those landed are marked so,
 * while the core can still be asked; or it has been (`freed`): those left
 * are gone, and the pins with them. */
void lrm_pins_free(lua_State *L, int win, bool freed)
{
    int kind = lua_getiuservalue(L, win, 1), t = lua_gettop(L);
    lua_Integer n = kind == LUA_TTABLE ? (lua_Integer)lua_rawlen(L, t) : kind == LUA_TUSERDATA;
    for (lua_Integer i = 1; i <= n; i++) {
        if (kind == LUA_TTABLE)
            lua_rawgeti(L, t, i);
        else
            lua_pushvalue(L, t);
        lrm_pinned *p = lua_touserdata(L, -1);
        if (!freed)
            (void)lrm_landed(p);
        else if (p->w) {
            p->w = NULL;
            p->gone = true;
        }
        lua_pop(L, 1);
    }
    if (freed && kind != LUA_TNIL) {
        lua_pushnil(L);
        lua_setiuservalue(L, win, 1);
    }
    lua_settop(L, t - 1);
}

/* The pins of windows filed for release at exit, by core window: MPI may
 * write into what they hold until the window's release. */
static const char kept_key = 'k';

void lrm_pins_keep(lua_State *L, int win, rmalab_win *w)
{
    if (lua_getiuservalue(L, win, 1) != LUA_TNIL) {
        if (lua_rawgetp(L, LUA_REGISTRYINDEX, &kept_key) != LUA_TTABLE) {
            lua_pop(L, 1);
            lua_newtable(L);
            lua_pushvalue(L, -1);
            lua_rawsetp(L, LUA_REGISTRYINDEX, &kept_key);
        }
        lua_pushvalue(L, -2);
        lua_rawsetp(L, -2, w);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}
