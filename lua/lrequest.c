/* Requests in Lua: one type for the requests of isend and irecv (lp2p.c)
 * and of rput, rget, raccumulate and rget_accumulate (lrma.c);
 * rq:wait(), rq:test(), rl.waitall and rl.waitany take any of them.
 *
 * A request keeps what it needs alive in its user values: its
 * communicator or window (1), and the buffer it moves (2). Its buffer is in
 * flight (lbuffer.c) until the request completes, or a call of its window
 * completes its operation. A request that was never waited for (or tested
 * until done) is reported when it is collected, at exit at the latest,
 * like a window that was never freed; the window's free reports its own
 * (the core's warning) and completes them. */
#include <limits.h>

#include "lrmalab.h"

#define REQ_T "rmalab.request"

static const char req_tag = 'q';

static lrm_request *toreq(lua_State *L, int arg)
{
    return lrm_checkud(L, arg, &req_tag, sizeof(lrm_request), RMALAB_ERR_ARG,
                       "request expected");
}

lrm_request *lrm_request_new(lua_State *L, int owner, rmalab_request_kind kind)
{
    owner = lua_absindex(L, owner);
    lrm_request *q = lrm_newud(L, sizeof *q, 2, &req_tag);
    q->kind = kind;
    luaL_setmetatable(L, REQ_T);
    lua_pushvalue(L, owner);
    lua_setiuservalue(L, -2, 1);
    return q;
}

void lrm_request_keep(lua_State *L, int req, int buf)
{
    req = lua_absindex(L, req);
    lua_pushvalue(L, buf);
    lua_setiuservalue(L, req, 2);
}

/* ------------------------------------------------------------------------ */
/* Messages' values                                                         */

int lrm_push_message(lua_State *L, const void *p, size_t n, const rmalab_msg_status *st, int buf)
{
    return lrm_push_message_memo(L, p, n, st, buf, 0);
}

int lrm_push_message_memo(lua_State *L, const void *p, size_t n, const rmalab_msg_status *st,
                          int buf, int memo)
{
    if (buf) {
        lua_pushvalue(L, buf);
    } else if (st->type >= 0) { /* a buffer sent: a new one of its type */
        rmalab_type t = (rmalab_type)st->type;
        lrm_buffer *b = lrm_buffer_new(L, t, (lua_Integer)(n / (size_t)rmalab_type_size(t)));
        if (n)
            memcpy(b->p, p, n);
    } else {
        int rc = lrm_decode(L, p, n);
        if (rc)
            return lrm_raisef(L, rc, "comm:recv: from rank %d, tag %d: %s", st->source, st->tag,
                              rmalab_errmsg());
    }
    lrm_push_status_memo(L, st, false, memo);
    return 2;
}

/* ------------------------------------------------------------------------ */
/* Completion                                                               */

static int raise(lua_State *L, int rc, lrm_request *q)
{
    if (rmalab_request_done(q->r)) { /* it ended so: spent, as a completion is */
        q->taken = 1;
        q->failed = rc;
    }
    if (q->kind == RMALAB_REQUEST_RMA)
        return lrm_raise_named(L, q->w ? rmalab_win_get_name(q->w) : NULL, rc, "win:%s",
                               rmalab_errmsg());
    return lrm_raisef(L, rc, "comm:%s", rmalab_errmsg());
}

/* What the request at idx gives once done: a receive's value and status;
 * an RMA get's values or buffer; true for the others. Spent afterwards. */
static int completed(lua_State *L, int idx, lrm_request *q)
{
    idx = lua_absindex(L, idx);
    q->taken = 1;
    bool buffered = lua_getiuservalue(L, idx, 2) != LUA_TNIL;
    lua_pop(L, 1);
    if (buffered)
        lrm_buffers_settle(L, q->kind == RMALAB_REQUEST_RMA ? q->w : NULL);
    if (q->kind == RMALAB_REQUEST_RECV) {
        const void *p;
        size_t n;
        rmalab_msg_status st;
        int done;
        rmalab_request_test(q->r, &done, &p, &n, &st);
        int buf = lua_getiuservalue(L, idx, 2) != LUA_TNIL ? lua_gettop(L) : 0;
        if (!buf)
            lua_pop(L, 1);
        int nres = lrm_push_message(L, p, n, &st, buf);
        if (buf)
            lua_remove(L, buf);
        return nres;
    }
    if (q->kind == RMALAB_REQUEST_RMA && q->gets) {
        lua_getiuservalue(L, idx, 2);
        if (q->gets == LRM_GETS_BUFFER)
            return 1;
        lrm_buffer *b = lrm_tobuffer(L, -1);
        lrm_pushvalues(L, b->type, b->p, (int)b->n, q->gets == LRM_GETS_ARRAY);
        lua_remove(L, -2);
        return 1;
    }
    lua_pushboolean(L, 1);
    return 1;
}

static void check_live(lua_State *L, lrm_request *q, const char *call)
{
    if (q->r && q->failed)
        lrm_raisef(L, RMALAB_ERR_ARG, "%s: this request has ended already, with %s; a request "
                                      "gives its result or its error once", call,
                   rmalab_err_name(q->failed));
    if (!q->r || q->taken)
        lrm_raisef(L, RMALAB_ERR_ARG, "%s: this request has completed already; a request "
                                      "gives its result once", call);
}

static void site(lua_State *L, const lrm_request *q)
{
    if (q->kind == RMALAB_REQUEST_RMA && q->w)
        lrm_site(L, q->w);
}

