/* Windows: creation in the four flavours around MPICH 4.0.2's alignment
 * defect. The top of the core's window files (private.h has the
 * design): it calls every file below it.
 *
 * Creation runs a fixed list of steps (`steps` below). Local steps allocate
 * and compute, and may fail on one rank alone; collective steps call MPI on
 * every rank. Before a collective step the ranks agree on what failed so
 * far (rmalab__err_agree), so that memory running out on one rank ends the
 * creation on every rank instead of leaving the others blocked in a
 * collective; but only when a step since the last agreement could have
 * failed on one rank alone. Two steps carry the agreement in a collective
 * that they make anyway (`agree`): the check of same_size and
 * same_disp_unit, and the check of window bases in the layout's
 * allgather; a step that ends in an agreement of its own (`settles`)
 * needs none after it, and one that a failed rank `joins` none before it.
 * The memory is zeroed before the base check, whose allgather orders it
 * before any rank can reach it. Argument errors are found before the first
 * collective call, and the first agreement carries them: a rank whose
 * arguments are wrong takes part all the same (as one whose binding found
 * them wrong does, through rmalab_win_take_part), so the creation fails on
 * every rank instead of leaving the others blocked. Only a rank with no
 * communicator to take part in (a freed one) stays out. */
#include "trace-private.h"
#include "alloc.h"
#include "error-private.h"
#include "hints-private.h"
#include "hints-validate.h"
#include "block.h"
#include "layout.h"
#include "results.h"
#include "races-sync.h"
#include "sync-private.h"
#include "win-hints.h"
#include "registry.h"
#include "win-free.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Hints                                                                    */

/* Drop a promise that the facts contradict, from the hints for MPICH (and
 * the MPI infos made of them, mi[2]) and from those in force, with a
 * diagnostic. */
static int broken_promise(rmalab_win *w, rmalab_info *valid, MPI_Info mi[2],
                          rmalab_diags *diags, const char *key, const char *what, long lo,
                          long hi)
{
    const char *v = rmalab_info_lookup(valid, key, strlen(key), NULL);
    if (!v || strcmp(v, "true") != 0 || lo == hi)
        return RMALAB_OK;
    rmalab__hints_validate_diag_add(
        diags, key,
        "%s = true promises that every rank gives the same %s, but they range from "
        "%ld to %ld; the promise is not passed to MPICH",
        key, what, lo, hi);
    for (int i = 0, flag = 0, len; i < 2; i++, flag = 0)
        if (mi[i] != MPI_INFO_NULL && MPI_Info_get_valuelen(mi[i], key, &len, &flag) ==
                                          MPI_SUCCESS && flag)
            MPI_Info_delete(mi[i], key);
    int rc = rmalab_info_delete(valid, key);
    return rc ? rc : rmalab_info_delete(w->at_create, key);
}

/* ------------------------------------------------------------------------ */
/* Creation                                                                 */

/* What the steps share. */
struct creation {
    rmalab_flavor flavor;
    const char *what;           /* "allocate", for messages */
    const rmalab_win_opts *opts;
    rmalab_diags *diags;
    MPI_Comm parent, comm;      /* the caller's; the duplicate, until the window owns it */
    rmalab_win *w;
    rmalab_info *valid;         /* canonical hints for MPICH */
    MPI_Info mi[2];             /* for the engine's window and for `plain` */
    MPI_Aint alloc;             /* bytes to allocate: size rounded to 16 */
    void *shm_base;             /* memory the engine provides */
    MPI_Aint tail;              /* or bytes it keeps after the memory, node-shared */
    int how;                    /* the largest of every rank's room (engine's place) */
    bool any_trace, any_races;  /* does any rank want the recorder, the race checker? */
    bool failed;                /* a step that joins: this rank failed since the last
                                   agreement, and takes part over no memory */
};

/* Memory that cannot be had is refused here, before MPI sees the size
 * (MPICH blocks for ever in a creation of 2^40 bytes on one node): ERR_NO_MEM
 * when the memory rmalab or MPI would allocate for this rank is more than
 * the node's memory and swap, or more than the kernel grants a trial
 * malloc (its overcommit policy, the process's limits). */
