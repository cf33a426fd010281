/* Two Lua states in one process, each with the rmalab module loaded (as an
 * embedding or the REPL may have them): the module keeps its state per Lua
 * state, so each has its own rl.debug.stats() and its own windows that were
 * never freed, attribute callbacks run in the state whose binding call ran
 * them, and MPI, which is per process, outlives the state that started it
 * until the last one closes.
 *
 * Run on 2 ranks. The program does not start MPI: the first state's require
 * does, so the module finalises it when the second state closes, after
 * freeing what both states leaked; to free those windows collectively every
 * rank must order them alike, whatever order each rank's garbage collectors
 * found them in, so the two ranks collect their states in opposite orders.
 * Each rank prints its checks; the exit status is non-zero when one fails
 * (mpiexec then fails too). */
#include <mpi.h>
#include <rmalab/debug.h>
#include <rmalab/rmalab.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Defined in lua/rmalab.c (lua_binding_dep); no public header declares it. */
#include <rmalab-embed.h>

static int rank, failures;

static void check(int ok, const char *what)
{
    printf("rank %d: %s - %s\n", rank, ok ? "ok" : "NOT OK", what);
    failures += !ok;
}

static lua_State *open_state(void)
{
    lua_State *L = luaL_newstate();
    if (!L) {
        fprintf(stderr, "cannot create a Lua state\n");
        exit(1);
    }
    luaL_openlibs(L);
    luaL_requiref(L, "rmalab", luaopen_rmalab, 1);
    lua_pop(L, 1);
    return L;
}

/* Run a chunk; its first result, an integer, or -1 after an error. */
static long run(lua_State *L, const char *name, const char *code)
{
    long v = -1;
    if (luaL_loadbuffer(L, code, strlen(code), name) || lua_pcall(L, 0, 1, 0)) {
        fprintf(stderr, "rank %d: %s: %s\n", rank, name, luaL_tolstring(L, -1, NULL));
        lua_pop(L, 1);
        check(0, name);
    } else if (lua_isinteger(L, -1)) {
        v = (long)lua_tointeger(L, -1);
    }
    lua_pop(L, 1);
    return v;
}

/* rl.debug.stats()[field] after a full collection. */
static long stat_of(lua_State *L, const char *field)
{
    char code[200];
    snprintf(code, sizeof code,
             "collectgarbage() collectgarbage() return rmalab.debug.stats().%s", field);
    return run(L, "stats", code);
}

/* Windows and a keyval in A, a window in B: each state counts its own, and
 * each delete callback runs in the state that set it. */
static void own_stats_and_callbacks(lua_State *A, lua_State *B)
{
    run(A, "A: make", "kv = rmalab.keyval{ delete = function(w, kv, v) deleted = v end }\n"
                      "a1 = rmalab.win_allocate(16, { name = 'a1' })\n"
                      "a1:set_attr(kv, 'from A')\n"
                      "do local lost = rmalab.win_allocate(16, { name = 'a2' }) end");
    run(B, "B: make", "kv = rmalab.keyval{ delete = function(w, kv, v) deleted = v end }\n"
                      "b1 = rmalab.win_allocate(16, { name = 'b1' })\n"
                      "b1:set_attr(kv, 'from B')");
    check(stat_of(A, "wins") == 2, "A counts its live window and the one it leaked");
    check(stat_of(B, "wins") == 1, "B counts only its own window");
    check(stat_of(A, "keyvals") == 1 && stat_of(B, "keyvals") == 1, "one keyval each");
    long refs_a = stat_of(A, "refs"), refs_b = stat_of(B, "refs");
    check(refs_a > 0 && refs_b > 0, "each state counts its own registry references");

    run(A, "A: free", "a1:free() kv:free()");
    check(run(A, "A: deleted", "return deleted == 'from A' and 1 or 0") == 1,
          "A's callback ran in A");
    check(run(B, "B: not yet", "return deleted == nil and 1 or 0") == 1,
          "B's callback did not run for A's window");
    run(B, "B: free", "b1:free() kv:free()");
    check(run(B, "B: deleted", "return deleted == 'from B' and 1 or 0") == 1,
          "B's callback ran in B");
    check(stat_of(A, "refs") == 0 && stat_of(B, "refs") == 0, "no references left");
    check(stat_of(A, "keyvals") == 0 && stat_of(B, "keyvals") == 0, "no keyvals left");
    check(stat_of(A, "wins") == 1, "A still counts the window it leaked");
    check(stat_of(B, "wins") == 0, "B leaked nothing");
}

