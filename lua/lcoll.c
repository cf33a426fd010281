/* Communicators' collectives in Lua: bcast, reduce, allreduce, scan,
 * exscan, gather, allgather, scatter, alltoall, split. Values go through
 * the codec (lcodec.c); numbers of reductions go as int64 or double. A
 * buffer (lbuffer.c) given to bcast or a reduction goes in place, as one
 * MPI collective on its memory; every rank then gives a buffer of the
 * same type and length, as MPI requires (the core checks that they do).
 *
 * Nothing a rank finds wrong in its own arguments is raised at once, since
 * it may be wrong on that rank alone (a root, an op, a color, a buffer
 * still in flight, a value it cannot send, a scatter argument that is not
 * an array): the failure is recorded and travels in the collective as that
 * rank's status (rmalab/coll.h), so the other ranks raise too, naming it,
 * instead of waiting or meeting its next collective. A check's failure is
 * then raised as it was worded ("held"); the core's verdict otherwise. */
#include <limits.h>
#include <math.h>

#include "lnames.h"
#include "lrmalab.h"

/* The state's encoding buffer: a userdata in the registry that frees it. */
static const char bytes_key = 'b';

static int bytes_gc(lua_State *L)
{
    lrm_bytes_free(lua_touserdata(L, 1));
    return 0;
}

static lrm_bytes *scratch(lua_State *L)
{
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &bytes_key) == LUA_TUSERDATA) {
        lrm_bytes *b = lua_touserdata(L, -1);
        lua_pop(L, 1);
        b->n = 0;
        return b;
    }
    lua_pop(L, 1);
    lrm_bytes *b = lua_newuserdatauv(L, sizeof *b, 0);
    memset(b, 0, sizeof *b);
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, bytes_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &bytes_key);
    return b;
}

lrm_bytes *lrm_codec_scratch(lua_State *L)
{
    return scratch(L);
}

/* Raise the core's failure: its message names the call. */
static int raise(lua_State *L, int rc)
{
    return lrm_raisef(L, rc, "comm:%s", rmalab_errmsg());
}

/* This rank's own failure, with the call's name before its message. */
static int own(int rc, const char *call)
{
    char msg[400];
    snprintf(msg, sizeof msg, "%s", rmalab_errmsg());
    return rmalab_set_error(rc, "%s: %s", call, msg);
}

/* The collective's failure: this rank's held one (lrm_hold), else the
 * core's. */
static int raise_verdict(lua_State *L, int rc, const lrm_held *h)
{
    if (h->status)
        return lrm_raise_held(L, h);
    return raise(L, rc);
}

/* A root (argument arg, default 0). A bad one is held here and goes to the
 * core as it is (-1 if it is no C int), which refuses it in the collective,
 * comparing the ranks' roots first. */
static int root_arg(lua_State *L, int arg, rmalab_comm *c, const char *call, lrm_held *h)
{
    lua_Integer r = 0;
    if (!lua_isnoneornil(L, arg) &&
        lrm_hold(h, lrm_tointeger_status(L, arg, RMALAB_ERR_RANK, "root", &r)))
        return -1;
    if (r < 0 || r >= rmalab_comm_size(c))
        lrm_hold(h, rmalab_set_error(RMALAB_ERR_RANK, "comm:%s: root %lld is not a rank of this "
                                                  "communicator (0 to %d)",
                                 call, (long long)r, rmalab_comm_size(c) - 1));
    return r < INT_MIN || r > INT_MAX ? -1 : (int)r;
}

/* Push the value in n bytes, or raise. */
static void push_decoded(lua_State *L, const rmalab_bytes *b, const char *call)
{
    int rc = lrm_decode(L, b->p, b->n);
    if (rc)
        raise(L, own(rc, call));
}

/* ------------------------------------------------------------------------ */
/* Values                                                                   */

/* c:bcast(b [, root]) of a buffer: in place, every rank giving a buffer
 * of the same type and length (MPI's rule); returns b. */
static int bcast_buffer(lua_State *L, rmalab_comm *c, int root, lrm_held *h)
{
    lrm_buffer *u = lrm_tobuffer(L, 2);
    int status = h->status ? RMALAB_OK /* the core refuses the root */
                           : lrm_hold(h, lrm_buffer_status(L, 2, rmalab_comm_rank(c) != root,
                                                       "comm:bcast"));
    int rc = rmalab_comm_bcast_typed_status(c, u->p, (int)u->n, u->type, root, status);
    if (rc)
        return raise_verdict(L, rc, h);
    lua_settop(L, 2);
    return 1;
}