static int check_size(rmalab_flavor flavor, const rmalab_win_opts *opts, const char *what)
{
    uint64_t limit = UINT64_MAX;
    if (flavor == RMALAB_FLAVOR_DYNAMIC || opts->base || opts->size < 0)
        return RMALAB_OK;
    if (opts->size <= INT64_MAX - 16 &&
        rmalab__mem_could_have((size_t)rmalab__win_round16(opts->size), &limit))
        return RMALAB_OK;
    char room[64] = "";
    if (limit != UINT64_MAX)
        snprintf(room, sizeof room, " (memory and swap: %.1f GiB)", (double)limit / (1 << 30));
    return rmalab__err_fail(RMALAB_ERR_NO_MEM,
                            "win_%s: %lld bytes (%.1f GiB) cannot be had on this rank: more "
                            "than this node can give%s; ask for less",
                            what, (long long)opts->size, (double)opts->size / (1 << 30), room);
}

/* Argument checks, before any collective call; the first agreement
 * (step_promises) carries a mistake to every rank. */
static int check_opts(rmalab_flavor flavor, const rmalab_win_opts *opts, const char *what)
{
    if (flavor != RMALAB_FLAVOR_DYNAMIC && opts->size < 0)
        return rmalab__err_fail(RMALAB_ERR_ARG, "win_%s: size %ld is negative", what,
                                (long)opts->size);
    if (opts->disp_unit < 0)
        return rmalab__err_fail(RMALAB_ERR_ARG, "win_%s: disp_unit %d is negative", what,
                                opts->disp_unit);
    if (flavor == RMALAB_FLAVOR_DYNAMIC && opts->disp_unit > 1)
        return rmalab__err_fail(RMALAB_ERR_ARG,
                                "win_create_dynamic: dynamic windows address memory by absolute "
                                "address in bytes, so disp_unit is 1; leave it out");
    if (opts->base && flavor != RMALAB_FLAVOR_CREATE)
        return rmalab__err_fail(RMALAB_ERR_ARG, "win_%s: only win_create takes user memory", what);
    if (opts->base && (uintptr_t)opts->base % RMALAB__WIN_ALIGN)
        return rmalab__err_fail(RMALAB_ERR_ARG,
                                "win_create: memory at %p is not %d-byte aligned; MPICH 4.0.2 with "
                                "UCX records window bases rounded down to %d bytes, so puts would "
                                "land in the wrong bytes. Allocate it with aligned_alloc(%d, ...) "
                                "or let rmalab allocate it (base = NULL)",
                                opts->base, RMALAB__WIN_ALIGN, RMALAB__WIN_ALIGN,
                                RMALAB__WIN_ALIGN);
    if (opts->name && strlen(opts->name) >= sizeof ((rmalab_win *)0)->name)
        return rmalab__err_fail(RMALAB_ERR_ARG, "win_%s: window names hold at most %zu characters",
                                what, sizeof((rmalab_win *)0)->name - 1);
    if (opts->comm && rmalab_comm_mpi(opts->comm) == MPI_COMM_NULL)
        return rmalab__err_fail(RMALAB_ERR_COMM, "win_%s: the communicator was freed", what);
    if (opts->rules != RMALAB_RULES_REFUSE && opts->rules != RMALAB_RULES_REPORT)
        return rmalab__err_fail(RMALAB_ERR_ARG, "win_%s: rules %d is none of rmalab_rules", what,
                                (int)opts->rules);
    return check_size(flavor, opts, what);
}

/* Local: the structure, with nothing open yet. */
static int step_struct(struct creation *c)
{
    rmalab_win *w = rmalab__mem_calloc(1, sizeof *w);
    if (!w)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory creating a window");
    atomic_flag_clear(&w->lock);
    w->win = w->plain = MPI_WIN_NULL;
    w->lay.meta = MPI_WIN_NULL;
    w->wgroup = MPI_GROUP_NULL;
    w->comm = c->comm;
    c->comm = MPI_COMM_NULL;
    MPI_Comm_rank(w->comm, &w->rank);
    MPI_Comm_size(w->comm, &w->size);
    w->flavor = c->flavor;
    w->size_req = c->flavor == RMALAB_FLAVOR_DYNAMIC ? 0 : c->opts->size;
    w->disp_unit = c->opts->disp_unit ? c->opts->disp_unit : 1;
    w->rules = c->opts->rules;
    snprintf(w->name, sizeof w->name, "%s", c->opts->name ? c->opts->name : "");
    c->alloc = rmalab__win_round16(w->size_req);
    c->w = w;
    return RMALAB_OK;
}

