/* Communicators' messages in Lua: send, recv, sendrecv, probe, iprobe,
 * and the requests of isend and irecv. Values go through the codec
 * (lcodec.c).
 *
 * A receive's status is a table { source =, tag = }, a probe's also has
 * bytes =, the size of the message's value encoded. A request
 * that was never waited for (or tested until done) is reported when it is
 * collected, at exit at the latest, like a window that was never freed;
 * an isend's copy stays with MPI until the runtime's end. */
#include <limits.h>

#include "lrmalab.h"

#define REQ_T "rmalab.request"

typedef struct {
    const void *tag; /* &req_tag (lrm_newud) */
    rmalab_request *r;
    int taken;       /* its completion was handed to Lua */
    int peer, tag_;
    int is_recv;
} lreq;

static const char req_tag = 'q';

static int raise(lua_State *L, int rc)
{
    return lrm_raisef(L, rc, "comm:%s", rmalab_errmsg());
}

/* A rank argument: nil is any (when `any`), else an integer. */
static int checkpeer(lua_State *L, int arg, bool any, const char *what)
{
    if (any && lua_isnoneornil(L, arg))
        return RMALAB_ANY_SOURCE;
    lua_Integer r = lrm_checkinteger(L, arg, RMALAB_ERR_RANK, what);
    if (r < 0 || r > INT_MAX) /* the core refuses the others in range */
        lrm_raisef(L, RMALAB_ERR_RANK, "comm: %s %lld is not a rank of this communicator", what,
                   (long long)r);
    return (int)r;
}

static int checktag(lua_State *L, int arg, bool any)
{
    if (lua_isnoneornil(L, arg))
        return any ? RMALAB_ANY_TAG : 0;
    lua_Integer t = lrm_checkinteger(L, arg, RMALAB_ERR_ARG, "tag");
    if (t < 0 || t > INT_MAX) /* the core refuses the others past MPI_TAG_UB */
        lrm_raisef(L, RMALAB_ERR_ARG, "comm: tag %lld is outside 0 to MPI_TAG_UB", (long long)t);
    return (int)t;
}

/* A receive's status { source =, tag = }; a probe's has bytes = too. */
static void push_status(lua_State *L, const rmalab_msg_status *st, bool bytes)
{
    lua_createtable(L, 0, 3);
    lua_pushinteger(L, st->source);
    lua_setfield(L, -2, "source");
    lua_pushinteger(L, st->tag);
    lua_setfield(L, -2, "tag");
    if (!bytes)
        return;
    lua_pushinteger(L, (lua_Integer)st->bytes);
    lua_setfield(L, -2, "bytes");
}

/* Push the value in n bytes, and the status: 2 results, or raise. */
static int push_message(lua_State *L, const void *p, size_t n, const rmalab_msg_status *st)
{
    int rc = lrm_decode(L, p, n);
    if (rc)
        return lrm_raisef(L, rc, "comm:recv: from rank %d, tag %d: %s", st->source, st->tag,
                          rmalab_errmsg());
    push_status(L, st, false);
    return 2;
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

static void no_buffer(lua_State *L, int arg)
{
    if (!lua_isnoneornil(L, arg)) /* rl.buffer: a follow-up (rmalab_comm_recv takes it) */
        lrm_argerror(L, arg, RMALAB_ERR_ARG, "receiving into a buffer needs rl.buffer, which "
                                             "this build does not have yet");
}

/* c:send(v, dest [, tag]) */
static int comm_send(lua_State *L)
{
    rmalab_comm *c = lrm_checkcomm(L, 1);
    int dest = checkpeer(L, 3, false, "destination"), tag = checktag(L, 4, false);
    lrm_bytes *b = encode(L, 2, "send");
    int rc = rmalab_comm_send(c, b->p, b->n, dest, tag);
    return rc ? raise(L, rc) : 0;
}

/* c:recv([source [, tag [, b]]]) -> v, status */
static int comm_recv(lua_State *L)
{
    rmalab_comm *c = lrm_checkcomm(L, 1);
    int source = checkpeer(L, 2, true, "source"), tag = checktag(L, 3, true);
    no_buffer(L, 4);
    const void *p;
    size_t n;
    rmalab_msg_status st;
    int rc = rmalab_comm_recv_bytes(c, source, tag, &p, &n, &st);
    return rc ? raise(L, rc) : push_message(L, p, n, &st);
}

/* c:sendrecv(v, dest, source [, tag]) -> v, status: the send goes with
 * `tag` (0), the receive takes `tag` (nil: any). */
static int comm_sendrecv(lua_State *L)
{
    rmalab_comm *c = lrm_checkcomm(L, 1);
    int dest = checkpeer(L, 3, false, "destination"), source = checkpeer(L, 4, true, "source");
    int tag = checktag(L, 5, true);
    lrm_bytes *b = encode(L, 2, "sendrecv");
    rmalab_request *r = NULL;
    int rc = rmalab_comm_isend(c, b->p, b->n, dest, tag == RMALAB_ANY_TAG ? 0 : tag, &r);
    if (rc)
        return raise(L, rc);
    const void *p;
    size_t n;
    rmalab_msg_status st;
    rc = rmalab_comm_recv_bytes(c, source, tag, &p, &n, &st);
    int rc2 = rmalab_request_wait(r, NULL, NULL, NULL);
    rmalab_request_destroy(&r);
    if (rc || rc2)
        return raise(L, rc ? rc : rc2);
    return push_message(L, p, n, &st);
}

/* c:probe([source [, tag]]) -> status; c:iprobe(...) -> false | true, status */
static int comm_probe(lua_State *L)
{
    rmalab_comm *c = lrm_checkcomm(L, 1);
    int source = checkpeer(L, 2, true, "source"), tag = checktag(L, 3, true);
    rmalab_msg_status st;
    int rc = rmalab_comm_probe(c, source, tag, &st);
    if (rc)
        return raise(L, rc);
    push_status(L, &st, true);
    return 1;
}

static int comm_iprobe(lua_State *L)
{
    rmalab_comm *c = lrm_checkcomm(L, 1);
    int source = checkpeer(L, 2, true, "source"), tag = checktag(L, 3, true), flag = 0;
    rmalab_msg_status st;
    int rc = rmalab_comm_iprobe(c, source, tag, &flag, &st);
    if (rc)
        return raise(L, rc);
    lua_pushboolean(L, flag);
    if (!flag)
        return 1;
    push_status(L, &st, true);
    return 2;
}

/* ------------------------------------------------------------------------ */
/* Requests                                                                 */

/* A request object, holding its communicator (argument 1) as user value. */
static lreq *newreq(lua_State *L, int peer, int tag, int is_recv)
{
    lreq *q = lrm_newud(L, sizeof *q, 1, &req_tag);
    q->peer = peer;
    q->tag_ = tag;
    q->is_recv = is_recv;
    luaL_setmetatable(L, REQ_T);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);
    return q;
}