static int comm_bcast(lua_State *L)
{
    rmalab_comm *c = lrm_checkcomm(L, 1);
    lrm_held h;
    h.status = RMALAB_OK; /* not an initializer: that would clear msg too */
    int root = root_arg(L, 3, c, "bcast", &h), status = RMALAB_OK;
    if (lrm_tobuffer(L, 2))
        return bcast_buffer(L, c, root, &h);
    lrm_bytes *b = scratch(L);
    bool here = rmalab_comm_rank(c) == root;
    if (!h.status && here && (status = lrm_encode(L, 2, b, "value")))
        status = own(status, "bcast");
    rmalab_bytes send = {b->p, b->n}, recv;
    int rc = rmalab_comm_exchange(c, RMALAB_XCHG_BCAST, root, &send, &recv, status);
    if (rc)
        return raise_verdict(L, rc, &h);
    if (here)
        lua_pushvalue(L, 2);
    else
        push_decoded(L, &recv, "bcast");
    return 1;
}

/* An array of the values received, element r + 1 from rank r. */
static void push_array(lua_State *L, const rmalab_bytes *recv, int n, const char *call)
{
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        push_decoded(L, &recv[i], call);
        lua_rawseti(L, -2, i + 1);
    }
}

/* Received strings: in a userdata that the GC takes (n entries). */
static rmalab_bytes *recv_array(lua_State *L, int n)
{
    return lua_newuserdatauv(L, (size_t)n * sizeof(rmalab_bytes), 0);
}

static int gather_call(lua_State *L, rmalab_xchg_kind kind, const char *call)
{
    rmalab_comm *c = lrm_checkcomm(L, 1);
    lrm_held h;
    h.status = RMALAB_OK; /* not an initializer: that would clear msg too */
    int root = kind == RMALAB_XCHG_GATHER ? root_arg(L, 3, c, call, &h) : 0;
    int size = rmalab_comm_size(c), status = RMALAB_OK;
    lrm_bytes *b = scratch(L);
    rmalab_bytes *recv = recv_array(L, size);
    if (!h.status && (status = lrm_encode(L, 2, b, "value")))
        status = own(status, call);
    rmalab_bytes send = {b->p, b->n};
    int rc = rmalab_comm_exchange(c, kind, root, &send, recv, status);
    if (rc)
        return raise_verdict(L, rc, &h);
    if (kind == RMALAB_XCHG_GATHER && rmalab_comm_rank(c) != root)
        lua_pushnil(L);
    else
        push_array(L, recv, size, call);
    return 1;
}

/* c:gather(v [, root]): on root the array of every rank's value (t[r + 1]
 * is rank r's), nil elsewhere. For printing in rank order too: ranks' own
 * prints interleave under mpiexec. */
static int comm_gather(lua_State *L)
{
    return gather_call(L, RMALAB_XCHG_GATHER, "gather");
}

static int comm_allgather(lua_State *L)
{
    return gather_call(L, RMALAB_XCHG_ALLGATHER, "allgather");
}

/* The elements 1..size of the array at arg, each encoded after the other;
 * their strings in send. A status, not an error. */
static int encode_each(lua_State *L, int arg, int size, lrm_bytes *b, rmalab_bytes *send,
                       const char *call)
{
    if (!lua_istable(L, arg))
        return rmalab_set_error(RMALAB_ERR_ARG, "%s: an array of %d values (one per rank) "
                                                "expected, got %s",
                                call, size, luaL_typename(L, arg));
    if (lua_rawlen(L, arg) != (size_t)size)
        return rmalab_set_error(RMALAB_ERR_ARG, "%s: an array of %d values (one per rank) "
                                                "expected, got %zu",
                                call, size, (size_t)lua_rawlen(L, arg));
    size_t *ends = lua_newuserdatauv(L, (size_t)size * sizeof *ends, 0);
    for (int i = 0; i < size; i++) {
        char name[32];
        snprintf(name, sizeof name, "array[%d]", i + 1);
        lua_rawgeti(L, arg, i + 1);
        int rc = lrm_encode(L, -1, b, name);
        lua_pop(L, 1);
        if (rc)
            return own(rc, call);
        ends[i] = b->n;
    }
    for (int i = 0; i < size; i++) /* b->p may have moved while growing */
        send[i] = (rmalab_bytes){b->p + (i ? ends[i - 1] : 0), ends[i] - (i ? ends[i - 1] : 0)};
    return RMALAB_OK;
}

