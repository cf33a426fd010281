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
extern lrm_stats_t lrm_stats;

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
/* Push a new info object that takes ownership of `info`. */
void lrm_pushinfo(lua_State *L, rmalab_info *info);
int lrm_info_new(lua_State *L);
int lrm_info_env(lua_State *L);

/* Hints and communicators (lhints.c, lcomm.c). */
void lrm_open_hints(lua_State *L);
void lrm_pushdiags(lua_State *L, rmalab_diags *d);
void lrm_pushreport(lua_State *L, rmalab_hints_report *r);
void lrm_pushagreement(lua_State *L, rmalab_agreement *a);
void lrm_open_comm(lua_State *L);
/* Push the world communicator object (created once, kept in the module). */
void lrm_pushworld(lua_State *L);
rmalab_comm *lrm_checkcomm(lua_State *L, int arg);

/* Windows (lwin.c). */
void lrm_open_win(lua_State *L);
rmalab_win *lrm_checkwin(lua_State *L, int arg);
/* Push the Lua userdata of a core window, or nil. */
void lrm_pushwin(lua_State *L, rmalab_win *w);
/* The state core calls that may run Lua callbacks use (set around them). */
extern lua_State *lrm_cb_L;

/* Attribute caching (lattr.c): keyvals and predefined attributes in the
 * module table at the top of the stack; set/get/delete_attr in the window
 * methods table at the top of the stack. */
void lrm_open_attr(lua_State *L);
void lrm_attr_methods(lua_State *L);

/* The runtime (rmalab.c): a window that was never freed, handed over by its
 * __gc so that it can be released before MPI_Finalize. */
void lrm_leaked_win(rmalab_win *w, unsigned long id);

#endif
