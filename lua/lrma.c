/* RMA operations in Lua: put, get, accumulate, get_accumulate,
 * fetch_and_op and compare_and_swap, the request-based rput, rget,
 * raccumulate and rget_accumulate (their requests are lrequest.c's), and
 * the result handles of those that return data (r:value(), r:values(),
 * r:ready()). A handle is made and pinned by its window (lpin.c) before
 * the operation, so that MPI writes only into memory the collector keeps. */
#include <stdio.h>
#include <string.h>

#include "lnames.h"
#include "lrmalab.h"

#define LRM_RESULT_T "rmalab.result"

/* A result handle holds its operation's result memory itself, and for the
 * atomics and get_accumulate a copy of their origin (and compare), which
 * MPI reads until the operation completes: the core's call on the
 * caller's memory (rmalab_win_get_mem...) fills it, and its ticket says
 * when it has completed (rmalab_win_done). The window keeps each handle
 * alive until then (pin), so the collector never frees memory that MPI
 * may still write, and a handle needs no finaliser. It replaced a core
 * result (rmalab_win_get) in a userdata of its own with a __gc that
 * released it: a calloc and a free, the core's tracking of the result, and
 * the collector's finalising call, about 1.2k instructions a get. */
typedef struct {
    lrm_pinned p;     /* tag &result_tag; its window, ticket and target */
    int count;
    rmalab_type type;
    _Alignas(8) unsigned char data[]; /* the result, then origin and compare */
} lresult;

static const char result_tag = 'r';

static lresult *toresult(lua_State *L, int arg)
{
    lresult *u = lua_touserdata(L, arg);
    if (!u || lua_rawlen(L, arg) < sizeof *u || u->p.tag != &result_tag)
        lrm_checkud_fail(L, arg, RMALAB_ERR_ARG, "RMA result expected");
    return u;
}

/* A handle for o's operation of `count` elements with room for `extra`
 * copies of its origin, pushed and pinned before the operation, so that
 * MPI never writes into memory the collector may take. Its metatable is
 * the first upvalue of every operation (lrm_open_rma), where a lookup in
 * the registry cost each get about 170 instructions. */
static lresult *new_result(lua_State *L, rmalab_win *w, int target, rmalab_type type, int count,
                           int extra)
{
    size_t bytes = (size_t)count * (size_t)rmalab_type_size(type);
    lresult *u = lua_newuserdatauv(L, sizeof *u + bytes * (size_t)(1 + extra), 0);
    *u = (lresult){.p = {.tag = &result_tag, .w = w, .target = target}, .count = count,
                   .type = type};
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_setmetatable(L, -2);
    lrm_win_pin(L);
    return u;
}

/* The k-th copy of the origin in u, holding the `count` values at v. */
static void *result_copy(lresult *u, int k, const void *v)
{
    size_t bytes = (size_t)u->count * (size_t)rmalab_type_size(u->type);
    return memcpy(u->data + (size_t)k * bytes, v, bytes);
}

/* ------------------------------------------------------------------------ */
/* Operations on buffers (lbuffer.c): used in place, in flight until the    */
/* call that completes them                                                 */

/* The arguments every operation starts with; the layout is a type name
 * or an rl.vector. */
typedef struct {
    rmalab_win *w;
    int target;
    MPI_Aint disp;
    rmalab_type type;
    const rmalab_vector *vec;
    const char *call;       /* "win:put" */
    const char *op;         /* "put" */
    enum { PUT, GET, ACCUMULATE, GET_ACCUMULATE, FETCH_AND_OP, COMPARE_AND_SWAP } kind;
    bool request;           /* rput, rget, raccumulate, rget_accumulate */
} mem_op;

/* Where the values at arg of the operation come from, for their errors. */
static lrm_valsite values_site(const mem_op *o, int arg)
{
    bool compare = o->kind == COMPARE_AND_SWAP && arg == 5;
    return (lrm_valsite){o->call, arg - 1, compare ? "compare" : NULL,
                         rmalab_win_get_name(o->w), false};
}