/* rq:wait() -> v, status (a receive); values or buffer (an RMA get); true */
static int req_wait(lua_State *L)
{
    lrm_request *q = toreq(L, 1);
    check_live(L, q, "rq:wait");
    site(L, q);
    int rc = rmalab_request_wait(q->r, NULL, NULL, NULL);
    return rc ? raise(L, rc, q) : completed(L, 1, q);
}

/* rq:test() -> false, or true and what wait gives */
static int req_test(lua_State *L)
{
    lrm_request *q = toreq(L, 1);
    check_live(L, q, "rq:test");
    site(L, q);
    int done = 0, rc = rmalab_request_test(q->r, &done, NULL, NULL, NULL);
    if (rc)
        return raise(L, rc, q);
    lua_pushboolean(L, done);
    if (!done)
        return 1;
    return 1 + completed(L, 1, q);
}

/* The requests of the array at 1: their core requests in a userdata. */
static rmalab_request **gather(lua_State *L, const char *call, int *n)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer len = luaL_len(L, 1);
    if (len > INT_MAX / 2)
        lrm_raisef(L, RMALAB_ERR_ARG, "%s: too many requests", call);
    rmalab_request **rs = lua_newuserdatauv(L, (size_t)(len ? len : 1) * sizeof *rs, 0);
    for (lua_Integer i = 1; i <= len; i++) {
        lua_rawgeti(L, 1, i);
        lrm_request *q = lrm_toud(L, -1, &req_tag, sizeof *q);
        if (!q)
            lrm_raisef(L, RMALAB_ERR_ARG, "%s: element %lld is %s, not a request", call,
                       (long long)i, luaL_typename(L, -1));
        char what[32];
        snprintf(what, sizeof what, "%s (element %lld)", call, (long long)i);
        check_live(L, q, what);
        rs[i - 1] = q->r;
        lua_pop(L, 1);
    }
    *n = (int)len;
    return rs;
}

/* rl.waitall{rq, ...} -> an array: element i is what rq i's wait gives
 * first (a receive's value, a get's values or buffer, true). */
static int l_waitall(lua_State *L)
{
    int n, first = 0, frc = RMALAB_OK;
    rmalab_request **rs = gather(L, "rl.waitall", &n);
    char why[1024]; /* the first failure's: later waits may set their own */
    for (int i = 0; i < n && frc != RMALAB_ERR_INTERRUPTED; i++) { /* every one, in order */
        int rc = rmalab_request_wait(rs[i], NULL, NULL, NULL);
        if (rc && !frc) {
            first = i + 1;
            frc = rc;
            snprintf(why, sizeof why, "%s", rmalab_errmsg());
        }
    }
    if (frc) {
        lua_rawgeti(L, 1, first);
        rmalab_set_error(frc, "%s", why);
        return raise(L, frc, lua_touserdata(L, -1));
    }
    lua_createtable(L, n, 0);
    for (int i = 1; i <= n; i++) {
        lua_rawgeti(L, 1, i);
        lrm_request *q = lua_touserdata(L, -1);
        int top = lua_gettop(L);
        completed(L, -1, q);
        lua_settop(L, top + 1);
        lua_rawseti(L, -3, i);
        lua_pop(L, 1);
    }
    return 1;
}

/* rl.waitany{rq, ...} -> index, and what that request's wait gives; nil
 * for an empty array. */
static int l_waitany(lua_State *L)
{
    int n, index;
    rmalab_request **rs = gather(L, "rl.waitany", &n);
    int rc = rmalab_request_waitany(rs, n, &index);
    if (rc && index < 0) /* interrupted */
        return lrm_raisef(L, rc, "rl.%s", rmalab_errmsg());
    if (index < 0)
        return 0;
    lua_rawgeti(L, 1, index + 1);
    int at = lua_gettop(L);
    lrm_request *q = lua_touserdata(L, at);
    if (rc)
        return raise(L, rc, q);
    lua_pushinteger(L, index + 1);
    return 1 + completed(L, at, q);
}

static int req_gc(lua_State *L)
{
    lrm_request *q = toreq(L, 1);
    if (q->r && !q->taken && !rmalab_request_done(q->r)) {
        char what[96];
        rmalab_request_describe(q->r, what, sizeof what);
        lrm_warn(lrm_getctx(L), "rmalab: a request (%s) was never waited for; call rq:wait()",
                 what);
    }
    rmalab_request_destroy(&q->r);
    return 0;
}

static int req_tostring(lua_State *L)
{
    static const char *const kinds[] = {"isend", "irecv", "rma"};
    lrm_request *q = toreq(L, 1);
    char what[96];
    rmalab_request_describe(q->r, what, sizeof what);
    lua_pushfstring(L, "rmalab.request (%s, %s)",
                    q->kind == RMALAB_REQUEST_RMA ? what : kinds[q->kind],
                    q->taken || rmalab_request_done(q->r) ? "completed" : "pending");
    return 1;
}

static const luaL_Reg req_meta[] = {
    {"__gc", req_gc}, {"__tostring", req_tostring}, {"__index", NULL}, {NULL, NULL},
};

static const luaL_Reg req_methods[] = {
    {"wait", req_wait}, {"test", req_test}, {NULL, NULL},
};

void lrm_open_request(lua_State *L)
{
    luaL_newmetatable(L, REQ_T);
    luaL_setfuncs(L, req_meta, 0);
    luaL_newlib(L, req_methods);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    lua_pushcfunction(L, l_waitall);
    lua_setfield(L, -2, "waitall");
    lua_pushcfunction(L, l_waitany);
    lua_setfield(L, -2, "waitany");
}
