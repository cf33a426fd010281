/* Windows: creation in the four flavours around MPICH 4.0.2's alignment
 * defect, destruction, dynamic attachment, properties, local memory and
 * window hints. RMA operations live in rma.c and synchronisation in sync.c.
 *
 * Creation is the same for every flavour: validate the hints, duplicate the
 * communicator, get aligned memory and the MPI window, check MPI_WIN_BASE
 * against the base, then exchange every rank's size and disp_unit (which
 * doubles as the barrier that orders the zeroing of the memory before any
 * rank can reach it). */
#include "win-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Types, ops, flavours, assertions                                         */

static const struct {
    const char *name;
    int size;
} type_table[RMALAB_NTYPES] = {
    {"int8", 1},   {"uint8", 1},  {"int16", 2}, {"uint16", 2}, {"int32", 4}, {"uint32", 4},
    {"int64", 8},  {"uint64", 8}, {"float", 4}, {"double", 8}, {"byte", 1},
};

static const char *const op_names[RMALAB_NOPS] = {
    "sum", "prod", "max", "min", "band", "bor", "bxor", "land", "lor", "lxor", "replace", "no_op",
};

const char *rmalab_type_name(rmalab_type type)
{
    return (unsigned)type < RMALAB_NTYPES ? type_table[type].name : NULL;
}

int rmalab_type_size(rmalab_type type)
{
    return (unsigned)type < RMALAB_NTYPES ? type_table[type].size : -1;
}

int rmalab_type_from_name(const char *name, rmalab_type *out)
{
    for (int i = 0; name && i < RMALAB_NTYPES; i++)
        if (strcmp(name, type_table[i].name) == 0) {
            *out = (rmalab_type)i;
            return RMALAB_OK;
        }
    return rmalab__fail(RMALAB_ERR_TYPE,
                        "unknown type \"%s\"; use int8, uint8, int16, uint16, int32, uint32, "
                        "int64, uint64, float, double or byte",
                        name ? name : "(null)");
}

const char *rmalab_op_name(rmalab_op op)
{
    return (unsigned)op < RMALAB_NOPS ? op_names[op] : NULL;
}

int rmalab_op_from_name(const char *name, rmalab_op *out)
{
    for (int i = 0; name && i < RMALAB_NOPS; i++)
        if (strcmp(name, op_names[i]) == 0) {
            *out = (rmalab_op)i;
            return RMALAB_OK;
        }
    return rmalab__fail(RMALAB_ERR_OP,
                        "unknown op \"%s\"; use sum, prod, max, min, band, bor, bxor, land, lor, "
                        "lxor, replace or no_op",
                        name ? name : "(null)");
}

const char *rmalab_flavor_name(rmalab_flavor flavor)
{
    static const char *const names[] = {"create", "allocate", "allocate_shared", "dynamic"};
    return (unsigned)flavor < 4 ? names[flavor] : "?";
}

int rmalab_mode_from_name(const char *name, int *out)
{
    static const char *const names[] = {"nocheck", "nostore", "noput", "noprecede",
                                        "nosucceed"};
    for (int i = 0; name && i < 5; i++)
        if (strcmp(name, names[i]) == 0) {
            *out = 1 << i;
            return RMALAB_OK;
        }
    return rmalab__fail(RMALAB_ERR_ARG,
                        "unknown assertion \"%s\"; use nocheck, nostore, noput, noprecede or "
                        "nosucceed",
                        name ? name : "(null)");
}

MPI_Datatype rmalab__mpi_type(rmalab_type t)
{
    switch (t) {
    case RMALAB_INT8: return MPI_INT8_T;
    case RMALAB_UINT8: return MPI_UINT8_T;
    case RMALAB_INT16: return MPI_INT16_T;
    case RMALAB_UINT16: return MPI_UINT16_T;
    case RMALAB_INT32: return MPI_INT32_T;
    case RMALAB_UINT32: return MPI_UINT32_T;
    case RMALAB_INT64: return MPI_INT64_T;
    case RMALAB_UINT64: return MPI_UINT64_T;
    case RMALAB_FLOAT: return MPI_FLOAT;
    case RMALAB_DOUBLE: return MPI_DOUBLE;
    default: return MPI_BYTE;
    }
}

MPI_Op rmalab__mpi_op(rmalab_op op)
{
    static const MPI_Op ops[RMALAB_NOPS] = {MPI_SUM,  MPI_PROD, MPI_MAX,  MPI_MIN,
                                           MPI_BAND, MPI_BOR,  MPI_BXOR, MPI_LAND,
                                           MPI_LOR,  MPI_LXOR, MPI_REPLACE, MPI_NO_OP};
    return ops[op];
}

/* ------------------------------------------------------------------------ */
/* Creation                                                                 */

static MPI_Aint round16(MPI_Aint n)
{
    return (n + RMALAB__WIN_ALIGN - 1) / RMALAB__WIN_ALIGN * RMALAB__WIN_ALIGN;
}

static void win_destroy_struct(rmalab_win *w)
{
    if (!w)
        return;
    for (int i = 0; i < w->nregions; i++)
        free(w->regions[i].mem);
    free(w->regions);
    if (w->meta != MPI_WIN_NULL) {
        MPI_Win_unlock_all(w->meta);
        MPI_Win_free(&w->meta);
    }
    if (w->comm != MPI_COMM_NULL)
        MPI_Comm_free(&w->comm);
    free(w->owned_mem);
    free(w->sizes);
    free(w->disp_units);
    free(w->world_ranks);
    free(w->no_locks);
    free(w->group);
    free(w->scratch);
    free(w->in_group);
    free(w->locked);
    free(w->xgroup);
    free(w->done);
    for (int i = 0; i < w->npending; i++) {
        w->pending[i]->win = NULL;
        rmalab_result_release(w->pending[i]);
    }
    free(w->pending);
    rmalab__stage_free(w);
    rmalab_info_destroy(&w->requested);
    rmalab_info_destroy(&w->at_create);
    rmalab__group_cache_clear(&w->post_cache);
    rmalab__group_cache_clear(&w->start_cache);
    if (w->wgroup != MPI_GROUP_NULL)
        MPI_Group_free(&w->wgroup);
    if (w->rma)
        rmalab__rma_destroy(w);
    free(w);
}