/* The calls, in the order of calls[] below: the request-based ones follow,
 * in the order of their plain kinds. */
enum { C_PUT, C_GET, C_ACCUMULATE, C_GET_ACCUMULATE, C_FETCH_AND_OP, C_COMPARE_AND_SWAP,
       C_RPUT, C_RGET, C_RACCUMULATE, C_RGET_ACCUMULATE };

/* The arguments of call number i (the enum above), given by the caller,
 * where a search of the names cost every get two string comparisons; a
 * type name by its address (lnames.h), anything else by lrm_checklayout. */
static void check_op_args(lua_State *L, mem_op *o, int i)
{
    static const char *const calls[] = {"win:put",  "win:get",  "win:accumulate",
                                        "win:get_accumulate", "win:fetch_and_op",
                                        "win:compare_and_swap", "win:rput", "win:rget",
                                        "win:raccumulate", "win:rget_accumulate"};
    o->request = i > COMPARE_AND_SWAP;
    o->kind = o->request ? i - COMPARE_AND_SWAP - 1 : i;
    o->w = lrm_checkwin(L, 1);
    o->target = lrm_checkrank(L, 2, o->w);
    o->disp = lrm_checkdisp(L, 3);
    int t = lrm_name_at(L, 4, LRM_NAME_TYPE, RMALAB_NTYPES);
    o->vec = NULL;
    o->type = t >= 0 ? (rmalab_type)t : lrm_checklayout(L, 4, &o->vec);
    o->call = calls[i];
    o->op = calls[i] + 4;
}

/* A buffer given for the operation must hold its type. */
static lrm_buffer *typed_buffer(lua_State *L, const mem_op *o, int arg)
{
    lrm_buffer *b = lrm_tobuffer(L, arg);
    if (b && b->type != o->type)
        lrm_raise_named(L, rmalab_win_get_name(o->w), RMALAB_ERR_TYPE,
                        "%s: the buffer (argument %d) holds %s and the operation moves %s; "
                        "they must agree",
                        o->call, arg - 1, rmalab_type_name(b->type), rmalab_type_name(o->type));
    return b;
}

/* The origin at arg as a buffer: the one given, or the values made into
 * a new buffer. Returns its stack index. */
static int origin_at(lua_State *L, const mem_op *o, int arg)
{
    if (typed_buffer(L, o, arg))
        return arg;
    int count;
    lrm_valsite site = values_site(o, arg);
    const void *v = lrm_checkvalues(L, arg, o->type, &count, &site);
    lrm_buffer *b = lrm_buffer_new(L, o->type, count);
    memcpy(b->p, v, (size_t)b->n * (size_t)b->size);
    return lua_gettop(L);
}

/* The result at arg as a buffer: the one given, or a new one of the
 * count given there (default `n`). Returns its stack index. */
static int result_at(lua_State *L, const mem_op *o, int arg, lua_Integer n)
{
    if (typed_buffer(L, o, arg))
        return arg;
    lrm_buffer_new(L, o->type, lua_isnoneornil(L, arg) ? n : lrm_checkcount(L, arg));
    return lua_gettop(L);
}

/* "the origin of a put to rank 1", "the result of an rget from rank 0" */
static void flight_what(const mem_op *o, bool result, char *buf, size_t size)
{
    snprintf(buf, size, "the %s of %s %s %s rank %d", result ? "result" : "origin",
             strchr("aeiou", o->op[0]) ? "an" : "a", o->op, result ? "from" : "to", o->target);
}

/* The buffer at arg is in flight for the operation just issued. */
static void fly(lua_State *L, const mem_op *o, int arg, uint64_t ticket, bool result)
{
    char what[64], by[96];
    flight_what(o, result, what, sizeof what);
    rmalab_win_completer(o->w, o->target, by, sizeof by);
    lrm_buffer_fly(L, arg, o->w, o->target, ticket, result, what, by);
}

