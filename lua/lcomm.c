/* Communicators in Lua: rl.world and the communicators made from it with
 * hints. MPI_Comm_free is collective, so __gc never frees a communicator:
 * it warns about one that was never freed, and MPI_Finalize reclaims it. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "lrmalab.h"

typedef struct {
    const void *tag; /* &comm_tag (lrm_newud) */
    rmalab_comm *comm;
    int is_world;
    int counted; /* in the context's stats.comms */
} lcomm;

static const char comm_tag = 'c';

static lcomm *newcomm(lua_State *L)
{
    lcomm *u = lrm_newud(L, sizeof *u, 0, &comm_tag);
    u->comm = NULL;
    u->is_world = 0;
    u->counted = 1;
    luaL_setmetatable(L, LRM_COMM_T);
    lrm_getctx(L)->stats.comms++;
    return u;
}

static lcomm *tocomm(lua_State *L, int arg)
{
    return lrm_checkud(L, arg, &comm_tag, sizeof(lcomm), RMALAB_ERR_COMM, "communicator expected");
}

rmalab_comm *lrm_checkcomm(lua_State *L, int arg)
{
    lcomm *u = tocomm(L, arg);
    if (!u->comm)
        lrm_raisef(L, RMALAB_ERR_COMM, "this communicator was freed");
    return u->comm;
}

void lrm_pushworld(lua_State *L)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, "rmalab.world") != LUA_TNIL)
        return;
    lua_pop(L, 1);
    lcomm *u = newcomm(L);
    int rc = rmalab_comm_wrap(MPI_COMM_WORLD, &u->comm);
    if (rc)
        lrm_raise(L, rc, "rl.world");
    u->is_world = 1;
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

/* The rank that receives a gather: argument 3, default 0. Every rank makes
 * the same checks before any MPI call, so a mistake raises everywhere. */
static int gather_root(lua_State *L, rmalab_comm *c, size_t len)
{
    int size = rmalab_comm_size(c);
    lua_Integer root = lua_isnoneornil(L, 3) ? 0 : lrm_checkinteger(L, 3, RMALAB_ERR_RANK, "root");
    if (root < 0 || root >= size)
        return lrm_raise_comm(L, rmalab_set_error(RMALAB_ERR_RANK, "root %lld is not a rank of "
                                                  "this communicator (0 to %d)",
                                                  (long long)root, size - 1),
                              c, "gather");
    if (len > (size_t)(INT_MAX / size))
        return lrm_raise_comm(L, rmalab_set_error(RMALAB_ERR_ARG, "a text of %zu bytes is too "
                                                  "long: at most %d per rank on %d ranks",
                                                  len, INT_MAX / size, size),
                              c, "gather");
    return (int)root;
}

static int new_buffer(lua_State *L)
{
    lua_newuserdatauv(L, (size_t)lua_tointeger(L, 1), 0);
    return 1;
}

/* A buffer of n bytes as a userdata on the stack, or NULL (and nothing on
 * the stack) when Lua is out of memory: an error raised there would leave
 * the other ranks in the collective call that follows. */
static void *try_buffer(lua_State *L, size_t n)
{
    lua_pushcfunction(L, new_buffer);
    lua_pushinteger(L, (lua_Integer)n);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        lua_pop(L, 1);
        return NULL;
    }
    return lua_touserdata(L, -1);
}

/* The root tells every rank whether its buffer was made; if not, every
 * rank raises the same error before the next collective call. */
static void root_has_buffer(lua_State *L, rmalab_comm *c, int root, const void *buf,
                            size_t bytes)
{
    int ok = rmalab_comm_rank(c) != root || buf != NULL;
    if (MPI_Bcast(&ok, 1, MPI_INT, root, rmalab_comm_mpi(c)) != MPI_SUCCESS)
        lrm_raise_comm(L, rmalab_set_error(RMALAB_ERR_OTHER, "MPI_Bcast failed"), c, "gather");
    if (!ok)
        lrm_raise_comm(L, rmalab_set_error(RMALAB_ERR_NO_MEM, "the root (rank %d) is out of "
                                           "memory for %zu bytes", root, bytes),
                       c, "gather");
}

/* c:gather(text [, root]) -> on root the list of every rank's text (t[r + 1]
 * is rank r's), nil elsewhere. Collective. For printing in rank order:
 * ranks' own prints interleave under mpiexec. */
static int comm_gather(lua_State *L)
{
    rmalab_comm *c = lrm_checkcomm(L, 1);
    size_t len;
    const char *s = lrm_checkstring(L, 2, RMALAB_ERR_ARG, &len);
    int root = gather_root(L, c, len), size = rmalab_comm_size(c), n = (int)len;
    bool here = rmalab_comm_rank(c) == root;
    MPI_Comm mc = rmalab_comm_mpi(c);
    size_t lbytes = 2 * (size_t)size * sizeof(int);
    int *lens = here ? try_buffer(L, lbytes) : NULL;
    root_has_buffer(L, c, root, lens, lbytes);
    int *displs = here ? lens + size : NULL, total = 0;
    if (MPI_Gather(&n, 1, MPI_INT, lens, 1, MPI_INT, root, mc) != MPI_SUCCESS)
        return lrm_raise_comm(L, rmalab_set_error(RMALAB_ERR_OTHER, "MPI_Gather failed"), c,
                              "gather");
    for (int r = 0; here && r < size; r++) {
        displs[r] = total;
        total += lens[r]; /* each at most INT_MAX / size */
    }
    char *all = here ? try_buffer(L, (size_t)total + 1) : NULL;
    root_has_buffer(L, c, root, all, (size_t)total + 1);
    if (MPI_Gatherv(s, n, MPI_CHAR, all, lens, displs, MPI_CHAR, root, mc) != MPI_SUCCESS)
        return lrm_raise_comm(L, rmalab_set_error(RMALAB_ERR_OTHER, "MPI_Gatherv failed"), c,
                              "gather");
    if (!here) {
        lua_pushnil(L);
        return 1;
    }
    lua_createtable(L, size, 0);
    for (int r = 0; r < size; r++) {
        lua_pushlstring(L, all + displs[r], (size_t)lens[r]);
        lua_rawseti(L, -2, r + 1);
    }
    return 1;
}

/* c:dup([hints]) -> new communicator, diagnostics (collective) */
static int comm_dup(lua_State *L)
{
    rmalab_comm *parent = lrm_checkcomm(L, 1);
    rmalab_info *info = lrm_toinfo(L, 2, 1);
    lcomm *u = newcomm(L);
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
static int h_set_info(void *c, const rmalab_info *i, rmalab_diags *d) { return rmalab_comm_set_info(c, i, d); }
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
        lua_pushfstring(L, "rmalab.comm (%s, rank %d of %d)", u->is_world ? "world" : "dup",
                        rmalab_comm_rank(u->comm), rmalab_comm_size(u->comm));
    return 1;
}

static const luaL_Reg comm_methods[] = {
    {"rank", comm_rank},         {"size", comm_size},
    {"barrier", comm_barrier},   {"gather", comm_gather},
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