/* Select the PSCW engine: the rmalab_pscw hint, else the environment
 * variable RMALAB_PSCW ("native" or "rma", so that a whole program or test
 * suite can run on either engine unchanged), else rma: MPICH 4.0.2's own
 * matching counts posts from any rank and any epoch, so an early post of
 * the next epoch can hang a correct program there (docs/pscw.md). A native
 * window says so in get_info (rmalab_pscw_defect). */
static void select_engine(rmalab_win *w, const rmalab_info *valid, rmalab_diags *diags)
{
    const char *v = rmalab_info_lookup(valid, "rmalab_pscw", 11, NULL);
    const char *env = getenv("RMALAB_PSCW");
    if (!v && env && *env) {
        if (strcmp(env, "rma") == 0 || strcmp(env, "native") == 0)
            v = env;
        else
            rmalab__diag_add(diags, "rmalab_pscw",
                             "the environment variable RMALAB_PSCW=\"%s\" is neither "
                             "\"native\" nor \"rma\"; using rma",
                             env);
    }
    w->eng = v && strcmp(v, "native") == 0 ? &rmalab__native_engine : &rmalab__rma_engine;
}

/* What get_info says of the native engine, which rmalab cannot fix. */
static const char native_defect[] =
    "MPICH 4.0.2 counts PSCW posts without checking their rank or epoch, so a post of the "
    "next epoch that arrives early can hang a correct program in start(); the default "
    "engine, rma, matches per peer (docs/pscw.md)";

/* Whether the canonical hints `valid` promise no_locks, or `fallback`. */
static unsigned char no_locks_in(const rmalab_info *valid, unsigned char fallback)
{
    const char *v = valid ? rmalab_info_lookup(valid, "no_locks", 8, NULL) : NULL;
    return v ? strcmp(v, "true") == 0 : fallback;
}

/* Collective: every rank learns every rank's no_locks promise. */
static int exchange_no_locks(rmalab_win *w, unsigned char mine)
{
    int e = MPI_Allgather(&mine, 1, MPI_UNSIGNED_CHAR, w->no_locks, 1, MPI_UNSIGNED_CHAR,
                          w->comm);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__mpi_fail(e, "exchanging no_locks");
}

static int exchange_layout(rmalab_win *w)
{
    struct {
        MPI_Aint size;
        MPI_Aint disp_unit;
        MPI_Aint world_rank;
    } mine, *all;
    int wr;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    mine.size = w->size_req;
    mine.disp_unit = w->disp_unit;
    mine.world_rank = wr;
    all = calloc((size_t)w->size, sizeof *all);
    w->sizes = calloc((size_t)w->size, sizeof *w->sizes);
    w->disp_units = calloc((size_t)w->size, sizeof *w->disp_units);
    w->world_ranks = calloc((size_t)w->size, sizeof *w->world_ranks);
    w->no_locks = calloc((size_t)w->size, 1);
    w->in_group = calloc((size_t)w->size, 1);
    w->scratch = calloc((size_t)w->size, 1);
    w->group = calloc((size_t)w->size + 1, sizeof *w->group);
    w->xgroup = calloc((size_t)w->size + 1, sizeof *w->xgroup);
    w->locked = calloc((size_t)w->size, 1);
    w->done = calloc((size_t)w->size, sizeof *w->done);
    int e = MPI_Allgather(&mine, 3, MPI_AINT, all ? (void *)all : (void *)&mine, 3, MPI_AINT,
                          w->comm);
    if (!all || !w->sizes || !w->disp_units || !w->world_ranks || !w->in_group || !w->locked ||
        !w->done || !w->scratch || !w->group || !w->xgroup || !w->no_locks) {
        free(all);
        return rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory creating a window");
    }
    if (e != MPI_SUCCESS) {
        free(all);
        return rmalab__mpi_fail(e, "exchanging window sizes");
    }
    for (int r = 0; r < w->size; r++) {
        w->sizes[r] = all[r].size;
        w->disp_units[r] = (int)all[r].disp_unit;
        w->world_ranks[r] = (int)all[r].world_rank;
    }
    free(all);
    return exchange_no_locks(w, no_locks_in(w->at_create, 0));
}

/* The MPI window of fences and locks (`plain` in win-private.h): the
 * window itself, or for the rma engine a companion over the same memory,
 * whose base must be sound too (*ok = 0 when MPI_WIN_BASE is not the
 * memory's). Collective. */
