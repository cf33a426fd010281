/* The Lua executor of a rank (exec.h). It keeps the shape of lua.c: a chunk
 * is tried as `return <chunk>` first, runs under a message handler, and an
 * interrupt is a debug hook set from outside. What the REPL adds is in the
 * Lua prelude below: the session's environment, in which top-level locals
 * (rewritten by locals.c) persist, the formatting of results, and the
 * capture of print and io.write. */
#include "exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <rmalab-embed.h>

#include "../wire/channel.h" /* CHAN_MAX_FRAME */
#include "locals.h"

struct exec {
    lua_State *L;
    int repl;
    exec_out_fn out;
    exec_event_fn event;
    void *out_ud;
    volatile int interrupted;
    int finder; /* the last error's err.finder, or -1 (exec_error_finder) */
    int no_hurry; /* R.hurry(false): this rank's calls ask no rank to hurry (exec_hurries) */
};

/* The REPL's helpers, kept in the registry as "rmalab.repl". */
static const char prelude[] =
    "local R, G = {}, _G\n"
    "local locals, declared = {}, {}\n"
    "R.env = setmetatable({}, {\n"
    "  __index = function(_, k) if declared[k] then return locals[k] end return G[k] end,\n"
    "  __newindex = function(_, k, v) if declared[k] then locals[k] = v else G[k] = v end end,\n"
    "})\n"
    "function R.declare(...) for i = 1, select('#', ...) do declared[select(i, ...)] = true end end\n"
    "function R.names() local t = {} for k in pairs(declared) do t[#t + 1] = k end return t end\n"
    "local function key_text(k) if type(k) == 'string' and k:match('^[%a_][%w_]*$') then\n"
    "  return k end return '[' .. R.fmt(k, 1) .. ']' end\n"
    "function R.fmt(v, depth)\n"
    "  local t = type(v)\n"
    "  if t == 'string' then\n"
    "    if #v > 200 then v = v:sub(1, 200) .. '...' end\n"
    "    return depth == 0 and v or string.format('%q', v):gsub('\\\\\\n', '\\\\n') end\n"
    "  local mt = getmetatable(v)\n"
    "  if t ~= 'table' or (type(mt) == 'table' and mt.__tostring) then return tostring(v) end\n"
    "  if depth >= 3 then return '{...}' end\n"
    "  local parts, n, seq = {}, 0, #v\n"
    "  for i = 1, seq do n = n + 1 if n > 10 then parts[#parts + 1] = '...' break end\n"
    "    parts[#parts + 1] = R.fmt(v[i], depth + 1) end\n"
    "  local keys = {}\n"
    "  for k in pairs(v) do if not (math.type(k) == 'integer' and k >= 1 and k <= seq) then\n"
    "    keys[#keys + 1] = k end end\n"
    "  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)\n"
    "  for _, k in ipairs(keys) do n = n + 1 if n > 10 then parts[#parts + 1] = '...' break end\n"
    "    parts[#parts + 1] = key_text(k) .. ' = ' .. R.fmt(v[k], depth + 1) end\n"
    "  return '{' .. table.concat(parts, ', ') .. '}'\n"
    "end\n"
    "function R.results(...)\n"
    "  local n = select('#', ...) if n == 0 then return nil end\n"
    "  G._ = (...)\n"
    "  local t = {} for i = 1, n do t[i] = R.fmt((select(i, ...)), 0) end\n"
    "  return table.concat(t, '\\t')\n"
    "end\n"
    "function R.errinfo(e)\n" /* class, message, the rank that found it (err.finder) */
    "  local ok, cls = pcall(function() return e.class end)\n"
    "  if ok and type(cls) == 'string' then\n"
    "    local f = e.finder\n"
    "    return cls, tostring(e.message), math.type(f) == 'integer' and f or -1 end\n"
    "  return '', tostring(e), -1\n"
    "end\n"
    "function R.complete(prefix)\n"
    "  local path, sep, part = prefix:match('^(.-)([.:]?)([%w_]*)$')\n"
    "  local out, seen = {}, {}\n"
    "  local function add(k) if type(k) == 'string' and k:sub(1, #part) == part and\n"
    "    k:match('^[%a_][%w_]*$') and not seen[k] then seen[k] = true\n"
    "    out[#out + 1] = path .. sep .. k end end\n"
    "  if sep == '' then\n"
    "    for k in pairs(declared) do add(k) end for k in pairs(G) do add(k) end\n"
    "  else\n"
    "    local obj = R.env\n"
    "    for name in path:gmatch('[^.:]+') do\n"
    "      local ok, v = pcall(function() return obj[name] end)\n"
    "      obj = ok and v or nil if obj == nil then break end end\n"
    "    if type(obj) == 'table' and sep == '.' then for k in pairs(obj) do add(k) end end\n"
    "    local mt = obj ~= nil and getmetatable(obj)\n"
    "    if type(mt) == 'table' and type(mt.__index) == 'table' then\n"
    "      for k in pairs(mt.__index) do add(k) end end\n"
    "  end\n"
    "  table.sort(out) return out\n"
    "end\n"
    "local RL = G.rmalab\n"
    "function R.timeline(w)\n" /* :timeline under --json: the lanes, then the picture */
    "  local T = RL.trace\n"
    "  local t = T.timeline(w) if t then print(t) end\n"
    "  local set\n" /* collective over the window, or the world; nil but on rank 0 */
    "  if type(w) == 'userdata' then set = w:trace_events() else set = T.events() end\n"
    "  if not set or #set.events == 0 then return end\n"
    "  local opts = {last = 40}\n"
    "  if type(w) ~= 'userdata' then\n"
    "    local latest = set.events[1]\n"
    "    for _, e in ipairs(set.events) do if e.t1 > latest.t1 then latest = e end end\n"
    "    opts.window = w or set.windows[latest.win].key\n"
    "  end\n"
    "  R.display('image/svg+xml', T.svg_text(set, opts))\n"
    "end\n"
    "function R.trace_svg()\n" /* :trace svg with no file, under --json */
    "  local set = RL.trace.events()\n"
    "  if set and #set.events > 0 then R.display('image/svg+xml', RL.trace.svg_text(set)) end\n"
    "end\n"
    "return R\n";

