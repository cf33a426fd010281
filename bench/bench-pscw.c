/* bench-pscw: time per PSCW epoch for raw MPICH, rmalab's C API and Lua
 * scripts using the rmalab module, on both engines and two window flavours,
 * side by side in one run.
 *
 * Run on exactly 2 ranks, one per core (blocking MPICH calls busy-poll):
 *     mpiexec -n 2 -bind-to core build/bench/bench-pscw [epochs [rounds [ids]]]
 * `ids` picks variants by the short names below, comma-separated ("all" by
 * default); raw is always run, as every ratio is to it.
 *
 * Method. Every variant does the same epochs on its own window of 16 bytes
 * (disp_unit 8; MPICH 4.0.2 + UCX wants sizes that are multiples of 16):
 *     rank 0, origin:  start({1}); put one int64 to rank 1, disp 0; complete()
 *     rank 1, target:  post({0}); wait()
 *   raw     MPI_Win_allocate + MPI_Win_start/MPI_Put/MPI_Win_complete and
 *           MPI_Win_post/MPI_Win_wait, the groups built once beforehand;
 *   C API   rmalab_win_allocate + rmalab_win_start/put/complete and
 *           rmalab_win_post/wait, the rank arrays static, on the engine the
 *           variant names (hint rmalab_pscw);
 *   Lua     bench/pscw.lua in a lua_State embedded here (luaL_openlibs, then
 *           luaL_requiref of luaopen_rmalab from lua_binding_dep; MPI is
 *           already initialised, so the module does not own it), looping over
 *           win:start/put/complete and win:post/wait on a window made by
 *           rl.win_create or rl.win_allocate, with the group tables built
 *           every epoch as a user writes them, or hoisted out of the loop;
 *           "floor" rows run the same loop over bench/pscw-floor.c, the
 *           least a Lua binding of MPICH's PSCW costs (no checks).
 * The "-x" variants go both ways, as bench/mpi4py-rows.py's loop does: each
 * rank post({peer}); start({peer}); put to the peer; complete(); wait(),
 * against raw-x, raw MPICH doing the same (issue 41's goal for the rma
 * engine: 1.1x, a new group table each epoch).
 * The origin puts a running counter; after every run rank 1 checks that its
 * window holds the last value, so nothing is skipped.
 *
 * Each variant first runs WARMUP untimed epochs. Then ROUNDS rounds each run
 * every variant once for EPOCHS epochs, the order rotated by one each round,
 * with a barrier before every run, so that drift on a shared machine hits
 * all variants alike. A run is timed on both ranks with CLOCK_MONOTONIC
 * around the whole loop (for Lua, around the lua_pcall of the loop) and
 * counts as the slower rank's time. Reported per variant: the median time
 * over the rounds, and the ratio to raw as the median of the per-round
 * ratios (each variant against the raw run of the same round, a few ms
 * apart), which a change of machine speed between rounds does not move;
 * then the goals as PASS/MISS (the C API on MPICH's engine within 5% of
 * raw; Lua on it within 15%; Lua on the rma engine at most 0.3x raw on an
 * allocated window and 0.5x on a created one, all with the group tables
 * built every epoch), and a note when raw itself varied by more than 1.5x
 * (something else was running). The C API on a window that records
 * (rmalab_trace) gives its cost per epoch over the C API's, per event
 * recorded. The exit status is 0 whatever the goals say; it is non-zero
 * only if a call fails or a check does not hold. */
#include <mpi.h>
#include <rmalab/rmalab.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Defined in lua/rmalab.c (lua_binding_dep); no public header declares it. */
#include <rmalab-embed.h>

#include "pscw-floor.h"

#ifndef PSCW_LUA
#error "PSCW_LUA must name bench/pscw.lua (bench/meson.build defines it)"
#endif

#define ROUNDS 15
#define EPOCHS 20000 /* per variant and round: 15 x 20,000 = 300,000 timed epochs */
#define WARMUP 2000
#define MAX_ROUNDS 101
#define WIN_BYTES 16
#define DISP_UNIT 8

