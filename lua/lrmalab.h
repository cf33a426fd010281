/* Private to the Lua binding: metatable names and the helpers shared by the
 * binding's files. Nothing here is part of the core's API.
 *
 * ONE CONCERN PER FILE, CALLS IN ONE DIRECTION. A file calls only lrm_
 * functions of its own or of files listed above it (tests/layers.py
 * checks it):
 *
 *   lerror.c     error objects and argument checks
 *   lruntime.c   the context of each Lua state; MPI's start and finish;
 *                windows that were never freed
 *   linfo.c      info objects
 *   lhints.c     the hint catalogue; diagnostics, reports, agreements; the
 *                hint methods of communicators and windows
 *   lcomm.c      communicators
 *   lvalues.c    arguments and typed values of window calls; names that
 *                calls take every time, matched by address (lnames.h)
 *   lbuffer.c    typed buffers and their views; what is in flight on them
 *   lcodec.c     the value codec's encoder: Lua values (buffers too) to
 *                bytes (no MPI; the bytes are lcodec.h's)
 *   ldecode.c    the value codec's decoder: bytes, untrusted, back to a
 *                Lua value (no MPI)
 *   lelement.c   buffers' elements, b[i] and b[i] = v: their hot path
 *   llayout.c    layouts of the target's memory (rl.vector)
 *   lstatus.c    messages' statuses: read-only, shared per source and tag
 *   lrequest.c   requests of every kind: rq:wait, rq:test, rl.waitall,
 *                rl.waitany; messages' values as receives give them
 *   lcoll.c lp2p.c  communicators' collectives, and their messages and
 *                requests (values through lcodec.c and ldecode.c)
 *   lpin.c       what MPI writes into (result handles), kept alive by its
 *                window until it lands
 *   lwin.c       windows: creation, freeing, properties, local memory
 *   lrma.c       RMA operations and their results
 *   lsync.c      synchronisation and the epoch state
 *   lkeyval.c    keyvals, and their callbacks into Lua
 *   lattr.c      attribute caching on windows
 *   ltrace.c     rl.trace and the window's trace methods; trace.lua, the
 *                writers (JSON, SVG, timeline), ships inside
 *   lraces.c     rl.races: the race checker's reports; win:check_mode()
 *   ltest.c      the module rmalab.test
 *   rmalab.c     the module: luaopen_rmalab puts the files together
 *
 * Files that add methods to a type made above them (lrma.c, lsync.c,
 * lattr.c and ltrace.c to windows) do so from their own lrm_open_* function, which
 * luaopen_rmalab calls after lrm_open_win. */
#ifndef LRMALAB_H
#define LRMALAB_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include <rmalab/rmalab.h>

#include "rmalab-embed.h"

#define LRM_ERROR_T "rmalab.error"
#define LRM_INFO_T "rmalab.info"
#define LRM_COMM_T "rmalab.comm"
#define LRM_WIN_T "rmalab.win"
#define LRM_BUFFER_T "rmalab.buffer"

/* Objects of the binding not yet released, for leak checks
 * (rl.debug.stats()): a count goes up when an object is made and down once,
 * when it is released: by its free method or, for local objects (infos,
 * keyvals), by the garbage collector. A window or communicator collected
 * without its collective free stays counted: it leaked. */
typedef struct {
    long infos, comms, wins, keyvals, refs;
} lrm_stats_t;

/* A window collected without win:free(), or let go by a <close> scope
 * that an error left, filed in its context for release before
 * MPI_Finalize (lruntime.c). The note is allocated with the window, before
 * the core creates it, so that filing it in __gc cannot fail. */
typedef struct lrm_leak {
    struct lrm_leak *next;
    rmalab_win *w;
    uint64_t id;  /* rmalab_win_id: creation order in the process, as on every rank */
    int by_error; /* its <close> ran on an error: released, not leaked */
} lrm_leak;

/* The module's state for one Lua state, as luv keeps luv_ctx_t: nothing of
 * the binding is per process but MPI itself (lruntime.c). It is the runtime
 * object that the module creates first in each Lua state, so it is
 * finalised after every other rmalab object there; lrm_getctx finds it. */