/* Local: the hints as asked and as in force, the engine, and the memory of
 * every part of the window and of the engine's state. */
static int step_hints(struct creation *c)
{
    rmalab_win *w = c->w;
    const rmalab_info *info = c->opts->info;
    int rc = rmalab__hints_validate(RMALAB_SCOPE_WIN, info, &c->valid, c->diags, 1);
    if (rc || (rc = info ? rmalab_info_dup(info, &w->requested)
                         : rmalab_info_create(&w->requested)) ||
        (rc = rmalab_info_dup(c->valid, &w->at_create)))
        return rc;
    w->eng = rmalab__win_hints_engine(c->valid, c->diags);
    if ((rc = rmalab__hints_validate_strip_own(RMALAB_SCOPE_WIN, c->valid)) ||
        (rc = rmalab__layout_alloc(w)) || (rc = rmalab__sync_epoch_alloc(w)) ||
        (rc = w->eng->make(w, c->parent, &c->tail)))
        return rc;
    return rmalab__results_alloc(w);
}

/* Agreeing, the first agreement: what failed so far (the arguments, and
 * the local steps before), carried in the one collective that every
 * creation needs before MPICH sees its arguments: same_size and
 * same_disp_unit are checked against what every rank gives, and the ranks
 * learn whether any wants the recorder or the race checker (whose steps
 * cost nothing when none does). Every rank learns the same range, so each
 * rank that made the promise gets the same diagnostic. A rank that failed
 * gives no sizes (LLONG_MIN, the identity of MPI_MAX). The ranks learn as
 * well how the engine is to place the window's memory (`room`: its place
 * in memory that windows share has the same shape on every rank). The
 * PSCW engine and the race checker's mode decide the steps that follow and
 * how later calls synchronise or report: ranks that ask for different ones
 * all fail here. */
static int step_promises(struct creation *c, int rc)
{
    rmalab_win *w = c->w;
    enum { SIZE, DU = 2, RC = 4, TRACE, RACES, ENG, MODE = 9, ROOM = 11, N };
    long long mine[N], all[N] = {0};
    for (int i = 0; i < N; i++)
        mine[i] = LLONG_MIN;
    mine[RC] = rc, mine[TRACE] = mine[RACES] = 0;
    if (!rc) {
        mine[SIZE] = w->size_req, mine[SIZE + 1] = -(long long)w->size_req;
        mine[DU] = w->disp_unit, mine[DU + 1] = -w->disp_unit;
        mine[TRACE] = rmalab__trace_wanted(w), mine[RACES] = rmalab__races_sync_wanted(w);
        mine[ENG] = rmalab__win_hints_engine_index(w->eng), mine[ENG + 1] = -mine[ENG];
        mine[MODE] = rmalab__races_sync_asked(w), mine[MODE + 1] = -mine[MODE];
        mine[ROOM] = w->eng->room ? w->eng->room(w) : 0;
    }
    int e = MPI_Allreduce(mine, all, N, MPI_LONG_LONG, MPI_MAX, w ? w->comm : c->comm);
    if ((rc = rmalab__err_agreed(rc, (int)all[RC], e, "checking the arguments")))
        return rc;
    if (all[ENG] != -all[ENG + 1])
        return rmalab__err_fail(RMALAB_ERR_ARG, "checking the arguments: the ranks ask for "
                                "different PSCW engines (\"%s\" here); every rank must give "
                                "the same rmalab_pscw (or RMALAB_PSCW)", w->eng->name);
    if (all[MODE] != -all[MODE + 1])
        return rmalab__err_fail(RMALAB_ERR_ARG, "checking the arguments: the ranks ask for "
                                "different race checking (\"%s\" here); every rank must give "
                                "the same rmalab_check (or RMALAB_CHECK)",
                                rmalab_check_mode_name((rmalab_check_mode)mine[MODE]));
    c->any_trace = all[TRACE], c->any_races = all[RACES], c->how = (int)all[ROOM];
    rc = broken_promise(w, c->valid, c->mi, c->diags, "same_size", "size", (long)-all[SIZE + 1],
                        (long)all[SIZE]);
    return rc ? rc
              : broken_promise(w, c->valid, c->mi, c->diags, "same_disp_unit", "disp_unit",
                               (long)-all[DU + 1], (long)all[DU]);
}