static int comm_scatter(lua_State *L)
{
    rmalab_comm *c = lrm_checkcomm(L, 1);
    lrm_held h;
    h.status = RMALAB_OK; /* not an initializer: that would clear msg too */
    int root = root_arg(L, 3, c, "scatter", &h), size = rmalab_comm_size(c), status = RMALAB_OK;
    lrm_bytes *b = scratch(L);
    rmalab_bytes *send = recv_array(L, size), recv;
    if (!h.status && rmalab_comm_rank(c) == root)
        status = encode_each(L, 2, size, b, send, "scatter");
    int rc = rmalab_comm_exchange(c, RMALAB_XCHG_SCATTER, root, send, &recv, status);
    if (rc)
        return raise_verdict(L, rc, &h);
    push_decoded(L, &recv, "scatter");
    return 1;
}

static int comm_alltoall(lua_State *L)
{
    rmalab_comm *c = lrm_checkcomm(L, 1);
    int size = rmalab_comm_size(c);
    lrm_bytes *b = scratch(L);
    rmalab_bytes *send = recv_array(L, size), *recv = recv_array(L, size);
    int status = encode_each(L, 2, size, b, send, "alltoall");
    int rc = rmalab_comm_exchange(c, RMALAB_XCHG_ALLTOALL, 0, send, recv, status);
    if (rc)
        return raise(L, rc);
    push_array(L, recv, size, "alltoall");
    return 1;
}

/* ------------------------------------------------------------------------ */
/* Reductions                                                               */

/* "value" or "value[3]": where a bad number sits. */
static const char *place(char *buf, size_t size, const char *what, lua_Integer i)
{
    snprintf(buf, size, i ? "%s[%lld]" : "%s", what, (long long)i);
    return buf;
}

/* A number's failure, named "value" or "value[3]" (kept out of number,
 * which runs per element, with its buffer). */
static int __attribute__((noinline)) bad_number(lua_State *L, int idx, int code, rmalab_op op,
                                                const char *what, lua_Integer i)
{
    char where[48];
    place(where, sizeof where, what, i);
    if (code == RMALAB_ERR_ARG)
        return rmalab_set_error(RMALAB_ERR_ARG, "%s: a number expected, got %s", where,
                                luaL_typename(L, idx));
    return rmalab_set_error(RMALAB_ERR_TYPE, "%s: %.14g has no integer representation; %s takes "
                                             "integers",
                            where, lua_tonumber(L, idx), rmalab_op_name(op));
}

/* The number at idx (of Lua type t, which the caller has) as the
 * reduction needs it: a status. */
static int number(lua_State *L, int idx, int t, rmalab_op op, int64_t *out, bool *flt,
                  const char *what, lua_Integer i)
{
    if (t != LUA_TNUMBER)
        return bad_number(L, idx, RMALAB_ERR_ARG, op, what, i);
    lua_Integer v;
    if (lua_isinteger(L, idx)) {
        v = lua_tointeger(L, idx);
    } else if (op >= RMALAB_OP_LAND && op <= RMALAB_OP_LXOR) {
        v = lua_tonumber(L, idx) != 0; /* MPI's logical ops: nonzero is true */
    } else if (op >= RMALAB_OP_BAND && op <= RMALAB_OP_BXOR) {
        if (!lua_numbertointeger(floor(lua_tonumber(L, idx)), &v) ||
            (lua_Number)v != lua_tonumber(L, idx))
            return bad_number(L, idx, RMALAB_ERR_TYPE, op, what, i);
    } else {
        double d = lua_tonumber(L, idx);
        memcpy(out, &d, 8);
        *flt = true;
        return RMALAB_OK;
    }
    *out = (int64_t)v;
    return RMALAB_OK;
}

/* The numbers of the table at argument 2 into b: count and type. */
static int numbers(lua_State *L, rmalab_op op, lrm_bytes *b, int *count, rmalab_type *type)
{
    size_t n = lua_rawlen(L, 2);
    *count = 0;
    *type = RMALAB_INT64;
    if (n > (size_t)INT_MAX / 8)
        return rmalab_set_error(RMALAB_ERR_ARG, "value: %zu numbers are too many", n);
    int rc = lrm_bytes_reserve(b, n * 8 + 8);
    if (rc)
        return rc;
    int64_t *v = (int64_t *)(void *)b->p; /* malloc'd: aligned */
    bool flt = false, any = false;
    for (size_t i = 0; i < n && !rc; i++) {
        int t = lua_rawgeti(L, 2, (lua_Integer)i + 1);
        flt = false;
        rc = number(L, -1, t, op, &v[i], &flt, "value", (lua_Integer)i + 1);
        lua_pop(L, 1);
        if (flt && !any) { /* the integers so far become floats */
            for (size_t j = 0; j < i; j++) {
                double d = (double)v[j];
                memcpy(&v[j], &d, 8);
            }
            any = true;
        } else if (!flt && any) {
            double d = (double)v[i];
            memcpy(&v[i], &d, 8);
        }
    }
    *count = (int)n;
    *type = any ? RMALAB_DOUBLE : RMALAB_INT64;
    return rc;
}