typedef struct lrm_ctx {
    /* The thread of this Lua state running a binding call that may run
     * attribute callbacks, which run on it (lrm_ctx_call); else NULL. */
    lua_State *running;
    lrm_stats_t stats;
    lrm_leak *leaked;            /* windows filed for release at exit, by id */
    rmalab_lua_warn_fn warn;     /* the host's (rmalab_lua_set_warnf); NULL: stderr */
    void *warn_ud;
    struct lrm_ctx *prev, *next; /* the open contexts of the process (lruntime.c) */
} lrm_ctx;

/* The runtime (lruntime.c). Make L's context, once, and start MPI if
 * nobody has; the context is the first rmalab object of the state. */
void lrm_open_runtime(lua_State *L);
/* rl.main(fn, ...): fn's error ends the job with status 1 (lruntime.c). */
int lrm_main(lua_State *L);
/* The context of L's Lua state (any of its threads). */
lrm_ctx *lrm_getctx(lua_State *L);
/* Run fn(ud) with ctx->running = L: the one way a binding call that may run
 * attribute callbacks enters the core. Returns fn's status. */
int lrm_ctx_call(lrm_ctx *ctx, lua_State *L, int (*fn)(void *ud), void *ud);
/* The one road of the binding's warnings: to ctx's host (NULL ctx, or no
 * host function: stderr). The core's warnings go to the context that this
 * thread last named with lrm_calling (lrm_checkwin and lrm_ctx_call do),
 * when it is still open. */
