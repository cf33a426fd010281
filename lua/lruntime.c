/* The module's runtime: a context per Lua state, and MPI for the process.
 *
 * Loading the module starts MPI if nobody has (asking for
 * MPI_THREAD_MULTIPLE, which the REPL needs), with MPI_ERRORS_RETURN on the
 * predefined communicators so that no user mistake aborts the job. Each Lua state that loads the module
 * gets a context (lrm_ctx), created before any other rmalab object there and
 * so finalised after all of them. MPI is per process: the contexts open in
 * the process are listed here, a state that closes while others are open
 * hands them the windows it leaked, and the last to close finalises MPI if
 * the module started it, also after a Lua error; an atexit handler covers
 * os.exit() without closing the state. This list, the exit communicator and
 * whether the module started MPI are the module's only process-wide state,
 * with the core's warning function, which the first state to load the
 * module installs: it sends a warning to the host of the state whose call
 * raised it (rmalab_lua_set_warnf), as the binding's own warnings go.
 * A host that must start MPI before any Lua state exists (the REPL under
 * mpiexec) hands it over with rmalab_lua_host_hands_mpi: the module then ends it
 * as if it had started it.
 *
 * Leaked windows are freed only when that is safe: MPI_Win_free is
 * collective and no __gc may run a collective, so they wait for the exit,
 * when every rank can agree (see release_leaked). */
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lrmalab.h"

static pthread_mutex_t runtime_lock = PTHREAD_MUTEX_INITIALIZER;
static lrm_ctx *open_ctxs;          /* changed under runtime_lock and warn_lock */
static int runtime_owns_mpi, runtime_done;
static _Atomic int exit_failed; /* rmalab_lua_exit_failed */
static MPI_Comm exit_comm = MPI_COMM_NULL;

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
    lrm_calling(ctx);
    ctx->running = L;
    int rc = fn(ud);
    ctx->running = prev;
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Warnings                                                                 */

/* The open contexts again, for the core's warnings: a warning may come
 * while runtime_lock is held (a leaked window freed at exit), so the list
 * changes under this lock too, and core_warn takes only this one. */
static pthread_mutex_t warn_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local lrm_ctx *calling;

void lrm_calling(lrm_ctx *ctx)
{
    calling = ctx;
}

void rmalab_lua_set_warnf(lua_State *L, rmalab_lua_warn_fn fn, void *ud)
{
    lrm_ctx *c = lrm_getctx(L);
    if (!c)
        return;
    pthread_mutex_lock(&warn_lock);
    c->warn = fn;
    c->warn_ud = fn ? ud : NULL;
    pthread_mutex_unlock(&warn_lock);
}

static void warn_to(rmalab_lua_warn_fn fn, void *ud, const char *text)
{
    if (fn)
        fn(ud, text);
    else
        fprintf(stderr, "%s\n", text);
}

void lrm_warn(lrm_ctx *ctx, const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&warn_lock);
    rmalab_lua_warn_fn fn = ctx ? ctx->warn : NULL;
    void *ud = ctx ? ctx->warn_ud : NULL;
    pthread_mutex_unlock(&warn_lock);
    warn_to(fn, ud, text);
}

/* The core's warnings (rmalab_set_warnf): to the host of the context whose
 * call this thread is making, if it is still open. */
static void core_warn(void *unused, const char *text)
{
    (void)unused;
    rmalab_lua_warn_fn fn = NULL;
    void *ud = NULL;
    pthread_mutex_lock(&warn_lock);
    for (lrm_ctx *c = open_ctxs; c; c = c->next)
        if (c == calling) {
            fn = c->warn;
            ud = c->warn_ud;
        }
    pthread_mutex_unlock(&warn_lock);
    warn_to(fn, ud, text);
}

/* ------------------------------------------------------------------------ */
/* Leaked windows                                                           */

lrm_leak *lrm_leak_new(void)
{
    return calloc(1, sizeof(lrm_leak));
}