static int mem_error(lua_State *L, int rc, const mem_op *o)
{
    return lrm_raise_win(L, rc, o->w, NULL);
}

static int elements_of(const rmalab_vector *vec)
{
    return vec ? vec->count * vec->blocklen : 1;
}

/* The buffers of o claimed: b (the origin, or a get's result) and r
 * (get_accumulate's result). */
static void claim(lua_State *L, const mem_op *o, int b, int r)
{
    lrm_buffer_claim(L, b, o->w, o->kind == GET, o->call);
    if (r)
        lrm_buffer_claim(L, r, o->w, true, o->call);
}

/* The core's call for o on u (and v): with rq, its request-based form. */
static int start(const mem_op *o, const lrm_buffer *u, const lrm_buffer *v, rmalab_op op,
                 uint64_t *ticket, rmalab_request **rq)
{
    rmalab_win *w = o->w;
    int n = (int)u->n;
    switch (o->kind) {
    case PUT:
        return rq ? rmalab_win_rput(w, o->target, o->disp, o->type, n, u->p, o->vec, rq)
                  : rmalab_win_put_mem(w, o->target, o->disp, o->type, n, u->p, o->vec, ticket);
    case GET:
        return rq ? rmalab_win_rget(w, o->target, o->disp, o->type, n, u->p, o->vec, rq)
                  : rmalab_win_get_mem(w, o->target, o->disp, o->type, n, u->p, o->vec, ticket);
    case ACCUMULATE:
        return rq ? rmalab_win_raccumulate(w, o->target, o->disp, o->type, n, u->p, op, o->vec, rq)
                  : rmalab_win_accumulate_mem(w, o->target, o->disp, o->type, n, u->p, op,
                                              o->vec, ticket);
    default:
        return rq ? rmalab_win_rget_accumulate(w, o->target, o->disp, o->type, n, u->p, v->p, op,
                                               o->vec, rq)
                  : rmalab_win_get_accumulate_mem(w, o->target, o->disp, o->type, n, u->p, v->p,
                                                  op, o->vec, ticket);
    }
}

/* Issue o on the buffer at b (the origin, or a get's result) and, for
 * get_accumulate, the result buffer at r; both are then in flight until
 * the call of the window that completes the operation. */
static void issue(lua_State *L, const mem_op *o, int b, int r, rmalab_op op)
{
    lrm_buffer *u = lrm_tobuffer(L, b), *v = r ? lrm_tobuffer(L, r) : NULL;
    claim(L, o, b, r);
    lrm_site(L, o->w);
    uint64_t ticket;
    int rc = start(o, u, v, op, &ticket, NULL);
    if (rc)
        mem_error(L, rc, o);
    fly(L, o, b, ticket, o->kind == GET);
    if (v)
        fly(L, o, r, ticket, true);
}

/* The request-based form of o: its request (made first, pushed) keeps the
 * buffer at b, and the result buffer at r (get_accumulate) or b (get) is
 * what its wait gives; both are in flight until the request completes or
 * a call of the window completes the operation. */
static lrm_request *issue_request(lua_State *L, const mem_op *o, int b, int r, rmalab_op op)
{
    lrm_buffer *u = lrm_tobuffer(L, b), *v = r ? lrm_tobuffer(L, r) : NULL;
    claim(L, o, b, r);
    lrm_request *q = lrm_request_new(L, 1, RMALAB_REQUEST_RMA);
    q->w = o->w;
    lrm_request_keep(L, -1, r ? r : b); /* the window pins both until they land */
    lrm_site(L, o->w);
    int rc = start(o, u, v, op, NULL, &q->r);
    if (rc)
        mem_error(L, rc, o);
    char what[64], by[128], done[96];
    rmalab_win_completer(o->w, o->target, done, sizeof done);
    snprintf(by, sizeof by, "the request's wait(), or %s", done);
    uint64_t id = rmalab_request_id(q->r);
    flight_what(o, o->kind == GET, what, sizeof what);
    lrm_buffer_fly_request(L, b, o->w, o->target, 0, id, o->kind == GET, what, by);
    if (v) {
        flight_what(o, true, what, sizeof what);
        lrm_buffer_fly_request(L, r, o->w, o->target, 0, id, true, what, by);
    }
    return q;
}