void lrm_warn(lrm_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lrm_calling(lrm_ctx *ctx);
/* The note a window's __gc files if it is never freed, or its <close> if
 * an error leaves its scope (malloc'd; NULL when out of memory), and the
 * filing, which cannot fail: the window waits in the context for release
 * before MPI_Finalize. */
lrm_leak *lrm_leak_new(void);
void lrm_leak_file(lrm_ctx *ctx, lrm_leak *note, rmalab_win *w, int by_error);

/* Raise an error object {class, message, code} for a core status code. The
 * message is "<what>: <rmalab_errmsg()>". Never returns. */
int lrm_raise(lua_State *L, int code, const char *what);
/* Raise an error object with a formatted message. Never returns. */
int lrm_raisef(lua_State *L, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Push an error object whose message is fmt's text and then `suffix` (may
 * be NULL), for the raise functions of each object type. */
void lrm_pusherrorv(lua_State *L, int code, const char *suffix, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
/* The one way errors about a window are raised: fmt's text, then
 * ' [window "name"]' when `name` (the window's, or the name a constructor
 * was given; may be NULL) is not empty. Never returns. */
int lrm_raise_named(lua_State *L, const char *name, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* luaL_argerror's wording ("bad argument #n to 'f' (msg)") in an error
 * object of class `code`. Never returns. */
int lrm_argerror(lua_State *L, int arg, int code, const char *msg);
/* This rank's own failed check, held while the rank takes part in the
 * collective with it (so that the others fail too instead of waiting),
 * then raised as it was worded. Clear status before use; msg is filled
 * only when a failure is held. */
typedef struct {
    int status;
    char msg[2048];
} lrm_held;
/* Holds rc and its message (rmalab_errmsg) when it fails and nothing is
 * held yet; returns rc. */
int lrm_hold(lrm_held *h, int rc);
/* Raises the held failure. Never returns. */
int lrm_raise_held(lua_State *L, const lrm_held *h);
/* The userdata the binding hands to Lua code (windows, communicators, info
 * objects, keyvals, results) start with a tag: the address of a static in
 * the file that owns the type. lrm_newud makes one, zeroed but for the tag
 * (set the metatable once the fields are ready); lrm_toud gives it back
 * when the value at `arg` is a full userdata of `size` bytes starting with
 * `tag`, else NULL. It costs two Lua API calls where luaL_testudata fetches
 * the metatable by name, and debug.setmetatable cannot make another
 * userdata pass for one of ours. */
void *lrm_newud(lua_State *L, size_t size, int nuv, const void *tag);
static inline void *lrm_toud(lua_State *L, int arg, const void *tag, size_t size)
{
    const void *const *u = lua_touserdata(L, arg);
    /* the size first: a light userdata has none, and is never read */
    return u && lua_rawlen(L, arg) == size && *u == tag ? (void *)u : NULL;
}
/* lrm_toud, or an argument error of class `code` saying `what` ("window
 * expected"). Inline, as every call of the binding checks its object. */
int lrm_checkud_fail(lua_State *L, int arg, int code, const char *what); /* raises */
static inline void *lrm_checkud(lua_State *L, int arg, const void *tag, size_t size, int code,
                                const char *what)
{
    void *u = lrm_toud(L, arg, tag, size);
    if (!u)
        lrm_checkud_fail(L, arg, code, what);
    return u;
}
/* Check that argument `arg` is a string (no number coercion). */
const char *lrm_checkstring(lua_State *L, int arg, int code, size_t *len);
/* An integer argument (no string coercion, no fractional part), or an
 * error object of class `code` naming `what` ("rank", "count"). */
lua_Integer lrm_checkinteger(lua_State *L, int arg, int code, const char *what);
/* The same recorded (rmalab_set_error: the message lrm_argerror would
 * raise) instead of raised, for a check that one rank of a collective may
 * fail alone: RMALAB_OK and *v, or `code`. */
int lrm_tointeger_status(lua_State *L, int arg, int code, const char *what, lua_Integer *v);
int lrm_argstatus(lua_State *L, int arg, int code, const char *msg);
/* luaL_checkoption with an error object of class ERR_ARG. */
int lrm_checkoption(lua_State *L, int arg, const char *def, const char *const list[]);

/* The value codec (lcodec.c encodes, ldecode.c decodes; lcodec.h is the
 * bytes' format). Bytes in a growing malloc'd array. */
#define LRM_STR_(x) #x
#define LRM_STR(x) LRM_STR_(x)
#define LRM_CODEC_DEPTH 100              /* tables nested deeper are refused */
#define LRM_BYTES_MAX (INT32_MAX - 65536) /* an MPI count, with room for headers */
typedef struct {
    unsigned char *p;
    size_t n, cap;
} lrm_bytes;
/* Room for `more` bytes past n: RMALAB_OK, or a status with its message. */
int lrm_bytes_reserve(lrm_bytes *b, size_t more);
void lrm_bytes_free(lrm_bytes *b);
/* Append the value at idx to b. Never raises but for Lua's memory errors:
 * RMALAB_OK, or ERR_ARG naming where in the value (`root`: its name, e.g.
 * "value") a part that cannot be sent sits, or ERR_NO_MEM; the message is
 * rmalab_errmsg()'s. */
int lrm_encode(lua_State *L, int idx, lrm_bytes *b, const char *root);
/* Push the value that the n bytes at p hold, which may be anything (they
 * come off the network): RMALAB_OK, or ERR_ARG saying what is malformed
 * and nothing pushed. Raises only Lua's memory errors. */
int lrm_decode(lua_State *L, const void *p, size_t n);

/* Info objects (linfo.c). */
void lrm_open_info(lua_State *L);
/* The info behind argument `arg`: an info object, a table of hints (turned
 * into a new info object left on the stack, owned by the GC) or nil when
 * `optional` (then NULL). */
rmalab_info *lrm_toinfo(lua_State *L, int arg, int optional);
/* lrm_toinfo(L, arg, 1) in protected mode, for a collective call: pushes
 * what must stay anchored and returns RMALAB_OK, or pushes the error
 * object it would have raised and returns its code with its message set
 * (this rank then takes part in the collective with it, and raises it
 * after). */
int lrm_toinfo_status(lua_State *L, int arg, rmalab_info **out);
/* Push a new info object holding no info yet, and return where the core
 * should store one (made before the core allocates, so nothing leaks). */
rmalab_info **lrm_newinfo(lua_State *L);
int lrm_info_new(lua_State *L);
int lrm_info_env(lua_State *L);

/* Hints and communicators (lhints.c, lcomm.c). */
void lrm_open_hints(lua_State *L);
/* A userdata owning core memory `p` until the pusher takes it: make it
 * before the core call that allocates p, so a Lua error cannot leak it. */
typedef struct {
    void *p;
    void (*destroy)(void *p);
} lrm_box;
lrm_box *lrm_newbox(lua_State *L, void (*destroy)(void *p));
/* Diagnostics in a userdata of their own (cleared by __gc), pushed. */
rmalab_diags *lrm_newdiags(lua_State *L);
/* Push the Lua shape and release the core's: diagnostics (cleared), a
 * report and an agreement (each in a box). */
void lrm_pushdiags(lua_State *L, rmalab_diags *d);
void lrm_pushreport(lua_State *L, lrm_box *b);
void lrm_pushagreement(lua_State *L, lrm_box *b);
/* An object that takes hints (communicators, windows): its core calls and
 * the raise function that names it. */
typedef struct {
    void *(*check)(lua_State *L, int arg);
    /* status: this rank's own failure, with which it takes part */
    int (*set_info)(void *obj, const rmalab_info *info, rmalab_diags *d, int status);
    int (*get_info)(void *obj, rmalab_info **out);
    int (*hints)(void *obj, rmalab_hints_report **out);
    int (*check_hints)(void *obj, rmalab_agreement **out);
    int (*raise)(lua_State *L, int rc, void *obj, const char *call);
} lrm_hinted;
/* Add set_info, get_info, hints and check_hints for objects described by
 * h (static storage) to the methods table on top of the stack. */
void lrm_hinted_methods(lua_State *L, const lrm_hinted *h);
void lrm_open_comm(lua_State *L);
/* Push the communicator methods table, for the files that add methods. */
void lrm_push_comm_methods(lua_State *L);
/* Push a new communicator object owning `comm` (the core's, made by the
 * caller; NULL: not yet, fill *lrm_comm_slot later); `how` made it
 * ("split"), a static string that tostring shows. */
rmalab_comm **lrm_newcomm(lua_State *L, const char *how);
/* Push the world communicator object (created once, kept in the module). */
void lrm_pushworld(lua_State *L);
/* A communicator object (lcomm.c); its first word is &lrm_comm_tag. */
typedef struct {
    const void *tag; /* &lrm_comm_tag (lrm_newud) */
    rmalab_comm *comm;
    int is_world;
    int counted;     /* in the context's stats.comms */
    const char *how; /* what made it, for tostring: "world", "dup", "split" */
    rmalab_msg_status memo; /* what the status in its user value says (lstatus.c) */
} lrm_comm;
extern const char lrm_comm_tag;
/* The world object of the Lua state that made one last, while it lives
 * (lcomm.c): the one address that is a communicator without a look at its
 * size, an API call a check. */
extern _Atomic(lrm_comm *) lrm_comm_world;
/* The communicator object at arg, not freed, else an error: inline, as
 * every call on a communicator asks it first; lrm_checkcomm its core's. */
static inline lrm_comm *lrm_checkcommud(lua_State *L, int arg)
{
    lrm_comm *u = lua_touserdata(L, arg);
    if (!u || (u != atomic_load_explicit(&lrm_comm_world, memory_order_relaxed) &&
               (lua_rawlen(L, arg) != sizeof *u || u->tag != &lrm_comm_tag)))
        lrm_checkud_fail(L, arg, RMALAB_ERR_COMM, "communicator expected");
    if (!u->comm)
        lrm_raisef(L, RMALAB_ERR_COMM, "this communicator was freed");
    return u;
}
static inline rmalab_comm *lrm_checkcomm(lua_State *L, int arg)
{
    return lrm_checkcommud(L, arg)->comm;
}
/* Raise the core's error `rc` from comm:<call>. Never returns. */
int lrm_raise_comm(lua_State *L, int rc, rmalab_comm *c, const char *call);

/* The head of a userdata that MPI writes into until an operation of a
 * window completes (lrma.c's result handles): the window keeps it alive
 * until then (lpin.c). */
typedef struct {
    const void *tag;
    rmalab_win *w;    /* while it may be in flight (pinned); NULL once landed */
    uint64_t ticket;  /* the operation's (rmalab_win_done; 0: never issued) */
    int target;
    bool gone;        /* its window was freed before the operation completed */
} lrm_pinned;
/* The window at index 1 keeps the userdata on top, an lrm_pinned, alive
 * until it lands: pinned before the operation is issued. */
void lrm_win_pin(lua_State *L);
/* Has its operation completed at this origin? */
bool lrm_landed(lrm_pinned *p);
/* The window at `win` is about to be freed, or has been (`freed`: what is
 * left in flight is gone); or it is filed for release at exit as w, and
 * its pins go to the registry, since MPI may write into them until then. */
void lrm_pins_free(lua_State *L, int win, bool freed);
void lrm_pins_keep(lua_State *L, int win, rmalab_win *w);

/* Windows (lwin.c). */
void lrm_open_win(lua_State *L);
rmalab_win *lrm_checkwin(lua_State *L, int arg);
/* The core's error `rc` from win:<call> ("win:<call>: <message>"; with call
 * NULL, "win:<message>", as the core's message names the call itself), with
 * the window's name (w may be NULL). Never returns. */
int lrm_raise_win(lua_State *L, int rc, rmalab_win *w, const char *call);
/* Push the Lua userdata of a core window, or nil. */
void lrm_pushwin(lua_State *L, rmalab_win *w);
/* Push the window methods table, for the files that add methods to it. */
void lrm_push_win_methods(lua_State *L);

/* Arguments and typed values of window calls (lvalues.c). The check
 * functions raise error objects; buffers that do not fit the caller's
 * `small` storage live in a userdata pushed on the stack, so read the
 * arguments after `arg` first. */
void lrm_open_values(lua_State *L);
rmalab_type lrm_checktype(lua_State *L, int arg);
rmalab_op lrm_checkop(lua_State *L, int arg);
/* The op named at arg: RMALAB_OK, or the failure recorded, not raised (a
 * collective's ranks all take part first). */
int lrm_op_status(lua_State *L, int arg, rmalab_op *op);
/* A rank of window w; w's name, in an error (lrm_raise_named), is asked
 * of the core only then. */
int lrm_checkrank(lua_State *L, int arg, rmalab_win *w);
MPI_Aint lrm_checkdisp(lua_State *L, int arg);
int lrm_checkcount(lua_State *L, int arg);
int lrm_checkassert(lua_State *L, int arg);
/* The assertions at arg into *mode: RMALAB_OK, or the failure recorded,
 * not raised (for fence, whose ranks all take part first). */
int lrm_assert_status(lua_State *L, int arg, int *mode);
#define LRM_SMALL_GROUP 16
/* Leaves its last element on the stack (one pop fewer an epoch). */
int *lrm_checkgroup(lua_State *L, int arg, int *n, int *small, const char *name);
/* Where values being converted come from, for their errors: the call
 * ("win:put", "rl.buffer", "b[3]"), the argument as the caller counts it
 * (0: none), what it is ("compare" for compare_and_swap's; NULL: the
 * values), the window's name (or NULL), and whether they go to a buffer. */
typedef struct {
    const char *call;
    int arg;
    const char *what;
    const char *name;
    bool buffer;
} lrm_valsite;
void *lrm_checkvalues_buf(lua_State *L, int arg, rmalab_type type, int *count, void *small,
                          size_t nsmall, const lrm_valsite *s);
void *lrm_checkvalues(lua_State *L, int arg, rmalab_type type, int *count,
                      const lrm_valsite *s);
void lrm_pushvalue(lua_State *L, rmalab_type type, const unsigned char *p);
void lrm_pushvalues(lua_State *L, rmalab_type type, const void *data, int count, int as_array);
/* The value at idx as element i (from 1; 0: a value given alone) of a
 * buffer of `type`, at p. */
void lrm_storeelement(lua_State *L, int idx, lua_Integer i, rmalab_type type, void *p,
                      const lrm_valsite *s);

/* Typed buffers (lbuffer.c): contiguous, 64-byte aligned memory of a window
 * type, which operations use in place. The memory of a buffer and of its
 * views is one block, which records the operations in flight on it; an
 * access tests one flag (busy) before it looks at them. */
typedef struct lrm_flight lrm_flight;
typedef struct {
    unsigned busy;          /* nonzero: operations in flight, the memory is gone, or
                               its loads and stores are recorded (`seen`) */
    const char *gone;       /* why the memory is gone (its window was freed), or NULL */
    rmalab_win *seen;       /* a view of this checked window's memory: the */
    int seen_rank;          /* rank's, from seen_base; each load and store */
    unsigned char *seen_base; /* goes to rmalab_win_direct */
    lrm_flight *flights;    /* malloc'd */
    int nflights, capflights;
} lrm_block;
typedef struct {
    const void *tag;
    unsigned char *p;       /* element 1 */
    lua_Integer n;          /* elements */
    rmalab_type type;
    int size;               /* bytes per element */
    lrm_block *blk;         /* &own, or the block of the buffer viewed */
    lrm_block own;
} lrm_buffer;
/* The first word of every buffer is &lrm_buffer_tag. */
extern const char lrm_buffer_tag;
/* Adds rl.buffer to the module table on top of the stack. */
void lrm_open_buffer(lua_State *L);
/* The buffer at arg, or NULL (inline: every send and receive asks); or an
 * ERR_ARG argument error. */
static inline lrm_buffer *lrm_tobuffer(lua_State *L, int arg)
{
    return lrm_toud(L, arg, &lrm_buffer_tag, sizeof(lrm_buffer));
}
lrm_buffer *lrm_checkbuffer(lua_State *L, int arg);
/* Before a load (`writes`: a store) of elements lo..hi of b (from 1) when
 * its block is busy: raise if the memory is gone or an operation in
 * flight conflicts; then the race checker hears of it, as of a win:read
 * or win:write, if b views a checked window. `call` names a bulk access
 * ("b:fill"); NULL: an element's. */
void lrm_buffer_access(lua_State *L, const lrm_buffer *b, lua_Integer lo, lua_Integer hi,
                       bool writes, const char *call);
/* b[i] and b[i] = v (lelement.c), on the buffers' metatable. */
void lrm_open_elements(lua_State *L);
/* Push a new buffer of n elements over memory that `owner` (the value at
 * owner_idx, kept alive by the buffer) provides, such as a window's. With
 * `w`, the buffer is one of w's views: lrm_buffers_gone marks it. */
lrm_buffer *lrm_buffer_over(lua_State *L, void *mem, lua_Integer n, rmalab_type type,
                            int owner_idx, rmalab_win *w);
/* The view b is of rank's memory of w, from its first element: if w is
 * checked, the race checker sees its loads and stores (rmalab_win_direct). */
void lrm_buffer_seen(lrm_buffer *b, rmalab_win *w, int rank);
/* Push a new zeroed buffer of n elements. */
lrm_buffer *lrm_buffer_new(lua_State *L, rmalab_type type, lua_Integer n);
/* Before an operation `call` ("win:put") on w (NULL: a message) uses the
 * buffer at arg:
 * refuse a conflict with an operation in flight on it (`writes`: MPI
 * writes there, as a get's result; else it reads, as an origin), make room
 * to record the new one, and let w keep the buffer alive. */
void lrm_buffer_claim(lua_State *L, int arg, rmalab_win *w, bool writes, const char *call);
/* After the operation was issued: the buffer at arg is in flight until
 * rmalab_win_done(w, target, ticket) (nothing for ticket 0); the window
 * keeps it alive until then. `what` names its role ("the origin of a put
 * to rank 1"); `by` the call that completes it. Cannot fail once claimed. */
void lrm_buffer_fly(lua_State *L, int arg, rmalab_win *w, int target, uint64_t ticket,
                    bool writes, const char *what, const char *by);
/* As lrm_buffer_fly, for a request's operation (rmalab_request_id): it
 * is in flight until that request's id is done. w NULL: a message's
 * (isend, irecv), pinned by the messages until then. */
void lrm_buffer_fly_request(lua_State *L, int arg, rmalab_win *w, int target, uint64_t ticket,
                            uint64_t rqid, bool writes, const char *what, const char *by);
/* Refuse an access to the whole buffer at arg (`writes`, else a read) that
 * meets an operation in flight on it; `call` names the access. */
void lrm_buffer_check(lua_State *L, int arg, bool writes, const char *call);
/* The same recorded (rmalab_set_error), not raised: RMALAB_OK or the code. */
int lrm_buffer_status(lua_State *L, int arg, bool writes, const char *call);
/* Do a and b share memory (a buffer and a view of it, two views)? */
bool lrm_buffers_overlap(const lrm_buffer *a, const lrm_buffer *b);
/* After a call that may complete operations of w (NULL: messages): forget
 * those done, and let go of the buffers no operation holds. */
void lrm_buffers_settle(lua_State *L, rmalab_win *w);
/* Is w's memory still in use through a view of it (a message's buffer, or
 * an operation's of another window, not yet completed; w's own operations
 * are its epochs' to complete)? Then `why` (size bytes) says which
 * operation and the call that completes it. */
bool lrm_buffers_busy(lua_State *L, rmalab_win *w, char *why, size_t size);
/* w is being freed: nothing of it is in flight any more, and the buffers
 * over its memory are gone. */
void lrm_buffers_gone(lua_State *L, rmalab_win *w);

/* Layouts (llayout.c): adds rl.vector to the module table on top of the
 * stack. */
void lrm_open_layout(lua_State *L);
/* The layout at arg: a type name (*vec NULL) or an rl.vector (*vec its
 * shape, valid while arg is on the stack); returns the element type. */
rmalab_type lrm_checklayout(lua_State *L, int arg, const rmalab_vector **vec);

/* Requests (lrequest.c): one type for messages' and RMA operations'.
 * Make the userdata (lrm_request_new, owner: the communicator or window at
 * that index, kept alive) before the core call that fills q->r. */
#define LRM_GETS_BUFFER 1 /* an RMA get's wait gives its buffer */
#define LRM_GETS_ARRAY 2  /* ... an array of its values */
#define LRM_GETS_ONE 3    /* ... its one value */
typedef struct {
    const void *tag;
    rmalab_request *r;
    int taken;              /* its completion was handed to Lua */
    int failed;             /* ...and it was this error (its end, as a message's
                               that did not fit: the request is spent) */
    rmalab_request_kind kind;
    int gets;               /* RMA gets: LRM_GETS_*; else 0 */
    rmalab_win *w;          /* RMA: its window */
} lrm_request;
lrm_request *lrm_request_new(lua_State *L, int owner, rmalab_request_kind kind);
/* The request at req keeps the buffer at buf alive (and its wait gives it). */
void lrm_request_keep(lua_State *L, int req, int buf);
/* Adds rl.waitall and rl.waitany to the module table on top, and makes the
 * request type. */
void lrm_open_request(lua_State *L);
/* A receive's status { source =, tag = [, count =, type =] [, bytes =] }: read-only,
 * shared for a value message (lstatus.c). */
void lrm_push_status(lua_State *L, const rmalab_msg_status *st, bool bytes);
/* The same, trying first the status memo holds (an upvalue's index of the
 * running function: false, or the last status it gave), and keeping the
 * one pushed there; memo 0: none. */
void lrm_push_status_memo(lua_State *L, const rmalab_msg_status *st, bool bytes, int memo);
/* The same, through the memo of the communicator at index comm (u its
 * object): its user value, the last status pushed so, kept with what it
 * says in u->memo. lrm_status_fits tells whether it says what st says. */
void lrm_push_status_comm(lua_State *L, const rmalab_msg_status *st, int comm, lrm_comm *u);
static inline bool lrm_status_fits(const rmalab_msg_status *memo, const rmalab_msg_status *st)
{
    return memo->source == st->source && memo->tag == st->tag && memo->type == st->type &&
           (st->type < 0 || memo->bytes == st->bytes); /* a value's has no count */
}
/* Push a received message and its status (2 results): into the buffer at
 * buf (nonzero: it is that buffer), a new buffer of its type when a buffer
 * was sent, else the value decoded; raises what cannot be decoded. */
int lrm_push_message(lua_State *L, const void *p, size_t n, const rmalab_msg_status *st, int buf);
/* The same, with a status memo as lrm_push_status_memo's (0: none). */
int lrm_push_message_memo(lua_State *L, const void *p, size_t n, const rmalab_msg_status *st,
                          int buf, int memo);

/* Collectives (lcoll.c) and messages (lp2p.c): add their methods to the
 * communicator methods. */
void lrm_open_coll(lua_State *L);
/* The Lua state's buffer for encoding, emptied (kept between calls). */
lrm_bytes *lrm_codec_scratch(lua_State *L);
void lrm_open_p2p(lua_State *L);

/* RMA operations (lrma.c): adds them to the window methods, and makes the
 * result type. */
void lrm_open_rma(lua_State *L);

/* Synchronisation (lsync.c): adds the epoch methods to the window methods. */
void lrm_open_sync(lua_State *L);

/* Keyvals (lkeyval.c): rl.keyval and the predefined keyvals, added to the
 * module table on top of the stack. */
void lrm_open_keyval(lua_State *L);
/* A keyval argument: the core keyval, and in *predefined "WIN_BASE"... for
 * the predefined keyvals, else NULL. Raises for a keyval that is gone. */
rmalab_keyval *lrm_checkkeyval(lua_State *L, int arg, const char **predefined);
/* A registry reference to the value on top (popped), counted in the
 * context's stats.refs; nil gives LUA_REFNIL, which holds nothing. */
int lrm_ref(lua_State *L);
/* Release a reference from lrm_ref; never raises. */
void lrm_unref(lua_State *L, int ref);
/* An attribute value is a registry reference, carried by the core as a
 * void *. */
static inline void *lrm_attr_value(int ref) { return (void *)(intptr_t)ref; }
static inline int lrm_attr_ref(void *value) { return (int)(intptr_t)value; }

/* Attribute caching (lattr.c): adds set_attr, get_attr and delete_attr to
 * the window methods. */
void lrm_open_attr(lua_State *L);

/* Traces (ltrace.c): adds win:trace_events() and win:trace_status(), and
 * sets rl.trace in the module table on top of the stack. */
void lrm_open_trace(lua_State *L);

/* The race checker (lraces.c): adds win:check_mode(), and sets rl.races in
 * the module table on top of the stack. */
void lrm_open_races(lua_State *L);

/* Windows made with the race checker on, not freed (lwin.c). */
extern _Atomic int lrm_checked_wins;
/* Tell the race checker where the coming call on `w` comes from: the
 * innermost Lua function's "file:line", the file cut from the left to fit.
 * Only checked windows pay for it, on every access: no printf; while no
 * window is checked, not the core's call either (21 instructions). */
static inline void lrm_site(lua_State *L, const rmalab_win *w)
{
    lua_Debug ar;
    if (!atomic_load_explicit(&lrm_checked_wins, memory_order_relaxed) ||
        rmalab_win_check_mode(w) == RMALAB_CHECK_OFF)
        return;
    for (int level = 1; lua_getstack(L, level, &ar); level++)
        if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
            char buf[48], num[12];
            int n = 0;
            for (int line = ar.currentline; line > 0 && n < 11; line /= 10)
                num[n++] = (char)('0' + line % 10);
            size_t len = strlen(ar.short_src), room = sizeof buf - 2 - (size_t)n;
            size_t k = len > room ? room : len;
            memcpy(buf, ar.short_src + (len - k), k);
            buf[k++] = ':';
            while (n)
                buf[k++] = num[--n];
            buf[k] = 0;
            rmalab_check_site(buf);
            return;
        }
}

#endif