/* Collective, for an engine with own_lock_all, unless the engine's
 * memory and counters are node-shared (c->tail: the engine locks the one
 * window only around its MPI operations): the window of fences and locks
 * (`plain`), a companion over the same memory. A rank whose MPI window
 * failed joins it all the same, over no memory (c->failed), so the ranks
 * need no agreement between the two creations: step_base's carries it.
 * c->tail is the same on every rank that gets that far. */
static bool plain_wanted(const struct creation *c)
{
    return c->w->eng->own_lock_all && !c->tail;
}

/* Local: what MPICH gets (the companion window's hints only when there is
 * one), before the first agreement, which carries its failure; a promise
 * broken there is taken out of these too. */
static int step_prepare(struct creation *c)
{
    rmalab_win *w = c->w;
    int rc = rmalab__win_hints_to_mpi(w, c->valid, true, &c->mi[0]);
    if (!rc && plain_wanted(c))
        rc = rmalab__win_hints_to_mpi(w, c->valid, false, &c->mi[1]);
    return rc;
}

/* Does rmalab, not the caller, provide this rank's memory? For
 * win_allocate, and for win_create without a base. */
static bool core_memory(const struct creation *c)
{
    return c->flavor == RMALAB_FLAVOR_ALLOCATE ||
           (c->flavor == RMALAB_FLAVOR_CREATE && !c->opts->base);
}

/* Collective, for an engine with a setup, unless its make settled the
 * window's shape (c->tail): the engine's shared state; where rmalab
 * provides the memory, the engine may provide it (node-shared, so that
 * peers on this node reach it by plain copies). Left out, it costs no
 * agreement before the MPI window either. */
static bool engine_wanted(const struct creation *c) { return c->w->eng->setup && !c->tail; }

static int step_engine(struct creation *c)
{
    return c->w->eng->setup(c->w, c->parent, c->alloc, core_memory(c) ? &c->shm_base : NULL,
                            &c->tail);
}

/* Collective when the memory at hand is too small on some rank (then it
 * settles with an agreement of its own), else local and sure: the
 * engine's place for the window's memory and tail (c->tail, the same on
 * every rank). */
static bool place_wanted(const struct creation *c) { return c->tail && c->w->eng->place; }

static int step_place(struct creation *c)
{
    return c->w->eng->place(c->w, c->how, &c->shm_base);
}

/* Local, for win_create (the one flavour where a rank may fail here alone,
 * and the ranks agree after it): the memory, the engine's, else the
 * caller's or the core's own. Zeroed in step_base. */
static bool memory_wanted(const struct creation *c) { return c->flavor == RMALAB_FLAVOR_CREATE; }

static int step_memory(struct creation *c)
{
    rmalab_win *w = c->w;
    if (c->shm_base) {
        w->base = c->shm_base;
        return RMALAB_OK;
    }
    if (c->opts->base) {
        w->base = c->opts->base;
        return RMALAB_OK;
    }
    if (rmalab__mem_align(&w->owned_mem, RMALAB__MEM_ALIGN, (size_t)(c->alloc ? c->alloc : 16)))
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "win_create: cannot allocate %ld bytes",
                                (long)c->alloc);
    w->base = w->owned_mem;
    return RMALAB_OK;
}

