/* Synchronisation in Lua: fence, post/start/complete/wait/test, lock,
 * unlock, lock_all, unlock_all, flush, flush_all, flush_local,
 * flush_local_all, sync (MPI_Win_sync), and win:epochs(), the observable epoch state. Every
 * call is the core's, which checks the epoch state machine before MPI sees
 * the call. */
#include <limits.h>
#include <string.h>

#include "lnames.h"
#include "lrmalab.h"

#define SYNC0(fname, call)                                                     \
    static int fname(lua_State *L)                                             \
    {                                                                          \
        rmalab_win *w = lrm_checkwin(L, 1);                                    \
        lrm_site(L, w);                                                        \
        int rc = call;                                                         \
        if (rc)                                                                \
            return lrm_raise_win(L, rc, w, NULL);                              \
        lrm_buffers_settle(L, w);                                              \
        return 0;                                                              \
    }

/* win:post(group [, assert]) and win:start(group [, assert]). */
static int group_epoch(lua_State *L, int (*open)(rmalab_win *, const int *, int, int))
{
    rmalab_win *w = lrm_checkwin(L, 1);
    int small[LRM_SMALL_GROUP], n;
    int mode = lrm_checkassert(L, 3);
    int *g = lrm_checkgroup(L, 2, &n, small, rmalab_win_get_name(w));
    lrm_site(L, w);
    int rc = open(w, g, n, mode);
    if (rc)
        return lrm_raise_win(L, rc, w, NULL);
    return 0;
}

static int win_post(lua_State *L)
{
    return group_epoch(L, rmalab_win_post);
}

static int win_start(lua_State *L)
{
    return group_epoch(L, rmalab_win_start);
}

SYNC0(win_complete, rmalab_win_complete(w))
SYNC0(win_wait, rmalab_win_wait(w))
/* win:fence([assert]): collective. An assertion this rank cannot read is
 * its failure in the fence's agreement, so the other ranks fail too
 * instead of waiting in MPI_Win_fence; it is raised as worded here. */
static int win_fence(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    lrm_held h;
    h.status = RMALAB_OK; /* not an initializer: that would clear msg too */
    int mode;
    lrm_hold(&h, lrm_assert_status(L, 2, &mode));
    lrm_site(L, w);
    int rc = rmalab_win_fence_status(w, mode, h.status);
    if (h.status)
        return lrm_raise_named(L, rmalab_win_get_name(w), h.status, "%s", h.msg);
    if (rc)
        return lrm_raise_win(L, rc, w, NULL);
    lrm_buffers_settle(L, w);
    return 0;
}
SYNC0(win_unlock, rmalab_win_unlock(w, lrm_checkrank(L, 2, w)))
SYNC0(win_lock_all, rmalab_win_lock_all(w, lrm_checkassert(L, 2)))
SYNC0(win_unlock_all, rmalab_win_unlock_all(w))
SYNC0(win_flush, rmalab_win_flush(w, lrm_checkrank(L, 2, w)))
SYNC0(win_flush_all, rmalab_win_flush_all(w))
SYNC0(win_flush_local, rmalab_win_flush_local(w, lrm_checkrank(L, 2, w)))
SYNC0(win_flush_local_all, rmalab_win_flush_local_all(w))
SYNC0(win_sync, rmalab_win_sync(w))

static int win_test(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    bool done = false;
    lrm_site(L, w);
    int rc = rmalab_win_test(w, &done);
    if (rc)
        return lrm_raise_win(L, rc, w, NULL);
    lua_pushboolean(L, done);
    return 1;
}

/* win:lock(target [, "exclusive" | "shared" [, assert]]); exclusive by
 * default. The kind is found by its string's address (lnames.h), where
 * lrm_checkoption's checks and comparison cost about 150 instructions a
 * lock; nil and any other value take lrm_checkoption, and its errors. */
static int win_lock(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    int target = lrm_checkrank(L, 2, w);
    int kind = lrm_name_at(L, 3, LRM_NAME_LOCK, 2);
    if (kind < 0)
        kind = lrm_checkoption(L, 3, "exclusive", lrm_lock_kinds);
    int mode = lrm_checkassert(L, 4);
    lrm_site(L, w);
    int rc = rmalab_win_lock(w, target, kind == 0, mode);
    if (rc)
        return lrm_raise_win(L, rc, w, NULL);
    return 0;
}

