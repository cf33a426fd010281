/* Layouts in Lua: rl.vector(type, count, blocklen, stride), a strided
 * layout of the target's memory (MPI_Type_vector) that put, get,
 * accumulate and get_accumulate take in place of a type name (lrma.c); the
 * core makes the MPI datatype at each call. */
#include <limits.h>

#include "lrmalab.h"

#define LRM_VECTOR_T "rmalab.vector"

typedef struct {
    const void *tag;
    rmalab_type type;
    rmalab_vector vec;
} lvector;

static const char vector_tag = 'v';

static lvector *tovector(lua_State *L, int arg)
{
    return lrm_toud(L, arg, &vector_tag, sizeof(lvector));
}

rmalab_type lrm_checklayout(lua_State *L, int arg, const rmalab_vector **vec)
{
    lvector *v = tovector(L, arg);
    *vec = v ? &v->vec : NULL;
    return v ? v->type : lrm_checktype(L, arg);
}

/* rl.vector(type, count, blocklen, stride) */
static int l_vector(lua_State *L)
{
    rmalab_type t = lrm_checktype(L, 1);
    lua_Integer count = lrm_checkinteger(L, 2, RMALAB_ERR_ARG, "count");
    lua_Integer blocklen = lrm_checkinteger(L, 3, RMALAB_ERR_ARG, "blocklen");
    lua_Integer stride = lrm_checkinteger(L, 4, RMALAB_ERR_ARG, "stride");
    if (count < 0 || blocklen < 1 || stride < blocklen || count > INT_MAX || stride > INT_MAX ||
        (count && (count - 1) * stride + blocklen > INT_MAX / 16))
        lrm_raisef(L, RMALAB_ERR_ARG,
                   "rl.vector(%s, %lld, %lld, %lld): a vector is count >= 0 blocks of "
                   "blocklen >= 1 elements, stride >= blocklen elements apart, within %d "
                   "elements",
                   rmalab_type_name(t), (long long)count, (long long)blocklen,
                   (long long)stride, INT_MAX / 16);
    lvector *v = lrm_newud(L, sizeof *v, 0, &vector_tag);
    luaL_setmetatable(L, LRM_VECTOR_T);
    v->type = t;
    v->vec = (rmalab_vector){(int)count, (int)blocklen, (int)stride};
    return 1;
}

/* v.type, v.count, v.blocklen, v.stride; #v: the elements it holds. */
static int vector_index(lua_State *L)
{
    lvector *v = lrm_checkud(L, 1, &vector_tag, sizeof *v, RMALAB_ERR_ARG, "vector expected");
    static const char *const keys[] = {"type", "count", "blocklen", "stride", NULL};
    const char *k = lua_tostring(L, 2);
    int i = 0;
    while (k && keys[i] && strcmp(k, keys[i]))
        i++;
    if (!k || !keys[i])
        lua_pushnil(L);
    else if (i == 0)
        lua_pushstring(L, rmalab_type_name(v->type));
    else
        lua_pushinteger(L, i == 1 ? v->vec.count : i == 2 ? v->vec.blocklen : v->vec.stride);
    return 1;
}

static int vector_len(lua_State *L)
{
    lvector *v = lrm_checkud(L, 1, &vector_tag, sizeof *v, RMALAB_ERR_ARG, "vector expected");
    lua_pushinteger(L, (lua_Integer)v->vec.count * v->vec.blocklen);
    return 1;
}

static int vector_tostring(lua_State *L)
{
    lvector *v = lrm_checkud(L, 1, &vector_tag, sizeof *v, RMALAB_ERR_ARG, "vector expected");
    lua_pushfstring(L, "rmalab.vector (%s, %d blocks of %d, stride %d)",
                    rmalab_type_name(v->type), v->vec.count, v->vec.blocklen, v->vec.stride);
    return 1;
}

static const luaL_Reg vector_meta[] = {
    {"__index", vector_index},
    {"__len", vector_len},
    {"__tostring", vector_tostring},
    {NULL, NULL},
};

void lrm_open_layout(lua_State *L)
{
    luaL_newmetatable(L, LRM_VECTOR_T);
    luaL_setfuncs(L, vector_meta, 0);
    lua_pop(L, 1);
    lua_pushcfunction(L, l_vector);
    lua_setfield(L, -2, "vector");
}