/* Collective: the MPI window the engine drives, in the flavour asked. */
static int step_window(struct creation *c)
{
    rmalab_win *w = c->w;
    int e, rc;
    switch (c->flavor) {
    case RMALAB_FLAVOR_CREATE:
        e = MPI_Win_create(w->base, w->size_req, w->disp_unit, c->mi[0], w->comm, &w->win);
        break;
    case RMALAB_FLAVOR_ALLOCATE:
        if ((w->base = c->shm_base)) /* the engine's node-shared memory */
            e = MPI_Win_create(w->base, w->size_req, w->disp_unit, c->mi[0], w->comm, &w->win);
        else
            e = MPI_Win_allocate(c->alloc, w->disp_unit, c->mi[0], w->comm, &w->base, &w->win);
        break;
    case RMALAB_FLAVOR_SHARED:
        e = MPI_Win_allocate_shared(c->alloc, w->disp_unit, c->mi[0], w->comm, &w->base,
                                    &w->win);
        break;
    default:
        if ((rc = rmalab__layout_open_meta(w)))
            return rc;
        e = MPI_Win_create_dynamic(c->mi[0], w->comm, &w->win);
        break;
    }
    if (e != MPI_SUCCESS) {
        w->win = MPI_WIN_NULL;
        return rmalab__err_mpi(e, "creating the MPI window");
    }
    MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN);
    w->plain = w->win; /* the window of fences and locks, unless step_plain makes one */
    return RMALAB_OK;
}

static int step_plain(struct creation *c)
{
    rmalab_win *w = c->w;
    MPI_Aint size = c->failed || !w->base ? 0 : w->size_req;
    int e = w->flavor == RMALAB_FLAVOR_DYNAMIC
                ? MPI_Win_create_dynamic(c->mi[1], w->comm, &w->plain)
                : MPI_Win_create(size ? w->base : NULL, size, w->disp_unit, c->mi[1], w->comm,
                                 &w->plain);
    if (e != MPI_SUCCESS) {
        w->plain = MPI_WIN_NULL;
        return rmalab__err_mpi(e, "creating the window for fences and locks");
    }
    MPI_Win_set_errhandler(w->plain, MPI_ERRORS_RETURN);
    return RMALAB_OK;
}

/* Does MPI_WIN_BASE of `mw` say what the memory is? MPICH reports a NULL
 * base for a window of 0 bytes, where nothing can land anyway. */
static bool base_sound(const rmalab_win *w, MPI_Win mw)
{
    void *attr_base = NULL;
    int flag = 0;
    if (w->flavor == RMALAB_FLAVOR_DYNAMIC || w->size_req == 0)
        return true;
    MPI_Win_get_attr(mw, MPI_WIN_BASE, &attr_base, &flag);
    return flag && attr_base == w->base && (uintptr_t)w->base % RMALAB__WIN_ALIGN == 0;
}

/* Local: zero the memory, learn the model and group. */
static int base_facts(struct creation *c)
{
    rmalab_win *w = c->w;
    int flag = 0, *model = NULL, e;
    if ((core_memory(c) || c->flavor == RMALAB_FLAVOR_SHARED) && c->alloc)
        memset(w->base, 0, (size_t)c->alloc);
    MPI_Win_get_attr(w->win, MPI_WIN_MODEL, &model, &flag);
    w->model = flag && model ? *model : MPI_WIN_SEPARATE;
    if ((e = MPI_Win_get_group(w->win, &w->wgroup)) != MPI_SUCCESS) {
        w->wgroup = MPI_GROUP_NULL;
        return rmalab__err_mpi(e, "MPI_Win_get_group");
    }
    return RMALAB_OK;
}

/* Agreeing: the engine's part once the MPI window exists, and the check
 * that every rank's window is sound before anyone writes to it, with
 * every rank's layout, in the one collective that carries the agreement on
 * what failed so far (the windows' creation, this step's local work). */
static int step_base(struct creation *c, int rc)
{
    rmalab_win *w = c->w;
    if (!rc && !(rc = base_facts(c)) && w->eng->attach)
        rc = w->eng->attach(w);
    bool mine = !rc && !(base_sound(w, w->win) && base_sound(w, w->plain)), any = mine;
    bool no_locks = rmalab__win_hints_no_locks(w->at_create, false);
    if ((rc = rmalab__layout_exchange(w, no_locks, rc, &any)))
        return rc;
    if (!any && w->eng->placed && c->tail)
        w->eng->placed(w);
    if (any)
        return rmalab__err_fail(
            RMALAB_ERR_WIN,
            "win_%s: MPI_WIN_BASE does not match the memory on %s; this MPI "
            "would put data into the wrong bytes, so the window was not created",
            c->what, mine ? "this rank" : "another rank");
    return RMALAB_OK;
}