static int open_plain(rmalab_win *w, const rmalab_info *hints, int *ok)
{
    MPI_Info mi;
    if (!w->rma) {
        w->plain = w->win;
        return RMALAB_OK;
    }
    int rc = rmalab_info_to_mpi(hints, &mi); /* a fresh copy: MPICH rewrites it */
    if (rc)
        return rc;
    int e = w->flavor == RMALAB_FLAVOR_DYNAMIC
                ? MPI_Win_create_dynamic(mi, w->comm, &w->plain)
                : MPI_Win_create(w->base, w->size_req, w->disp_unit, mi, w->comm, &w->plain);
    MPI_Info_free(&mi);
    if (e != MPI_SUCCESS) {
        w->plain = MPI_WIN_NULL;
        return rmalab__mpi_fail(e, "creating the window for fences and locks");
    }
    MPI_Win_set_errhandler(w->plain, MPI_ERRORS_RETURN);
    if (w->flavor != RMALAB_FLAVOR_DYNAMIC && w->size_req) {
        void *base = NULL;
        int flag = 0;
        MPI_Win_get_attr(w->plain, MPI_WIN_BASE, &base, &flag);
        *ok = flag && base == w->base;
    }
    return RMALAB_OK;
}

/* The hints in `valid` for the MPI window the engine drives: all of them,
 * but for the rma engine without no_locks, as it keeps that window in a
 * lock_all of its own (the fence and lock window gets the hint). */
static int engine_hints_to_mpi(const rmalab_win *w, const rmalab_info *valid, MPI_Info *out)
{
    int rc = rmalab_info_to_mpi(valid, out);
    if (!rc && w->eng == &rmalab__rma_engine && rmalab_info_lookup(valid, "no_locks", 8, NULL))
        MPI_Info_delete(*out, "no_locks");
    return rc;
}

/* Drop a promise that the facts contradict, from the hints for MPICH and
 * from those in force, with a diagnostic. */
static int broken_promise(rmalab_win *w, rmalab_info *valid, rmalab_diags *diags,
                          const char *key, const char *what, long lo, long hi)
{
    const char *v = rmalab_info_lookup(valid, key, strlen(key), NULL);
    if (!v || strcmp(v, "true") != 0 || lo == hi)
        return RMALAB_OK;
    rmalab__diag_add(diags, key,
                     "%s = true promises that every rank gives the same %s, but they range from "
                     "%ld to %ld; the promise is not passed to MPICH",
                     key, what, lo, hi);
    int rc = rmalab_info_delete(valid, key);
    return rc ? rc : rmalab_info_delete(w->at_create, key);
}

/* Collective: same_size and same_disp_unit are checked against what every
 * rank gives, before MPICH sees them. Every rank learns the same range, so
 * each rank that made the promise gets the same diagnostic. */
static int check_promises(rmalab_win *w, rmalab_info *valid, rmalab_diags *diags)
{
    long long mine[4] = {w->size_req, -(long long)w->size_req, w->disp_unit, -w->disp_unit};
    long long all[4];
    int e = MPI_Allreduce(mine, all, 4, MPI_LONG_LONG, MPI_MAX, w->comm);
    if (e != MPI_SUCCESS)
        return rmalab__mpi_fail(e, "checking same_size and same_disp_unit");
    int rc = broken_promise(w, valid, diags, "same_size", "size", (long)-all[1], (long)all[0]);
    return rc ? rc
              : broken_promise(w, valid, diags, "same_disp_unit", "disp_unit", (long)-all[3],
                               (long)all[2]);
}

/* Collective: MPI_Win_free of the window and its companion, if any. */
static int free_mpi_windows(rmalab_win *w)
{
    int e = MPI_SUCCESS;
    if (w->plain != MPI_WIN_NULL && w->plain != w->win)
        e = MPI_Win_free(&w->plain);
    w->plain = MPI_WIN_NULL;
    if (w->win != MPI_WIN_NULL) {
        int e2 = MPI_Win_free(&w->win);
        e = e != MPI_SUCCESS ? e : e2;
    }
    return e;
}

