/* Communicators' messages in Lua: send, recv, sendrecv, probe, iprobe,
 * isend and irecv. Values go through the codec (lcodec.c); a buffer
 * (lbuffer.c) goes in place with its type, and a receive may name the
 * buffer it fills. isend's and irecv's requests are lrequest.c's; a
 * buffer they use is in flight until the request completes.
 *
 * A receive's status (lstatus.c) has the fields source and tag (and count
 * and type for a buffer), a probe's also bytes, the size of the message's
 * value encoded. */
#include <limits.h>

#include "lcodec.h"
#include "lrmalab.h"

static int raise(lua_State *L, int rc)
{
    return lrm_raisef(L, rc, "comm:%s", rmalab_errmsg());
}

/* A rank argument (checkpeer's all but its common case): nil is any (when
 * `any`), else an integer. Those the core would take for "any" (negative)
 * or cannot take (past a C int) are refused here, in the core's words. */
static int checkpeer_rest(lua_State *L, rmalab_comm *c, int arg, bool any, const char *what,
                          const char *call)
{
    if (any && lua_isnoneornil(L, arg))
        return RMALAB_ANY_SOURCE;
    lua_Integer r = lrm_checkinteger(L, arg, RMALAB_ERR_RANK, what);
    if (r < 0 || r > INT_MAX)
        lrm_raisef(L, RMALAB_ERR_RANK, "comm:%s: %s %lld is not a rank of this communicator "
                   "(0 to %d)", call, what, (long long)r, rmalab_comm_size(c) - 1);
    return (int)r;
}

/* The common case inline, in two API calls (the call's prologue and
 * epilogue cost as much as the test): an integer rank. */
static inline int checkpeer(lua_State *L, rmalab_comm *c, int arg, bool any, const char *what,
                            const char *call)
{
    if (lua_isinteger(L, arg)) {
        lua_Integer r = lua_tointeger(L, arg);
        if (r >= 0 && r <= INT_MAX)
            return (int)r;
    }
    return checkpeer_rest(L, c, arg, any, what, call);
}

static int checktag_given(lua_State *L, rmalab_comm *c, int arg, const char *call)
{
    lua_Integer t = lrm_checkinteger(L, arg, RMALAB_ERR_ARG, "tag");
    if (t < 0 || t > INT_MAX)
        lrm_raisef(L, RMALAB_ERR_ARG, "comm:%s: tag %lld is outside 0 to %d", call, (long long)t,
                   rmalab_comm_tag_ub(c));
    return (int)t;
}

/* A tag argument: none or nil is 0 (any, when `any`), inline. */
static inline int checktag(lua_State *L, rmalab_comm *c, int arg, bool any, const char *call)
{
    if (lua_isnoneornil(L, arg))
        return any ? RMALAB_ANY_TAG : 0;
    return checktag_given(L, c, arg, call);
}

/* The value of argument arg, encoded: raises what cannot be sent. */
static lrm_bytes *encode(lua_State *L, int arg, const char *call)
{
    lrm_bytes *b = lrm_codec_scratch(L);
    int rc = lrm_encode(L, arg, b, "value");
    if (rc)
        lrm_raisef(L, rc, "comm:%s: %s", call, rmalab_errmsg());
    return b;
}

/* The buffer that a receive names at arg (none or nil: NULL); it must not
 * be in flight (checked when its block is busy, as lrm_buffer_check
 * would). A buffer first: nil is the rarer. */
static inline lrm_buffer *recv_buffer(lua_State *L, int arg, const char *call)
{
    lrm_buffer *u = lrm_tobuffer(L, arg);
    if (!u) {
        if (lua_isnoneornil(L, arg))
            return NULL;
        lrm_argerror(L, arg, RMALAB_ERR_ARG, "receiving into a buffer needs an rl.buffer");
    }
    if (u->blk->busy)
        lrm_buffer_check(L, arg, true, call);
    return u;
}

