/* What MPI writes into until an operation of a window completes (lrma.c's
 * result handles, which hold their operation's memory), kept alive by the
 * window until then: its pins table, the window userdata's user value, so
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

/* The window at index 1 keeps the userdata on top alive while MPI may write
 * into it: its pins table (the window's user value), in the order issued.
 * Those landed go first, when the oldest has (a scan at every get while
 * the oldest is in flight would cost an epoch of n gets n^2); a handle
 * landed behind one in flight stays pinned until a later scan, or the
 * window's free. The usual case, one handle of an epoch that has ended, is
 * replaced in place: a scan and the table's length cost 300 instructions. */
void lrm_win_pin(lua_State *L)
{
    if (lua_getiuservalue(L, 1, 1) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 4, 0);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, 1, 1);
    }
    int t = lua_gettop(L);
    lua_Integer n = 0;
    if (lua_rawgeti(L, t, 1) != LUA_TNIL) {
        bool oldest = lrm_landed(lua_touserdata(L, -1));
        if (!oldest || lua_rawgeti(L, t, 2) != LUA_TNIL) {
            n = (lua_Integer)lua_rawlen(L, t);
            if (oldest)
                n = unpin_landed(L, t, n);
        }
    }
    lua_settop(L, t);
    lua_pushvalue(L, t - 1);
    lua_rawseti(L, t, n + 1);
    lua_pop(L, 1);
}

/* The window at `win` is about to be freed, or has been (`freed`: what is
 * left in flight is gone, and the pins with it). */
void lrm_pins_free(lua_State *L, int win, bool freed)
{
    if (lua_getiuservalue(L, win, 1) == LUA_TTABLE) {
        int t = lua_gettop(L);
        lua_Integer n = unpin_landed(L, t, (lua_Integer)lua_rawlen(L, t));
        for (lua_Integer i = 1; freed && i <= n; i++) {
            lua_rawgeti(L, t, i);
            lrm_pinned *p = lua_touserdata(L, -1);
            p->w = NULL;
            p->gone = true;
            lua_pop(L, 1);
        }
        if (freed) {
            lua_pushnil(L);
            lua_setiuservalue(L, win, 1);
        }
    }
    lua_pop(L, 1);
}

/* Pins tables of windows filed for release at exit, by core window: MPI
 * may write into what they hold until the window's release. */
static const char kept_key = 'k';

void lrm_pins_keep(lua_State *L, int win, rmalab_win *w)
{
    if (lua_getiuservalue(L, win, 1) == LUA_TTABLE && lua_rawlen(L, -1) > 0) {
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