static int win_new(rmalab_flavor flavor, const rmalab_win_opts *opts, rmalab_win **out,
                   rmalab_diags *diags)
{
    static const rmalab_win_opts defaults = {0};
    if (!out)
        return rmalab__fail(RMALAB_ERR_ARG, "window creation: out is NULL");
    if (!opts)
        opts = &defaults;
    const char *what = rmalab_flavor_name(flavor);
    if (flavor != RMALAB_FLAVOR_DYNAMIC && opts->size < 0)
        return rmalab__fail(RMALAB_ERR_ARG, "win_%s: size %ld is negative", what,
                            (long)opts->size);
    if (opts->disp_unit < 0)
        return rmalab__fail(RMALAB_ERR_ARG, "win_%s: disp_unit %d is negative", what,
                            opts->disp_unit);
    if (flavor == RMALAB_FLAVOR_DYNAMIC && opts->disp_unit > 1)
        return rmalab__fail(RMALAB_ERR_ARG,
                            "win_create_dynamic: dynamic windows address memory by absolute "
                            "address in bytes, so disp_unit is 1; leave it out");
    if (opts->base && flavor != RMALAB_FLAVOR_CREATE)
        return rmalab__fail(RMALAB_ERR_ARG, "win_%s: only win_create takes user memory", what);
    if (opts->base && (uintptr_t)opts->base % RMALAB__WIN_ALIGN)
        return rmalab__fail(RMALAB_ERR_ARG,
                            "win_create: memory at %p is not %d-byte aligned; MPICH 4.0.2 with "
                            "UCX records window bases rounded down to %d bytes, so puts would "
                            "land in the wrong bytes. Allocate it with aligned_alloc(%d, ...) "
                            "or let rmalab allocate it (base = NULL)",
                            opts->base, RMALAB__WIN_ALIGN, RMALAB__WIN_ALIGN,
                            RMALAB__WIN_ALIGN);
    if (opts->name && strlen(opts->name) >= sizeof ((rmalab_win *)0)->name)
        return rmalab__fail(RMALAB_ERR_ARG, "win_%s: window names hold at most %zu characters",
                            what, sizeof ((rmalab_win *)0)->name - 1);
    MPI_Comm parent = opts->comm ? rmalab_comm_mpi(opts->comm) : MPI_COMM_WORLD;
    if (parent == MPI_COMM_NULL)
        return rmalab__fail(RMALAB_ERR_COMM, "win_%s: the communicator was freed", what);

    rmalab_win *w = calloc(1, sizeof *w);
    rmalab_info *valid = NULL;
    MPI_Info mi = MPI_INFO_NULL;
    int rc, e;
    if (!w)
        return rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory creating a window");
    atomic_flag_clear(&w->lock);
    w->win = w->plain = MPI_WIN_NULL;
    w->meta = MPI_WIN_NULL;
    w->wgroup = MPI_GROUP_NULL;
    w->post_cache.group = w->start_cache.group = MPI_GROUP_NULL;
    w->comm = MPI_COMM_NULL;
    w->flavor = flavor;
    w->size_req = flavor == RMALAB_FLAVOR_DYNAMIC ? 0 : opts->size;
    w->disp_unit = opts->disp_unit ? opts->disp_unit : 1;
    snprintf(w->name, sizeof w->name, "%s", opts->name ? opts->name : "");

    if ((rc = rmalab__hints_validate(RMALAB_SCOPE_WIN, opts->info, &valid, diags, 1)))
        goto fail;
    rc = opts->info ? rmalab_info_dup(opts->info, &w->requested)
                    : rmalab_info_create(&w->requested);
    if (rc || (rc = rmalab_info_dup(valid, &w->at_create)))
        goto fail;
    select_engine(w, valid, diags);
    if ((rc = rmalab__hints_strip_own(RMALAB_SCOPE_WIN, valid)))
        goto fail;
    if ((e = MPI_Comm_dup(parent, &w->comm)) != MPI_SUCCESS) {
        rc = rmalab__mpi_fail(e, "MPI_Comm_dup");
        goto fail;
    }
    MPI_Comm_set_errhandler(w->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(w->comm, &w->rank);
    MPI_Comm_size(w->comm, &w->size);
    if ((rc = check_promises(w, valid, diags)) || (rc = engine_hints_to_mpi(w, valid, &mi)))
        goto fail;

    MPI_Aint alloc = round16(w->size_req);
    void *shm_base = NULL;
    if (w->eng == &rmalab__rma_engine && (rc = rmalab__rma_setup(w, alloc, &shm_base)))
        goto fail;
    switch (flavor) {
    case RMALAB_FLAVOR_CREATE:
        if (opts->base) {
            w->base = opts->base;
        } else {
            if (posix_memalign(&w->owned_mem, RMALAB__MEM_ALIGN, (size_t)(alloc ? alloc : 16))) {
                rc = rmalab__fail(RMALAB_ERR_NO_MEM, "win_create: cannot allocate %ld bytes",
                                  (long)alloc);
                goto fail;
            }
            memset(w->owned_mem, 0, (size_t)(alloc ? alloc : 16));
            w->base = w->owned_mem;
        }
        e = MPI_Win_create(w->base, w->size_req, w->disp_unit, mi, w->comm, &w->win);
        break;
    case RMALAB_FLAVOR_ALLOCATE:
        if (shm_base) { /* the rma engine's node-shared memory */
            w->base = shm_base;
            e = MPI_Win_create(w->base, w->size_req, w->disp_unit, mi, w->comm, &w->win);
        } else {
            e = MPI_Win_allocate(alloc, w->disp_unit, mi, w->comm, &w->base, &w->win);
        }
        break;
    case RMALAB_FLAVOR_SHARED:
        e = MPI_Win_allocate_shared(alloc, w->disp_unit, mi, w->comm, &w->base, &w->win);
        break;
    default:
        /* Rounded to 16 bytes like every window here (MPICH+UCX). */
        e = MPI_Win_allocate(round16(sizeof *w->my_meta), 1, MPI_INFO_NULL, w->comm,
                             &w->my_meta, &w->meta);
        if (e == MPI_SUCCESS) {
            memset(w->my_meta, 0, sizeof *w->my_meta);
            MPI_Win_set_errhandler(w->meta, MPI_ERRORS_RETURN);
            e = MPI_Win_lock_all(MPI_MODE_NOCHECK, w->meta);
            if (e != MPI_SUCCESS)
                MPI_Win_free(&w->meta);
        } else {
            w->meta = MPI_WIN_NULL;
        }
        if (e == MPI_SUCCESS)
            e = MPI_Win_create_dynamic(mi, w->comm, &w->win);
        break;
    }
    if (e != MPI_SUCCESS) {
        w->win = MPI_WIN_NULL;
        rc = rmalab__mpi_fail(e, "creating the MPI window");
        goto fail;
    }
    MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN);
    int plain_ok = 1;
    if ((rc = open_plain(w, valid, &plain_ok)))
        goto fail;
    if ((flavor == RMALAB_FLAVOR_ALLOCATE || flavor == RMALAB_FLAVOR_SHARED) && alloc)
        memset(w->base, 0, (size_t)alloc);
    if ((e = MPI_Win_get_group(w->win, &w->wgroup)) != MPI_SUCCESS) {
        w->wgroup = MPI_GROUP_NULL;
        rc = rmalab__mpi_fail(e, "MPI_Win_get_group");
        goto fail;
    }

    int flag = 0, *model = NULL;
    void *attr_base = NULL;
    MPI_Win_get_attr(w->win, MPI_WIN_MODEL, &model, &flag);
    w->model = flag && model ? *model : MPI_WIN_SEPARATE;
    MPI_Win_get_attr(w->win, MPI_WIN_BASE, &attr_base, &flag);
    /* MPICH reports a NULL base for a window of 0 bytes, where nothing can
     * land anyway. */
    int base_ok = flavor == RMALAB_FLAVOR_DYNAMIC || w->size_req == 0 ||
                  (flag && attr_base == w->base);
    if (flavor != RMALAB_FLAVOR_DYNAMIC && w->size_req && (uintptr_t)w->base % RMALAB__WIN_ALIGN)
        base_ok = 0;
    base_ok = base_ok && plain_ok;
    /* Everyone learns whether everyone's window is sound. */
    int all_ok = 0;
    if ((e = MPI_Allreduce(&base_ok, &all_ok, 1, MPI_INT, MPI_MIN, w->comm)) != MPI_SUCCESS) {
        rc = rmalab__mpi_fail(e, "checking window bases");
        goto fail;
    }
    if (!all_ok) {
        rc = rmalab__fail(RMALAB_ERR_WIN,
                          "win_%s: MPI_WIN_BASE does not match the memory on %s; this MPI "
                          "would put data into the wrong bytes, so the window was not created",
                          what, base_ok ? "another rank" : "this rank");
        goto fail;
    }
    if ((rc = exchange_layout(w)))
        goto fail;
    if (w->rma && (rc = rmalab__rma_attach(w)))
        goto fail;
    if ((rc = rmalab__registry_add(w)))
        goto fail;
    if (w->name[0])
        MPI_Win_set_name(w->win, w->name);
    MPI_Info_free(&mi);
    rmalab_info_destroy(&valid);
    *out = w;
    return RMALAB_OK;

fail:
    if (w->rma)
        rmalab__rma_unlock(w);
    free_mpi_windows(w);
    if (mi != MPI_INFO_NULL)
        MPI_Info_free(&mi);
    rmalab_info_destroy(&valid);
    win_destroy_struct(w);
    return rc;
}