enum kind { RAW, CAPI, LUA };

static const struct variant {
    const char *id, *name;
    enum kind kind;
    const char *engine, *flavor; /* C API: allocate only */
    int hoisted, traced;
    double goal;                 /* ratio to raw (raw-x for "-x"); 0: none */
    int both;                    /* both ways (ids "-x") */
} variants[] = {
    {"raw", "raw MPICH C", RAW, NULL, NULL, 0, 0, 0},
    {"c-native", "C native", CAPI, "native", "allocate", 0, 0, 1.05},
    {"c-rma", "C rma", CAPI, "rma", "allocate", 0, 0, 0},
    {"c-traced", "C native traced", CAPI, "native", "allocate", 0, 1, 0},
    {"lua-native", "Lua native create", LUA, "native", "create", 0, 0, 1.15},
    {"lua-native-h", "  groups hoisted", LUA, "native", "create", 1, 0, 0},
    {"lua-floor", "  floor binding", LUA, "floor", "allocate", 0, 0, 0},
    {"lua-rma-alloc", "Lua rma allocate", LUA, "rma", "allocate", 0, 0, 0.30},
    {"lua-rma-alloc-h", "  groups hoisted", LUA, "rma", "allocate", 1, 0, 0},
    {"lua-rma-create", "Lua rma create", LUA, "rma", "create", 0, 0, 0.50},
    {"lua-rma-create-h", "  groups hoisted", LUA, "rma", "create", 1, 0, 0},
    {"raw-x", "raw both ways", RAW, NULL, NULL, 0, 0, 0, 1},
    {"lua-rma-x", "Lua rma both ways", LUA, "rma", "allocate", 0, 0, 1.10, 1},
    {"lua-native-x", "Lua native both", LUA, "native", "create", 0, 0, 0, 1},
    {"lua-floor-x", "  floor binding", LUA, "floor", "allocate", 0, 0, 0, 1},
};
#define NVARIANTS (int)(sizeof variants / sizeof variants[0])
enum { V_CNATIVE = 1, V_TRACED = 3, V_RAWX = 11 };

static int rank;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "bench-pscw: rank %d: %s failed%s%s\n", rank, what, msg ? ": " : "",
            msg ? msg : "");
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

static void check_mpi(int e, const char *what)
{
    if (e != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(e, msg, &len);
        die(what, msg);
    }
}

static void check_rmalab(int rc, const char *what)
{
    if (rc)
        die(what, rmalab_errmsg());
}

/* ------------------------------------------------------------------------ */
/* raw MPICH                                                                */

struct raw_side {
    MPI_Win win;
    int64_t *base;
    MPI_Group to_target, to_origin; /* {1} and {0} in the window's group */
};

static void raw_setup(struct raw_side *r)
{
    check_mpi(MPI_Win_allocate(WIN_BYTES, DISP_UNIT, MPI_INFO_NULL, MPI_COMM_WORLD, &r->base,
                               &r->win),
              "MPI_Win_allocate");
    MPI_Win_set_errhandler(r->win, MPI_ERRORS_RETURN);
    memset(r->base, 0, WIN_BYTES);
    MPI_Group g;
    static const int one[1] = {1}, zero[1] = {0};
    check_mpi(MPI_Win_get_group(r->win, &g), "MPI_Win_get_group");
    check_mpi(MPI_Group_incl(g, 1, one, &r->to_target), "MPI_Group_incl");
    check_mpi(MPI_Group_incl(g, 1, zero, &r->to_origin), "MPI_Group_incl");
    MPI_Group_free(&g);
    MPI_Barrier(MPI_COMM_WORLD); /* everyone's memory zeroed before any put */
}

/* Both ways: each rank exposes to and accesses its peer in every epoch. */
static int raw_both(struct raw_side *r, long n, int64_t first)
{
    int bad = 0;
    MPI_Group peer = rank == 0 ? r->to_target : r->to_origin;
    for (int64_t i = first; i < first + n; i++) {
        int64_t v = i;
        bad |= MPI_Win_post(peer, 0, r->win);
        bad |= MPI_Win_start(peer, 0, r->win);
        bad |= MPI_Put(&v, 1, MPI_INT64_T, 1 - rank, 0, 1, MPI_INT64_T, r->win);
        bad |= MPI_Win_complete(r->win);
        bad |= MPI_Win_wait(r->win);
    }
    return bad;
}