/* Windows created in turn by A and B and never freed, collected by the
 * two ranks in opposite orders. */
static void interleaved_leaks(lua_State *A, lua_State *B)
{
    run(A, "A: x1", "x1 = rmalab.win_allocate(16, { name = 'x1' })");
    run(B, "B: y1", "y1 = rmalab.win_create(16, { name = 'y1' })");
    run(A, "A: x2", "x2 = rmalab.win_create_dynamic{ name = 'x2' }");
    run(B, "B: y2", "y2 = rmalab.win_allocate(8, { name = 'y2' }) y2:fence()");
    lua_State *first = rank == 0 ? A : B, *second = rank == 0 ? B : A;
    run(first, "drop", "x1, x2, y1, y2 = nil collectgarbage() collectgarbage()");
    run(second, "drop", "x1, x2, y1, y2 = nil collectgarbage() collectgarbage()");
    check(stat_of(A, "wins") == 3, "A counts the three windows it leaked");
    check(stat_of(B, "wins") == 2, "B counts the two windows it leaked");
}

/* Names matched by address (lua/lnames.h) are the first state's: a
 * reduction's op, a lock's kind and a get's type work alike in a state that
 * opened the module later, and in one opened after the first closed (which
 * takes the names over), and a bad name still fails by its rule. */
static long names_work(lua_State *L, const char *name)
{
    return run(L, name,
               "local c = rmalab.world\n"
               "local w <close> = rmalab.win_allocate(8, { disp_unit = 8 })\n"
               "w:lock(c:rank(), 'exclusive') w:write(0, 'int64', 5) w:unlock(c:rank())\n"
               "w:lock(c:rank(), 'shared') local r = w:get(c:rank(), 0, 'int64')\n"
               "w:unlock(c:rank())\n"
               "local ok, e = pcall(c.allreduce, c, 1, 'SUM')\n"
               "assert(not ok and tostring(e):find('SUM'), tostring(e))\n"
               "ok, e = pcall(w.lock, w, 0, 'Shared')\n"
               "assert(not ok and tostring(e):find('invalid option'), tostring(e))\n"
               "return math.tointeger(c:allreduce(1.5, 'sum')) + c:allreduce(2, 'max')\n"
               "  + r:value()");
}

int main(void)
{
    long before = rmalab_debug_live_allocs();
    lua_State *A = open_state(), *B = open_state();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    check(stat_of(A, "wins") == 0 && stat_of(B, "wins") == 0, "two fresh states");
    own_stats_and_callbacks(A, B);
    interleaved_leaks(A, B);
    check(names_work(A, "A: names") == 10 && names_work(B, "B: names") == 10,
          "the names in the first state and in the second");

    /* A started MPI; closing it first hands its leaked windows to B, and
     * MPI stays up for B. */
    lua_close(A);
    int finalized = 1;
    MPI_Finalized(&finalized);
    check(!finalized, "MPI outlives the state that started it");
    check(run(B, "B: after A",
              "local w <close> = rmalab.win_allocate(16, { disp_unit = 8 })\n"
              "local peer = 1 - rmalab.world:rank()\n"
              "w:fence() w:put(peer, 0, 'int64', 7) w:fence()\n"
              "rmalab.world:barrier()\n"
              "return w:read(0, 'int64')") == 7,
          "B still works after A closed");
    lua_State *C = open_state();
    check(names_work(B, "B: names") == 10 && names_work(C, "C: names") == 10,
          "the names after the first state closed, and in a state opened then");
    lua_close(C);
    int mine = failures, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check(all == 0, "every rank passed so far");

    /* The last state frees every leaked window, in one order on every
     * rank, and finalises MPI. */
    lua_close(B);
    MPI_Finalized(&finalized);
    check(finalized, "the last state to close finalised MPI");
    check(rmalab_debug_live_allocs() == before, "the core holds no memory any more");
    printf("rank %d: %s\n", rank, failures ? "FAILED" : "passed");
    return failures != 0;
}