/* Merge two lists sorted by id. */
static lrm_leak *merge(lrm_leak *a, lrm_leak *b)
{
    lrm_leak *head = NULL, **tail = &head;
    while (a && b) {
        lrm_leak **least = a->id <= b->id ? &a : &b;
        *tail = *least;
        *least = (*least)->next;
        tail = &(*tail)->next;
    }
    *tail = a ? a : b;
    return head;
}

/* Kept in creation order, which every rank shares for windows of the same
 * communicators; the garbage collector's order need not be shared, and the
 * core's id orders windows of different Lua states too. */
void lrm_leak_file(lrm_ctx *ctx, lrm_leak *note, rmalab_win *w, int by_error)
{
    note->w = w;
    note->id = rmalab_win_id(w);
    note->by_error = by_error;
    note->next = NULL;
    pthread_mutex_lock(&runtime_lock); /* another state may be handing over */
    ctx->leaked = merge(ctx->leaked, note);
    pthread_mutex_unlock(&runtime_lock);
}

static int count(const lrm_leak *l)
{
    int n = 0;
    for (; l; l = l->next)
        n++;
    return n;
}

/* What the exit's warnings say of the windows left: "1 window was never
 * freed", "2 windows let go by an error in their <close> scope are
 * open", or both. A window of the second kind was released by the
 * program, not forgotten: it is not said to be never freed. */
static void describe_left(const lrm_leak *l, char *buf, size_t size)
{
    int leaked = 0, closed = 0;
    for (; l; l = l->next)
        l->by_error ? closed++ : leaked++;
    char a[64] = "", b[96] = "";
    if (leaked)
        snprintf(a, sizeof a, "%d window%s never freed", leaked, leaked == 1 ? " was" : "s were");
    if (closed)
        snprintf(b, sizeof b, "%d window%s let go by an error in %s <close> scope %s open",
                 closed, closed == 1 ? "" : "s", closed == 1 ? "its" : "their",
                 closed == 1 ? "is" : "are");
    snprintf(buf, size, "%s%s%s", a, leaked && closed ? " and " : "", b);
}

static void free_notes(lrm_leak *l)
{
    while (l) {
        lrm_leak *next = l->next;
        free(l);
        l = next;
    }
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

/* True when a window cannot be freed at exit on this rank: it does not
 * span every rank, or a PSCW epoch is open, which closing could block. */
static int unsafe_at_exit(rmalab_win *w, int size)
{
    rmalab_epoch_state s;
    rmalab_win_state(w, &s);
    return rmalab_win_group_size(w) != size || s.access == RMALAB_ACCESS_START ||
           s.exposure == RMALAB_EXPOSURE_POST;
}

/* Collective over exit_comm: free the windows in order, each after the
 * ranks agree whether a fence epoch must be closed. */
static int abandon_all(lrm_leak *l)
{
    int ok = 1;
    for (; l; l = l->next) {
        rmalab_epoch_state s;
        rmalab_win_state(l->w, &s);
        int fence = s.access == RMALAB_ACCESS_FENCE, any = 0;
        MPI_Allreduce(&fence, &any, 1, MPI_INT, MPI_MAX, exit_comm);
        if (rmalab_win_abandon(&l->w, any != 0))
            ok = 0;
    }
    return ok;
}

/* A failed rank whose peers did not all reach their exit: they may be
 * waiting for it in a collective, where nothing can wake them, so it ends
 * the job with MPI_Abort and status 1, after a line that says why (its
 * error is above it). MPI_Abort, not an exit without MPI_Finalize: then
 * Hydra kills the other ranks with SIGKILL and, when one of them is
 * reported killed, prints its "BAD TERMINATION" banner and exits 9.
 * MPICH's own "Abort(1) on node ..." line would only repeat this one: it
 * goes to stderr, which is closed first. */
static void end_job(int rank, double timeout)
{
    lrm_warn(NULL,
             "rmalab: rank %d failed, and not every rank reached its exit within %.0f s; "
             "ending the job (status 1)",
             rank, timeout);
    fflush(stdout);
    fflush(stderr);
    /* Hydra's proxy forwards this rank's pipes when it polls them, and
     * MPI_Abort tears the proxies down: without a pause the line above
     * was lost in one run out of three under ./do asan. */
    nanosleep(&(struct timespec){0, 200 * 1000 * 1000}, NULL);
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0)
        dup2(null, 2);
    MPI_Abort(MPI_COMM_WORLD, 1);
    _exit(1); /* MPI_Abort does not return */
}

