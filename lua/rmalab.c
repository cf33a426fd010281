/* The `rmalab` Lua module: `local rl = require "rmalab"`.
 *
 * Loading it starts MPI if nobody has (asking for MPI_THREAD_MULTIPLE, which
 * the REPL needs), with MPI_ERRORS_RETURN on the predefined communicators so
 * that no user mistake aborts the job. MPI is finalised when the Lua state
 * closes, also after a Lua error, through a runtime object created before
 * any other rmalab object and so finalised after all of them; an atexit
 * handler covers os.exit() without closing the state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lrmalab.h"

static int runtime_owns_mpi, runtime_done;
static MPI_Comm exit_comm = MPI_COMM_NULL;
/* The context of the Lua state that started MPI, while it is open: the
 * atexit handler has no Lua state to find it from. */
static lrm_ctx *mpi_owner;

/* Key of the context in the registry (its address is unique). */
static const char ctx_key = 0;

lrm_ctx *lrm_getctx(lua_State *L)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &ctx_key);
    lrm_ctx *c = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return c;
}

int lrm_ctx_call(lrm_ctx *ctx, lua_State *L, int (*fn)(void *ud), void *ud)
{
    lua_State *prev = ctx->running;
    ctx->running = L;
    int rc = fn(ud);
    ctx->running = prev;
    return rc;
}

void lrm_leaked_win(lrm_ctx *c, rmalab_win *w, unsigned long id)
{
    if (c->nleaked == c->capleaked) {
        int cap = c->capleaked ? 2 * c->capleaked : 8;
        lrm_leaked *p = realloc(c->leaked, (size_t)cap * sizeof *p);
        if (!p)
            return;
        c->leaked = p;
        c->capleaked = cap;
    }
    c->leaked[c->nleaked++] = (lrm_leaked){w, id};
}

/* Creation order, which every rank shares for windows of the same
 * communicators; the garbage collector's order need not be shared. */
static int by_id(const void *a, const void *b)
{
    unsigned long x = ((const lrm_leaked *)a)->id, y = ((const lrm_leaked *)b)->id;
    return x < y ? -1 : x > y;
}

/* Wait for every rank to reach exit, sleeping between polls; false after
 * `seconds` (some rank is still running, blocked, or gone). */
static int all_ranks_exiting(double seconds)
{
    MPI_Request req;
    if (MPI_Ibarrier(exit_comm, &req) != MPI_SUCCESS)
        return 0;
    double until = MPI_Wtime() + seconds;
    int done = 0;
    while (!done && MPI_Wtime() < until) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (!done)
            nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    return done;
}

/* MPICH 4.0.2 with UCX aborts in MPI_Finalize while any window is alive, so
 * windows that were never freed must be freed first; MPI_Win_free is
 * collective, which is only safe when every rank is exiting and leaked the
 * same windows. Passive-target epochs are closed locally first and fence
 * epochs with a closing fence; an open PSCW epoch could block, so then (and
 * whenever ranks disagree) the process exits without MPI_Finalize, which
 * never aborts or hangs. Returns whether MPI_Finalize is safe. */
static int release_leaked_windows(lrm_ctx *c)
{
    lrm_leaked *leaked = c ? c->leaked : NULL;
    int nleaked = c ? c->nleaked : 0;
    int size, rank, ok = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *t = getenv("RMALAB_EXIT_TIMEOUT");
    double timeout = t ? atof(t) : 5.0;
    if (!all_ranks_exiting(timeout > 0 ? timeout : 5.0)) {
        if (nleaked)
            fprintf(stderr,
                    "rmalab: rank %d: %d window%s never freed and not every rank reached exit "
                    "within %.0f s; exiting without MPI_Finalize\n",
                    rank, nleaked, nleaked == 1 ? " was" : "s were", timeout);
        return nleaked == 0;
    }
    if (nleaked) /* qsort with a NULL array is undefined, even for 0 items */
        qsort(leaked, (size_t)nleaked, sizeof *leaked, by_id);
    int mine[2] = {nleaked, 0}, lo[2], hi[2];
    for (int i = 0; i < nleaked; i++) {
        rmalab_epoch_state s;
        rmalab_win_state(leaked[i].w, &s);
        if (rmalab_win_group_size(leaked[i].w) != size || s.access == RMALAB_ACCESS_START ||
            s.exposure == RMALAB_EXPOSURE_POST)
            mine[1] = 1;
    }
    MPI_Allreduce(mine, lo, 2, MPI_INT, MPI_MIN, exit_comm);
    MPI_Allreduce(mine, hi, 2, MPI_INT, MPI_MAX, exit_comm);
    if (hi[0] == 0)
        return 1;
    if (lo[0] != hi[0] || hi[1]) {
        if (nleaked)
            fprintf(stderr,
                    "rmalab: rank %d: %d window%s never freed and cannot be freed safely at "
                    "exit (ranks differ, or a PSCW epoch is open); exiting without "
                    "MPI_Finalize\n",
                    rank, nleaked, nleaked == 1 ? " was" : "s were");
        return 0;
    }
    for (int i = 0; i < nleaked; i++) {
        rmalab_epoch_state s;
        rmalab_win_state(leaked[i].w, &s);
        int fence = s.access == RMALAB_ACCESS_FENCE, any = 0;
        MPI_Allreduce(&fence, &any, 1, MPI_INT, MPI_MAX, exit_comm);
        if (rmalab_win_abandon(&leaked[i].w, any != 0))
            ok = 0;
    }
    c->nleaked = 0;
    return ok;
}

