/* Typed buffers in Lua: rl.buffer(type, n | array), contiguous memory of a
 * window type that RMA calls use in place; b:sub(i, j) and the window's
 * views (lwin.c) share memory.
 *
 * IN FLIGHT. MPI reads an origin and writes a result until the operation
 * completes at the origin, so the binding refuses what would race with
 * it: writing an origin, or touching a result, before the call that
 * completes it. An operation that uses a buffer is recorded on the memory
 * block that the buffer and its views share (a flight: its bytes, window,
 * target, and the core's ticket), and the block's `busy` flag is set; an
 * element access tests that flag alone, and only when it is set asks the
 * core (rmalab_win_done) whether the flights it touches have completed.
 * The window keeps every buffer in flight on it alive (the pins table,
 * registry[&pins_key][w]), so the garbage collector can never free memory
 * that MPI may still write; lrm_buffers_settle, after each synchronisation
 * call, lets go of what has completed. A view of a window's memory is
 * listed under its window (views_key) and marked gone when the window is
 * freed: a use then raises instead of touching freed memory; and while a
 * view is in flight elsewhere (a message, another window's operation) the
 * window may not be freed (lrm_buffers_busy). */
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "lrmalab.h"

#define BUF_ALIGN 64

struct lrm_flight {
    uintptr_t lo, hi;       /* the bytes it uses */
    rmalab_win *w;
    uint64_t ticket;
    uint64_t rqid;          /* a request's (rmalab_request_id), or 0 */
    int target;
    bool writes;            /* MPI writes there (a result): reads are refused too */
    char what[64];          /* "the origin of a put to rank 1" */
    char by[96];            /* the call that completes it */
};

const char lrm_buffer_tag = 'b';
static const char pins_key = 'p', views_key = 'q';
/* Entries of every pins table in the process: with none, settling after a
 * synchronisation has nothing to do, and costs a load. */
static atomic_long npinned;
/* The messages' stand-in for a window: what isend and irecv pin. */
static const char msgs = 'm';
#define MSGS ((rmalab_win *)(void *)&msgs)

/* Has flight f completed (MPI is done with its memory)? */
static bool landed(const lrm_flight *f)
{
    return f->rqid ? rmalab_request_id_done(f->rqid) : rmalab_win_done(f->w, f->target, f->ticket);
}

lrm_buffer *lrm_checkbuffer(lua_State *L, int arg)
{
    return lrm_checkud(L, arg, &lrm_buffer_tag, sizeof(lrm_buffer), RMALAB_ERR_ARG,
                       "buffer expected");
}

/* ------------------------------------------------------------------------ */
/* Flights                                                                  */

static void set_busy(lrm_block *k)
{
    k->busy = k->nflights > 0 || k->gone || k->seen;
}

/* Forget the flights of w on block k that have completed (all of them
 * with `all`); returns how many of w's remain. */
static int prune(lrm_block *k, rmalab_win *w, bool all)
{
    int left = 0;
    for (int i = 0; i < k->nflights;) {
        lrm_flight *f = &k->flights[i];
        if (f->w != w) {
            i++;
        } else if (all || landed(f)) {
            *f = k->flights[--k->nflights];
        } else {
            left++;
            i++;
        }
    }
    set_busy(k);
    return left;
}

/* The slow path of every access to elements lo..hi of b (from 1), taken
 * when its block is busy: raise if the memory is gone, or if the access
 * (`writes`, else a read) meets a flight that has not completed. `call`
 * names a bulk access ("b:fill"); NULL: an element's. The failure is
 * recorded (rmalab_set_error) and returned; touch raises it. */
static int touch_status(const lrm_buffer *b, lua_Integer lo, lua_Integer hi, bool writes,
                        const char *call)
{
    lrm_block *k = b->blk;
    char elem[64];
    snprintf(elem, sizeof elem, "buffer element %lld cannot be %s", (long long)lo,
             writes ? "written" : "read");
    if (!call)
        call = elem;
    if (k->gone)
        return rmalab_set_error(RMALAB_ERR_WIN, "%s: %s", call, k->gone);
    uintptr_t a = (uintptr_t)(b->p + (lo - 1) * b->size), z = (uintptr_t)(b->p + hi * b->size);
    for (int i = 0; i < k->nflights;) {
        lrm_flight *f = &k->flights[i];
        if (f->hi <= a || f->lo >= z || !(writes || f->writes)) {
            i++;
        } else if (landed(f)) {
            *f = k->flights[--k->nflights];
        } else {
            return rmalab_set_error(RMALAB_ERR_RMA_SYNC, "%s: this buffer is %s still in "
                                                         "flight; it completes at %s",
                                    call, f->what, f->by);
        }
    }
    set_busy(k);
    return RMALAB_OK;
}