/* get_accumulate's origin u and result v agree in length and do not
 * overlap. */
static void check_results(lua_State *L, const mem_op *o, const lrm_buffer *u,
                          const lrm_buffer *v)
{
    if (v->n != u->n)
        lrm_raise_named(L, rmalab_win_get_name(o->w), RMALAB_ERR_ARG,
                        "%s: the origin holds %lld elements and the result buffer %lld; they "
                        "must agree", o->call, (long long)u->n, (long long)v->n);
    if (lrm_buffers_overlap(u, v))
        lrm_argerror(L, 7, RMALAB_ERR_ARG, "the result buffer overlaps the origin");
}

/* ------------------------------------------------------------------------ */
/* The operations                                                           */

static int win_put(lua_State *L)
{
    mem_op o;
    check_op_args(L, &o, C_PUT);
    if (!o.vec && !lrm_tobuffer(L, 5)) {
        int count;
        _Alignas(16) unsigned char small[64];
        lrm_valsite site = values_site(&o, 5);
        void *buf = lrm_checkvalues_buf(L, 5, o.type, &count, small, sizeof small, &site);
        lrm_site(L, o.w);
        int rc = rmalab_win_put(o.w, o.target, o.disp, o.type, count, buf);
        return rc ? mem_error(L, rc, &o) : 0;
    }
    issue(L, &o, origin_at(L, &o, 5), 0, RMALAB_OP_REPLACE);
    return 0;
}

/* win:get(target, disp, layout [, count | buffer]): a result handle, or
 * with a buffer or a vector, the buffer that the get fills. */
static int win_get(lua_State *L)
{
    mem_op o;
    check_op_args(L, &o, C_GET);
    int t5 = lua_type(L, 5); /* none or nil: one element, and no buffer to test */
    if (!o.vec && (t5 <= LUA_TNIL || !lrm_tobuffer(L, 5))) {
        int count = t5 <= LUA_TNIL ? 1 : lrm_checkcount(L, 5);
        lresult *u = new_result(L, o.w, o.target, o.type, count, 0);
        lrm_site(L, o.w);
        /* u->data is the new handle's: it cannot overlap the window */
        int rc = rmalab_win_get_fresh(o.w, o.target, o.disp, o.type, count, u->data,
                                      &u->p.ticket);
        return rc ? mem_error(L, rc, &o) : 1;
    }
    int b = result_at(L, &o, 5, elements_of(o.vec));
    issue(L, &o, b, 0, RMALAB_OP_NO_OP);
    lua_pushvalue(L, b);
    return 1;
}

static int win_accumulate(lua_State *L)
{
    mem_op o;
    check_op_args(L, &o, C_ACCUMULATE);
    rmalab_op op = lrm_checkop(L, 6);
    if (!o.vec && !lrm_tobuffer(L, 5)) {
        int count;
        lrm_valsite site = values_site(&o, 5);
        void *buf = lrm_checkvalues(L, 5, o.type, &count, &site);
        lrm_site(L, o.w);
        int rc = rmalab_win_accumulate(o.w, o.target, o.disp, o.type, count, buf, op);
        return rc ? mem_error(L, rc, &o) : 0;
    }
    issue(L, &o, origin_at(L, &o, 5), 0, op);
    return 0;
}

/* win:get_accumulate(target, disp, layout, values | buffer, op [, result]):
 * a result handle, or when a buffer or a vector is given, the result
 * buffer (the one given, or a new one). */
