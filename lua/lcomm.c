/* Communicators in Lua: rl.world and the communicators made from it with
 * hints. MPI_Comm_free is collective, so __gc never frees a communicator:
 * it warns about one that was never freed, and MPI_Finalize reclaims it. */
#include <stdio.h>

#include "lrmalab.h"

typedef lrm_comm lcomm;

const char lrm_comm_tag = 'c';

_Atomic(lrm_comm *) lrm_comm_world;

static lcomm *newcomm(lua_State *L, const char *how)
{
    lcomm *u = lrm_newud(L, sizeof *u, 1, &lrm_comm_tag); /* its status memo (lstatus.c) */
    u->comm = NULL;
    u->memo.source = -1; /* none yet: fits no status */
    u->is_world = 0;
    u->how = how;
    u->counted = 1;
    luaL_setmetatable(L, LRM_COMM_T);
    lrm_getctx(L)->stats.comms++;
    return u;
}

rmalab_comm **lrm_newcomm(lua_State *L, const char *how)
{
    return &newcomm(L, how)->comm;
}

void lrm_push_comm_methods(lua_State *L)
{
    luaL_getmetatable(L, LRM_COMM_T);
    lua_getfield(L, -1, "__index");
    lua_remove(L, -2);
}

static lcomm *tocomm(lua_State *L, int arg)
{
    return lrm_checkud(L, arg, &lrm_comm_tag, sizeof(lcomm), RMALAB_ERR_COMM,
                       "communicator expected");
}

void lrm_pushworld(lua_State *L)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, "rmalab.world") != LUA_TNIL)
        return;
    lua_pop(L, 1);
    lcomm *u = newcomm(L, "world");
    int rc = rmalab_comm_wrap(MPI_COMM_WORLD, &u->comm);
    if (rc)
        lrm_raise(L, rc, "rl.world");
    u->is_world = 1;
    atomic_store_explicit(&lrm_comm_world, u, memory_order_relaxed);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, "rmalab.world");
}

static int comm_rank(lua_State *L)
{
    lua_pushinteger(L, rmalab_comm_rank(lrm_checkcomm(L, 1)));
    return 1;
}

static int comm_size(lua_State *L)
{
    lua_pushinteger(L, rmalab_comm_size(lrm_checkcomm(L, 1)));
    return 1;
}

static int comm_barrier(lua_State *L)
{
    rmalab_comm *c = lrm_checkcomm(L, 1);
    int rc = rmalab_barrier(rmalab_comm_mpi(c)); /* carries the race checker's clocks */
    if (rc)
        return lrm_raise_comm(L, rc, c, "barrier");
    return 0;
}

/* comm:abort([code]): MPI_Abort, on purpose. Every rank of the job ends
 * (MPICH aborts the whole job whatever the communicator) and mpiexec exits
 * with `code`; the REPL and the runner report the rank and the code. The
 * one call in rmalab that ends the job: mistakes raise errors instead.
 *
 * A host that embeds the module may store a function in the registry
 * under RMALAB_LUA_ABORT_HOOK (rmalab-embed.h): it is called, protected, with the code just
 * before MPI_Abort, so that the host can say who aborted by its own means
 * (the runner's ranks tell the front end over their socket; MPICH's own
 * line on stderr is sometimes lost in mpiexec's cleanup). */
static int comm_abort(lua_State *L)
{
    rmalab_comm *c = lrm_checkcomm(L, 1);
    lua_Integer code = lua_isnoneornil(L, 2) ? 1 : lrm_checkinteger(L, 2, RMALAB_ERR_ARG, "code");
    if (code < 0 || code > 255)
        lrm_argerror(L, 2, RMALAB_ERR_ARG, "an exit code from 0 to 255 expected");
    if (lua_getfield(L, LUA_REGISTRYINDEX, RMALAB_LUA_ABORT_HOOK) == LUA_TFUNCTION) {
        lua_pushinteger(L, code);
        lua_pcall(L, 1, 0, 0); /* whatever it does, the job ends */
    }
    fflush(stdout);
    fflush(stderr);
    MPI_Abort(rmalab_comm_mpi(c), (int)code);
    return 0; /* not reached */
}

/* c:dup([hints]) -> new communicator, diagnostics (collective). Hints
 * that are wrong on this rank fail the dup on every rank, raised here
 * after this rank has taken part. */
