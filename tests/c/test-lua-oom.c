/* Lua running out of memory inside the rmalab module: a Lua state whose
 * allocator fails runs a script that uses info objects, hint checks,
 * reports, diagnostics and agreements, windows with attributes and delete
 * callbacks, RMA with results, and epochs. Two sweeps go over every
 * allocation n the script makes: in the first, allocations fail from the
 * nth on, for good; in the second, the nth fails and so does its retry
 * after Lua's emergency collection, and then memory is back, so that
 * errors are built and handled with memory to spare.
 *
 * For every n: nothing crashes; the script succeeds or raises an error;
 * once allocations work again, a full collection leaves no info object,
 * keyval, communicator or registry reference counted by rl.debug.stats(),
 * and at most the one window whose creation failed after MPI had made it
 * (left to __gc, which reports it and files it for release); after
 * lua_close the allocator holds no byte, and the core holds what it held
 * before (rmalab/debug.h): what the module took from the core came back,
 * the leaked window included (a window of one rank is freed as its state
 * closes). Run on one rank: every window is then the rank's alone, and no
 * failure on one rank can leave another waiting in a collective.
 *
 * An error inside an epoch leaves the window in it, and win:free() then
 * refuses to free it (an open PSCW epoch cannot even be closed at exit), so
 * the script closes its epochs on the way out, as a careful program would.
 * The standard libraries are opened with allocations working; the failures
 * start at require "rmalab". LUA_OOM_VERBOSE=1 shows each run. */
#include <mpi.h>
#include <rmalab/debug.h>
#include <rmalab/rmalab.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Defined in lua/rmalab.c (lua_binding_dep); no public header declares it. */
#include <rmalab-embed.h>

static const char script[] =
    "local rl = require 'rmalab'\n"
    "local info <close> = rl.info{ no_locks = true, accumulate_ordering = 'none', n = 3 }\n"
    "info:set('list', 'a, b ,c')\n"
    "assert(#info:get_list('list') == 3 and info:get_int('n') == 3)\n"
    "local copy <close> = info:dup()\n"
    "for k, v in pairs(copy) do assert(info:get(k) == v) end\n"
    "assert(not pcall(info.delete, info, 'absent'))\n"
    "local env <close> = rl.info_env()\n"
    "assert(#rl.hints.check('win', { no_lock = 'true', accumulate_ordering = 'x' }) == 2)\n"
    "assert(#rl.hints.catalog('win') > 0)\n"
    "local cinfo <close> = rl.world:get_info()\n"
    "assert(#rl.world:hints() >= 0 and #rl.world:check_hints() == 0)\n"
    "assert(rl.world:gather(string.rep('g', 100))[1] == string.rep('g', 100))\n"
    "local deleted = 0\n"
    "local kv <close> = rl.keyval{ delete = function(w, kv, v, x) deleted = deleted + 1 end,\n"
    "                              extra = { 'extra' } }\n"
    "local w <close>, diags = rl.win_allocate(64, { disp_unit = 8, name = 'oom',\n"
    "    info = { no_locks = 'maybe', rmalab_pscw = 'rma' } })\n"
    "assert(#diags == 1)\n"
    "local me = { 0 }\n"
    "local function settle()\n"
    "  pcall(w.complete, w)\n"
    "  if not select(2, pcall(w.test, w)) then\n"
    "    pcall(w.start, w, me) pcall(w.complete, w) pcall(w.wait, w)\n"
    "  end\n"
    "  pcall(w.fence, w, 'nosucceed')\n"
    "end\n"
    "local settled <close> = setmetatable({}, { __close = settle })\n"
    "w:set_attr(kv, { 'a table' })\n"
    "w:set_attr(kv, 'replaced')\n"
    "assert(w:get_attr(kv) == 'replaced' and deleted == 1)\n"
    "assert(w:get_attr(rl.WIN_SIZE) == 64)\n"
    "local got <close> = w:get_info()\n"
    "assert(#w:hints() > 0 and #w:check_hints() == 0)\n"
    "assert(#w:set_info{ accumulate_ops = 'same_op' } == 0)\n"
    "w:fence()\n"
    "w:put(0, 1, 'int64', { 1, 2, 3 })\n"
    "w:fence()\n"
    "local r = w:get(0, 1, 'int64', 3)\n"
    "assert(not pcall(r.values, r))\n"
    "w:fence()\n"
    "assert(#r:values() == 3 and w:epochs().access == 'fence')\n"
    "w:fence('nosucceed')\n"
    "w:post(me) w:start(me)\n"
    "local f = w:fetch_and_op(0, 1, 'int64', 10, 'sum')\n"
    "w:complete() w:wait()\n"
    "assert(f:value() == 1 and w:read(1, 'int64') == 11)\n"
    "w:set_attr(kv, 42)\n"
    "w:free()\n"
    "assert(deleted == 3)\n"
    "local d <close> = rl.win_create_dynamic{ name = 'dynamic' }\n"
    "d:detach(d:attach(16))\n"
    "d:free()\n"
    "return 'done'\n";

/* The allocator: live bytes, and allocations (or growths) counted so that
 * `fail_len` of them fail from the nth on. Shrinking never fails, as Lua
 * requires. */
typedef struct {
    size_t live;
    long count, fail_from, fail_len; /* fail_from 0: nothing fails */
} counter;

