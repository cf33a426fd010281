/* bench-buffer: what typed buffers cost (issue 27), against raw MPICH in
 * the same run. The measuring is bench/buffer.lua's; this program embeds
 * it in a Lua state, with the module preloaded, and gives it what Lua
 * cannot do by itself, in the table `bench` (the chunk's first argument;
 * the second is the number of rounds):
 *   bench.raw_put(bytes, reps)  raw MPICH: reps x (rank 0: MPI_Put of
 *       `bytes` from a malloc'd buffer to rank 1; every rank:
 *       MPI_Win_fence) on a window of MPI_Win_allocate, both made at the
 *       first call and kept; timed from a barrier; returns the slower
 *       rank's seconds, and checks the last put landed;
 *   bench.slowest(seconds)      the largest over the ranks (MPI_Allreduce);
 *   bench.floor()               a userdata whose __index and __newindex are
 *       C functions that do nothing but return 0.0: the least any element
 *       access through metamethods can cost in this Lua.
 *
 * Run on exactly 2 ranks, one per core:
 *     mpiexec -n 2 -bind-to core build/bench/bench-buffer [rounds]
 * The exit status is non-zero only when a call fails or a check does not
 * hold; the goals are reported as PASS/MISS. */
#include <mpi.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rmalab-embed.h>

#ifndef BUFFER_LUA
#error "BUFFER_LUA must name bench/buffer.lua (bench/meson.build defines it)"
#endif

static int slowest(lua_State *L)
{
    double t = luaL_checknumber(L, 1), max = t;
    MPI_Allreduce(&t, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    lua_pushnumber(L, max);
    return 1;
}

/* Raw MPICH's window and origin, made at the first call and kept, as the
 * Lua variants keep theirs (UCX registers memory once per buffer). */
static struct {
    MPI_Win win;
    unsigned char *src, *base;
    lua_Integer bytes;
} raw = {MPI_WIN_NULL, NULL, NULL, 0};

static int raw_put(lua_State *L)
{
    lua_Integer bytes = luaL_checkinteger(L, 1), reps = luaL_checkinteger(L, 2);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (raw.win == MPI_WIN_NULL) {
        raw.src = malloc((size_t)bytes);
        if (!raw.src || MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                                         &raw.base, &raw.win) != MPI_SUCCESS)
            return luaL_error(L, "raw_put: no memory or no window");
        raw.bytes = bytes;
        memset(raw.base, 0, (size_t)bytes);
        memset(raw.src, 1, (size_t)bytes); /* touched, as the Lua variants' buffer is */
        MPI_Win_fence(0, raw.win);
    }
    if (bytes != raw.bytes)
        return luaL_error(L, "raw_put: always the same size");
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (lua_Integer i = 0; i < reps; i++) {
        if (rank == 0) {
            raw.src[bytes - 1] = (unsigned char)(i + 1);
            MPI_Put(raw.src, (int)bytes, MPI_BYTE, 1, 0, (int)bytes, MPI_BYTE, raw.win);
        }
        MPI_Win_fence(0, raw.win);
    }
    double t = MPI_Wtime() - t0;
    if (rank == 1 && raw.base[bytes - 1] != (unsigned char)reps)
        return luaL_error(L, "raw_put: the last put did not land");
    lua_pushcfunction(L, slowest);
    lua_pushnumber(L, t);
    lua_call(L, 1, 1);
    return 1;
}

static int floor_index(lua_State *L)
{
    lua_pushnumber(L, 0.0);
    return 1;
}

static int floor_newindex(lua_State *L)
{
    (void)L;
    return 0;
}

static int floor_new(lua_State *L)
{
    lua_newuserdatauv(L, 1, 0);
    if (luaL_newmetatable(L, "bench.floor")) {
        lua_pushcfunction(L, floor_index);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, floor_newindex);
        lua_setfield(L, -2, "__newindex");
    }
    lua_setmetatable(L, -2);
    return 1;
}

static int traceback(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg && lua_type(L, 1) == LUA_TTABLE) { /* an rmalab error object */
        lua_getfield(L, 1, "message");
        msg = lua_tostring(L, -1);
    }
    luaL_traceback(L, L, msg ? msg : "(no message)", 1);
    return 1;
}

int main(int argc, char **argv)
{
    int provided = 0, size = 0, rank = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "bench-buffer: run on exactly 2 ranks "
                            "(mpiexec -n 2 -bind-to core %s)\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    lua_State *L = luaL_newstate();
    if (!L)
        MPI_Abort(MPI_COMM_WORLD, 1);
    luaL_openlibs(L);
    luaL_requiref(L, "rmalab", luaopen_rmalab, 0);
    lua_pop(L, 1);
    static const luaL_Reg fns[] = {
        {"raw_put", raw_put}, {"slowest", slowest}, {"floor", floor_new}, {NULL, NULL}};
    lua_pushcfunction(L, traceback);
    int status = luaL_loadfile(L, BUFFER_LUA);
    if (status == LUA_OK) {
        luaL_newlib(L, fns);
        lua_pushstring(L, argc > 1 ? argv[1] : "");
        status = lua_pcall(L, 2, 0, 1);
    }
    if (status != LUA_OK)
        fprintf(stderr, "bench-buffer: rank %d: %s\n", rank, lua_tostring(L, -1));
    lua_close(L);
    if (raw.win != MPI_WIN_NULL)
        MPI_Win_free(&raw.win);
    free(raw.src);
    MPI_Finalize();
    return status == LUA_OK ? 0 : 1;
}