static void touch(lua_State *L, const lrm_buffer *b, lua_Integer lo, lua_Integer hi,
                  bool writes, const char *call)
{
    int rc = touch_status(b, lo, hi, writes, call);
    if (rc)
        lrm_raisef(L, rc, "%s", rmalab_errmsg());
}

/* The race checker hears of a load (`writes`: a store) of elements lo..hi
 * of b when b views a checked window (lrm_buffer_seen): an element's
 * access, and a message's or a collective's of the whole buffer, sent
 * alone or inside a value (lrm_buffer_status). RMALAB_OK, or what it found
 * (mode races) or ERR_RMA_RANGE, recorded. */
static int seen_status(lua_State *L, const lrm_buffer *b, lua_Integer lo, lua_Integer hi,
                       bool writes)
{
    lrm_block *k = b->blk;
    if (!k->seen)
        return RMALAB_OK;
    lrm_site(L, k->seen);
    MPI_Aint at = (MPI_Aint)(b->p - k->seen_base) + (MPI_Aint)(lo - 1) * b->size;
    return rmalab_win_direct(k->seen, k->seen_rank, at, b->type, (int)(hi - lo + 1), writes);
}

static void seen(lua_State *L, const lrm_buffer *b, lua_Integer lo, lua_Integer hi, bool writes,
                 const char *call)
{
    int rc = seen_status(L, b, lo, hi, writes);
    if (rc)
        lrm_raise_named(L, rmalab_win_get_name(b->blk->seen), rc, "%s: %s",
                        call ? call : "a view", rmalab_errmsg());
}

void lrm_buffer_access(lua_State *L, const lrm_buffer *b, lua_Integer lo, lua_Integer hi,
                       bool writes, const char *call)
{
    touch(L, b, lo, hi, writes, call);
    seen(L, b, lo, hi, writes, call);
}

void lrm_buffer_seen(lrm_buffer *b, rmalab_win *w, int rank)
{
    if (rmalab_win_check_mode(w) == RMALAB_CHECK_OFF)
        return;
    b->own.seen = w;
    b->own.seen_rank = rank;
    b->own.seen_base = b->p;
    set_busy(&b->own);
}

/* registry[key][w], made when `make`; pushed, or nothing pushed (false). */
static bool window_set(lua_State *L, const char *key, rmalab_win *w, bool make, bool weak)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, key);
    if (lua_rawgetp(L, -1, w) == LUA_TTABLE) {
        lua_remove(L, -2);
        return true;
    }
    lua_pop(L, 1);
    if (!make) {
        lua_pop(L, 1);
        return false;
    }
    lua_newtable(L);
    if (weak) {
        lua_createtable(L, 0, 1);
        lua_pushliteral(L, "k");
        lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
    }
    lua_pushvalue(L, -1);
    lua_rawsetp(L, -3, w);
    lua_remove(L, -2);
    return true;
}

bool lrm_buffers_overlap(const lrm_buffer *a, const lrm_buffer *b)
{
    return a->p < b->p + b->n * b->size && b->p < a->p + a->n * a->size;
}

int lrm_buffer_status(lua_State *L, int arg, bool writes, const char *call)
{
    lrm_buffer *b = lrm_tobuffer(L, arg);
    if (!b->blk->busy || !b->n)
        return RMALAB_OK;
    int rc = touch_status(b, 1, b->n, writes, call);
    return rc ? rc : seen_status(L, b, 1, b->n, writes);
}

void lrm_buffer_check(lua_State *L, int arg, bool writes, const char *call)
{
    int rc = lrm_buffer_status(L, arg, writes, call);
    if (rc)
        lrm_raisef(L, rc, "%s", rmalab_errmsg());
}

