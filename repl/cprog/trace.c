/* rmalab run --trace (trace.h): the set the interceptor wrote, read as a
 * Lua chunk in an empty environment (it holds one table constructor), and
 * handed to the writers in a Lua state of its own: no MPI, no module.
 *
 * The set's folder is made beside FILE (.rmalab-trace-XXXXXX), not in
 * TMPDIR: rank 0, which writes it, may run on another host, which is more
 * likely to share the output's folder than /tmp; and a folder that cannot
 * be written fails before the job rather than after it. */
#include "trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <rmalab-embed.h>

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n > m && strcmp(s + n - m, tail) == 0;
}

int cprog_trace_open(cprog_trace *t, const char *out)
{
    t->out = out;
    t->fn = ends_with(out, ".json") ? "chrome" : ends_with(out, ".svg") ? "svg_text" : NULL;
    if (!t->fn) {
        fprintf(stderr, "rmalab run: --trace %s: the file's name must end in .json (Perfetto "
                        "JSON) or .svg (an SVG picture)\n", out);
        return -1;
    }
    const char *slash = strrchr(out, '/');
    int n = slash ? (int)(slash - out) + (slash == out) : 1;
    snprintf(t->dir, sizeof t->dir, "%.*s/.rmalab-trace-XXXXXX", n, slash ? out : ".");
    if (strlen(out) > 4000 || !mkdtemp(t->dir)) {
        fprintf(stderr, "rmalab run: --trace %s: cannot make a temporary folder in %.*s: %s\n",
                out, n, slash ? out : ".", strlen(out) > 4000 ? "name too long"
                : strerror(errno));
        return -1;
    }
    snprintf(t->set, sizeof t->set, "%s/set.lua", t->dir);
    return 0;
}

/* Lua, protected: the set (upvalue 1 of the chunk: its path) through the
 * writer (upvalue 2: its name); the text, the number of events and the
 * number the rings dropped. */
static int render(lua_State *L)
{
    const char *path = lua_tostring(L, lua_upvalueindex(1));
    if (luaL_loadfilex(L, path, "t"))
        return lua_error(L);
    lua_newtable(L); /* the chunk's _ENV: it may build tables, nothing else */
    lua_setupvalue(L, -2, 1);
    lua_call(L, 0, 1);
    if (!lua_istable(L, -1))
        return luaL_error(L, "%s: not a trace set", path);
    rmalab_lua_trace_writers(L);
    lua_getfield(L, -1, lua_tostring(L, lua_upvalueindex(2)));
    lua_pushvalue(L, -3);
    lua_call(L, 1, 1);
    lua_getfield(L, -3, "events");
    lua_Integer n = luaL_len(L, -1);
    lua_pop(L, 1);
    lua_pushinteger(L, n);
    lua_getfield(L, -4, "dropped"); /* per rank: events the rings overwrote */
    lua_Integer dropped = 0, ranks = lua_istable(L, -1) ? luaL_len(L, -1) : 0;
    for (lua_Integer r = 1; r <= ranks; r++) {
        lua_geti(L, -1, r);
        dropped += lua_tointeger(L, -1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    lua_pushinteger(L, dropped);
    return 3;
}

static int write_text(const char *out, const char *text, size_t len)
{
    FILE *f = fopen(out, "w");
    if (!f) {
        fprintf(stderr, "rmalab run: the trace: %s: %s\n", out, strerror(errno));
        return -1;
    }
    size_t w = fwrite(text, 1, len, f);
    if (fclose(f) || w != len) {
        fprintf(stderr, "rmalab run: the trace: %s: %s\n", out, strerror(errno));
        return -1;
    }
    return 0;
}

/* FILE from the set; -1 after saying why not. */
static int convert(const cprog_trace *t)
{
    lua_State *L = luaL_newstate();
    if (!L)
        return -1;
    luaL_openlibs(L);
    lua_pushstring(L, t->set);
    lua_pushstring(L, t->fn);
    lua_pushcclosure(L, render, 2);
    int rc = -1;
    if (lua_pcall(L, 0, 3, 0) != LUA_OK) {
        fprintf(stderr, "rmalab run: the trace: %s\n", lua_tostring(L, -1));
    } else {
        size_t len = 0;
        const char *text = lua_tolstring(L, -3, &len);
        rc = write_text(t->out, text, len);
        if (rc == 0)
            fprintf(stderr, "rmalab run: the trace is in %s%s\n", t->out,
                    lua_tointeger(L, -2) == 0 ? " (nothing was recorded: no window was "
                    "created, or every one had the hint rmalab_trace = false)"
                    : ends_with(t->out, ".json") ? " (open it in ui.perfetto.dev)" : "");
        if (rc == 0 && lua_tointeger(L, -1) > 0)
            fprintf(stderr, "rmalab run: the trace lacks the first %lld events: each window "
                    "keeps its last 4096 per rank (raise it with the hint "
                    "rmalab_trace_size)\n", (long long)lua_tointeger(L, -1));
    }
    lua_close(L);
    return rc;
}

int cprog_trace_close(cprog_trace *t, int rc)
{
    int out = rc;
    if (access(t->set, F_OK) != 0) {
        fprintf(stderr, "rmalab run: no trace was written to %s: the program did not reach "
                        "MPI_Finalize on every rank\n", t->out);
        out = rc ? rc : 1;
    } else if (convert(t)) {
        out = rc ? rc : 1;
    }
    remove(t->set);
    char part[4300];
    snprintf(part, sizeof part, "%s.part", t->set);
    remove(part);
    rmdir(t->dir);
    return out;
}