int rmalab_win_create(const rmalab_win_opts *opts, rmalab_win **out, rmalab_diags *diags)
{
    return win_new(RMALAB_FLAVOR_CREATE, opts, out, diags);
}

int rmalab_win_allocate(const rmalab_win_opts *opts, rmalab_win **out, rmalab_diags *diags)
{
    return win_new(RMALAB_FLAVOR_ALLOCATE, opts, out, diags);
}

int rmalab_win_allocate_shared(const rmalab_win_opts *opts, rmalab_win **out,
                               rmalab_diags *diags)
{
    return win_new(RMALAB_FLAVOR_SHARED, opts, out, diags);
}

int rmalab_win_create_dynamic(const rmalab_win_opts *opts, rmalab_win **out,
                              rmalab_diags *diags)
{
    return win_new(RMALAB_FLAVOR_DYNAMIC, opts, out, diags);
}

/* ------------------------------------------------------------------------ */
/* Destruction                                                              */

/* Collective: the MPI side of freeing (the rma engine's lock_all first),
 * then everything else; returns MPI's code. */
static int release_window(rmalab_win *w)
{
    rmalab__registry_remove(w);
    rmalab__set_blocked(w, "free");
    if (w->rma)
        rmalab__rma_unlock(w);
    int e = free_mpi_windows(w);
    rmalab__set_blocked(w, NULL);
    win_destroy_struct(w);
    return e;
}

/* Can the window be freed in its current state? A fence with no RMA call
 * after it opens no epoch. */
static int check_free(rmalab_win *w)
{
    int open_access = w->access == RMALAB_ACCESS_START || w->access == RMALAB_ACCESS_LOCK ||
                      w->access == RMALAB_ACCESS_LOCK_ALL ||
                      (w->access == RMALAB_ACCESS_FENCE && w->ops_in_epoch > 0);
    if (open_access || w->exposure == RMALAB_EXPOSURE_POST) {
        char state[256];
        rmalab__describe(w, state, sizeof state, false);
        return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                            "free: a window may only be freed outside of any epoch, and this "
                            "one has %s; close it first (%s)",
                            state,
                            w->access == RMALAB_ACCESS_START       ? "win:complete()"
                            : w->access == RMALAB_ACCESS_LOCK      ? "win:unlock(target)"
                            : w->access == RMALAB_ACCESS_LOCK_ALL  ? "win:unlock_all()"
                            : w->exposure == RMALAB_EXPOSURE_POST  ? "win:wait()"
                                                                   : "win:fence()");
    }
    return RMALAB_OK;
}

int rmalab_win_free(rmalab_win **win)
{
    if (!win || !*win)
        return RMALAB_OK;
    rmalab_win *w = *win;
    if (w->in_callback)
        return rmalab__fail(RMALAB_ERR_WIN,
                            "free: a window cannot be freed from one of its own attribute "
                            "delete callbacks; free it after the call that ran the callback");
    int rc = check_free(w);
    if (rc)
        return rc;
    char saved[2048] = "";
    int cb_rc = rmalab__attrs_delete_all(w);
    if (cb_rc)
        snprintf(saved, sizeof saved, "%s", rmalab_errmsg());
    *win = NULL;
    int e = release_window(w);
    if (e != MPI_SUCCESS)
        return rmalab__mpi_fail(e, "MPI_Win_free");
    if (cb_rc)
        return rmalab__fail(cb_rc, "%s", saved);
    return RMALAB_OK;
}