/* MPICH 4.0.2 with UCX aborts in MPI_Finalize while any window is alive, so
 * windows that were never freed must be freed first; MPI_Win_free is
 * collective, which is only safe when every rank is exiting and leaked the
 * same windows. Passive-target epochs are closed locally first and fence
 * epochs with a closing fence; an open PSCW epoch could block, so then (and
 * whenever ranks disagree) the process exits without MPI_Finalize, which
 * never aborts or hangs. Takes the list; returns whether MPI_Finalize is
 * safe. */
static int release_leaked(lrm_leak *leaked)
{
    int size, rank, n = count(leaked), ok = 0;
    char left[192];
    describe_left(leaked, left, sizeof left);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *t = getenv("RMALAB_EXIT_TIMEOUT");
    double timeout = t ? atof(t) : 5.0;
    if (!all_ranks_exiting(timeout > 0 ? timeout : 5.0)) {
        if (exit_failed) /* MPI_Finalize would wait for ranks that may wait for this one */
            end_job(rank, timeout);
        if (n)
            lrm_warn(NULL,
                     "rmalab: rank %d: %s, and not every rank reached exit within %.0f s; "
                     "exiting without MPI_Finalize",
                     rank, left, timeout);
        free_notes(leaked);
        return n == 0;
    }
    int mine[2] = {n, 0}, lo[2], hi[2];
    for (const lrm_leak *l = leaked; l; l = l->next)
        mine[1] |= unsafe_at_exit(l->w, size);
    MPI_Allreduce(mine, lo, 2, MPI_INT, MPI_MIN, exit_comm);
    MPI_Allreduce(mine, hi, 2, MPI_INT, MPI_MAX, exit_comm);
    if (hi[0] == 0)
        ok = 1;
    else if (lo[0] == hi[0] && !hi[1])
        ok = abandon_all(leaked);
    else if (n)
        lrm_warn(NULL,
                 "rmalab: rank %d: %s, which cannot be freed safely at exit (ranks differ, or "
                 "a PSCW epoch is open); exiting without MPI_Finalize",
                 rank, left);
    free_notes(leaked);
    return ok;
}

/* MPI belongs to the program that embeds Lua, and the last Lua state that
 * knows these windows closes: only a window of this process alone can be
 * freed without the other ranks. The others outlive the state. */