/* print and io.write while a chunk runs: to the executor's output. */
static int repl_write(lua_State *L, int sep)
{
    exec *x = *(exec **)lua_getextraspace(L);
    int n = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 1; i <= n; i++) {
        if (sep && i > 1)
            luaL_addchar(&b, '\t');
        luaL_tolstring(L, i, NULL);
        luaL_addvalue(&b);
    }
    if (sep)
        luaL_addchar(&b, '\n');
    luaL_pushresult(&b);
    size_t len;
    const char *s = lua_tolstring(L, -1, &len);
    if (x->out)
        x->out(x->out_ud, s, len);
    else
        fwrite(s, 1, len, stdout);
    return 0;
}

static int l_print(lua_State *L) { return repl_write(L, 1); }

static int l_write(lua_State *L)
{
    repl_write(L, 0);
    lua_getglobal(L, "io");
    lua_getfield(L, -1, "stdout");
    return 1;
}

static int l_exit(lua_State *L)
{
    return luaL_error(L, "os.exit would end this rank and the whole MPI job with it; "
                         "use :quit to end the session");
}

static void install_repl_io(lua_State *L)
{
    lua_pushcfunction(L, l_print);
    lua_setglobal(L, "print");
    lua_getglobal(L, "io");
    lua_pushcfunction(L, l_write);
    lua_setfield(L, -2, "write");
    lua_pop(L, 1);
    lua_getglobal(L, "os");
    lua_pushcfunction(L, l_exit);
    lua_setfield(L, -2, "exit");
    lua_pop(L, 1);
}

/* The module's warnings (rmalab-embed.h): while a chunk or scenario runs,
 * where its print goes; else on stderr. */
static void exec_warn(void *ud, const char *text)
{
    exec *x = ud;
    size_t n = strlen(text);
    char *line = x->out ? malloc(n + 1) : NULL;
    if (!line) {
        fprintf(stderr, "%s\n", text);
        return;
    }
    memcpy(line, text, n);
    line[n] = '\n';
    x->out(x->out_ud, line, n + 1);
    free(line);
}

/* R.display(mime, data): a picture for the front end, while a chunk runs
 * (an EVENT "display"; JSON lines show it, other renderers do not). */