void lrm_buffer_claim(lua_State *L, int arg, rmalab_win *w, bool writes, const char *call)
{
    arg = lua_absindex(L, arg);
    if (!w)
        w = MSGS;
    lrm_buffer *b = lrm_tobuffer(L, arg);
    lrm_block *k = b->blk;
    if (k->busy)
        touch(L, b, 1, b->n, writes, call);
    if (w == MSGS && b->n) /* isend, irecv: the access to a view starts now */
        seen(L, b, 1, b->n, writes, call);
    if (k->nflights + 3 > k->capflights) { /* an origin, a compare and a result may share it */
        int cap = k->capflights ? 2 * k->capflights : 4;
        lrm_flight *f = realloc(k->flights, (size_t)cap * sizeof *f);
        if (!f)
            lrm_raisef(L, RMALAB_ERR_NO_MEM, "%s: out of memory", call);
        k->flights = f;
        k->capflights = cap;
    }
    window_set(L, &pins_key, w, true, false);
    lua_pushvalue(L, arg);
    if (lua_rawget(L, -2) == LUA_TNIL)
        atomic_fetch_add(&npinned, 1);
    lua_pop(L, 1);
    lua_pushvalue(L, arg);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

void lrm_buffer_fly(lua_State *L, int arg, rmalab_win *w, int target, uint64_t ticket,
                    bool writes, const char *what, const char *by)
{
    lrm_buffer_fly_request(L, arg, w, target, ticket, 0, writes, what, by);
}

void lrm_buffer_fly_request(lua_State *L, int arg, rmalab_win *w, int target, uint64_t ticket,
                            uint64_t rqid, bool writes, const char *what, const char *by)
{
    lrm_buffer *b = lrm_tobuffer(L, arg);
    if ((!ticket && !rqid) || b->n == 0)
        return;
    lrm_block *k = b->blk;
    lrm_flight *f = &k->flights[k->nflights++];
    f->lo = (uintptr_t)b->p;
    f->hi = (uintptr_t)(b->p + b->n * b->size);
    f->w = w ? w : MSGS;
    f->ticket = ticket;
    f->rqid = rqid;
    f->target = target;
    f->writes = writes;
    snprintf(f->what, sizeof f->what, "%s", what);
    snprintf(f->by, sizeof f->by, "%s", by);
    k->busy = 1;
}

/* The first flight on block k that has not completed, but of w's own
 * operations (the end of w's epoch completes those), or NULL; those that
 * have completed go. */
static const lrm_flight *pending(lrm_block *k, rmalab_win *w)
{
    const lrm_flight *left = NULL;
    for (int i = 0; i < k->nflights && !left;) {
        if (k->flights[i].w == w)
            i++;
        else if (!landed(&k->flights[i]))
            left = &k->flights[i];
        else
            k->flights[i] = k->flights[--k->nflights];
    }
    set_busy(k);
    return left;
}

bool lrm_buffers_busy(lua_State *L, rmalab_win *w, char *why, size_t size)
{
    if (!window_set(L, &views_key, w, false, true))
        return false;
    const lrm_flight *f = NULL;
    lua_pushnil(L);
    while (!f && lua_next(L, -2)) {
        lua_pop(L, 1);
        lrm_buffer *b = lua_touserdata(L, -1);
        if ((f = pending(b->blk, w)))
            lua_pop(L, 1); /* the key: the traversal ends here */
    }
    lua_pop(L, 1);
    if (f)
        snprintf(why, size, "this window's memory, through a view, is %s still in flight; it "
                 "completes at %s, and the window can be freed after that", f->what, f->by);
    return f != NULL;
}

/* For each buffer pinned by w: prune(all); let go of those with nothing
 * of w left in flight. */
static void settle(lua_State *L, rmalab_win *w, bool all)
{
    if (!window_set(L, &pins_key, w, false, false))
        return;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pop(L, 1);
        lrm_buffer *b = lua_touserdata(L, -1);
        if (prune(b->blk, w, all) == 0) {
            lua_pushvalue(L, -1);
            lua_pushnil(L);
            lua_rawset(L, -4); /* clearing a present key while traversing is allowed */
            atomic_fetch_sub(&npinned, 1);
        }
    }
    lua_pop(L, 1);
}

void lrm_buffers_settle(lua_State *L, rmalab_win *w)
{
    if (atomic_load_explicit(&npinned, memory_order_relaxed))
        settle(L, w ? w : MSGS, false);
}