static int comm_dup(lua_State *L)
{
    rmalab_comm *parent = lrm_checkcomm(L, 1);
    rmalab_info *info;
    lrm_held h;
    h.status = RMALAB_OK;
    if (lrm_hold(&h, lrm_toinfo_status(L, 2, &info))) {
        rmalab_comm *none = NULL;
        (void)rmalab_comm_dup_status(parent, NULL, &none, NULL, h.status);
        return lrm_raise_held(L, &h);
    }
    lcomm *u = newcomm(L, "dup");
    rmalab_diags *d = lrm_newdiags(L);
    int rc = rmalab_comm_dup(parent, info, &u->comm, d);
    if (rc)
        return lrm_raise_comm(L, rc, parent, "dup");
    lua_pushvalue(L, -2); /* the communicator, then its diagnostics */
    lrm_pushdiags(L, d);
    return 2;
}

/* The one way errors about a communicator are raised. Communicators have
 * no names, so there is no name to add. */
int lrm_raise_comm(lua_State *L, int rc, rmalab_comm *c, const char *call)
{
    (void)c;
    return lrm_raisef(L, rc, "comm:%s: %s", call, rmalab_errmsg());
}

static void *h_check_comm(lua_State *L, int arg) { return lrm_checkcomm(L, arg); }
static int h_set_info(void *c, const rmalab_info *i, rmalab_diags *d, int status) { return rmalab_comm_set_info_status(c, i, d, status); }
static int h_get_info(void *c, rmalab_info **out) { return rmalab_comm_get_info(c, out); }
static int h_hints(void *c, rmalab_hints_report **out) { return rmalab_comm_hints(c, out); }
static int h_check_hints(void *c, rmalab_agreement **out) { return rmalab_comm_check_hints(c, out); }
static int h_raise(lua_State *L, int rc, void *c, const char *call) { return lrm_raise_comm(L, rc, c, call); }

static const lrm_hinted comm_hinted = {h_check_comm, h_set_info, h_get_info, h_hints, h_check_hints, h_raise};

static int comm_free(lua_State *L)
{
    lcomm *u = tocomm(L, 1);
    if (u->is_world)
        return lrm_raise_comm(L,
                              rmalab_set_error(RMALAB_ERR_COMM, "rl.world is MPI_COMM_WORLD "
                                                                "and cannot be freed"),
                              u->comm, "free");
    int rc = rmalab_comm_free(&u->comm);
    if (!u->comm) {
        lrm_getctx(L)->stats.comms -= u->counted;
        u->counted = 0;
    }
    if (rc)
        return lrm_raise_comm(L, rc, NULL, "free");
    return 0;
}

static int comm_gc(lua_State *L)
{
    lcomm *u = tocomm(L, 1);
    if (!u->comm || u->is_world) { /* else it leaked: it stays counted */
        lrm_getctx(L)->stats.comms -= u->counted;
        u->counted = 0;
    }
    if (u->is_world) { /* a wrapper of MPI_COMM_WORLD: freeing it is local */
        lrm_comm *me = u; /* before its memory goes, no check takes it unseen */
        atomic_compare_exchange_strong(&lrm_comm_world, &me, NULL);
        rmalab_comm_free(&u->comm);
        return 0;
    }
    if (u->comm) {
        lrm_warn(lrm_getctx(L),
                 "rmalab: rank %d: a communicator was never freed; call c:free() "
                 "(collective) or declare it local <close>",
                 rmalab_comm_rank(u->comm));
    }
    return 0;
}

static int comm_close(lua_State *L)
{
    lcomm *u = tocomm(L, 1);
    if (u->comm && !u->is_world)
        return comm_free(L);
    return 0;
}

static int comm_tostring(lua_State *L)
{
    lcomm *u = tocomm(L, 1);
    if (!u->comm)
        lua_pushstring(L, "rmalab.comm (freed)");
    else
        lua_pushfstring(L, "rmalab.comm (%s, rank %d of %d)", u->how,
                        rmalab_comm_rank(u->comm), rmalab_comm_size(u->comm));
    return 1;
}

static const luaL_Reg comm_methods[] = {
    {"rank", comm_rank},         {"size", comm_size},
    {"barrier", comm_barrier},
    {"dup", comm_dup},           {"abort", comm_abort},
    {"free", comm_free},         {NULL, NULL},
};

static const luaL_Reg comm_meta[] = {
    {"__gc", comm_gc},
    {"__close", comm_close},
    {"__tostring", comm_tostring},
    {"__index", NULL},
    {NULL, NULL},
};

void lrm_open_comm(lua_State *L)
{
    luaL_newmetatable(L, LRM_COMM_T);
    luaL_setfuncs(L, comm_meta, 0);
    luaL_newlib(L, comm_methods);
    lrm_hinted_methods(L, &comm_hinted);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}
