/* bench-pscw's floor: the least a Lua binding of MPICH's PSCW costs, so
 * that the Lua rows on the native engine can be read against it as
 * bench-comm's rows are against its floor_* functions.
 *
 * `require "pscw_floor"` (preloaded by bench-pscw) gives window(), an MPI
 * window of 16 bytes (disp_unit 8) as a userdata whose methods, found
 * through its metatable's __index table as rmalab's are, take the same
 * arguments as rmalab's: post(group), start(group), put(target, disp,
 * "int64", value), complete(), wait(), read(), free(). They read what
 * any binding must read (the group table's ranks, the integers, the type
 * name) and call MPI with no checks, no epoch state, no records: an MPI
 * group is made again only when a group's ranks change, as rmalab's native
 * engine does, and a call that fails raises MPI's error. */
#include <mpi.h>

#include <lauxlib.h>
#include <lua.h>

#include <stdint.h>
#include <string.h>

#include "pscw-floor.h"

#define FLOOR_T "pscw_floor.window"

struct group1 {
    MPI_Group g;
    int rank; /* the group's one rank, or -1: none yet */
};

typedef struct {
    MPI_Win win;
    int64_t *base;
    MPI_Group world;
    struct group1 post, start;
} floor_win;

static floor_win *self(lua_State *L)
{
    return luaL_checkudata(L, 1, FLOOR_T);
}

static int mpi_check(lua_State *L, int e, const char *call)
{
    if (e != MPI_SUCCESS)
        return luaL_error(L, "%s failed (MPI error %d)", call, e);
    return 0;
}

/* The MPI group of the table at index 2, {rank}: groups of one rank, as
 * the benchmark's. */
static MPI_Group group_of(lua_State *L, floor_win *w, struct group1 *c)
{
    luaL_checktype(L, 2, LUA_TTABLE);
    if (lua_rawlen(L, 2) != 1)
        luaL_error(L, "the floor takes groups of one rank");
    lua_rawgeti(L, 2, 1);
    int isint = 0, r = (int)lua_tointegerx(L, -1, &isint);
    lua_pop(L, 1);
    if (!isint)
        luaL_error(L, "a group holds integer ranks");
    if (r != c->rank) {
        if (c->rank >= 0)
            MPI_Group_free(&c->g);
        mpi_check(L, MPI_Group_incl(w->world, 1, &r, &c->g), "MPI_Group_incl");
        c->rank = r;
    }
    return c->g;
}

static int f_post(lua_State *L)
{
    floor_win *w = self(L);
    return mpi_check(L, MPI_Win_post(group_of(L, w, &w->post), 0, w->win), "MPI_Win_post");
}

static int f_start(lua_State *L)
{
    floor_win *w = self(L);
    return mpi_check(L, MPI_Win_start(group_of(L, w, &w->start), 0, w->win), "MPI_Win_start");
}

static int f_put(lua_State *L)
{
    floor_win *w = self(L);
    int target = (int)luaL_checkinteger(L, 2);
    MPI_Aint disp = (MPI_Aint)luaL_checkinteger(L, 3);
    if (strcmp(luaL_checkstring(L, 4), "int64") != 0)
        luaL_error(L, "the floor puts int64");
    int64_t v = (int64_t)luaL_checkinteger(L, 5);
    return mpi_check(L, MPI_Put(&v, 1, MPI_INT64_T, target, disp, 1, MPI_INT64_T, w->win),
                     "MPI_Put");
}

static int f_complete(lua_State *L)
{
    return mpi_check(L, MPI_Win_complete(self(L)->win), "MPI_Win_complete");
}

static int f_wait(lua_State *L)
{
    return mpi_check(L, MPI_Win_wait(self(L)->win), "MPI_Win_wait");
}

/* The int64 at displacement 0 of this rank's window. */
static int f_read(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)self(L)->base[0]);
    return 1;
}

static int f_free(lua_State *L)
{
    floor_win *w = self(L);
    if (w->win == MPI_WIN_NULL)
        return 0;
    for (struct group1 *c = &w->post; c <= &w->start; c++)
        if (c->rank >= 0)
            MPI_Group_free(&c->g);
    MPI_Group_free(&w->world);
    return mpi_check(L, MPI_Win_free(&w->win), "MPI_Win_free");
}

/* window(): collective over MPI_COMM_WORLD. */
static int f_window(lua_State *L)
{
    floor_win *w = lua_newuserdatauv(L, sizeof *w, 0);
    *w = (floor_win){.win = MPI_WIN_NULL, .post.rank = -1, .start.rank = -1};
    luaL_setmetatable(L, FLOOR_T);
    mpi_check(L, MPI_Win_allocate(16, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &w->base, &w->win),
              "MPI_Win_allocate");
    memset(w->base, 0, 16);
    mpi_check(L, MPI_Win_get_group(w->win, &w->world), "MPI_Win_get_group");
    MPI_Barrier(MPI_COMM_WORLD); /* every window zeroed before any put */
    return 1;
}

int luaopen_pscw_floor(lua_State *L)
{
    static const luaL_Reg methods[] = {
        {"post", f_post}, {"start", f_start}, {"put", f_put},   {"complete", f_complete},
        {"wait", f_wait}, {"read", f_read},   {"free", f_free}, {NULL, NULL},
    };
    luaL_newmetatable(L, FLOOR_T);
    luaL_newlib(L, methods);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushcfunction(L, f_window);
    lua_setfield(L, -2, "window");
    return 1;
}