static void push_numbers(lua_State *L, const int64_t *v, int n, rmalab_type type, bool scalar)
{
    if (!scalar)
        lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        if (type == RMALAB_INT64) {
            lua_pushinteger(L, (lua_Integer)v[i]);
        } else {
            double d;
            memcpy(&d, &v[i], 8);
            lua_pushnumber(L, d);
        }
        if (!scalar)
            lua_rawseti(L, -2, i + 1);
    }
}

static const char *const reduce_names[] = {"allreduce", "reduce", "scan", "exscan"};

/* Does this rank get no result from the reduction (reduce's non-roots,
 * exscan's rank 0)? */
static bool no_result(rmalab_comm *c, rmalab_reduce_kind kind, int root)
{
    return (kind == RMALAB_REDUCE_ROOT && rmalab_comm_rank(c) != root) ||
           (kind == RMALAB_REDUCE_EXSCAN && rmalab_comm_rank(c) == 0);
}

/* A reduction of a buffer, in place (every rank gives one of the same type
 * and length): the buffer where the reduction gives a result, else nil. */
static int reduce_buffer(lua_State *L, rmalab_comm *c, rmalab_reduce_kind kind, int root,
                         rmalab_op op, lrm_held *h, int status)
{
    char call[24];
    snprintf(call, sizeof call, "comm:%s", reduce_names[kind]);
    lrm_buffer *u = lrm_tobuffer(L, 2);
    if (!h->status)
        status = lrm_hold(h, lrm_buffer_status(L, 2, true, call));
    int rc = rmalab_comm_reduce_typed_status(c, kind, root, u->p, (int)u->n, u->type, op, status);
    if (rc)
        return raise_verdict(L, rc, h);
    if (no_result(c, kind, root))
        lua_pushnil(L);
    else
        lua_pushvalue(L, 2);
    return 1;
}

/* A reduction's result, or nil where the kind gives this rank none:
 * inline, in reduce_call's usual case as in reduce_any. */
static inline int push_result(lua_State *L, rmalab_comm *c, rmalab_reduce_kind kind, int root,
                              const int64_t *v, int count, rmalab_type type, bool scalar)
{
    if (no_result(c, kind, root))
        lua_pushnil(L);
    else
        push_numbers(L, v, count, type, scalar);
    return 1;
}

/* Any reduction: its arguments checked, a failure held for the collective
 * (reduce_call has tried one number's usual case). */
static int reduce_any(lua_State *L, rmalab_comm *c, rmalab_reduce_kind kind)
{
    const char *call = reduce_names[kind];
    rmalab_op op;
    lrm_held h;
    h.status = RMALAB_OK; /* not an initializer: that would clear msg too */
    int status = lrm_hold(&h, lrm_op_status(L, 3, &op)), root = 0, count = 1;
    if (!status && kind == RMALAB_REDUCE_ROOT)
        root = root_arg(L, 4, c, call, &h); /* the core refuses a bad one */
    int vt = lua_type(L, 2); /* a number's reduction asks no more of the buffers */
    if (vt == LUA_TUSERDATA && lrm_tobuffer(L, 2))
        return reduce_buffer(L, c, kind, root, op, &h, status);
    int64_t one[1] = {0}; /* a number needs no scratch (and anything else
                             but a table is refused as one) */
    lrm_bytes *b = NULL;
    rmalab_type type = RMALAB_INT64;
    bool scalar = vt != LUA_TTABLE, flt = false;
    if (h.status) {
        /* this rank takes part with its failure alone */
    } else if (scalar) {
        count = 1;
        status = number(L, 2, vt, op, one, &flt, "value", 0);
        type = flt ? RMALAB_DOUBLE : RMALAB_INT64;
    } else {
        status = numbers(L, op, b = scratch(L), &count, &type);
    }
    if (status && !h.status)
        status = own(status, call);
    int64_t *v = b ? (int64_t *)(void *)b->p : one;
    int rc = rmalab_comm_reduce(c, kind, root, v, count, &type, op, status);
    return rc ? raise_verdict(L, rc, &h) : push_result(L, c, kind, root, v, count, type, scalar);
}

