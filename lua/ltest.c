/* The module rmalab.test (docs/testing.md), written in Lua (test.lua) and
 * shipped inside the C module, so that `require "rmalab.test"` finds it
 * wherever `require "rmalab"` does: lua5.4's all-in-one loader looks for
 * luaopen_rmalab_test in rmalab.so, and the REPL preloads it.
 *
 * A host that runs scenarios (the `rmalab test` runner's ranks) stores a
 * function in the registry under RMALAB_LUA_TEST_SINK before the module is
 * first required; the module then reports each event to it:
 *   sink("case", name)                        a case starts
 *   sink("end", name, verdict, detail)        "pass", "fail" (detail: the
 *                                             failures) or "skip" (the why)
 * With no sink, each rank prints its own failures (standalone runs). */
#include "lrmalab.h"

#include "test-lua.h"

__attribute__((visibility("default"))) int luaopen_rmalab_test(lua_State *L);

int luaopen_rmalab_test(lua_State *L)
{
    if (luaL_loadbufferx(L, rmalab_test_lua, sizeof rmalab_test_lua, "=rmalab.test", "t"))
        return lua_error(L);
    lua_getfield(L, LUA_REGISTRYINDEX, RMALAB_LUA_TEST_SINK);
    lua_call(L, 1, 1);
    return 1;
}