static int l_display(lua_State *L)
{
    exec *x = *(exec **)lua_getextraspace(L);
    const char *mime = luaL_checkstring(L, 1);
    size_t len;
    const char *data = luaL_checklstring(L, 2, &len);
    if (len + 4096 > CHAN_MAX_FRAME)
        return luaL_error(L, "the picture (%d bytes) is too large to show here; write it to a "
                             "file (:trace svg FILE)", (int)len);
    if (x->event)
        x->event(x->out_ud, "display", mime, "", data);
    return 0;
}

/* R.hurry(on) -> whether it was on: do this rank's passive-target calls
 * have the front end hurry their targets (rank.c)? On by default; off is
 * for tests, which compare epochs with and without in one session, under
 * the same load (tests/repl/passive-2.in), where two sessions could meet
 * different loads. */
static int l_hurry(lua_State *L)
{
    exec *x = *(exec **)lua_getextraspace(L);
    luaL_checktype(L, 1, LUA_TBOOLEAN);
    lua_pushboolean(L, !x->no_hurry);
    x->no_hurry = !lua_toboolean(L, 1);
    return 1;
}

int exec_hurries(const exec *x) { return !x->no_hurry; }

static int open_state(lua_State *L)
{
    exec *x = lua_touserdata(L, 1);
    luaL_openlibs(L);
    luaL_requiref(L, "rmalab", luaopen_rmalab, 1);
    lua_pop(L, 1);
    rmalab_lua_set_warnf(L, exec_warn, x);
    lua_pushboolean(L, 1); /* errors are ours to report (rl.main) */
    lua_setfield(L, LUA_REGISTRYINDEX, RMALAB_LUA_HOST_REPORTS);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    lua_pushcfunction(L, luaopen_rmalab_test);
    lua_setfield(L, -2, "rmalab.test");
    lua_pop(L, 1);
    if (x->repl) {
        install_repl_io(L);
        if (luaL_loadbuffer(L, prelude, sizeof prelude - 1, "=repl") != LUA_OK)
            return lua_error(L);
        lua_call(L, 0, 1);
        lua_pushcfunction(L, l_display);
        lua_setfield(L, -2, "display");
        lua_pushcfunction(L, l_hurry);
        lua_setfield(L, -2, "hurry");
        lua_setfield(L, LUA_REGISTRYINDEX, "rmalab.repl");
    }
    return 0;
}

exec *exec_new(int repl)
{
    exec *x = calloc(1, sizeof *x);
    if (!x || !(x->L = luaL_newstate())) {
        free(x);
        return NULL;
    }
    x->repl = repl;
    x->finder = -1;
    *(exec **)lua_getextraspace(x->L) = x;
    lua_pushcfunction(x->L, open_state);
    lua_pushlightuserdata(x->L, x);
    if (lua_pcall(x->L, 1, 0, 0) != LUA_OK) {
        fprintf(stderr, "rmalab: %s\n", lua_tostring(x->L, -1));
        lua_close(x->L);
        free(x);
        return NULL;
    }
    return x;
}

void exec_free(exec *x)
{
    if (!x)
        return;
    lua_close(x->L);
    free(x);
}

static void interrupt_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    lua_sethook(L, NULL, 0, 0);
    luaL_error(L, "interrupted");
}

void exec_interrupt(exec *x)
{
    x->interrupted = 1;
    lua_sethook(x->L, interrupt_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT,
                1);
}

/* Push R (the prelude's table). */
static void push_repl(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "rmalab.repl");
}

/* Load the chunk as `return <chunk>`, else with its top-level locals
 * rewritten (declaring them in the session); the function is left on the
 * stack with the session's environment as its _ENV. */