static void *counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    counter *c = ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        c->live -= old;
        return NULL;
    }
    if (nsize > old && ++c->count >= c->fail_from && c->fail_from > 0 &&
        c->count - c->fail_from < c->fail_len)
        return NULL;
    void *p = realloc(ptr, nsize);
    if (p)
        c->live = c->live - old + nsize;
    return p;
}

static int failures;

static void fail(long n, const char *what, long got)
{
    if (failures++ < 20)
        printf("not ok: fail from allocation %ld: %s (%ld)\n", n, what, got);
}

/* After a run, with allocations working: the counts of rl.debug.stats().
 * Returns the windows still counted, or -1 when the module is not there
 * (require failed). */
static long check_stats(lua_State *L, long n)
{
    static const char code[] =
        "collectgarbage() collectgarbage()\n"
        "local rl = package.loaded.rmalab\n"
        "if not rl then return end\n"
        "local s = rl.debug.stats()\n"
        "return s.infos, s.keyvals, s.comms, s.refs, s.wins\n";
    if (luaL_loadbuffer(L, code, sizeof code - 1, "=stats") || lua_pcall(L, 0, 5, 0)) {
        fail(n, lua_tostring(L, -1), 0);
        return -1;
    }
    if (lua_isnil(L, 1))
        return -1;
    static const char *const names[] = {"infos", "keyvals", "comms", "refs"};
    for (int i = 0; i < 4; i++)
        if (lua_tointeger(L, i + 1) != 0)
            fail(n, names[i], (long)lua_tointeger(L, i + 1));
    long wins = (long)lua_tointeger(L, 5);
    if (wins > 1)
        fail(n, "windows left", wins);
    lua_settop(L, 0);
    return wins;
}

static int run_script(lua_State *L)
{
    luaL_requiref(L, "rmalab", luaopen_rmalab, 0);
    lua_pop(L, 1);
    if (luaL_loadbuffer(L, script, sizeof script - 1, "=oom"))
        return lua_error(L);
    lua_call(L, 0, 1);
    return 1;
}

/* One run with `len` allocations failing from the nth made after the
 * standard libraries (n = 0: none fails). Returns the pcall's status, or
 * -1 without a state; *made is the number of allocations the run made
 * after the standard libraries, *leaked whether a window was left to
 * __gc. */
static int run_once(long n, long len, long *made, long *leaked)
{
    counter c = {.fail_len = len};
    *made = *leaked = 0;
    lua_State *L = lua_newstate(counting_alloc, &c);
    if (!L)
        return -1;
    luaL_openlibs(L);
    long base = c.count;
    c.fail_from = n ? base + n : 0;
    lua_pushcfunction(L, run_script);
    int status = lua_pcall(L, 0, 1, 0);
    c.fail_from = 0;
    if (status == LUA_OK && strcmp(lua_tostring(L, -1), "done") != 0)
        fail(n, "the script returned something else", 0);
    if (status != LUA_OK && getenv("LUA_OOM_VERBOSE"))
        fprintf(stderr, "run %ld: status %d: %s\n", n, status, luaL_tolstring(L, -1, NULL));
    c.fail_from = 0;
    *made = c.count - base;
    lua_settop(L, 0);
    *leaked = check_stats(L, n) > 0;
    lua_close(L);
    if (c.live != 0)
        fail(n, "bytes left in the Lua allocator", (long)c.live);
    return status;
}

/* Sweep n over every allocation of the script, `len` failing from the
 * nth, until a run makes fewer than n allocations (the count varies a
 * little from run to run: Lua seeds its string hashes anew for every
 * state); that run must succeed. `what` names the sweep. */
static void sweep(long total, long len, const char *what)
{
    long before = rmalab_debug_live_allocs(); /* what earlier runs left for good */
    long errors = 0, successes = 0, windows_left = 0, made = 0, leaked, n;
    int failed = failures;
    for (n = 1; n <= 4 * total; n++) {
        if (getenv("LUA_OOM_VERBOSE"))
            fprintf(stderr, "%s: run %ld\n", what, n);
        int status = run_once(n, len, &made, &leaked);
        long core = rmalab_debug_live_allocs();
        if (core != before)
            fail(n, "core allocations not returned", core - before);
        windows_left += leaked;
        errors += status != LUA_OK;
        successes += status == LUA_OK;
        if (n > made) { /* nothing failed */
            if (status != LUA_OK)
                fail(n, "a run with no failure did not succeed", status);
            break;
        }
    }
    if (n > 4 * total)
        fail(n, "the sweep did not end", made);
    failed = failures - failed;
    printf("%s: %s: %ld allocations swept: %ld runs raised an error, %ld succeeded; %ld left "
           "a window to __gc; %d check%s failed\n",
           failed ? "not ok" : "ok", what, n - 1, errors, successes, windows_left, failed,
           failed == 1 ? "" : "s");
}

int main(void)
{
    int provided, size;
    setvbuf(stdout, NULL, _IOLBF, 0);
    MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 1) {
        fprintf(stderr, "test-lua-oom runs on one rank\n");
        MPI_Finalize();
        return 1;
    }
    long total, leaked;
    if (run_once(0, 0, &total, &leaked) != LUA_OK || leaked) {
        printf("not ok: the script fails with memory to spare\n");
        MPI_Finalize();
        return 1;
    }
    /* Memory runs out for good; or one allocation fails, and its retry
     * after Lua's emergency collection, and then memory is back: errors are
     * built and handled with memory to spare. */
    sweep(total, LONG_MAX, "from the nth allocation on");
    sweep(total, 2, "the nth allocation and its retry");
    MPI_Finalize();
    return failures != 0;
}