/* A buffer given to send: refused while an operation in flight may still
 * write it (lrm_buffer_check, looked at when its block is busy). */
static void send_buffer(lua_State *L, lrm_buffer *u, int arg, const char *call)
{
    if (u->blk->busy)
        lrm_buffer_check(L, arg, false, call);
}

/* The value of a message's n bytes at p pushed, when it is a number (as
 * lrm_decode would): true; false, nothing pushed, for any other. */
static bool push_number(lua_State *L, const unsigned char *p, size_t n)
{
    if (n != 9 || (p[0] != T_INT && p[0] != T_FLT))
        return false;
    lrm_number_push(L, p + 1, p[0] == T_INT);
    return true;
}

/* c:send(v, dest [, tag]): a buffer goes as it is, with its type; a
 * number as the codec codes it, without the codec's road through the Lua
 * state's scratch (twice the API calls). v's type is asked once: a number
 * then needs no test for a buffer (a value's round trip 25 instructions
 * fewer, a buffer's 21 more). An argument left out is told by the stack's
 * top, which costs less than asking its type. */
static int comm_send(lua_State *L)
{
    rmalab_comm *c = lrm_checkcomm(L, 1);
    int dest = checkpeer(L, c, 3, false, "destination", "send");
    int tag = lua_gettop(L) < 4 ? 0 : checktag(L, c, 4, false, "send"), rc;
    int t = lua_type(L, 2);
    lrm_buffer *u = t == LUA_TUSERDATA ? lrm_tobuffer(L, 2) : NULL;
    unsigned char x[9];
    if (u) {
        send_buffer(L, u, 2, "comm:send");
        rc = rmalab_comm_send_typed(c, u->p, (int)u->n, u->type, dest, tag);
    } else if (t == LUA_TNUMBER) {
        lrm_number_code(L, 2, x);
        rc = rmalab_comm_send(c, x, sizeof x, dest, tag);
    } else {
        lrm_bytes *b = encode(L, 2, "send");
        rc = rmalab_comm_send(c, b->p, b->n, dest, tag);
    }
    return rc ? raise(L, rc) : 0;
}

/* The status of a receive on the communicator at index 1 (its object cu)
 * pushed: the one its memo holds when that says what st says. */
static inline void push_status(lua_State *L, lrm_comm *cu, const rmalab_msg_status *st)
{
    if (lrm_status_fits(&cu->memo, st)) {
        if (lua_getiuservalue(L, 1, 1) == LUA_TUSERDATA)
            return;
        lua_pop(L, 1);
    }
    lrm_push_status_comm(L, st, 1, cu);
}

/* c:recv([source [, tag [, b]]]) -> v, status; with b, b is filled and
 * given back (a message of another type, or longer, stays receivable).
 * A number, or a message into b, takes its status from the
 * communicator's memo (push_status); any other value from upvalue 1's
 * (lrm_push_status_memo). Arguments left out are told by the top. */
static int comm_recv(lua_State *L)
{
    lrm_comm *cu = lrm_checkcommud(L, 1);
    rmalab_comm *c = cu->comm;
    int top = lua_gettop(L);
    int source = top < 2 ? RMALAB_ANY_SOURCE : checkpeer(L, c, 2, true, "source", "recv");
    int tag = top < 3 ? RMALAB_ANY_TAG : checktag(L, c, 3, true, "recv");
    lrm_buffer *u = top < 4 ? NULL : recv_buffer(L, 4, "comm:recv");
    const void *p = NULL;
    size_t n = 0;
    rmalab_msg_status st;
    int rc = u ? rmalab_comm_recv_typed(c, u->p, (int)u->n, u->type, source, tag, &st)
               : rmalab_comm_recv_bytes(c, source, tag, &p, &n, &st);
    if (rc)
        return raise(L, rc);
    if (u && top > 4) /* b itself, then its status: b is on top when it came last */
        lua_pushvalue(L, 4);
    else if (!u && (st.type >= 0 || !push_number(L, p, n)))
        return lrm_push_message_memo(L, p, n, &st, 0, lua_upvalueindex(1));
    push_status(L, cu, &st);
    return 2;
}