static int load_chunk(lua_State *L, const char *name, const char *chunk, size_t len)
{
    char at[40];
    snprintf(at, sizeof at, "=%s", name);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, "return ");
    luaL_addlstring(&b, chunk, len);
    luaL_pushresult(&b);
    size_t rl;
    const char *ret = lua_tolstring(L, -1, &rl);
    int status = luaL_loadbuffer(L, ret, rl, at);
    lua_remove(L, -2);
    if (status != LUA_OK) {
        lua_pop(L, 1);
        size_t outlen;
        char *names = NULL;
        int nnames = 0;
        char *text = locals_rewrite(chunk, len, &outlen, &names, &nnames);
        if (!text)
            return luaL_error(L, "out of memory");
        status = luaL_loadbuffer(L, text, outlen, at);
        free(text);
        if (status == LUA_OK && nnames) {
            push_repl(L);
            lua_getfield(L, -1, "declare");
            const char *p = names;
            for (int i = 0; i < nnames; i++, p += strlen(p) + 1)
                lua_pushstring(L, p);
            lua_call(L, nnames, 0);
            lua_pop(L, 1);
        }
        free(names);
    }
    if (status != LUA_OK)
        return status;
    push_repl(L);
    lua_getfield(L, -1, "env");
    lua_setupvalue(L, -3, 1);
    lua_pop(L, 1);
    return LUA_OK;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

int exec_chunk(exec *x, const char *name, const char *chunk, size_t len, exec_out_fn out,
               exec_event_fn ev, void *ud, char **text, char *cls, size_t clssize)
{
    lua_State *L = x->L;
    lua_settop(L, 0);
    lua_sethook(L, NULL, 0, 0); /* an interrupt that came after the last chunk ended */
    x->out = out;
    x->event = ev;
    x->out_ud = ud;
    x->interrupted = 0;
    cls[0] = '\0';
    x->finder = -1;
    int status = load_chunk(L, name, chunk, len);
    if (status == LUA_OK)
        status = lua_pcall(L, 0, LUA_MULTRET, 0);
    lua_sethook(L, NULL, 0, 0);
    x->out = NULL;
    x->event = NULL;
    push_repl(L);
    if (status == LUA_OK) {
        lua_getfield(L, -1, "results");
        lua_remove(L, -2);
        lua_insert(L, 1);
        status = lua_pcall(L, lua_gettop(L) - 1, 1, 0);
        const char *r = status == LUA_OK ? lua_tostring(L, -1) : "(results could not be shown)";
        *text = xstrdup(r ? r : "");
        lua_settop(L, 0);
        return EXEC_OK;
    }
    lua_getfield(L, -1, "errinfo");
    lua_pushvalue(L, -3);
    if (lua_pcall(L, 1, 3, 0) == LUA_OK) {
        snprintf(cls, clssize, "%s", lua_tostring(L, -3));
        *text = xstrdup(lua_tostring(L, -2));
        x->finder = (int)lua_tointeger(L, -1);
    } else {
        *text = xstrdup("(an error object that cannot be shown)");
    }
    lua_settop(L, 0);
    return x->interrupted ? EXEC_INTERRUPTED : EXEC_ERROR;
}