/* One number with a good op, the usual case, without holding failures
 * (nothing can fail here but in the collective); anything else, and any
 * failure of a check, goes to reduce_any, which checks all again. An
 * integer, or a float under sum, prod, max or min, is taken as it is and
 * the result pushed by the inline push_result (number's and push_result's
 * calls were 85 instructions of an allreduce of 762). The op is found by
 * its string's address among the kept names (lnames.h), where
 * lrm_op_status read its type, its bytes and its length (86 instructions
 * with their API calls). */
static int reduce_call(lua_State *L, rmalab_reduce_kind kind)
{
    rmalab_comm *c = lrm_checkcomm(L, 1);
    int i = kind == RMALAB_REDUCE_ROOT ? -1 : lrm_name_at(L, 3, LRM_NAME_OP, RMALAB_OP_LXOR + 1);
    rmalab_op op = (rmalab_op)i;
    int64_t v;
    rmalab_type type = RMALAB_INT64;
    if (i < 0 || lua_type(L, 2) != LUA_TNUMBER)
        return reduce_any(L, c, kind);
    if (lua_isinteger(L, 2)) {
        v = (int64_t)lua_tointeger(L, 2);
    } else if (op <= RMALAB_OP_MIN) {
        double d = lua_tonumber(L, 2);
        memcpy(&v, &d, 8);
        type = RMALAB_DOUBLE;
    } else {
        return reduce_any(L, c, kind);
    }
    int rc = rmalab_comm_reduce(c, kind, 0, &v, 1, &type, op, RMALAB_OK);
    return rc ? raise(L, rc) : push_result(L, c, kind, 0, &v, 1, type, true);
}

static int comm_allreduce(lua_State *L) { return reduce_call(L, RMALAB_REDUCE_ALL); }
static int comm_reduce(lua_State *L) { return reduce_call(L, RMALAB_REDUCE_ROOT); }
static int comm_scan(lua_State *L) { return reduce_call(L, RMALAB_REDUCE_SCAN); }
static int comm_exscan(lua_State *L) { return reduce_call(L, RMALAB_REDUCE_EXSCAN); }

/* ------------------------------------------------------------------------ */
/* Split                                                                    */

/* c:split(color [, key]) -> the new communicator, or nil for a nil or
 * negative color (MPI_UNDEFINED). Collective. */
static int comm_split(lua_State *L)
{
    rmalab_comm *c = lrm_checkcomm(L, 1);
    lua_Integer color = -1, key = rmalab_comm_rank(c);
    lrm_held h;
    h.status = RMALAB_OK; /* not an initializer: that would clear msg too */
    if (!lua_isnoneornil(L, 2))
        lrm_hold(&h, lrm_tointeger_status(L, 2, RMALAB_ERR_ARG, "color", &color));
    if (!h.status && !lua_isnoneornil(L, 3))
        lrm_hold(&h, lrm_tointeger_status(L, 3, RMALAB_ERR_ARG, "key", &key));
    if (!h.status && (color > INT_MAX || key < INT_MIN || key > INT_MAX))
        lrm_hold(&h, rmalab_set_error(RMALAB_ERR_ARG, "comm:split: color and key are C ints"));
    if (h.status)
        color = key = 0;
    rmalab_comm **slot = lrm_newcomm(L, "split"), *made = NULL;
    int rc = rmalab_comm_split_status(c, color < 0 ? -1 : (int)color, (int)key, &made, h.status);
    if (rc)
        return raise_verdict(L, rc, &h);
    if (!made) {
        lua_pushnil(L); /* the empty object is collected; it holds nothing */
        return 1;
    }
    *slot = made;
    return 1;
}

static const luaL_Reg coll_methods[] = {
    {"bcast", comm_bcast},         {"gather", comm_gather},   {"allgather", comm_allgather},
    {"scatter", comm_scatter},     {"alltoall", comm_alltoall}, {"allreduce", comm_allreduce},
    {"reduce", comm_reduce},       {"scan", comm_scan},       {"exscan", comm_exscan},
    {"split", comm_split},         {NULL, NULL},
};

void lrm_open_coll(lua_State *L)
{
    lrm_push_comm_methods(L);
    luaL_setfuncs(L, coll_methods, 0);
    lua_pop(L, 1);
}