static void raw_run(struct raw_side *r, long n, int64_t first, int both)
{
    int bad = 0;
    if (both) {
        bad = raw_both(r, n, first);
    } else if (rank == 0) {
        for (int64_t i = first; i < first + n; i++) {
            int64_t v = i;
            bad |= MPI_Win_start(r->to_target, 0, r->win);
            bad |= MPI_Put(&v, 1, MPI_INT64_T, 1, 0, 1, MPI_INT64_T, r->win);
            bad |= MPI_Win_complete(r->win);
        }
    } else {
        for (long i = 0; i < n; i++) {
            bad |= MPI_Win_post(r->to_origin, 0, r->win);
            bad |= MPI_Win_wait(r->win);
        }
    }
    if (bad)
        die("raw MPI PSCW epoch", NULL);
}

static void raw_free(struct raw_side *r)
{
    MPI_Group_free(&r->to_target);
    MPI_Group_free(&r->to_origin);
    check_mpi(MPI_Win_free(&r->win), "MPI_Win_free");
}

/* ------------------------------------------------------------------------ */
/* rmalab's C API                                                           */

/* traced: the window records (hint rmalab_trace), its ring big enough to
 * hold a round, so that the cost is recording, not overwriting. */
static rmalab_win *capi_setup(const struct variant *v)
{
    rmalab_win *w = NULL;
    rmalab_info *info = NULL;
    check_rmalab(rmalab_info_create(&info), "rmalab_info_create");
    check_rmalab(rmalab_info_set(info, "rmalab_pscw", v->engine), "rmalab_info_set");
    if (v->traced) {
        check_rmalab(rmalab_info_set(info, "rmalab_trace", "true"), "rmalab_info_set");
        check_rmalab(rmalab_info_set(info, "rmalab_trace_size", "65536"), "rmalab_info_set");
    }
    rmalab_win_opts opts = {.size = WIN_BYTES, .disp_unit = DISP_UNIT, .info = info,
                            .name = v->id};
    check_rmalab(rmalab_win_allocate(&opts, &w, NULL), "rmalab_win_allocate");
    rmalab_info_destroy(&info);
    return w; /* zeroed, and creation ends in an exchange among all ranks */
}

static void capi_run(rmalab_win *w, long n, int64_t first)
{
    static const int to_target[1] = {1}, to_origin[1] = {0};
    int bad = 0;
    if (rank == 0) {
        for (int64_t i = first; i < first + n; i++) {
            int64_t v = i;
            bad |= rmalab_win_start(w, to_target, 1, 0);
            bad |= rmalab_win_put(w, 1, 0, RMALAB_INT64, 1, &v);
            bad |= rmalab_win_complete(w);
        }
    } else {
        for (long i = 0; i < n; i++) {
            bad |= rmalab_win_post(w, to_origin, 1, 0);
            bad |= rmalab_win_wait(w);
        }
    }
    if (bad)
        die("rmalab PSCW epoch", rmalab_errmsg());
}

static int64_t capi_last(rmalab_win *w)
{
    int64_t v = -1;
    check_rmalab(rmalab_win_read(w, 0, RMALAB_INT64, 1, &v), "rmalab_win_read");
    return v;
}

/* ------------------------------------------------------------------------ */
/* Lua: pscw.lua's table B stays at stack index 1, and each Lua variant's
 * table (B.open's result) at the index its side records.                  */

static void lua_die(lua_State *L, const char *what)
{
    const char *msg = NULL;
    if (lua_type(L, -1) == LUA_TTABLE) { /* an rmalab error object */
        lua_getfield(L, -1, "message");
        msg = lua_tostring(L, -1);
    } else {
        msg = lua_tostring(L, -1);
    }
    die(what, msg ? msg : "(error object without a message)");
}