/* Collective: the recorder, if any rank asks for it (trace.c). */
static int step_trace(struct creation *c)
{
    return rmalab__trace_open(c->w, false);
}

static int step_races(struct creation *c) { return rmalab__races_sync_open(c->w); }

static bool trace_wanted(const struct creation *c) { return c->any_trace; }

static bool races_wanted(const struct creation *c) { return c->any_races; }

/* A step is local (run), collective (run, with `collective`), or agreeing
 * (agree: collective, run on every rank with the verdict so far, which it
 * carries to all). A collective step that `settles` leaves every rank with
 * the same verdict, as an agreeing one does; one that `joins` is run by a
 * rank that failed since the last agreement too (c->failed), so it needs
 * none before it. A step with `wanted` is left out, agreement and all,
 * when it says no (the same on every rank). */
static const struct step {
    const char *name;
    int (*run)(struct creation *c);
    int (*agree)(struct creation *c, int rc);
    bool collective, settles, joins;
    bool (*wanted)(const struct creation *c);
} steps[] = {
    {"allocating the window", step_struct, NULL, false, false, false, NULL},
    {"validating hints", step_hints, NULL, false, false, false, NULL},
    {"preparing the MPI window", step_prepare, NULL, false, false, false, NULL},
    {"checking the arguments", NULL, step_promises, true, true, false, NULL}, /* check_opts' */
    {"setting up the PSCW engine", step_engine, NULL, true, false, false, engine_wanted},
    {"placing the window's memory", step_place, NULL, true, true, false, place_wanted},
    {"allocating the window's memory", step_memory, NULL, false, false, false, memory_wanted},
    {"creating the MPI window", step_window, NULL, true, false, false, NULL},
    {"creating the window for fences and locks", step_plain, NULL, true, false, true,
     plain_wanted},
    {"checking window bases", NULL, step_base, true, true, false, NULL}, /* and the layout */
    {"starting the trace", step_trace, NULL, true, false, false, trace_wanted},
    {"starting the race checker", step_races, NULL, true, true, false, races_wanted},
};

/* Run the steps from `rc`, the arguments' verdict. A rank that failed
 * skips to the next collective step that does not join, agrees there, and
 * every rank stops. An agreement is made only where some rank may have
 * failed alone since the last one (`settled` false), and at the end. */
static int run_steps(struct creation *c, int rc)
{
    bool settled = false;
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
        const struct step *s = &steps[i];
        if (s->wanted && !s->wanted(c)) /* the same on every rank, failed or not */
            continue;
        if (s->agree) {
            rc = s->agree(c, rc);
        } else if (s->collective && !settled && !s->joins &&
                   (rc = rmalab__err_agree(c->w->comm, rc, s->name))) {
            settled = true;
            break;
        } else if (rc && !s->joins) {
            continue;
        } else {
            c->failed = rc != RMALAB_OK;
            int own = s->run(c);
            rc = rc ? rc : own;
        }
        settled = s->settles;
        if (rc && settled)
            break;
    }
    return settled ? rc : rmalab__err_agree(c->w->comm, rc, "creating the window");
}

/* Collective, after the window is created or a creation failed. */
static void creation_end(struct creation *c, int rc)
{
    rmalab_win *w = c->w;
    for (int i = 0; i < 2; i++)
        if (c->mi[i] != MPI_INFO_NULL)
            MPI_Info_free(&c->mi[i]);
    rmalab_info_destroy(&c->valid);
    if (c->comm != MPI_COMM_NULL)
        MPI_Comm_free(&c->comm);
    if (!rc || !w)
        return;
    if (w->eng && w->eng->quiesce && w->engine_state)
        w->eng->quiesce(w);
    rmalab__win_free_mpi(w);
    rmalab__win_free_struct(w);
    c->w = NULL;
}

/* A creation in each flavour, from `status`: a failure the caller found
 * in the arguments itself (RMALAB_OK for none), with its message set. */