/* c:sendrecv(v, dest, source [, tag [, b]]) -> v, status: the send goes
 * with `tag` (0), the receive takes `tag` (nil: any). A buffer v goes in
 * place, and b, when given, is filled as recv's b is; the two may not
 * share memory (MPI_Sendrecv's rule). */
static int comm_sendrecv(lua_State *L)
{
    rmalab_comm *c = lrm_checkcomm(L, 1);
    int dest = checkpeer(L, c, 3, false, "destination", "sendrecv");
    int source = checkpeer(L, c, 4, true, "source", "sendrecv");
    int tag = checktag(L, c, 5, true, "sendrecv");
    lrm_buffer *in = recv_buffer(L, 6, "comm:sendrecv"), *u = lrm_tobuffer(L, 2);
    int rc, buf = in ? 6 : 0;
    if (u)
        send_buffer(L, u, 2, "comm:sendrecv");
    if (u && in && lrm_buffers_overlap(u, in))
        lrm_raisef(L, RMALAB_ERR_ARG, "comm:sendrecv: the buffer received into shares memory "
                                      "with the buffer sent; give it a buffer of its own");
    rmalab_request *r = NULL;
    int stag = tag == RMALAB_ANY_TAG ? 0 : tag;
    bool self = dest == rmalab_comm_rank(c); /* a send to self is buffered: no wait */
    lrm_bytes *b = u ? NULL : encode(L, 2, "sendrecv");
    if (u)
        rc = self ? rmalab_comm_send_typed(c, u->p, (int)u->n, u->type, dest, stag)
                  : rmalab_comm_isend_typed(c, u->p, (int)u->n, u->type, dest, stag, &r);
    else
        rc = self ? rmalab_comm_send(c, b->p, b->n, dest, stag)
                  : rmalab_comm_isend(c, b->p, b->n, dest, stag, &r);
    if (rc) /* the core names its own call: "comm:sendrecv's isend: ..." */
        return lrm_raisef(L, rc, "comm:sendrecv's %s", rmalab_errmsg());
    const void *p = NULL;
    size_t n = 0;
    rmalab_msg_status st;
    rc = in ? rmalab_comm_recv_typed(c, in->p, (int)in->n, in->type, source, tag, &st)
            : rmalab_comm_recv_bytes(c, source, tag, &p, &n, &st);
    char why[2048]; /* the wait below may set its own */
    snprintf(why, sizeof why, "%s", rc ? rmalab_errmsg() : "");
    int rc2 = r ? rmalab_request_wait(r, NULL, NULL, NULL) : RMALAB_OK;
    rmalab_request_destroy(&r);
    if (rc || rc2)
        return lrm_raisef(L, rc ? rc : rc2, "comm:sendrecv's %s", rc ? why : rmalab_errmsg());
    return lrm_push_message_memo(L, p, n, &st, buf, lua_upvalueindex(1));
}

/* c:probe([source [, tag]]) -> status; c:iprobe(...) -> false | true, status */
static int comm_probe(lua_State *L)
{
    rmalab_comm *c = lrm_checkcomm(L, 1);
    int source = checkpeer(L, c, 2, true, "source", "probe");
    int tag = checktag(L, c, 3, true, "probe");
    rmalab_msg_status st;
    int rc = rmalab_comm_probe(c, source, tag, &st);
    if (rc)
        return raise(L, rc);
    lrm_push_status(L, &st, true);
    return 1;
}

static int comm_iprobe(lua_State *L)
{
    rmalab_comm *c = lrm_checkcomm(L, 1);
    int source = checkpeer(L, c, 2, true, "source", "iprobe");
    int tag = checktag(L, c, 3, true, "iprobe"), flag = 0;
    rmalab_msg_status st;
    int rc = rmalab_comm_iprobe(c, source, tag, &flag, &st);
    if (rc)
        return raise(L, rc);
    lua_pushboolean(L, flag);
    if (!flag)
        return 1;
    lrm_push_status(L, &st, true);
    return 2;
}