static int traceback(lua_State *L)
{
    if (lua_type(L, 1) == LUA_TTABLE)
        return 1; /* keep rmalab's error objects as they are */
    luaL_traceback(L, L, lua_tostring(L, 1), 1);
    return 1;
}

/* Call t.<fn>(args...) for the table at stack index t, with nargs
 * arguments already pushed; nres results. */
static void lua_callfield(lua_State *L, int t, const char *fn, int nargs, int nres)
{
    lua_pushcfunction(L, traceback);
    lua_getfield(L, t, fn);
    lua_rotate(L, -(nargs + 2), 2); /* handler and function below the arguments */
    int h = lua_gettop(L) - nargs - 1;
    if (lua_pcall(L, nargs, nres, h) != LUA_OK)
        lua_die(L, fn);
    lua_remove(L, h);
}

static lua_State *lua_setup(void)
{
    lua_State *L = luaL_newstate();
    if (!L)
        die("luaL_newstate", "out of memory");
    luaL_openlibs(L);
    luaL_requiref(L, "rmalab", luaopen_rmalab, 0);
    lua_pop(L, 1);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    lua_pushcfunction(L, luaopen_pscw_floor);
    lua_setfield(L, -2, "pscw_floor");
    lua_pop(L, 1);
    lua_pushcfunction(L, traceback);
    if (luaL_loadfile(L, PSCW_LUA) != LUA_OK)
        lua_die(L, "loading " PSCW_LUA);
    if (lua_pcall(L, 0, 1, 1) != LUA_OK)
        lua_die(L, "running " PSCW_LUA);
    lua_remove(L, 1);
    if (!lua_istable(L, 1))
        die(PSCW_LUA, "did not return a table");
    return L;
}

/* Collective: B.open(engine, flavor, hoisted, both); the variant's stack
 * index. */
static int lua_open(lua_State *L, const struct variant *v)
{
    lua_pushstring(L, v->engine);
    lua_pushstring(L, v->flavor);
    lua_pushboolean(L, v->hoisted);
    lua_pushboolean(L, v->both);
    lua_callfield(L, 1, "open", 4, 1);
    if (!lua_istable(L, -1))
        die(PSCW_LUA, "B.open did not return a table");
    return lua_gettop(L);
}

static void lua_run(lua_State *L, int t, long n, int64_t first)
{
    lua_pushinteger(L, (lua_Integer)n);
    lua_pushinteger(L, (lua_Integer)first);
    lua_callfield(L, t, "run", 2, 0);
}

static int64_t lua_last(lua_State *L, int t)
{
    lua_callfield(L, t, "last", 0, 1);
    int64_t v = (int64_t)lua_tointeger(L, -1);
    lua_pop(L, 1);
    return v;
}

/* ------------------------------------------------------------------------ */

struct sides {
    struct raw_side raw;
    lua_State *L;
    rmalab_win *capi[NVARIANTS];
    int lua[NVARIANTS];      /* stack index of the Lua variant's table */
    int on[NVARIANTS];       /* picked for this run */
    int64_t next[NVARIANTS]; /* the value the next epoch puts */
};

static void setup(struct sides *s)
{
    raw_setup(&s->raw);
    s->L = lua_setup();
    for (int v = 1; v < NVARIANTS; v++) {
        if (!s->on[v] || variants[v].kind == RAW)
            continue;
        if (variants[v].kind == CAPI)
            s->capi[v] = capi_setup(&variants[v]);
        else
            s->lua[v] = lua_open(s->L, &variants[v]);
    }
}

static void teardown(struct sides *s)
{
    for (int v = 1; v < NVARIANTS; v++) {
        if (s->lua[v])
            lua_callfield(s->L, s->lua[v], "free", 0, 0);
        check_rmalab(rmalab_win_free(&s->capi[v]), "rmalab_win_free");
    }
    lua_close(s->L);
    raw_free(&s->raw);
}