static void finalize_mpi(void)
{
    int init = 0, fini = 0;
    if (runtime_done || !runtime_owns_mpi)
        return;
    runtime_done = 1;
    MPI_Initialized(&init);
    MPI_Finalized(&fini);
    if (!init || fini)
        return;
    fflush(stdout);
    if (release_leaked_windows(mpi_owner)) {
        MPI_Comm_free(&exit_comm);
        MPI_Finalize();
    }
    fflush(stderr);
}

/* The context's __gc, after every other rmalab object of its Lua state.
 * The state that started MPI finalises it; another hands the windows it
 * leaked to that one, to be released before MPI_Finalize. */
static int ctx_gc(lua_State *L)
{
    lrm_ctx *c = lua_touserdata(L, 1);
    if (c->owns_mpi) {
        finalize_mpi();
        mpi_owner = NULL;
    }
    for (int i = 0; i < c->nleaked && mpi_owner; i++)
        lrm_leaked_win(mpi_owner, c->leaked[i].w, c->leaked[i].id);
    free(c->leaked);
    c->leaked = NULL;
    c->nleaked = 0;
    return 0;
}

static void start_runtime(lua_State *L)
{
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &ctx_key) != LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    lrm_ctx *c = lua_newuserdatauv(L, sizeof *c, 0);
    memset(c, 0, sizeof *c);
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, ctx_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &ctx_key);

    int init = 0, fini = 0, provided = 0;
    MPI_Finalized(&fini);
    if (fini)
        lrm_raisef(L, RMALAB_ERR_OTHER, "require \"rmalab\": MPI was already finalised");
    MPI_Initialized(&init);
    if (!init) {
        if (MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
            lrm_raisef(L, RMALAB_ERR_OTHER, "require \"rmalab\": MPI_Init_thread failed");
        c->owns_mpi = runtime_owns_mpi = 1;
        mpi_owner = c;
        rmalab_info_env_thread_requested(MPI_THREAD_MULTIPLE);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        MPI_Comm_dup(MPI_COMM_WORLD, &exit_comm);
        atexit(finalize_mpi);
    }
}

/* rl.debug.stats() -> { infos, comms, wins, keyvals, refs }: live binding
 * objects (userdata not yet collected; a window collected without win:free()
 * stays counted, as leaked) and registry references held. */
static int l_stats(lua_State *L)
{
    const lrm_stats_t *st = &lrm_getctx(L)->stats;
    lua_createtable(L, 0, 5);
    lua_pushinteger(L, st->infos);
    lua_setfield(L, -2, "infos");
    lua_pushinteger(L, st->comms - 1); /* rl.world lives as long as the module */
    lua_setfield(L, -2, "comms");
    lua_pushinteger(L, st->wins);
    lua_setfield(L, -2, "wins");
    lua_pushinteger(L, st->keyvals);
    lua_setfield(L, -2, "keyvals");
    lua_pushinteger(L, st->refs);
    lua_setfield(L, -2, "refs");
    return 1;
}

static int l_wtime(lua_State *L)
{
    lua_pushnumber(L, MPI_Wtime());
    return 1;
}

static const luaL_Reg module_funcs[] = {
    {"info", lrm_info_new},
    {"info_env", lrm_info_env},
    {"wtime", l_wtime},
    {NULL, NULL},
};

/* The module's entry point; ltest.c exports the other, luaopen_rmalab_test. */
__attribute__((visibility("default"))) int luaopen_rmalab(lua_State *L);

int luaopen_rmalab(lua_State *L)
{
    start_runtime(L);
    lrm_open_info(L);
    lrm_open_comm(L);

    luaL_newlib(L, module_funcs);
    lrm_open_win(L);
    lrm_open_attr(L);
    lua_pushstring(L, rmalab_version());
    lua_setfield(L, -2, "version");
    lua_pushinteger(L, RMALAB_MAX_INFO_KEY);
    lua_setfield(L, -2, "MAX_INFO_KEY");
    lua_pushinteger(L, RMALAB_MAX_INFO_VAL);
    lua_setfield(L, -2, "MAX_INFO_VAL");
    lrm_open_hints(L);
    lua_setfield(L, -2, "hints");
    lrm_pushworld(L);
    lua_setfield(L, -2, "world");
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, l_stats);
    lua_setfield(L, -2, "stats");
    lua_setfield(L, -2, "debug");
    return 1;
}