static int win_new(rmalab_flavor flavor, const rmalab_win_opts *opts, rmalab_win **out,
                   rmalab_diags *diags, int status)
{
    static const rmalab_win_opts defaults = {0};
    struct creation c = {.flavor = flavor, .what = rmalab_flavor_name(flavor),
                         .opts = opts ? opts : &defaults, .diags = diags,
                         .comm = MPI_COMM_NULL, .mi = {MPI_INFO_NULL, MPI_INFO_NULL}};
    if (!out)
        return rmalab__err_fail(RMALAB_ERR_ARG, "window creation: out is NULL");
    int rc = status ? status : check_opts(flavor, c.opts, c.what);
    MPI_Comm parent = c.opts->comm ? rmalab_comm_mpi(c.opts->comm) : MPI_COMM_WORLD;
    if (parent == MPI_COMM_NULL) /* no communicator to take part in */
        return rc ? rc
                  : rmalab__err_fail(RMALAB_ERR_COMM, "win_%s: the communicator was freed", c.what);
    /* Collective over the parent from here: blocked in win_<flavour>. */
    rmalab__block b = {.call = rmalab_flavor_call(flavor), .collective = true, .dup = &c.comm};
    rmalab__block_comm(&b, parent);
    int entered = rmalab__block_enter(&b); /* SLEEP mode: its wait is the dup */
    if (entered)
        return entered;
    c.parent = parent;
    int e = b.duped ? MPI_SUCCESS : MPI_Comm_dup(parent, &c.comm);
    if (e != MPI_SUCCESS) {
        rmalab__block_leave(&b);
        return rmalab__err_mpi(e, "MPI_Comm_dup");
    }
    MPI_Comm_set_errhandler(c.comm, MPI_ERRORS_RETURN);
    rc = run_steps(&c, rc);
    creation_end(&c, rc);
    rmalab__block_leave(&b);
    if (rc)
        return rc;
    rmalab__registry_add(c.w);
    if (c.w->name[0])
        MPI_Win_set_name(c.w->win, c.w->name);
    *out = c.w;
    return RMALAB_OK;
}

/* A creation as a public call: its failure is recorded against the parent
 * communicator. */
static int creation_call(rmalab_flavor flavor, const rmalab_win_opts *opts, rmalab_win **out,
                         rmalab_diags *diags, int status)
{
    rmalab__block_call_begin();
    int rc = win_new(flavor, opts, out, diags, status);
    if (!rc)
        return rc;
    rmalab__block b = {.call = NULL};
    MPI_Comm parent = opts && opts->comm ? rmalab_comm_mpi(opts->comm) : MPI_COMM_WORLD;
    if (parent != MPI_COMM_NULL)
        rmalab__block_comm(&b, parent);
    return rmalab__block_call_end(rmalab_flavor_call(flavor), "comm", b.id, rc);
}

int rmalab_win_create(const rmalab_win_opts *opts, rmalab_win **out, rmalab_diags *diags)
{
    return creation_call(RMALAB_FLAVOR_CREATE, opts, out, diags, RMALAB_OK);
}

int rmalab_win_allocate(const rmalab_win_opts *opts, rmalab_win **out, rmalab_diags *diags)
{
    return creation_call(RMALAB_FLAVOR_ALLOCATE, opts, out, diags, RMALAB_OK);
}

int rmalab_win_allocate_shared(const rmalab_win_opts *opts, rmalab_win **out,
                               rmalab_diags *diags)
{
    return creation_call(RMALAB_FLAVOR_SHARED, opts, out, diags, RMALAB_OK);
}

int rmalab_win_create_dynamic(const rmalab_win_opts *opts, rmalab_win **out,
                              rmalab_diags *diags)
{
    return creation_call(RMALAB_FLAVOR_DYNAMIC, opts, out, diags, RMALAB_OK);
}

int rmalab_win_take_part(rmalab_flavor flavor, const rmalab_win_opts *opts, int status)
{
    rmalab_win *none = NULL;
    if (!status)
        return rmalab__err_fail(RMALAB_ERR_ARG, "rmalab_win_take_part: status is RMALAB_OK");
    if ((unsigned)flavor > RMALAB_FLAVOR_DYNAMIC)
        return status;
    return creation_call(flavor, opts, &none, NULL, status);
}
