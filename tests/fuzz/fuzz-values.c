/* fuzz-values: the value decoder of communicators (lua/ldecode.c), on bytes
 * as they might arrive in a message.
 *
 * Decoding never crashes, never reads past the input and never allocates
 * more than a constant times it (./do fuzz limits memory); it either
 * pushes exactly one value or fails with ERR_ARG and a message, leaving
 * the stack as it was. A value it accepts encodes again, and those bytes
 * decode again, to the same value: nothing the decoder makes is refused
 * by the encoder, and the encoder loses no key, no subtype and no
 * buffer's type or element. */
#include <lauxlib.h>
#include <lualib.h>

#include "../../lua/lrmalab.h"
#include "fuzz.h"

static lua_State *state;
static lrm_bytes out;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    state = luaL_newstate();
    return state ? 0 : -1;
}

/* The values at a and b (absolute indices) are the same: numbers of one
 * subtype and the same bits (NaN's, -0.0), equal strings and booleans,
 * tables with the same keys to the same values. Decoded values nest at
 * most LRM_CODEC_DEPTH deep and have no cycles. */
static bool same(lua_State *L, int a, int b)
{
    int t = lua_type(L, a);
    if (t != lua_type(L, b))
        return false;
    if (t == LUA_TNUMBER && lua_isinteger(L, a) != lua_isinteger(L, b))
        return false;
    if (t == LUA_TNUMBER && !lua_isinteger(L, a)) {
        lua_Number x = lua_tonumber(L, a), y = lua_tonumber(L, b);
        return memcmp(&x, &y, sizeof x) == 0;
    }
    const lrm_buffer *x = t == LUA_TUSERDATA ? lrm_tobuffer(L, a) : NULL;
    const lrm_buffer *y = t == LUA_TUSERDATA ? lrm_tobuffer(L, b) : NULL;
    if (x || y) /* buffers: one type, the same elements */
        return x && y && x->type == y->type && x->n == y->n &&
               memcmp(x->p, y->p, (size_t)x->n * (size_t)x->size) == 0;
    if (t != LUA_TTABLE)
        return lua_rawequal(L, a, b);
    FUZZ_CHECK(lua_checkstack(L, 4), "out of Lua stack");
    long keys = 0, ok = 1;
    lua_pushnil(L);
    while (ok && lua_next(L, a)) { /* key value */
        keys++;
        lua_pushvalue(L, -2);
        lua_rawget(L, b); /* key value b[key] */
        ok = same(L, lua_gettop(L) - 1, lua_gettop(L));
        lua_pop(L, 2);
    }
    if (!ok) {
        lua_pop(L, 1);
        return false;
    }
    lua_pushnil(L);
    while (lua_next(L, b)) {
        keys--;
        lua_pop(L, 1);
    }
    return keys == 0;
}

typedef struct {
    const uint8_t *p;
    size_t n;
    int rc;
} job;

static int decode(lua_State *L)
{
    job *j = lua_touserdata(L, 1);
    lua_settop(L, 0);
    j->rc = lrm_decode(L, j->p, j->n);
    FUZZ_CHECK(lua_gettop(L) == (j->rc ? 0 : 1), "stack %d after status %d", lua_gettop(L),
               j->rc);
    FUZZ_CHECK(j->rc == RMALAB_OK || j->rc == RMALAB_ERR_ARG, "status %d", j->rc);
    FUZZ_CHECK(j->rc == RMALAB_OK || rmalab_errmsg()[0], "no message");
    if (j->rc)
        return 0;
    out.n = 0;
    int rc = lrm_encode(L, 1, &out, "value");
    FUZZ_CHECK(rc == RMALAB_OK, "a decoded value does not encode: %s", rmalab_errmsg());
    rc = lrm_decode(L, out.p, out.n);
    FUZZ_CHECK(rc == RMALAB_OK, "re-encoded bytes do not decode: %s", rmalab_errmsg());
    FUZZ_CHECK(same(L, 1, 2), "a value is not the same after encoding and decoding");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    job j = {data, size, 0};
    lua_pushcfunction(state, decode);
    lua_pushlightuserdata(state, &j);
    int st = lua_pcall(state, 1, 0, 0);
    FUZZ_CHECK(st == LUA_OK, "Lua error: %s", lua_tostring(state, -1));
    lua_settop(state, 0);
    lua_gc(state, LUA_GCCOLLECT);
    return 0;
}