void lrm_buffers_gone(lua_State *L, rmalab_win *w)
{
    settle(L, w, true);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &pins_key);
    lua_pushnil(L);
    lua_rawsetp(L, -2, w);
    lua_pop(L, 1);
    if (!window_set(L, &views_key, w, false, true))
        return;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pop(L, 1);
        lrm_buffer *b = lua_touserdata(L, -1);
        b->blk->gone = "this buffer views the memory of a window that was freed; make views "
                       "of live windows only";
        set_busy(b->blk);
    }
    lua_pop(L, 1);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &views_key);
    lua_pushnil(L);
    lua_rawsetp(L, -2, w);
    lua_pop(L, 1);
}

/* ------------------------------------------------------------------------ */
/* Creation                                                                 */

static void check_length(lua_State *L, lua_Integer n, rmalab_type type)
{
    if (n < 0 || n > INT_MAX ||
        (size_t)n > (SIZE_MAX - BUF_ALIGN) / (size_t)rmalab_type_size(type))
        lrm_raisef(L, RMALAB_ERR_ARG, "rl.buffer: %lld elements of %s: a buffer holds 0 to %d",
                   (long long)n, rmalab_type_name(type), INT_MAX);
}

/* A buffer userdata over nothing yet, with its metatable. */
static lrm_buffer *newbuffer(lua_State *L, rmalab_type type)
{
    lrm_buffer *b = lrm_newud(L, sizeof *b, 1, &lrm_buffer_tag);
    luaL_setmetatable(L, LRM_BUFFER_T);
    b->type = type;
    b->size = rmalab_type_size(type);
    b->blk = &b->own;
    return b;
}

lrm_buffer *lrm_buffer_new(lua_State *L, rmalab_type type, lua_Integer n)
{
    check_length(L, n, type);
    lrm_buffer *b = newbuffer(L, type);
    size_t bytes = (size_t)n * (size_t)b->size + BUF_ALIGN;
    unsigned char *m = lua_newuserdatauv(L, bytes, 0);
    memset(m, 0, bytes);
    lua_setiuservalue(L, -2, 1);
    b->p = m + (BUF_ALIGN - (uintptr_t)m % BUF_ALIGN) % BUF_ALIGN;
    b->n = n;
    return b;
}

lrm_buffer *lrm_buffer_over(lua_State *L, void *mem, lua_Integer n, rmalab_type type,
                            int owner_idx, rmalab_win *w)
{
    owner_idx = lua_absindex(L, owner_idx);
    check_length(L, n, type);
    lrm_buffer *b = newbuffer(L, type);
    lua_pushvalue(L, owner_idx);
    lua_setiuservalue(L, -2, 1);
    b->p = mem;
    b->n = n;
    if (w) {
        window_set(L, &views_key, w, true, true);
        lua_pushvalue(L, -2);
        lua_pushboolean(L, 1);
        lua_rawset(L, -3);
        lua_pop(L, 1);
    }
    return b;
}

/* rl.buffer(type, n | array) */
static int l_buffer(lua_State *L)
{
    rmalab_type t = lrm_checktype(L, 1);
    if (lua_isinteger(L, 2)) {
        lrm_buffer_new(L, t, lua_tointeger(L, 2));
        return 1;
    }
    if (t == RMALAB_BYTE && lua_type(L, 2) == LUA_TSTRING) {
        size_t len;
        const char *s = lua_tolstring(L, 2, &len);
        memcpy(lrm_buffer_new(L, t, (lua_Integer)len)->p, s, len);
        return 1;
    }
    if (!lua_istable(L, 2))
        lrm_argerror(L, 2, RMALAB_ERR_ARG, "element count or array of values expected");
    lua_Integer n = luaL_len(L, 2);
    lrm_buffer *b = lrm_buffer_new(L, t, n);
    lrm_valsite site = {"rl.buffer", 2, NULL, NULL, true};
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, 2, i);
        lrm_storeelement(L, -1, i, t, b->p + (i - 1) * b->size, &site);
        lua_pop(L, 1);
    }
    return 1;
}

static int buffer_len(lua_State *L)
{
    lua_pushinteger(L, lrm_checkbuffer(L, 1)->n);
    return 1;
}

/* ------------------------------------------------------------------------ */
/* Methods                                                                  */

static lua_Integer index_arg(lua_State *L, int arg)
{
    return lrm_checkinteger(L, arg, RMALAB_ERR_ARG, "element index");
}

/* Elements i..j from arguments `arg` and `arg + 1` (defaults 1 and #b);
 * an empty range when j < i. */
