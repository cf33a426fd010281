/* Messages' statuses in Lua: what recv, sendrecv, probe, iprobe and a
 * receive's rq:wait give beside the value, with the fields source and tag
 * (count and type for a buffer; bytes for a probe).
 *
 * A status is read-only: a userdata with no memory of its own but its tag,
 * whose metatable holds its fields (__index), refuses writes (__newindex),
 * lists them (__pairs) and shows them (__tostring: {source = 1, tag = 0}),
 * and is protected (__metatable). Being read-only, a received message's
 * status is shared: one per (source, tag), kept in a weak table, and for a
 * buffer the one of its type and count, so that a receive in a loop makes
 * nothing. A new table per receive, and the garbage collector's work on
 * it, was a third of an 8-byte ping-pong's time (bench-comm); a new status
 * per buffer received was half the instructions of a 1-element buffer's
 * ping-pong (issue 41). A probe's status (with bytes) is made anew. A
 * userdata, not a table, so that rawset cannot write into the status every
 * later receive shares: checking a table for that at each receive cost
 * 0.03x of the ping-pong. recv and sendrecv also keep the last status
 * they gave in an upvalue (the memo), checked before the weak table: the
 * table's lookup (the registry, the key, the stack's rotation) was about
 * 190 instructions of each receive, the memo's check is about 40. recv's
 * common messages (a number, or into a buffer) keep theirs in the
 * communicator's user value instead, with what it says in C beside it
 * (lrm_push_status_comm): the check is then a compare of four fields and
 * one API call, where the upvalue's cost three and a call (about 120
 * instructions a receive, 10% of a ping-pong's round trip). */
#include "lrmalab.h"

static const char cache_key = 'S'; /* the registry's weak table of statuses */
static const char status_tag = 's';

typedef struct {
    const void *tag;     /* &status_tag (lrm_newud) */
    int type;            /* a buffer's type, else -1 */
    int source, mtag;    /* the message's (a memo is checked by them) */
    lua_Integer count;   /* a buffer's count */
} lstatus;

static int status_newindex(lua_State *L)
{
    return lrm_raisef(L, RMALAB_ERR_ARG, "a message's status is read-only (statuses are shared; "
                                         "copy the fields you want to keep)");
}

/* The fields table of the status at idx (the metamethods are reachable
 * through debug.getmetatable, so they check what they are given). */
static void fields(lua_State *L, int idx)
{
    if (!lrm_toud(L, idx, &status_tag, sizeof(lstatus)) || !lua_getmetatable(L, idx) ||
        lua_getfield(L, -1, "__index") != LUA_TTABLE)
        lrm_argerror(L, idx, RMALAB_ERR_ARG, "a message's status expected");
    lua_remove(L, -2);
}

static int status_next(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 2);
    return lua_next(L, 1) ? 2 : (lua_pushnil(L), 1);
}

static int status_pairs(lua_State *L)
{
    lua_settop(L, 1);
    lua_pushcfunction(L, status_next);
    fields(L, 1);
    lua_pushnil(L);
    return 3;
}

/* {source = 1, tag = 0, ...}: the fields in a fixed order. */
static int status_tostring(lua_State *L)
{
    static const char *const names[] = {"source", "tag", "count", "type", "bytes"};
    luaL_Buffer b;
    lua_settop(L, 1);
    fields(L, 1);
    luaL_buffinit(L, &b);
    luaL_addchar(&b, '{');
    for (int i = 0, n = 0; i < 5; i++) {
        if (lua_getfield(L, 2, names[i]) == LUA_TNIL) {
            lua_pop(L, 1);
            continue;
        }
        bool text = lua_type(L, -1) == LUA_TSTRING; /* lua_tostring turns numbers to text */
        lua_pushfstring(L, text ? "%s%s = \"%s\"" : "%s%s = %s", n++ ? ", " : "", names[i],
                        lua_tostring(L, -1));
        lua_remove(L, -2);
        luaL_addvalue(&b);
    }
    luaL_addchar(&b, '}');
    luaL_pushresult(&b);
    return 1;
}

/* A buffer's count of elements, 0 for a value. */
static lua_Integer count_of(const rmalab_msg_status *st)
{
    return st->type >= 0 ? (lua_Integer)(st->bytes / (size_t)rmalab_type_size(st->type)) : 0;
}

static void new_status(lua_State *L, const rmalab_msg_status *st, bool bytes)
{
    lstatus *s = lrm_newud(L, sizeof(lstatus), 0, &status_tag);
    s->type = st->type >= 0 ? st->type : -1;
    s->source = st->source;
    s->mtag = st->tag;
    s->count = count_of(st);
    lua_createtable(L, 0, 4);
    lua_createtable(L, 0, st->type >= 0 ? 4 : 2);
    lua_pushinteger(L, st->source);
    lua_setfield(L, -2, "source");
    lua_pushinteger(L, st->tag);
    lua_setfield(L, -2, "tag");
    if (st->type >= 0) {
        lua_pushinteger(L, s->count);
        lua_setfield(L, -2, "count");
        lua_pushstring(L, rmalab_type_name(st->type));
        lua_setfield(L, -2, "type");
    }
    if (bytes) {
        lua_pushinteger(L, (lua_Integer)st->bytes);
        lua_setfield(L, -2, "bytes");
    }
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, status_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, status_pairs);
    lua_setfield(L, -2, "__pairs");
    lua_pushcfunction(L, status_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushliteral(L, "a message's status (read-only)");
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
}

/* The status at idx (a cached one, or a memo: a status or false) fits
 * st: the same source, tag, type and count. */
static bool fits(lua_State *L, int idx, const rmalab_msg_status *st)
{
    const lstatus *s = lua_touserdata(L, idx);
    return s && s->tag == &status_tag && s->source == st->source && s->mtag == st->tag &&
           s->type == (st->type >= 0 ? st->type : -1) && s->count == count_of(st);
}

void lrm_push_status(lua_State *L, const rmalab_msg_status *st, bool bytes)
{
    lrm_push_status_memo(L, st, bytes, 0);
}

void lrm_push_status_memo(lua_State *L, const rmalab_msg_status *st, bool bytes, int memo)
{
    if (bytes) { /* a probe's: rarer, and not worth a key */
        new_status(L, st, bytes);
        return;
    }
    if (memo && fits(L, memo, st)) {
        lua_pushvalue(L, memo);
        return;
    }
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &cache_key) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 0, 4);
        lua_createtable(L, 0, 1);
        lua_pushliteral(L, "v");
        lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
        lua_pushvalue(L, -1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &cache_key);
    }
    /* sources and tags are at most INT_MAX (MPI_TAG_UB): one integer */
    lua_Integer key = (lua_Integer)((uint64_t)(uint32_t)st->source << 32 | (uint32_t)st->tag);
    if (lua_rawgeti(L, -1, key) == LUA_TNIL || !fits(L, -1, st)) {
        lua_pop(L, 1);
        new_status(L, st, false);
        lua_pushvalue(L, -1);
        lua_rawseti(L, -3, key);
    }
    lua_remove(L, -2);
    if (memo) {
        lua_pushvalue(L, -1);
        lua_replace(L, memo);
    }
}

void lrm_push_status_comm(lua_State *L, const rmalab_msg_status *st, int comm, lrm_comm *u)
{
    lrm_push_status_memo(L, st, false, 0);
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, comm, 1);
    u->memo = *st;
}