static int win_get_accumulate(lua_State *L)
{
    mem_op o;
    check_op_args(L, &o, C_GET_ACCUMULATE);
    rmalab_op op = lrm_checkop(L, 6);
    if (!o.vec && !lrm_tobuffer(L, 5) && lua_isnoneornil(L, 7)) {
        int count;
        lrm_valsite site = values_site(&o, 5);
        void *buf = lrm_checkvalues(L, 5, o.type, &count, &site);
        lresult *u = new_result(L, o.w, o.target, o.type, count, 1);
        void *origin = result_copy(u, 1, buf);
        lrm_site(L, o.w);
        int rc = rmalab_win_get_accumulate_mem(o.w, o.target, o.disp, o.type, count, origin,
                                               u->data, op, NULL, &u->p.ticket);
        return rc ? mem_error(L, rc, &o) : 1;
    }
    lua_settop(L, 7);
    int b = origin_at(L, &o, 5);
    lrm_buffer *u = lrm_tobuffer(L, b);
    int r = result_at(L, &o, 7, u->n);
    check_results(L, &o, u, lrm_tobuffer(L, r));
    issue(L, &o, b, r, op);
    lua_pushvalue(L, r);
    return 1;
}

/* ------------------------------------------------------------------------ */
/* fetch_and_op and compare_and_swap on buffers: one element each           */

/* The value or buffer at arg as a buffer of one element. */
static int one_at(lua_State *L, const mem_op *o, int arg)
{
    int b = origin_at(L, o, arg);
    lua_Integer n = lrm_tobuffer(L, b)->n;
    if (n != 1)
        lrm_raise_named(L, rmalab_win_get_name(o->w), RMALAB_ERR_ARG,
                        "%s: the buffer (argument %d) holds %lld elements; %s moves exactly one",
                        o->call, arg - 1, (long long)n, o->op);
    return b;
}

/* With a buffer among its arguments: the origin at `b` (and compare at
 * `c`, unless 0), the result at `b + 1`, given or new; all in flight. */
static int atomic_mem(lua_State *L, int call, int c, int b, rmalab_op op)
{
    mem_op o;
    check_op_args(L, &o, call);
    if (o.vec)
        lrm_argerror(L, 4, RMALAB_ERR_ARG, "a type expected: the operation moves one element");
    lua_settop(L, b + 1);
    int cb = c ? one_at(L, &o, c) : 0, ob = one_at(L, &o, b), rb = result_at(L, &o, b + 1, 1);
    lrm_buffer *x = c ? lrm_tobuffer(L, cb) : NULL, *u = lrm_tobuffer(L, ob),
               *v = lrm_tobuffer(L, rb);
    if (v->n != 1)
        lrm_argerror(L, b + 1, RMALAB_ERR_ARG, "a result buffer of one element expected");
    if (v->p == u->p || (x && v->p == x->p))
        lrm_argerror(L, b + 1, RMALAB_ERR_ARG, "the result buffer is an operand too");
    if (x)
        lrm_buffer_claim(L, cb, o.w, false, o.call);
    lrm_buffer_claim(L, ob, o.w, false, o.call);
    lrm_buffer_claim(L, rb, o.w, true, o.call);
    lrm_site(L, o.w);
    uint64_t ticket;
    int rc = x ? rmalab_win_compare_and_swap_mem(o.w, o.target, o.disp, o.type, x->p, u->p, v->p,
                                                 &ticket)
               : rmalab_win_fetch_and_op_mem(o.w, o.target, o.disp, o.type, u->p, v->p, op,
                                             &ticket);
    if (rc)
        mem_error(L, rc, &o);
    if (x)
        fly(L, &o, cb, ticket, false);
    fly(L, &o, ob, ticket, false);
    fly(L, &o, rb, ticket, true);
    lua_pushvalue(L, rb);
    return 1;
}

static int any_buffer(lua_State *L, int from, int to)
{
    for (int i = from; i <= to; i++)
        if (lrm_tobuffer(L, i))
            return 1;
    return 0;
}

/* win:fetch_and_op(target, disp, type, value | buffer, op [, result]): a
 * result handle, or with a buffer, the result buffer. */