int exec_complete(exec *x, const char *prefix, char ***names, int *n)
{
    lua_State *L = x->L;
    *names = NULL;
    *n = 0;
    lua_settop(L, 0);
    push_repl(L);
    lua_getfield(L, -1, "complete");
    lua_pushstring(L, prefix);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK || !lua_istable(L, -1)) {
        lua_settop(L, 0);
        return -1;
    }
    int k = (int)luaL_len(L, -1);
    if (k > 200)
        k = 200;
    *names = calloc((size_t)k + 1, sizeof **names);
    for (int i = 0; *names && i < k; i++) {
        lua_geti(L, -1, i + 1);
        (*names)[(*n)++] = xstrdup(lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    lua_settop(L, 0);
    return 0;
}

/* Script errors: the rmalab class and message, or the Lua message, with a
 * traceback; the error's finder (err.finder) is kept (exec_error_finder). */
static int script_msgh(lua_State *L)
{
    const char *msg = NULL;
    exec *x = *(exec **)lua_getextraspace(L);
    x->finder = -1;
    if (lua_type(L, 1) == LUA_TTABLE || lua_type(L, 1) == LUA_TUSERDATA) {
        if (lua_getfield(L, 1, "class") == LUA_TSTRING &&
            lua_getfield(L, 1, "message") == LUA_TSTRING) {
            msg = lua_pushfstring(L, "%s: %s", lua_tostring(L, -2), lua_tostring(L, -1));
            if (lua_getfield(L, 1, "finder") == LUA_TNUMBER && lua_isinteger(L, -1))
                x->finder = (int)lua_tointeger(L, -1);
            lua_pop(L, 1);
        }
    }
    if (!msg)
        msg = luaL_tolstring(L, 1, NULL);
    luaL_traceback(L, L, msg, 1);
    return 1;
}

/* rmalab.test's sink (lua/ltest.c): the event goes to the scenario's host. */
static int test_sink(lua_State *L)
{
    exec *x = *(exec **)lua_getextraspace(L);
    if (x->event)
        x->event(x->out_ud, luaL_optstring(L, 1, ""), luaL_optstring(L, 2, ""),
                 luaL_optstring(L, 3, ""), luaL_optstring(L, 4, ""));
    return 0;
}

/* comm:abort's hook (lua/lcomm.c): the host hears of it before MPI_Abort,
 * as an event ("abort", code). */
static int abort_hook(lua_State *L)
{
    exec *x = *(exec **)lua_getextraspace(L);
    if (x->event)
        x->event(x->out_ud, "abort", luaL_tolstring(L, 1, NULL), "", "");
    return 0;
}

int exec_file(exec *x, const char *path, exec_out_fn out, exec_event_fn ev, void *ud, char **text,
              char *cls, size_t clssize)
{
    lua_State *L = x->L;
    lua_settop(L, 0);
    lua_sethook(L, NULL, 0, 0);
    x->out = out;
    x->event = ev;
    x->out_ud = ud;
    x->interrupted = 0;
    cls[0] = '\0';
    x->finder = -1;
    *text = NULL;
    lua_pushcfunction(L, test_sink);
    lua_setfield(L, LUA_REGISTRYINDEX, RMALAB_LUA_TEST_SINK);
    lua_pushcfunction(L, abort_hook);
    lua_setfield(L, LUA_REGISTRYINDEX, RMALAB_LUA_ABORT_HOOK);
    lua_createtable(L, 0, 1);
    lua_pushstring(L, path);
    lua_rawseti(L, -2, 0);
    lua_setglobal(L, "arg");
    lua_pushcfunction(L, script_msgh);
    int status = luaL_loadfile(L, path);
    if (status == LUA_OK)
        status = lua_pcall(L, 0, 0, 1);
    lua_sethook(L, NULL, 0, 0);
    x->out = NULL;
    x->event = NULL;
    if (status != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        const char *colon = msg ? strstr(msg, ": ") : NULL;
        if (msg && colon && strncmp(msg, "ERR_", 4) == 0 && (size_t)(colon - msg) < clssize &&
            !memchr(msg, ' ', (size_t)(colon - msg)))
            snprintf(cls, clssize, "%.*s", (int)(colon - msg), msg);
        *text = xstrdup(msg ? msg : "(an error object that cannot be shown)");
    }
    lua_settop(L, 0);
    return status == LUA_OK ? EXEC_OK : x->interrupted ? EXEC_INTERRUPTED : EXEC_ERROR;
}

int exec_error_finder(const exec *x)
{
    return x->finder;
}

int exec_script(exec *x, const char *file, const char *code, int argc, char **argv, int rank)
{
    lua_State *L = x->L;
    x->finder = -1;
    lua_createtable(L, argc, 1);
    lua_pushstring(L, file ? file : "-e");
    lua_rawseti(L, -2, 0);
    for (int i = 0; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setglobal(L, "arg");
    lua_pushcfunction(L, script_msgh);
    int status = file ? luaL_loadfile(L, file) : luaL_loadbuffer(L, code, strlen(code), "=(-e)");
    if (status == LUA_OK) {
        for (int i = 0; i < argc; i++)
            lua_pushstring(L, argv[i]);
        status = lua_pcall(L, argc, 0, 1);
    }
    fflush(stdout);
    if (status != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        if (msg && x->finder >= 0 && x->finder != rank) { /* the finder prints the report */
            int head = (int)strcspn(msg, "\n");
            head -= head > 0 && msg[head - 1] == ':';
            fprintf(stderr, "[%d] error %.*s; rank %d reports it\n", rank, head, msg, x->finder);
        } else {
            fprintf(stderr, "[%d] error %s\n", rank, msg);
        }
        fflush(stderr);
        lua_settop(L, 0);
        rmalab_lua_exit_failed(); /* the others may wait for this rank: do not wait for them */
        return 1;
    }
    lua_settop(L, 0);
    return 0;
}