static void push_ranks(lua_State *L, const int *ranks, int n)
{
    lua_createtable(L, n, 0);
    for (int i = 0; i < n && i < RMALAB_STATE_MAX_RANKS; i++) {
        lua_pushinteger(L, ranks[i]);
        lua_rawseti(L, -2, i + 1);
    }
}

/* t[field] = {[ranks[i]] = flags[i]} in the table on top of the stack, as
 * strings `yes`/`no` when given, else booleans. */
static void set_by_rank(lua_State *L, const char *field, const int *ranks, const int *flags,
                        int n, const char *yes, const char *no)
{
    lua_newtable(L);
    for (int i = 0; i < n && i < RMALAB_STATE_MAX_RANKS; i++) {
        if (yes)
            lua_pushstring(L, flags[i] ? yes : no);
        else
            lua_pushboolean(L, flags[i]);
        lua_rawseti(L, -2, ranks[i]);
    }
    lua_setfield(L, -2, field);
}

/* The groups of the open epochs, and for the rma engine the matching, rank
 * by rank, in the table on top of the stack. */
static void set_groups(lua_State *L, const rmalab_epoch_state *s)
{
    if (s->access == RMALAB_ACCESS_START || s->access == RMALAB_ACCESS_LOCK) {
        push_ranks(L, s->access_ranks, s->n_access);
        lua_setfield(L, -2, "access_group");
    }
    if (s->access == RMALAB_ACCESS_LOCK)
        set_by_rank(L, "locks", s->access_ranks, s->lock_exclusive, s->n_access, "exclusive",
                    "shared");
    if (s->exposure == RMALAB_EXPOSURE_POST) {
        push_ranks(L, s->exposure_ranks, s->n_exposure);
        lua_setfield(L, -2, "exposure_group");
    }
    if (s->access == RMALAB_ACCESS_START && s->n_access && s->posted[0] >= 0)
        set_by_rank(L, "posted", s->access_ranks, s->posted, s->n_access, NULL, NULL);
    if (s->exposure == RMALAB_EXPOSURE_POST && s->n_exposure && s->arrived[0] >= 0)
        set_by_rank(L, "arrived", s->exposure_ranks, s->arrived, s->n_exposure, NULL, NULL);
}

/* win:epochs() -> { access, exposure, access_group, exposure_group, locks,
 * ops, epochs, blocked_in, blocked_for, engine, text, and for the rma engine
 * posted = {[target] = bool}, arrived = {[origin] = bool} } */
static int win_epochs(lua_State *L)
{
    rmalab_win *w = lrm_checkwin(L, 1);
    rmalab_epoch_state s;
    char text[512];
    rmalab_win_state(w, &s);
    rmalab_win_describe(w, text, sizeof text);
    lua_createtable(L, 0, 11);
    lua_pushstring(L, rmalab_access_name(s.access));
    lua_setfield(L, -2, "access");
    lua_pushstring(L, rmalab_exposure_name(s.exposure));
    lua_setfield(L, -2, "exposure");
    set_groups(L, &s);
    lua_pushinteger(L, (lua_Integer)s.ops_in_epoch);
    lua_setfield(L, -2, "ops");
    lua_pushinteger(L, (lua_Integer)s.epochs);
    lua_setfield(L, -2, "epochs");
    if (s.blocked_in) {
        lua_pushstring(L, s.blocked_in);
        lua_setfield(L, -2, "blocked_in");
        lua_pushnumber(L, s.blocked_for);
        lua_setfield(L, -2, "blocked_for");
    }
    lua_pushstring(L, s.engine);
    lua_setfield(L, -2, "engine");
    lua_pushstring(L, text);
    lua_setfield(L, -2, "text");
    return 1;
}

static const luaL_Reg sync_methods[] = {
    {"complete", win_complete},
    {"wait", win_wait},
    {"fence", win_fence},
    {"unlock", win_unlock},
    {"lock_all", win_lock_all},
    {"unlock_all", win_unlock_all},
    {"flush", win_flush},
    {"flush_all", win_flush_all},
    {"flush_local", win_flush_local},
    {"flush_local_all", win_flush_local_all},
    {"sync", win_sync},
    {"post", win_post},
    {"start", win_start},
    {"test", win_test},
    {"lock", win_lock},
    {"epochs", win_epochs},
    {NULL, NULL},
};

/* Adds the synchronisation methods to the window methods. */
void lrm_open_sync(lua_State *L)
{
    lrm_push_win_methods(L);
    luaL_setfuncs(L, sync_methods, 0);
    lua_pop(L, 1);
}