static int win_fetch_and_op(lua_State *L)
{
    if (any_buffer(L, 5, 7)) {
        rmalab_op op = lrm_checkop(L, 6);
        lua_remove(L, 6); /* the result follows the origin */
        return atomic_mem(L, C_FETCH_AND_OP, 0, 5, op);
    }
    rmalab_win *w = lrm_checkwin(L, 1);
    int target = lrm_checkrank(L, 2, w);
    MPI_Aint disp = lrm_checkdisp(L, 3);
    rmalab_type t = lrm_checktype(L, 4);
    rmalab_op op = lrm_checkop(L, 6);
    int count;
    lrm_valsite site = {"win:fetch_and_op", 4, NULL, rmalab_win_get_name(w), false};
    void *buf = lrm_checkvalues(L, 5, t, &count, &site);
    if (count != 1)
        lrm_argerror(L, 5, RMALAB_ERR_ARG, "fetch_and_op takes exactly one value");
    lresult *u = new_result(L, w, target, t, 1, 1);
    void *origin = result_copy(u, 1, buf);
    lrm_site(L, w);
    int rc = rmalab_win_fetch_and_op_mem(w, target, disp, t, origin, u->data, op, &u->p.ticket);
    if (rc)
        return lrm_raise_win(L, rc, w, NULL);
    return 1;
}

/* win:compare_and_swap(target, disp, type, compare, value [, result]):
 * each of compare and value may be a buffer; with one, the result buffer. */
static int win_compare_and_swap(lua_State *L)
{
    if (any_buffer(L, 5, 7))
        return atomic_mem(L, C_COMPARE_AND_SWAP, 5, 6, RMALAB_NOPS);
    rmalab_win *w = lrm_checkwin(L, 1);
    int target = lrm_checkrank(L, 2, w);
    MPI_Aint disp = lrm_checkdisp(L, 3);
    rmalab_type t = lrm_checktype(L, 4);
    int nc, nv;
    lua_settop(L, 6);
    lrm_valsite cs = {"win:compare_and_swap", 4, "compare", rmalab_win_get_name(w), false};
    lrm_valsite vs = {"win:compare_and_swap", 5, NULL, rmalab_win_get_name(w), false};
    void *cmp = lrm_checkvalues(L, 5, t, &nc, &cs);
    void *val = lrm_checkvalues(L, 6, t, &nv, &vs);
    if (nc != 1 || nv != 1)
        lrm_argerror(L, nc != 1 ? 5 : 6, RMALAB_ERR_ARG,
                     "compare_and_swap takes exactly one value");
    lresult *u = new_result(L, w, target, t, 1, 2);
    void *compare = result_copy(u, 1, cmp), *origin = result_copy(u, 2, val);
    lrm_site(L, w);
    int rc = rmalab_win_compare_and_swap_mem(w, target, disp, t, compare, origin, u->data,
                                             &u->p.ticket);
    if (rc)
        return lrm_raise_win(L, rc, w, NULL);
    return 1;
}

/* The handle at 1, its data there: or an error, while its operation may
 * be in flight or when its window was freed before it completed. */
static lresult *checkresult(lua_State *L, const char *call)
{
    lresult *u = toresult(L, 1);
    if (lrm_landed(&u->p) && !u->p.gone)
        return u;
    if (u->p.gone)
        lrm_raisef(L, RMALAB_ERR_RMA_SYNC,
                   "result:%s: the data from rank %d never arrived: its window was freed "
                   "before the epoch that carries it completed",
                   call, u->p.target);
    char by[96];
    rmalab_win_completer(u->p.w, u->p.target, by, sizeof by);
    lrm_raise_named(L, rmalab_win_get_name(u->p.w), RMALAB_ERR_RMA_SYNC,
                    "result:%s: the data from rank %d has not arrived yet: an RMA result may "
                    "only be read once the epoch that carries it has completed, here at %s",
                    call, u->p.target, by);
    return NULL;
}