int rmalab_win_abandon(rmalab_win **win, bool fence)
{
    if (!win || !*win)
        return RMALAB_OK;
    rmalab_win *w = *win;
    if (w->access == RMALAB_ACCESS_START || w->exposure == RMALAB_EXPOSURE_POST)
        return rmalab__fail(RMALAB_ERR_RMA_SYNC,
                            "abandon: a PSCW epoch is open, and closing it could block");
    if (w->access == RMALAB_ACCESS_LOCK_ALL)
        MPI_Win_unlock_all(w->plain);
    for (int r = 0; w->access == RMALAB_ACCESS_LOCK && r < w->size; r++)
        if (w->locked[r])
            MPI_Win_unlock(r, w->plain);
    if (fence)
        MPI_Win_fence(MPI_MODE_NOSUCCEED, w->plain);
    /* Attribute values belong to a caller that is gone: forget them. */
    rmalab__attrs_forget(w);
    *win = NULL;
    int e = release_window(w);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__mpi_fail(e, "MPI_Win_free");
}

rmalab__attr_list *rmalab__win_attrs(rmalab_win *win)
{
    return &win->attrs;
}

/* ------------------------------------------------------------------------ */
/* Dynamic windows                                                          */

/* Expose this rank's attached regions to the origins' checks. */
static void publish_regions(rmalab_win *w)
{
    struct rmalab__dyn_meta *m = w->my_meta;
    for (int i = 0; i < w->nregions; i++) {
        m->addr[i] = w->regions[i].addr;
        m->size[i] = w->regions[i].size;
    }
    m->n = w->nregions;
    MPI_Win_sync(w->meta);
}

int rmalab__dyn_check(rmalab_win *w, const char *what, int target, MPI_Aint disp,
                      MPI_Aint bytes)
{
    struct rmalab__dyn_meta m;
    if (target == w->rank) {
        m = *w->my_meta;
    } else {
        int e = MPI_Get(&m, sizeof m, MPI_BYTE, target, 0, sizeof m, MPI_BYTE, w->meta);
        if (e == MPI_SUCCESS)
            e = MPI_Win_flush(target, w->meta);
        if (e != MPI_SUCCESS)
            return rmalab__mpi_fail(e, "reading the target's attached regions");
    }
    for (int64_t i = 0; i < m.n && i < RMALAB__MAX_REGIONS; i++)
        if (disp >= m.addr[i] && bytes <= m.size[i] && disp - m.addr[i] <= m.size[i] - bytes)
            return RMALAB_OK;
    return rmalab__fail(RMALAB_ERR_RMA_RANGE,
                        "%s to rank %d: address %ld (+%ld bytes) is not inside memory rank %d "
                        "has attached to this dynamic window (%ld region%s); use an address "
                        "its win:attach returned",
                        what, target, (long)disp, (long)bytes, target, (long)m.n,
                        m.n == 1 ? "" : "s");
}

int rmalab_win_attach(rmalab_win *w, MPI_Aint size, MPI_Aint *addr)
{
    if (!w)
        return rmalab__fail(RMALAB_ERR_WIN, "window is NULL or freed");
    if (w->flavor != RMALAB_FLAVOR_DYNAMIC)
        return rmalab__fail(RMALAB_ERR_RMA_FLAVOR,
                            "attach: only dynamic windows (win_create_dynamic) take attached "
                            "memory; this one is a %s window", rmalab_flavor_name(w->flavor));
    if (size <= 0)
        return rmalab__fail(RMALAB_ERR_ARG, "attach: size must be positive, got %ld",
                            (long)size);
    if (w->nregions == RMALAB__MAX_REGIONS)
        return rmalab__fail(RMALAB_ERR_RMA_ATTACH,
                            "attach: rmalab tracks at most %d attached regions per rank (so "
                            "that origins can check their displacements); detach one first",
                            RMALAB__MAX_REGIONS);
    if (w->nregions == w->capregions) {
        int cap = w->capregions ? 2 * w->capregions : 4;
        struct rmalab__region *r = realloc(w->regions, (size_t)cap * sizeof *r);
        if (!r)
            return rmalab__fail(RMALAB_ERR_NO_MEM, "attach: out of memory");
        w->regions = r;
        w->capregions = cap;
    }
    void *mem;
    if (posix_memalign(&mem, RMALAB__MEM_ALIGN, (size_t)round16(size)))
        return rmalab__fail(RMALAB_ERR_NO_MEM, "attach: cannot allocate %ld bytes", (long)size);
    memset(mem, 0, (size_t)round16(size));
    int e = MPI_Win_attach(w->win, mem, size);
    if (e == MPI_SUCCESS && w->plain != w->win && (e = MPI_Win_attach(w->plain, mem, size)))
        MPI_Win_detach(w->win, mem);
    if (e != MPI_SUCCESS) {
        free(mem);
        return rmalab__mpi_fail(e, "MPI_Win_attach");
    }
    MPI_Aint a;
    MPI_Get_address(mem, &a);
    w->regions[w->nregions++] = (struct rmalab__region){mem, a, size};
    publish_regions(w);
    *addr = a;
    return RMALAB_OK;
}

int rmalab_win_detach(rmalab_win *w, MPI_Aint addr)
{
    if (!w)
        return rmalab__fail(RMALAB_ERR_WIN, "window is NULL or freed");
    if (w->flavor != RMALAB_FLAVOR_DYNAMIC)
        return rmalab__fail(RMALAB_ERR_RMA_FLAVOR, "detach: this is a %s window, not dynamic",
                            rmalab_flavor_name(w->flavor));
    for (int i = 0; i < w->nregions; i++) {
        if (w->regions[i].addr != addr)
            continue;
        int e = MPI_Win_detach(w->win, w->regions[i].mem);
        if (e == MPI_SUCCESS && w->plain != w->win)
            e = MPI_Win_detach(w->plain, w->regions[i].mem);
        if (e != MPI_SUCCESS)
            return rmalab__mpi_fail(e, "MPI_Win_detach");
        free(w->regions[i].mem);
        w->regions[i] = w->regions[--w->nregions];
        publish_regions(w);
        return RMALAB_OK;
    }
    return rmalab__fail(RMALAB_ERR_RMA_ATTACH,
                        "detach: no memory of this window is attached at address %ld; use the "
                        "address win:attach returned",
                        (long)addr);
}

