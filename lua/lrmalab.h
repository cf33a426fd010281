/* Private to the Lua binding: metatable names and the helpers shared by the
 * binding's files. Nothing here is part of the core's API. */
#ifndef LRMALAB_H
#define LRMALAB_H

#include <lauxlib.h>
#include <lua.h>

#include <rmalab/rmalab.h>

#define LRM_ERROR_T "rmalab.error"
#define LRM_INFO_T "rmalab.info"
#define LRM_COMM_T "rmalab.comm"
#define LRM_WIN_T "rmalab.win"

/* Objects of the binding not yet released, for leak checks
 * (rl.debug.stats()): a count goes up when an object is made and down once,
 * when it is released: by its free method or, for local objects (infos,
 * keyvals), by the garbage collector. A window or communicator collected
 * without its collective free stays counted: it leaked. */
typedef struct {
    long infos, comms, wins, keyvals, refs;
} lrm_stats_t;

/* A window collected without win:free(), kept for release before
 * MPI_Finalize (rmalab.c). */
typedef struct {
    rmalab_win *w;
    unsigned long id;
} lrm_leaked;

/* The module's state for one Lua state, as luv keeps luv_ctx_t: nothing of
 * the binding is per process but MPI itself. It is the runtime object that
 * the module creates first in each Lua state (so it is finalised after
 * every other rmalab object there), found by lrm_getctx. */
typedef struct lrm_ctx {
    /* The thread of this Lua state running a binding call that may run
     * attribute callbacks, which run on it (lrm_ctx_call); else NULL. */
    lua_State *running;
    lrm_stats_t stats;
    unsigned long next_win_id;  /* creation order of windows */
    lrm_leaked *leaked;         /* windows collected without win:free() */
    int nleaked, capleaked;
    int owns_mpi;               /* this state's module called MPI_Init_thread */
} lrm_ctx;

/* The context of L's Lua state (any of its threads). */
lrm_ctx *lrm_getctx(lua_State *L);
/* Run fn(ud) with ctx->running = L: the one way a binding call that may run
 * attribute callbacks enters the core. Returns fn's status. */
int lrm_ctx_call(lrm_ctx *ctx, lua_State *L, int (*fn)(void *ud), void *ud);

/* Raise an error object {class, message, code} for a core status code. The
 * message is "<what>: <rmalab_errmsg()>". Never returns. */
int lrm_raise(lua_State *L, int code, const char *what);
/* Raise an error object with a formatted message. Never returns. */
int lrm_raisef(lua_State *L, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* luaL_argerror's wording ("bad argument #n to 'f' (msg)") in an error
 * object of class `code`. Never returns. */
int lrm_argerror(lua_State *L, int arg, int code, const char *msg);
/* Check that argument `arg` is a string (no number coercion). */
const char *lrm_checkstring(lua_State *L, int arg, int code, size_t *len);
/* An integer argument (no string coercion, no fractional part), or an
 * error object of class `code` naming `what` ("rank", "count"). */
lua_Integer lrm_checkinteger(lua_State *L, int arg, int code, const char *what);
/* luaL_checkoption with an error object of class ERR_ARG. */
int lrm_checkoption(lua_State *L, int arg, const char *def, const char *const list[]);

/* Info objects (linfo.c). */
void lrm_open_info(lua_State *L);
/* The info behind argument `arg`: an info object, a table of hints (turned
 * into a new info object left on the stack, owned by the GC) or nil when
 * `optional` (then NULL). */
rmalab_info *lrm_toinfo(lua_State *L, int arg, int optional);
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
    int (*set_info)(void *obj, const rmalab_info *info, rmalab_diags *d);
    int (*get_info)(void *obj, rmalab_info **out);
    int (*hints)(void *obj, rmalab_hints_report **out);
    int (*check_hints)(void *obj, rmalab_agreement **out);
    int (*raise)(lua_State *L, int rc, void *obj, const char *call);
} lrm_hinted;
/* Add set_info, get_info, hints and check_hints for objects described by
 * h (static storage) to the methods table on top of the stack. */
void lrm_hinted_methods(lua_State *L, const lrm_hinted *h);
void lrm_open_comm(lua_State *L);
/* Push the world communicator object (created once, kept in the module). */
void lrm_pushworld(lua_State *L);
rmalab_comm *lrm_checkcomm(lua_State *L, int arg);
/* Raise the core's error `rc` from comm:<call>. Never returns. */
int lrm_raise_comm(lua_State *L, int rc, rmalab_comm *c, const char *call);

/* Windows (lwin.c). */
void lrm_open_win(lua_State *L);
rmalab_win *lrm_checkwin(lua_State *L, int arg);
/* Raise the core's error `rc` from win:<call> ("win:" and the core's
 * message when call is NULL, as the core names the call itself), with the
 * window's name if it has one. Never returns. */
int lrm_raise_win(lua_State *L, int rc, rmalab_win *w, const char *call);
/* Push the Lua userdata of a core window, or nil. */
void lrm_pushwin(lua_State *L, rmalab_win *w);

/* Arguments and typed values of window calls (lvalues.c). The check
 * functions raise error objects; buffers that do not fit the caller's
 * `small` storage live in a userdata pushed on the stack, so read the
 * arguments after `arg` first. */
void lrm_open_values(lua_State *L);
rmalab_type lrm_checktype(lua_State *L, int arg);
rmalab_op lrm_checkop(lua_State *L, int arg);
int lrm_checkrank(lua_State *L, int arg);
MPI_Aint lrm_checkdisp(lua_State *L, int arg);
int lrm_checkcount(lua_State *L, int arg);
int lrm_checkassert(lua_State *L, int arg);
#define LRM_SMALL_GROUP 16
int *lrm_checkgroup(lua_State *L, int arg, int *n, int *small);
void *lrm_checkvalues_buf(lua_State *L, int arg, rmalab_type type, int *count, void *small,
                          size_t nsmall);
void *lrm_checkvalues(lua_State *L, int arg, rmalab_type type, int *count);
void lrm_pushvalue(lua_State *L, rmalab_type type, const unsigned char *p);
void lrm_pushvalues(lua_State *L, rmalab_type type, const void *data, int count, int as_array);

/* Synchronisation methods (lsync.c), added to the window methods table on
 * top of the stack. */
void lrm_sync_methods(lua_State *L);

/* Attribute caching (lattr.c): keyvals and predefined attributes in the
 * module table at the top of the stack; set/get/delete_attr in the window
 * methods table at the top of the stack. */
void lrm_open_attr(lua_State *L);
void lrm_attr_methods(lua_State *L);

/* The runtime (rmalab.c): a window that was never freed, handed over by its
 * __gc so that it can be released before MPI_Finalize. */
void lrm_leaked_win(lrm_ctx *ctx, rmalab_win *w, unsigned long id);

#endif