static int64_t last_value(struct sides *s, int v)
{
    switch (variants[v].kind) {
    case RAW: return s->raw.base[0]; /* rank 1, after MPI_Win_wait */
    case CAPI: return capi_last(s->capi[v]);
    default: return lua_last(s->L, s->lua[v]);
    }
}

/* One run of `n` epochs of variant v: the slower rank's seconds. */
static double run(struct sides *s, int v, long n, int timed)
{
    int64_t first = s->next[v];
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now_s();
    switch (variants[v].kind) {
    case RAW: raw_run(&s->raw, n, first, variants[v].both); break;
    case CAPI: capi_run(s->capi[v], n, first); break;
    default: lua_run(s->L, s->lua[v], n, first); break;
    }
    double t = now_s() - t0;
    s->next[v] += n;
    if (rank == 1) {
        int64_t last = last_value(s, v);
        if (last != first + n - 1) {
            char msg[128];
            snprintf(msg, sizeof msg, "the window holds %lld, expected %lld", (long long)last,
                     (long long)(first + n - 1));
            die(variants[v].name, msg);
        }
    }
    double worst = 0;
    if (!timed)
        return 0;
    check_mpi(MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD),
              "MPI_Allreduce");
    return worst;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts x. */
static double median(double *x, int n)
{
    qsort(x, (size_t)n, sizeof x[0], cmp_double);
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

static long arg_long(const char *s, long lo, long hi, const char *what)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v < lo || v > hi) {
        if (rank == 0)
            fprintf(stderr, "bench-pscw: %s must be %ld to %ld, got \"%s\"\n", what, lo, hi, s);
        MPI_Finalize();
        exit(2);
    }
    return v;
}

/* on[v] for the comma-separated ids in `list` ("all": every variant). */
static void pick(const char *list, int *on)
{
    on[0] = 1;
    for (int v = 1; v < NVARIANTS; v++)
        on[v] = strcmp(list, "all") == 0;
    for (const char *p = list; *p && strcmp(list, "all") != 0;) {
        size_t len = strcspn(p, ",");
        int found = 0;
        for (int v = 0; v < NVARIANTS; v++)
            if (strlen(variants[v].id) == len && strncmp(p, variants[v].id, len) == 0)
                on[v] = found = 1;
        if (!found) {
            if (rank == 0) {
                fprintf(stderr, "bench-pscw: no variant \"%.*s\"; the variants are", (int)len,
                        p);
                for (int v = 0; v < NVARIANTS; v++)
                    fprintf(stderr, " %s", variants[v].id);
                fprintf(stderr, "\n");
            }
            MPI_Finalize();
            exit(2);
        }
        p += len + (p[len] == ',');
    }
    for (int v = 0; v < NVARIANTS; v++)
        on[V_RAWX] |= on[v] && variants[v].both; /* the "-x" rows' ratios are to it */
}

/* What the traced window costs per event, over the C API's native window. */
static void report_tracing(struct sides *s, double t[][MAX_ROUNDS], int rounds, long epochs)
{
    rmalab_trace_status ts = {0};
    if (s->on[V_TRACED])
        rmalab_win_trace_status(s->capi[V_TRACED], &ts);
    double events = (double)ts.recorded / (double)(WARMUP + epochs * rounds), all = 0;
    check_mpi(MPI_Reduce(&events, &all, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD),
              "MPI_Reduce");
    if (rank != 0 || !s->on[V_TRACED] || !s->on[V_CNATIVE])
        return;
    double d[MAX_ROUNDS];
    for (int k = 0; k < rounds; k++)
        d[k] = t[V_TRACED][k] - t[V_CNATIVE][k];
    double on_us = median(d, rounds);
    printf("\nrecording: the traced window records %.1f events per epoch on the busier "
           "rank;\nit costs %.3f us per epoch (median over rounds of traced - C native), "
           "%.0f ns per event\n",
           all, on_us, 1e3 * on_us / all);
}