/* The local bytes [off, off + n) of a displacement: for dynamic windows the
 * displacement is an address inside an attached region. */
static int local_bytes(rmalab_win *w, const char *what, MPI_Aint disp, MPI_Aint n,
                       unsigned char **p)
{
    if (w->flavor == RMALAB_FLAVOR_DYNAMIC) {
        for (int i = 0; i < w->nregions; i++) {
            const struct rmalab__region *r = &w->regions[i];
            if (disp >= r->addr && n <= r->size && disp - r->addr <= r->size - n) {
                *p = (unsigned char *)r->mem + (disp - r->addr);
                return RMALAB_OK;
            }
        }
        return rmalab__fail(RMALAB_ERR_RMA_RANGE,
                            "%s: address %ld (+%ld bytes) is not inside memory attached to "
                            "this dynamic window",
                            what, (long)disp, (long)n);
    }
    /* In that order, so that no product or sum can overflow. */
    if (disp < 0 || n > w->size_req || disp > (w->size_req - n) / w->disp_unit) {
        char at[64];
        if (disp >= 0 && disp <= w->size_req / w->disp_unit)
            snprintf(at, sizeof at, "byte %ld", (long)(disp * w->disp_unit));
        else
            snprintf(at, sizeof at, "x disp_unit %d", w->disp_unit);
        return rmalab__fail(RMALAB_ERR_RMA_RANGE,
                            "%s: displacement %ld (%s) + %ld bytes is outside this rank's "
                            "window of %ld bytes",
                            what, (long)disp, at, (long)n, (long)w->size_req);
    }
    *p = (unsigned char *)w->base + disp * w->disp_unit;
    return RMALAB_OK;
}

static int check_count(rmalab_type type, int count, const char *what)
{
    if ((unsigned)type >= RMALAB_NTYPES)
        return rmalab__fail(RMALAB_ERR_TYPE, "%s: unknown type", what);
    if (count < 0)
        return rmalab__fail(RMALAB_ERR_ARG, "%s: count %d is negative", what, count);
    return RMALAB_OK;
}

int rmalab_win_read(rmalab_win *w, MPI_Aint disp, rmalab_type type, int count, void *out)
{
    unsigned char *p;
    if (!w)
        return rmalab__fail(RMALAB_ERR_WIN, "window is NULL or freed");
    int rc = check_count(type, count, "read");
    if (!rc)
        rc = local_bytes(w, "read", disp, (MPI_Aint)count * rmalab_type_size(type), &p);
    if (rc || !out)
        return rc;
    if (w->model == MPI_WIN_SEPARATE || w->flavor == RMALAB_FLAVOR_SHARED)
        MPI_Win_sync(w->win);
    memcpy(out, p, (size_t)count * (size_t)rmalab_type_size(type));
    return RMALAB_OK;
}

