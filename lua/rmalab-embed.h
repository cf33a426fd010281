/* Embedding the rmalab Lua module in a C program: what a host may call
 * besides Lua's own API, and the registry keys it may set. Installed.
 *
 * WHO GETS WHAT. rmalab.so, the module that `require "rmalab"` loads,
 * exports the two luaopen_ functions and nothing else (lua/rmalab.map): it
 * embeds its own copy of the core, which must not mix with a librmalab.so
 * the program may also link. A host that loads rmalab.so can therefore use
 * the luaopen_ functions and the registry keys below, and nothing more; the
 * module's warnings then go to stderr. A host that links the binding
 * itself, as the REPL links the static library rmalab-lua of the build
 * (lua/meson.build), gets every function here; they act on the binding's
 * copy of the core, in the same program. */
#ifndef RMALAB_EMBED_H
#define RMALAB_EMBED_H

#include <lua.h>

/* The module and rmalab.test, for luaL_requiref or package.preload. */
int luaopen_rmalab(lua_State *L);
int luaopen_rmalab_test(lua_State *L);

/* For a host that started MPI (with MPI_THREAD_MULTIPLE) before any Lua
 * state loads the module: the next state to load it takes MPI over, and the
 * last to close finalises it, after the ranks agree on leaked windows. */
void rmalab_lua_host_hands_mpi(void);

/* The host's program failed on this rank (a script's error). At the end,
 * when not every rank reaches its exit within RMALAB_EXIT_TIMEOUT seconds,
 * the process then ends the job with MPI_Abort and status 1, after a line
 * that says so: MPI_Finalize would wait for the other ranks, which may be
 * waiting for this one. A program that did not fail finalises as before: its
 * ranks may end at different times. */
void rmalab_lua_exit_failed(void);

/* Where the warnings of L's state go (a window or communicator collected
 * without being freed, a race found in races:warn...): `text` has no final
 * newline and is valid during the call. `fn` runs inside the binding call
 * or the collection that warns, on its thread: it must not call Lua on L
 * or the module. NULL (the default): the text and a newline on stderr.
 * Call it after the module is loaded in L. */
typedef void (*rmalab_lua_warn_fn)(void *ud, const char *text);
void rmalab_lua_set_warnf(lua_State *L, rmalab_lua_warn_fn fn, void *ud);

/* Pushes the trace writers of rl.trace (lua/trace.lua, trace-svg.lua) as a
 * table, without loading the module or starting MPI: chrome(set) gives the
 * Perfetto JSON text, svg_text(set [, opts]) the SVG, timeline_text(set
 * [, opts]) the ASCII lanes, for a set in the form lua/ltrace.c describes
 * (rmalab run --trace reads one from a file). Their errors are plain Lua
 * errors. Returns 1 (one value pushed). */
int rmalab_lua_trace_writers(lua_State *L);

/* Registry keys a host may set in a state that loads the module (from C,
 * or from Lua through debug.getregistry()); also with rmalab.so. */
/* A function called, protected, with the exit code just before comm:abort
 * calls MPI_Abort, so that the host can say who aborted by its own means. */
#define RMALAB_LUA_ABORT_HOOK "rmalab.abort.hook"
/* A function that hears rmalab.test's events, set before the module
 * rmalab.test is first required (lua/ltest.c says what it is called with). */
#define RMALAB_LUA_TEST_SINK "rmalab.test.sink"
/* Any value but nil: the host reports an error that leaves its chunk and
 * ends the job itself (rmalab's script mode and REPL do); rl.main then lets
 * errors go on to it instead of ending the job. */
#define RMALAB_LUA_HOST_REPORTS "rmalab.host.reports"

#endif
