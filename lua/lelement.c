/* Buffers' elements: b[i] and b[i] = v, the hot path of typed buffers
 * (lbuffer.c makes them). The common case, an integer index in 1..#b of
 * a buffer not in flight, takes Lua's API calls and one test of the
 * in-flight flag (lrm_block.busy), nothing else; any other key, and a
 * busy buffer, go to the slow path: b.type and the methods, the index's
 * errors, and lbuffer.c's checks of what is in flight. */
#include <stdint.h>

#include "lrmalab.h"

static lua_Integer checkindex(lua_State *L, const lrm_buffer *b)
{
    lua_Integer i;
    if (lua_isinteger(L, 2))
        i = lua_tointeger(L, 2);
    else if (lua_type(L, 2) != LUA_TNUMBER || !lua_numbertointeger(lua_tonumber(L, 2), &i) ||
             (lua_Number)i != lua_tonumber(L, 2))
        return lrm_raisef(L, RMALAB_ERR_ARG, "buffer index is %s; buffers are indexed by "
                          "integers from 1", lua_type(L, 2) == LUA_TNUMBER ? "not an integer"
                                                                          : luaL_typename(L, 2));
    if (i < 1 || i > b->n)
        lrm_raisef(L, RMALAB_ERR_ARG, "buffer index %lld is outside 1..%lld (the buffer's "
                   "length)", (long long)i, (long long)b->n);
    return i;
}

/* Push element i. Doubles and int64s, the common cases, inline. */
static inline void push_element(lua_State *L, const lrm_buffer *b, lua_Integer i)
{
    const unsigned char *p = b->p + (i - 1) * b->size;
    if (b->type == RMALAB_DOUBLE) {
        double d;
        memcpy(&d, p, sizeof d);
        lua_pushnumber(L, d);
    } else if (b->type == RMALAB_INT64) {
        int64_t x;
        memcpy(&x, p, sizeof x);
        lua_pushinteger(L, (lua_Integer)x);
    } else {
        lrm_pushvalue(L, b->type, p);
    }
}

/* Element i of b at p, from the value at 3 as lvalues.c converts values
 * for windows (out of line: it needs a frame the fast path does not). */
__attribute__((noinline)) static void store_converted(lua_State *L, const lrm_buffer *b,
                                                      lua_Integer i, unsigned char *p)
{
    char call[32];
    snprintf(call, sizeof call, "b[%lld]", (long long)i);
    lrm_valsite site = {call, 0, NULL, NULL, true};
    lrm_storeelement(L, 3, 0, b->type, p, &site);
}

/* Store the value at 3 as element i: a number into a double and an
 * integer into an int64 inline (no rule can refuse them), the rest by
 * store_converted. */
static inline void store_element(lua_State *L, const lrm_buffer *b, lua_Integer i)
{
    unsigned char *p = b->p + (i - 1) * b->size;
    if (b->type == RMALAB_DOUBLE && lua_type(L, 3) == LUA_TNUMBER) {
        double d = lua_tonumberx(L, 3, NULL);
        memcpy(p, &d, sizeof d);
    } else if (b->type == RMALAB_INT64 && lua_isinteger(L, 3)) {
        int64_t x = lua_tointegerx(L, 3, NULL);
        memcpy(p, &x, sizeof x);
    } else {
        store_converted(L, b, i, p);
    }
}

/* The common case of b[i] and b[i] = v: the buffer, and in *i the index
 * at 2, an integer in 1..#b of a buffer not in flight; else NULL. Only the
 * tag is checked, with no API call: the VM calls the metamethods with a
 * buffer, __metatable keeps Lua code from calling them with anything else
 * but through the debug library, and other full userdata differ there. */
static inline lrm_buffer *fast(lua_State *L, lua_Integer *i)
{
    lrm_buffer *b = lua_touserdata(L, 1);
    if (!b || b->tag != &lrm_buffer_tag || !lua_isinteger(L, 2))
        return NULL;
    *i = lua_tointeger(L, 2);
    return (lua_Unsigned)*i - 1 < (lua_Unsigned)b->n && !b->blk->busy ? b : NULL;
}

/* b.type and the methods (upvalue 1), for a string key. */
__attribute__((noinline)) static int index_name(lua_State *L)
{
    lrm_buffer *b = lrm_checkbuffer(L, 1);
    const char *k = lua_tostring(L, 2);
    if (strcmp(k, "type") == 0)
        lua_pushstring(L, rmalab_type_name(b->type));
    else if (lua_rawget(L, lua_upvalueindex(1)) == LUA_TNIL)
        lrm_raisef(L, RMALAB_ERR_ARG, "b.%.40s: a buffer has no field \"%.40s\"; its elements "
                   "are b[1] to b[%lld], and its fields are type and its methods", k, k,
                   (long long)b->n);
    return 1;
}

/* The buffer at 1 and in *i the index at 2 but for the common case: the
 * errors of either, then the checks of what is in flight (a load, or a
 * store with `writes`). */
__attribute__((noinline)) static lrm_buffer *slow(lua_State *L, bool writes, lua_Integer *i)
{
    lrm_buffer *b = lrm_checkbuffer(L, 1);
    *i = checkindex(L, b);
    if (b->blk->busy)
        lrm_buffer_access(L, b, *i, *i, writes, NULL);
    return b;
}

static int buffer_index(lua_State *L)
{
    lua_Integer i;
    lrm_buffer *b = fast(L, &i);
    if (!b && lua_type(L, 2) == LUA_TSTRING)
        return index_name(L);
    if (!b)
        b = slow(L, false, &i);
    push_element(L, b, i);
    return 1;
}

static int buffer_newindex(lua_State *L)
{
    lua_Integer i;
    lrm_buffer *b = fast(L, &i);
    if (!b)
        b = slow(L, true, &i);
    store_element(L, b, i);
    return 0;
}

void lrm_open_elements(lua_State *L)
{
    luaL_getmetatable(L, LRM_BUFFER_T);
    lua_getfield(L, -1, "__index"); /* the methods, upvalue 1 of b[k] */
    lua_pushcclosure(L, buffer_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, buffer_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pop(L, 1);
}