int rmalab_win_write(rmalab_win *w, MPI_Aint disp, rmalab_type type, int count, const void *in)
{
    unsigned char *p;
    if (!w)
        return rmalab__fail(RMALAB_ERR_WIN, "window is NULL or freed");
    int rc = check_count(type, count, "write");
    if (!rc)
        rc = local_bytes(w, "write", disp, (MPI_Aint)count * rmalab_type_size(type), &p);
    if (rc)
        return rc;
    memcpy(p, in, (size_t)count * (size_t)rmalab_type_size(type));
    if (w->model == MPI_WIN_SEPARATE || w->flavor == RMALAB_FLAVOR_SHARED)
        MPI_Win_sync(w->win);
    return RMALAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Properties                                                               */

MPI_Win rmalab_win_mpi(const rmalab_win *w) { return w ? w->win : MPI_WIN_NULL; }
void *rmalab_win_base(const rmalab_win *w) { return w ? w->base : NULL; }
MPI_Aint rmalab_win_size(const rmalab_win *w) { return w ? w->size_req : 0; }
int rmalab_win_disp_unit(const rmalab_win *w) { return w ? w->disp_unit : 0; }
rmalab_flavor rmalab_win_flavor(const rmalab_win *w) { return w ? w->flavor : RMALAB_FLAVOR_CREATE; }
int rmalab_win_model(const rmalab_win *w) { return w ? w->model : MPI_WIN_SEPARATE; }
int rmalab_win_rank(const rmalab_win *w) { return w ? w->rank : -1; }
int rmalab_win_group_size(const rmalab_win *w) { return w ? w->size : 0; }
const int *rmalab_win_world_ranks(const rmalab_win *w) { return w ? w->world_ranks : NULL; }

MPI_Aint rmalab_win_size_of(const rmalab_win *w, int rank)
{
    return w && rank >= 0 && rank < w->size ? w->sizes[rank] : -1;
}

int rmalab_win_disp_unit_of(const rmalab_win *w, int rank)
{
    return w && rank >= 0 && rank < w->size ? w->disp_units[rank] : -1;
}

int rmalab_win_set_name(rmalab_win *w, const char *name)
{
    if (!w)
        return rmalab__fail(RMALAB_ERR_WIN, "window is NULL or freed");
    if (!name)
        return rmalab__fail(RMALAB_ERR_ARG, "set_name: name is NULL");
    if (strlen(name) >= sizeof w->name)
        return rmalab__fail(RMALAB_ERR_ARG, "set_name: names hold at most %zu characters",
                            sizeof w->name - 1);
    rmalab__lock(w);
    snprintf(w->name, sizeof w->name, "%s", name);
    rmalab__unlock(w);
    MPI_Win_set_name(w->win, name);
    return RMALAB_OK;
}

const char *rmalab_win_get_name(const rmalab_win *w)
{
    return w ? w->name : "";
}

/* ------------------------------------------------------------------------ */
/* Hints                                                                    */

/* Collective: MPI_Win_set_info with fresh copies of `valid` (MPICH rewrites
 * what it is given), on the fence and lock window with every hint and on
 * the rma engine's own window without no_locks. */
static int set_info_mpi(rmalab_win *w, const rmalab_info *valid)
{
    MPI_Info mi;
    int rc = rmalab_info_to_mpi(valid, &mi), e = MPI_SUCCESS;
    if (rc)
        return rc;
    e = MPI_Win_set_info(w->plain, mi);
    MPI_Info_free(&mi);
    if (e == MPI_SUCCESS && w->plain != w->win) {
        if ((rc = engine_hints_to_mpi(w, valid, &mi)))
            return rc;
        e = MPI_Win_set_info(w->win, mi);
        MPI_Info_free(&mi);
    }
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__mpi_fail(e, "MPI_Win_set_info");
}

int rmalab_win_set_info(rmalab_win *w, const rmalab_info *info, rmalab_diags *diags)
{
    if (!w)
        return rmalab__fail(RMALAB_ERR_WIN, "window is NULL or freed");
    rmalab_info *valid = NULL;
    int rc = rmalab_hints_validate(RMALAB_SCOPE_WIN, info, &valid, diags), n = 0;
    if (rc)
        return rc;
    if (info)
        rmalab_info_get_nkeys(info, &n);
    for (int i = 0; i < n; i++) {
        const char *k;
        rmalab_info_nth((rmalab_info *)info, i, &k, NULL, NULL, NULL);
        const rmalab_hint_def *d = rmalab_hints_find(RMALAB_SCOPE_WIN, k);
        if (d && !d->after_create)
            rmalab__diag_add(diags, k,
                             "%s is read only when the window is created; %s ignores it in "
                             "set_info. Give it at creation instead",
                             k, d->rmalab_own ? "rmalab" : "MPICH 4.0.2");
    }
    rmalab__set_blocked(w, "set_info");
    rc = set_info_mpi(w, valid);
    if (!rc)
        rc = exchange_no_locks(w, no_locks_in(valid, w->no_locks[w->rank]));
    rmalab__set_blocked(w, NULL);
    for (int i = 0; i < n && !rc; i++) {
        const char *k, *v;
        size_t kl, vl;
        rmalab_info_nth((rmalab_info *)info, i, &k, &kl, &v, &vl);
        rc = rmalab_info_set_n(w->requested, k, kl, v, vl);
    }
    rmalab_info_destroy(&valid);
    return rc;
}

int rmalab_win_get_info(rmalab_win *w, rmalab_info **out)
{
    if (!w)
        return rmalab__fail(RMALAB_ERR_WIN, "window is NULL or freed");
    MPI_Info mi = MPI_INFO_NULL;
    int e = MPI_Win_get_info(w->plain, &mi); /* the window with every hint */
    if (e != MPI_SUCCESS)
        return rmalab__mpi_fail(e, "MPI_Win_get_info");
    rmalab_info *info;
    int rc = rmalab_info_from_mpi(mi, &info);
    MPI_Info_free(&mi);
    if (rc)
        return rc;
    /* MPICH 4.0.2 reports unrelated text for some keys: show what was in
     * force from creation, or the default. */
    for (int i = 0; i < rmalab_hints_count(RMALAB_SCOPE_WIN) && !rc; i++) {
        const rmalab_hint_def *d = rmalab_hints_at(RMALAB_SCOPE_WIN, i);
        if (!d->report_unreliable || !rmalab_info_lookup(info, d->key, strlen(d->key), NULL))
            continue;
        const char *v = rmalab_info_lookup(w->at_create, d->key, strlen(d->key), NULL);
        rc = rmalab_info_set(info, d->key, v ? v : d->default_value);
    }
    if (!rc)
        rc = rmalab_info_set(info, "rmalab_pscw", w->eng->name);
    if (!rc && !w->rma)
        rc = rmalab_info_set(info, "rmalab_pscw_defect", native_defect);
    if (!rc && w->rma) {
        rc = rmalab_info_set(info, "rmalab_pscw_sync_path", rmalab__rma_sync_path(w));
        if (!rc)
            rc = rmalab_info_set(info, "rmalab_pscw_data_path", rmalab__rma_data_path(w));
    }
    if (rc) {
        rmalab_info_destroy(&info);
        return rc;
    }
    *out = info;
    return RMALAB_OK;
}

int rmalab_win_hints(rmalab_win *w, rmalab_hints_report **out)
{
    rmalab_info *eff;
    int rc = rmalab_win_get_info(w, &eff);
    if (rc)
        return rc;
    rc = rmalab_hints_report_build(RMALAB_SCOPE_WIN, w->requested, eff, out);
    rmalab_info_destroy(&eff);
    return rc;
}

int rmalab_win_check_hints(rmalab_win *w, rmalab_agreement **out)
{
    if (!w)
        return rmalab__fail(RMALAB_ERR_WIN, "window is NULL or freed");
    return rmalab_hints_check_agreement(w->comm, RMALAB_SCOPE_WIN, w->requested, out);
}