/* ------------------------------------------------------------------------ */
/* Requests (lrequest.c)                                                    */

/* c:isend(v, dest [, tag]): a buffer is sent in place, and in flight
 * (not to be written) until the request completes. */
static int comm_isend(lua_State *L)
{
    rmalab_comm *c = lrm_checkcomm(L, 1);
    int dest = checkpeer(L, c, 3, false, "destination", "isend");
    int tag = checktag(L, c, 4, false, "isend"), rc;
    lrm_buffer *u = lrm_tobuffer(L, 2);
    if (!u) {
        lrm_bytes *b = encode(L, 2, "isend");
        lrm_request *q = lrm_request_new(L, 1, RMALAB_REQUEST_SEND);
        rc = rmalab_comm_isend(c, b->p, b->n, dest, tag, &q->r);
        return rc ? raise(L, rc) : 1;
    }
    lrm_buffer_claim(L, 2, NULL, false, "comm:isend");
    lrm_request *q = lrm_request_new(L, 1, RMALAB_REQUEST_SEND);
    lrm_request_keep(L, -1, 2);
    if ((rc = rmalab_comm_isend_typed(c, u->p, (int)u->n, u->type, dest, tag, &q->r)))
        return raise(L, rc);
    char what[64];
    snprintf(what, sizeof what, "the buffer of an isend to rank %d", dest);
    lrm_buffer_fly_request(L, 2, NULL, dest, 0, rmalab_request_id(q->r), false, what,
                           "the request's wait()");
    return 1;
}

/* c:irecv([source [, tag [, b]]]): posted at once; with b, the message
 * goes into b, in flight until the request completes. */
static int comm_irecv(lua_State *L)
{
    rmalab_comm *c = lrm_checkcomm(L, 1);
    int source = checkpeer(L, c, 2, true, "source", "irecv");
    int tag = checktag(L, c, 3, true, "irecv");
    int buf = recv_buffer(L, 4, "comm:irecv") ? 4 : 0, rc;
    if (buf)
        lrm_buffer_claim(L, buf, NULL, true, "comm:irecv");
    lrm_request *q = lrm_request_new(L, 1, RMALAB_REQUEST_RECV);
    if (!buf) {
        rc = rmalab_comm_irecv(c, source, tag, &q->r);
        return rc ? raise(L, rc) : 1;
    }
    lrm_request_keep(L, -1, buf);
    lrm_buffer *u = lrm_tobuffer(L, buf);
    if ((rc = rmalab_comm_irecv_typed(c, u->p, (int)u->n, u->type, source, tag, &q->r)))
        return raise(L, rc);
    lrm_buffer_fly_request(L, buf, NULL, source, 0, rmalab_request_id(q->r), true,
                           "the buffer of an irecv", "the request's wait()");
    return 1;
}

static const luaL_Reg p2p_methods[] = {
    {"send", comm_send},   {"probe", comm_probe}, {"iprobe", comm_iprobe},
    {"isend", comm_isend}, {"irecv", comm_irecv}, {NULL, NULL},
};

/* The receives that give a status, each with its memo (upvalue 1, false
 * until the first status). */
static const luaL_Reg recv_methods[] = {
    {"recv", comm_recv}, {"sendrecv", comm_sendrecv}, {NULL, NULL},
};

void lrm_open_p2p(lua_State *L)
{
    lrm_push_comm_methods(L);
    luaL_setfuncs(L, p2p_methods, 0);
    for (const luaL_Reg *r = recv_methods; r->name; r++) {
        lua_pushboolean(L, 0);
        lua_pushcclosure(L, r->func, 1);
        lua_setfield(L, -2, r->name);
    }
    lua_pop(L, 1);
}