static void checkrange(lua_State *L, const lrm_buffer *b, int arg, lua_Integer *i,
                       lua_Integer *j)
{
    *i = luaL_opt(L, index_arg, arg, 1);
    *j = luaL_opt(L, index_arg, arg + 1, b->n);
    if (*i < 1 || *j > b->n || *j < *i - 1)
        lrm_raisef(L, RMALAB_ERR_ARG, "elements %lld..%lld are not a range of the buffer's "
                   "1..%lld", (long long)*i, (long long)*j, (long long)b->n);
}

/* b:totable([i [, j]]): an array (a string for "byte"). */
static int buffer_totable(lua_State *L)
{
    lrm_buffer *b = lrm_checkbuffer(L, 1);
    lua_Integer i, j;
    checkrange(L, b, 2, &i, &j);
    if (b->blk->busy && j >= i)
        lrm_buffer_access(L, b, i, j, false, "b:totable");
    lrm_pushvalues(L, b->type, b->p + (i - 1) * b->size, (int)(j - i + 1), 1);
    return 1;
}

/* b:fill(v) -> b */
static int buffer_fill(lua_State *L)
{
    lrm_buffer *b = lrm_checkbuffer(L, 1);
    _Alignas(16) unsigned char v[16];
    lrm_valsite site = {"b:fill", 1, NULL, NULL, true};
    lrm_storeelement(L, 2, 0, b->type, v, &site);
    if (b->blk->busy && b->n)
        lrm_buffer_access(L, b, 1, b->n, true, "b:fill");
    for (lua_Integer i = 0; i < b->n; i++)
        memcpy(b->p + i * b->size, v, (size_t)b->size);
    lua_settop(L, 1);
    return 1;
}

/* b:sub(i [, j]): a view of elements i..j, which keeps b alive. */
static int buffer_sub(lua_State *L)
{
    lrm_buffer *b = lrm_checkbuffer(L, 1);
    lua_Integer i = lrm_checkinteger(L, 2, RMALAB_ERR_ARG, "first element"), j;
    j = lua_isnoneornil(L, 3) ? b->n : lrm_checkinteger(L, 3, RMALAB_ERR_ARG, "last element");
    if (i < 1 || j > b->n || j < i - 1)
        lrm_raisef(L, RMALAB_ERR_ARG, "b:sub(%lld, %lld): not a range of the buffer's 1..%lld",
                   (long long)i, (long long)j, (long long)b->n);
    lrm_buffer *v = newbuffer(L, b->type);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);
    v->p = b->p + (i - 1) * b->size;
    v->n = j - i + 1;
    v->blk = b->blk;
    return 1;
}

static int buffer_tostring(lua_State *L)
{
    lrm_buffer *b = lrm_checkbuffer(L, 1);
    lua_pushfstring(L, "rmalab.buffer (%s, %I element%s%s%s)", rmalab_type_name(b->type),
                    (LUAI_UACINT)b->n, b->n == 1 ? "" : "s", b->blk != &b->own ? ", a view" : "",
                    b->blk->gone ? ", of a freed window" : b->blk->busy ? ", in flight" : "");
    return 1;
}

/* Views share their base's block: only a base frees its flights. */
static int buffer_gc(lua_State *L)
{
    lrm_buffer *b = lrm_tobuffer(L, 1);
    if (!b)
        return 0;
    free(b->own.flights);
    b->own.flights = NULL;
    b->own.nflights = b->own.capflights = 0;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The types                                                                */

static const luaL_Reg buffer_methods[] = {
    {"totable", buffer_totable},
    {"fill", buffer_fill},
    {"sub", buffer_sub},
    {NULL, NULL},
};

static const luaL_Reg buffer_meta[] = {
    {"__len", buffer_len},
    {"__tostring", buffer_tostring},
    {"__gc", buffer_gc},
    {NULL, NULL},
};

void lrm_open_buffer(lua_State *L)
{
    luaL_newmetatable(L, LRM_BUFFER_T);
    luaL_setfuncs(L, buffer_meta, 0);
    lua_pushliteral(L, LRM_BUFFER_T); /* getmetatable(b): lelement.c trusts its self */
    lua_setfield(L, -2, "__metatable");
    luaL_newlib(L, buffer_methods);
    lua_setfield(L, -2, "__index"); /* lrm_open_elements puts b[i] before them */
    lua_pop(L, 1);

    lua_newtable(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &pins_key);
    lua_newtable(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &views_key);

    lua_pushcfunction(L, l_buffer);
    lua_setfield(L, -2, "buffer");
}