static lreq *toreq(lua_State *L)
{
    return lrm_checkud(L, 1, &req_tag, sizeof(lreq), RMALAB_ERR_ARG, "request expected");
}

static int comm_isend(lua_State *L)
{
    rmalab_comm *c = lrm_checkcomm(L, 1);
    int dest = checkpeer(L, 3, false, "destination"), tag = checktag(L, 4, false);
    lrm_bytes *b = encode(L, 2, "isend");
    lreq *q = newreq(L, dest, tag, 0);
    int rc = rmalab_comm_isend(c, b->p, b->n, dest, tag, &q->r);
    return rc ? raise(L, rc) : 1;
}

static int comm_irecv(lua_State *L)
{
    rmalab_comm *c = lrm_checkcomm(L, 1);
    int source = checkpeer(L, 2, true, "source"), tag = checktag(L, 3, true);
    no_buffer(L, 4);
    lreq *q = newreq(L, source, tag, 1);
    int rc = rmalab_comm_irecv(c, source, tag, &q->r);
    return rc ? raise(L, rc) : 1;
}

/* What a completed request gives: a receive's value and status; true for
 * a send. The request is spent. */
static int completed(lua_State *L, lreq *q, const void *p, size_t n, const rmalab_msg_status *st)
{
    q->taken = 1;
    if (q->is_recv)
        return push_message(L, p, n, st);
    lua_pushboolean(L, 1);
    return 1;
}

static void check_live(lua_State *L, lreq *q, const char *call)
{
    if (!q->r || q->taken)
        lrm_raisef(L, RMALAB_ERR_ARG, "rq:%s: this request has completed already; a request "
                                      "gives its result once", call);
}

/* rq:wait() -> v, status (a receive) or true (a send) */
static int req_wait(lua_State *L)
{
    lreq *q = toreq(L);
    check_live(L, q, "wait");
    const void *p;
    size_t n;
    rmalab_msg_status st;
    int rc = rmalab_request_wait(q->r, &p, &n, &st);
    return rc ? raise(L, rc) : completed(L, q, p, n, &st);
}

/* rq:test() -> false, or true and what wait gives */
static int req_test(lua_State *L)
{
    lreq *q = toreq(L);
    check_live(L, q, "test");
    const void *p;
    size_t n;
    rmalab_msg_status st;
    int done = 0, rc = rmalab_request_test(q->r, &done, &p, &n, &st);
    if (rc)
        return raise(L, rc);
    lua_pushboolean(L, done);
    if (!done)
        return 1;
    if (!q->is_recv) {
        q->taken = 1;
        return 1;
    }
    return 1 + completed(L, q, p, n, &st);
}

static int req_gc(lua_State *L)
{
    lreq *q = toreq(L);
    if (q->r && !q->taken) {
        char peer[24];
        snprintf(peer, sizeof peer, q->peer == RMALAB_ANY_SOURCE ? "any rank" : "rank %d",
                 q->peer);
        lrm_warn(lrm_getctx(L),
                 "rmalab: a request (%s %s %s, tag %d) was never waited for; call rq:wait()",
                 q->is_recv ? "irecv" : "isend", q->is_recv ? "from" : "to", peer, q->tag_);
    }
    rmalab_request_destroy(&q->r);
    return 0;
}

static int req_tostring(lua_State *L)
{
    lreq *q = toreq(L);
    lua_pushfstring(L, "rmalab.request (%s, %s)", q->is_recv ? "irecv" : "isend",
                    q->taken ? "completed" : "pending");
    return 1;
}

static const luaL_Reg p2p_methods[] = {
    {"send", comm_send},   {"recv", comm_recv},     {"sendrecv", comm_sendrecv},
    {"probe", comm_probe}, {"iprobe", comm_iprobe}, {"isend", comm_isend},
    {"irecv", comm_irecv}, {NULL, NULL},
};

static const luaL_Reg req_meta[] = {
    {"__gc", req_gc}, {"__tostring", req_tostring}, {"__index", NULL}, {NULL, NULL},
};

static const luaL_Reg req_methods[] = {
    {"wait", req_wait}, {"test", req_test}, {NULL, NULL},
};

void lrm_open_p2p(lua_State *L)
{
    lrm_push_comm_methods(L);
    luaL_setfuncs(L, p2p_methods, 0);
    lua_pop(L, 1);
    luaL_newmetatable(L, REQ_T);
    luaL_setfuncs(L, req_meta, 0);
    luaL_newlib(L, req_methods);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}