static void release_local(lrm_leak *leaked)
{
    int rank, fini = 0;
    MPI_Finalized(&fini);
    if (fini || !leaked) {
        free_notes(leaked);
        return;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    lrm_leak *kept = NULL, **tail = &kept;
    while (leaked) { /* those it cannot free are kept, in order, for the warning */
        lrm_leak *l = leaked;
        leaked = l->next;
        rmalab_epoch_state s;
        rmalab_win_state(l->w, &s);
        if (rmalab_win_group_size(l->w) == 1 &&
            !rmalab_win_abandon(&l->w, s.access == RMALAB_ACCESS_FENCE)) {
            free(l);
            continue;
        }
        l->next = NULL;
        *tail = l;
        tail = &l->next;
    }
    char left[192];
    describe_left(kept, left, sizeof left);
    if (kept)
        lrm_warn(NULL,
                 "rmalab: rank %d: %s, which cannot be freed as the Lua state closes: "
                 "freeing is collective, and MPI belongs to the program",
                 rank, left);
    free_notes(kept);
}

/* ------------------------------------------------------------------------ */
/* The runtime                                                              */

/* Under runtime_lock. Takes the list of leaked windows. */
static void finalize_locked(lrm_leak *leaked)
{
    int init = 0, fini = 0;
    runtime_done = 1;
    MPI_Initialized(&init);
    MPI_Finalized(&fini);
    if (!init || fini) {
        free_notes(leaked);
        return;
    }
    fflush(stdout);
    if (release_leaked(leaked)) {
        MPI_Comm_free(&exit_comm);
        MPI_Finalize();
    }
    fflush(stderr);
}

/* atexit: the Lua states still open will not close; release what they
 * leaked. */
static void finalize_at_exit(void)
{
    pthread_mutex_lock(&runtime_lock);
    if (!runtime_done) {
        lrm_leak *all = NULL;
        for (lrm_ctx *c = open_ctxs; c; c = c->next) {
            all = merge(all, c->leaked);
            c->leaked = NULL;
        }
        finalize_locked(all);
    }
    pthread_mutex_unlock(&runtime_lock);
}

/* The context's __gc, after every other rmalab object of its Lua state. A
 * state that closes while others are open hands them its leaked windows;
 * the last one releases them and finalises MPI if the module started it. */
static int ctx_gc(lua_State *L)
{
    lrm_ctx *c = lua_touserdata(L, 1);
    pthread_mutex_lock(&runtime_lock);
    pthread_mutex_lock(&warn_lock);
    if (c->prev)
        c->prev->next = c->next;
    else if (open_ctxs == c)
        open_ctxs = c->next;
    if (c->next)
        c->next->prev = c->prev;
    pthread_mutex_unlock(&warn_lock);
    lrm_leak *leaked = c->leaked;
    c->leaked = NULL;
    c->prev = c->next = NULL;
    if (open_ctxs)
        open_ctxs->leaked = merge(open_ctxs->leaked, leaked);
    else if (runtime_owns_mpi && !runtime_done)
        finalize_locked(leaked);
    else if (!runtime_done)
        release_local(leaked);
    else
        free_notes(leaked);
    pthread_mutex_unlock(&runtime_lock);
    return 0;
}

/* Set by rmalab_lua_host_hands_mpi, taken by the first start_mpi. */
static _Atomic int host_handed_mpi;

void rmalab_lua_host_hands_mpi(void)
{
    host_handed_mpi = 1;
}

void rmalab_lua_exit_failed(void)
{
    exit_failed = 1;
}

/* rl.main's message handler: the error as text, with a traceback, as
 * rmalab's script mode shows it. */
static int main_msgh(lua_State *L)
{
    luaL_traceback(L, L, luaL_tolstring(L, 1, NULL), 1);
    return 1;
}

/* rl.main(fn, ...): fn(...), and its results. Under stock lua5.4 the
 * module cannot tell a script's error from its normal end (lua.c prints the
 * error and closes the state in the same way; its exit status is not
 * visible to an atexit handler), so an error inside fn is known here: it
 * is printed as "[rank] error ..." with its traceback, this rank counts as
 * failed (rmalab_lua_exit_failed), and the state closes and the process
 * exits with status 1, as os.exit(1, true) would. The ranks that reached
 * their exit then end together; ranks that did not (blocked in a
 * collective that waits for this one, or still running) are ended with
 * the job (end_job). A host that reports a chunk's errors itself sets
 * RMALAB_LUA_HOST_REPORTS: the error then goes on to it unchanged. */
int lrm_main(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TFUNCTION);
    int hosted = lua_getfield(L, LUA_REGISTRYINDEX, RMALAB_LUA_HOST_REPORTS) != LUA_TNIL;
    lua_pop(L, 1);
    if (hosted) {
        lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
        return lua_gettop(L);
    }
    lua_pushcfunction(L, main_msgh);
    lua_insert(L, 1);
    if (lua_pcall(L, lua_gettop(L) - 2, LUA_MULTRET, 1) == LUA_OK)
        return lua_gettop(L) - 1;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fflush(stdout);
    fprintf(stderr, "[%d] error %s\n", rank, lua_tostring(L, -1));
    fflush(stderr);
    exit_failed = 1;
    lua_close(L);
    exit(EXIT_FAILURE);
}