static void report(const struct sides *s, double t[][MAX_ROUNDS], int rounds, long epochs,
                   int provided)
{
    double med[NVARIANTS], lo[NVARIANTS], hi[NVARIANTS], ratio[NVARIANTS], extra[NVARIANTS];
    for (int v = 0; v < NVARIANTS; v++) {
        if (!s->on[v])
            continue;
        double r[MAX_ROUNDS], d[MAX_ROUNDS];
        int base = variants[v].both ? V_RAWX : 0;
        for (int k = 0; k < rounds; k++) {
            r[k] = t[v][k] / t[base][k];
            d[k] = t[v][k] - t[base][k];
        }
        ratio[v] = median(r, rounds);
        extra[v] = median(d, rounds);
        double x[MAX_ROUNDS];
        memcpy(x, t[v], sizeof x);
        med[v] = median(x, rounds); /* sorts x */
        lo[v] = x[0];
        hi[v] = x[rounds - 1];
    }
    printf("bench-pscw: us per PSCW epoch on 2 ranks (rank 0: start({1}), one int64 put, "
           "complete();\nrank 1: post({0}), wait()), window of %d bytes; median of %d "
           "interleaved rounds\nof %ld epochs per variant (%ld timed epochs each, %d "
           "warm-up), slower rank's time;\nx raw = median of per-round ratios to raw, +us = "
           "median of per-round differences;\nLua builds its group tables every epoch unless "
           "hoisted;\n\"both ways\": each rank post({peer}), start({peer}), put, complete(), "
           "wait(), to raw-x\n",
           WIN_BYTES, rounds, epochs, epochs * rounds, WARMUP);
    printf("MPI thread level %s\n\n",
           provided == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE" : "below MULTIPLE");
    printf("%-19s %9s  %15s  %7s  %7s  %7s  %s\n", "variant", "us/epoch", "min..max",
           "+us", "x raw", "goal", "result");
    for (int v = 0; v < NVARIANTS; v++) {
        if (!s->on[v])
            continue;
        char range[32], goal[16] = "-";
        snprintf(range, sizeof range, "%.3f..%.3f", lo[v], hi[v]);
        if (variants[v].goal)
            snprintf(goal, sizeof goal, "<= %.2f", variants[v].goal);
        printf("%-19s %9.3f  %15s  %+7.3f  %7.3f  %7s  %s\n", variants[v].name, med[v], range,
               extra[v], ratio[v], goal,
               !variants[v].goal ? "" : ratio[v] <= variants[v].goal ? "PASS" : "MISS");
    }
    if (hi[0] > 1.5 * lo[0])
        printf("\nnote: raw MPICH varied %.1fx across rounds: something else was running "
               "on the\nmachine (the ratios compare rounds run back to back, but rerun "
               "on a quiet machine)\n",
               hi[0] / lo[0]);
}

int main(int argc, char **argv)
{
    int provided = 0, size = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "bench-pscw: run on exactly 2 ranks "
                            "(mpiexec -n 2 -bind-to core %s)\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    long epochs = argc > 1 ? arg_long(argv[1], 1, 100000000, "epochs per round") : EPOCHS;
    int rounds = argc > 2 ? (int)arg_long(argv[2], 1, MAX_ROUNDS, "rounds") : ROUNDS;
    struct sides s = {0};
    pick(argc > 3 ? argv[3] : "all", s.on);
    int picked[NVARIANTS], n = 0;
    for (int v = 0; v < NVARIANTS; v++)
        if (s.on[v])
            picked[n++] = v;

    double t_start = now_s();
    setup(&s);
    for (int j = 0; j < n; j++)
        run(&s, picked[j], WARMUP, 0);
    static double t[NVARIANTS][MAX_ROUNDS];
    for (int k = 0; k < rounds; k++)
        for (int j = 0; j < n; j++) {
            int v = picked[(j + k) % n];
            t[v][k] = run(&s, v, epochs, 1) / (double)epochs * 1e6;
        }

    if (rank == 0)
        report(&s, t, rounds, epochs, provided);
    report_tracing(&s, t, rounds, epochs);
    teardown(&s);
    if (rank == 0)
        printf("\nwall %.1f s\n", now_s() - t_start);
    MPI_Finalize();
    return 0;
}