static int result_value(lua_State *L)
{
    lresult *u = checkresult(L, "value");
    lrm_pushvalues(L, u->type, u->data, u->count, 0);
    return 1;
}

static int result_values(lua_State *L)
{
    lresult *u = checkresult(L, "values");
    lrm_pushvalues(L, u->type, u->data, u->count, 1);
    return 1;
}

static int result_ready(lua_State *L)
{
    lresult *u = toresult(L, 1);
    lua_pushboolean(L, lrm_landed(&u->p) && !u->p.gone);
    return 1;
}

/* win:rput(target, disp, layout, values | buffer) -> rq */
static int win_rput(lua_State *L)
{
    mem_op o;
    check_op_args(L, &o, C_RPUT);
    issue_request(L, &o, origin_at(L, &o, 5), 0, RMALAB_OP_REPLACE);
    return 1;
}

/* win:rget(target, disp, layout [, count | buffer]) -> rq; its wait gives
 * the buffer given, else the values (one value without a count). */
static int win_rget(lua_State *L)
{
    mem_op o;
    check_op_args(L, &o, C_RGET);
    int gets = lrm_tobuffer(L, 5) ? LRM_GETS_BUFFER
               : lua_isnoneornil(L, 5) && !o.vec ? LRM_GETS_ONE
                                                 : LRM_GETS_ARRAY;
    int b = result_at(L, &o, 5, elements_of(o.vec));
    issue_request(L, &o, b, 0, RMALAB_OP_NO_OP)->gets = gets;
    return 1;
}

static int win_raccumulate(lua_State *L)
{
    mem_op o;
    check_op_args(L, &o, C_RACCUMULATE);
    rmalab_op op = lrm_checkop(L, 6);
    issue_request(L, &o, origin_at(L, &o, 5), 0, op);
    return 1;
}

/* win:rget_accumulate(target, disp, layout, values | buffer, op [, result])
 * -> rq; its wait gives the result buffer given, else the values. */
static int win_rget_accumulate(lua_State *L)
{
    mem_op o;
    check_op_args(L, &o, C_RGET_ACCUMULATE);
    rmalab_op op = lrm_checkop(L, 6);
    lua_settop(L, 7);
    int gets = lrm_tobuffer(L, 7) ? LRM_GETS_BUFFER
               : lua_istable(L, 5) || lrm_tobuffer(L, 5) || o.vec ? LRM_GETS_ARRAY
                                                                  : LRM_GETS_ONE;
    int b = origin_at(L, &o, 5);
    lrm_buffer *u = lrm_tobuffer(L, b);
    int r = result_at(L, &o, 7, u->n);
    check_results(L, &o, u, lrm_tobuffer(L, r));
    issue_request(L, &o, b, r, op)->gets = gets;
    return 1;
}

static const luaL_Reg rma_methods[] = {
    {"rput", win_rput},
    {"rget", win_rget},
    {"raccumulate", win_raccumulate},
    {"rget_accumulate", win_rget_accumulate},
    {"put", win_put},
    {"get", win_get},
    {"accumulate", win_accumulate},
    {"get_accumulate", win_get_accumulate},
    {"fetch_and_op", win_fetch_and_op},
    {"compare_and_swap", win_compare_and_swap},
    {NULL, NULL},
};

static const luaL_Reg result_methods[] = {
    {"value", result_value}, {"values", result_values}, {"ready", result_ready}, {NULL, NULL},
};

/* Adds the operations to the window methods, and makes the result type. */
void lrm_open_rma(lua_State *L)
{
    luaL_newmetatable(L, LRM_RESULT_T);
    luaL_newlib(L, result_methods);
    lua_setfield(L, -2, "__index");
    lrm_push_win_methods(L);
    lua_insert(L, -2);
    luaL_setfuncs(L, rma_methods, 1); /* each with the result's metatable: new_result's */
    lua_pop(L, 1);
}