/* os.exit wrapped (the original is its upvalue): a status other than
 * success (os.exit(1), os.exit(false)) counts as this rank's failure, as an
 * error inside rl.main does, so that a rank that exits so while the others
 * wait for it in a collective ends the job (end_job) instead of waiting
 * in MPI_Finalize for them; then the original, with the same arguments. */
static int exit_wrapped(lua_State *L)
{
    int ok = lua_isboolean(L, 1) ? lua_toboolean(L, 1)
                                 : luaL_optinteger(L, 1, EXIT_SUCCESS) == EXIT_SUCCESS;
    int before = exit_failed;
    if (!ok)
        exit_failed = 1;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    int st = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
    exit_failed = before; /* it came back (a host's os.exit that refuses): no exit */
    return st == LUA_OK ? lua_gettop(L) : lua_error(L);
}

static void wrap_os_exit(lua_State *L)
{
    int top = lua_gettop(L);
    if (lua_getglobal(L, "os") == LUA_TTABLE && lua_getfield(L, -1, "exit") == LUA_TFUNCTION &&
        lua_tocfunction(L, -1) != exit_wrapped) {
        lua_pushcclosure(L, exit_wrapped, 1);
        lua_setfield(L, -2, "exit");
    }
    lua_settop(L, top);
}

/* MPICH's MPI_Init leaves stdout unbuffered: Lua's print then writes its
 * text and its newline in two write() calls, and Hydra forwards each
 * rank's pipe as it reads it, so two ranks' lines met mid-line ("... cannot
 * be sentR0 after 2"). Line-buffered again, with room for long lines, each
 * line (up to the buffer's size) goes out in one write(), which a pipe
 * keeps whole (always up to PIPE_BUF, 4096 bytes, in practice up to its
 * free space, 64 KiB). */
static void stdout_lines_whole(void)
{
    static char buf[1 << 16];
    fflush(stdout);
    setvbuf(stdout, buf, _IOLBF, sizeof buf);
}

static void start_mpi(lua_State *L)
{
    int init = 0, fini = 0, provided = 0;
    MPI_Finalized(&fini);
    if (fini)
        lrm_raisef(L, RMALAB_ERR_OTHER, "require \"rmalab\": MPI was already finalised");
    MPI_Initialized(&init);
    if (init && !atomic_exchange(&host_handed_mpi, 0))
        return; /* the program's, or already the module's */
    if (!init && MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
        lrm_raisef(L, RMALAB_ERR_OTHER, "require \"rmalab\": MPI_Init_thread failed");
    if (!init)
        stdout_lines_whole();
    runtime_owns_mpi = 1;
    rmalab_info_env_thread_requested(MPI_THREAD_MULTIPLE);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_dup(MPI_COMM_WORLD, &exit_comm);
    atexit(finalize_at_exit);
}

void lrm_open_runtime(lua_State *L)
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
    pthread_mutex_lock(&runtime_lock);
    pthread_mutex_lock(&warn_lock);
    c->next = open_ctxs;
    if (open_ctxs)
        open_ctxs->prev = c;
    open_ctxs = c;
    pthread_mutex_unlock(&warn_lock);
    rmalab_warn_fn fn;
    rmalab_get_warnf(&fn, NULL);
    if (!fn) /* unless the program that links the binding has its own */
        rmalab_set_warnf(core_warn, NULL);
    pthread_mutex_unlock(&runtime_lock);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &ctx_key);
    start_mpi(L);
    wrap_os_exit(L);
}
