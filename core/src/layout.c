/* What every rank's window is: the layout. Each rank's size, disp_unit,
 * rank in MPI_COMM_WORLD and no_locks promise, exchanged once at creation;
 * the regions of dynamic windows, published to the origins; the range
 * checks of operations against them; this rank's local memory, and the
 * refusal of operations whose caller memory overlaps what they reach in
 * it; and the window's properties. Calls only types.c and below. */
#include "win-private.h"
#include "alloc.h"
#include "error-private.h"
#include "layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One rank's entry in the exchange. */
struct layout_entry {
    MPI_Aint size;
    MPI_Aint disp_unit;
    MPI_Aint world_rank;
    MPI_Aint node;          /* shared windows: the lowest world rank on its node */
    MPI_Aint place;         /* the window's place in the engine's memory, if any */
    MPI_Aint no_locks;      /* in the same exchange, not one of its own */
    MPI_Aint status;        /* creation's verdict on this rank so far */
    MPI_Aint flag;          /* creation's: the window's base is unsound */
};

/* ------------------------------------------------------------------------ */
/* Creation and release                                                     */

int rmalab__layout_alloc(rmalab_win *w)
{
    size_t P = (size_t)w->size;
    struct rmalab__layout *l = &w->lay;
    l->sizes = rmalab__mem_calloc(P, sizeof *l->sizes);
    l->disp_units = rmalab__mem_calloc(P, sizeof *l->disp_units);
    l->world_ranks = rmalab__mem_calloc(P, sizeof *l->world_ranks);
    l->no_locks = rmalab__mem_calloc(P, 1);
    l->nodes = rmalab__mem_calloc(P, sizeof *l->nodes);
    l->places = rmalab__mem_calloc(P, sizeof *l->places);
    l->xchg = rmalab__mem_calloc(P, sizeof(struct layout_entry));
    if (!l->sizes || !l->disp_units || !l->world_ranks || !l->no_locks || !l->nodes || !l->places ||
        !l->xchg)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory creating a window");
    return RMALAB_OK;
}

/* Collective, for shared windows: the lowest world rank of this rank's
 * node (MPI_Comm_split_type SHARED; with MPIR_CVAR_NOLOCAL=1 each rank is
 * a node), so that shared_query answers only for ranks whose memory this
 * one truly shares: MPICH answers for the others with memory that is not
 * theirs. */
static int node_of(rmalab_win *w, int world_rank, MPI_Aint *node)
{
    MPI_Comm nc;
    int lowest = world_rank;
    *node = world_rank;
    if (w->flavor != RMALAB_FLAVOR_SHARED)
        return RMALAB_OK;
    int e = MPI_Comm_split_type(w->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &nc);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "MPI_Comm_split_type");
    e = MPI_Allreduce(&world_rank, &lowest, 1, MPI_INT, MPI_MIN, nc);
    MPI_Comm_free(&nc);
    *node = lowest;
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__err_mpi(e, "finding the node's ranks");
}

/* Collective. The entries are gathered into memory that layout_alloc made
 * before creation agreed that every rank has it: never into room for one
 * entry (MPICH would write P there). */
int rmalab__layout_exchange(rmalab_win *w, bool no_locks, int rc, bool *flag)
{
    struct layout_entry mine = {w->size_req, w->disp_unit, 0, 0, w->lay.place, no_locks, 0,
                                 *flag};
    struct layout_entry *all = w->lay.xchg;
    int wr;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    mine.world_rank = wr;
    int own = node_of(w, wr, &mine.node); /* collective: a rank that failed joins it */
    rc = rc ? rc : own;
    mine.status = rc;
    int e = MPI_Allgather(&mine, 8, MPI_AINT, all, 8, MPI_AINT, w->comm);
    MPI_Aint worst = 0;
    for (int r = 0; e == MPI_SUCCESS && r < w->size; r++) {
        worst = all[r].status > worst ? all[r].status : worst;
        *flag = *flag || all[r].flag;
    }
    if ((rc = rmalab__err_agreed(rc, (int)worst, e, "checking window bases")))
        return rc;
    for (int r = 0; r < w->size; r++) {
        w->lay.sizes[r] = all[r].size;
        w->lay.disp_units[r] = (int)all[r].disp_unit;
        w->lay.world_ranks[r] = (int)all[r].world_rank;
        w->lay.nodes[r] = (int)all[r].node;
        w->lay.places[r] = all[r].place;
        w->lay.no_locks[r] = (unsigned char)all[r].no_locks;
    }
    rmalab__mem_free(all);
    w->lay.xchg = NULL;
    return RMALAB_OK;
}

int rmalab__layout_set_no_locks(rmalab_win *w, bool mine)
{
    unsigned char v = mine;
    int e = MPI_Allgather(&v, 1, MPI_UNSIGNED_CHAR, w->lay.no_locks, 1, MPI_UNSIGNED_CHAR,
                          w->comm);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__err_mpi(e, "exchanging no_locks");
}

/* Collective: a window of every rank's attached regions, read by origins
 * with MPI_Get in a lock_all held for the window's life. Rounded to 16
 * bytes like every window here (MPICH+UCX). */
int rmalab__layout_open_meta(rmalab_win *w)
{
    struct rmalab__layout *l = &w->lay;
    int e = MPI_Win_allocate(rmalab__win_round16(sizeof *l->my_meta), 1, MPI_INFO_NULL, w->comm,
                             &l->my_meta, &l->meta);
    if (e != MPI_SUCCESS) {
        l->meta = MPI_WIN_NULL;
        return rmalab__err_mpi(e, "creating the window of attached regions");
    }
    memset(l->my_meta, 0, sizeof *l->my_meta);
    MPI_Win_set_errhandler(l->meta, MPI_ERRORS_RETURN);
    e = MPI_Win_lock_all(MPI_MODE_NOCHECK, l->meta);
    if (e != MPI_SUCCESS) {
        MPI_Win_free(&l->meta);
        return rmalab__err_mpi(e, "MPI_Win_lock_all on the window of attached regions");
    }
    return RMALAB_OK;
}

void rmalab__layout_free(rmalab_win *w)
{
    struct rmalab__layout *l = &w->lay;
    for (int i = 0; i < l->nregions; i++)
        if (l->regions[i].owned)
            rmalab__mem_free(l->regions[i].mem);
    rmalab__mem_free(l->regions);
    if (l->meta != MPI_WIN_NULL) {
        MPI_Win_unlock_all(l->meta);
        MPI_Win_free(&l->meta);
    }
    rmalab__mem_free(l->sizes);
    rmalab__mem_free(l->disp_units);
    rmalab__mem_free(l->world_ranks);
    rmalab__mem_free(l->no_locks);
    rmalab__mem_free(l->nodes);
    rmalab__mem_free(l->places);
    rmalab__mem_free(l->xchg);
}

/* ------------------------------------------------------------------------ */
/* Range checks of operations                                               */

static int static_range(rmalab_win *w, const char *what, int target, MPI_Aint disp,
                        rmalab_type type, int count)
{
    MPI_Aint unit = w->lay.disp_units[target], tsize = w->lay.sizes[target];
    MPI_Aint bytes = (MPI_Aint)count * rmalab_type_size(type), off;
    if (bytes > tsize)
        return rmalab__err_fail(RMALAB_ERR_RMA_RANGE,
                                "%s to rank %d: %d x %s (%ld bytes) do not fit in rank %d's "
                                "window of %ld bytes",
                                what, target, count, rmalab_type_name(type), (long)bytes, target,
                                (long)tsize);
    if (disp >= 0 && !__builtin_mul_overflow(disp, unit, &off) && off <= tsize - bytes)
        return RMALAB_OK;
    if (disp < 0)
        return rmalab__err_fail(RMALAB_ERR_RMA_RANGE,
                                "%s to rank %d: displacement %ld is negative; valid displacements "
                                "in rank %d's window of %ld bytes are 0 to %ld",
                                what, target, (long)disp, target, (long)tsize,
                                (long)((tsize - bytes) / unit));
    char at[64] = "";
    if (disp <= tsize / unit)
        snprintf(at, sizeof at, " = byte %ld", (long)(disp * unit));
    return rmalab__err_fail(RMALAB_ERR_RMA_RANGE,
                            "%s to rank %d: displacement %ld (x disp_unit %ld%s) with %d x "
                            "%s reaches past the end of rank %d's window of %ld bytes; "
                            "valid displacements are 0 to %ld",
                            what, target, (long)disp, (long)unit, at, count, rmalab_type_name(type),
                            target, (long)tsize, (long)((tsize - bytes) / unit));
}

/* ------------------------------------------------------------------------ */
/* Dynamic windows                                                          */

/* Expose this rank's attached regions to the origins' checks. */
static void publish_regions(rmalab_win *w)
{
    struct rmalab__dyn_meta *m = w->lay.my_meta;
    for (int i = 0; i < w->lay.nregions; i++) {
        m->addr[i] = w->lay.regions[i].addr;
        m->size[i] = w->lay.regions[i].size;
    }
    m->n = w->lay.nregions;
    MPI_Win_sync(w->lay.meta);
}

/* Do the regions of m, side by side, hold every byte of [from, to)? One
 * operation may reach across regions attached next to each other: each of
 * its bytes is attached memory (MPICH's test win_dynamic_rma_flush_get). */
static bool regions_cover(const struct rmalab__dyn_meta *m, MPI_Aint from, MPI_Aint to)
{
    for (int64_t hops = 0; from < to && hops < m->n && hops < RMALAB__MAX_REGIONS; hops++) {
        int64_t i = 0;
        while (i < m->n && i < RMALAB__MAX_REGIONS &&
               !(from >= m->addr[i] && from - m->addr[i] < m->size[i]))
            i++;
        if (i == m->n || i == RMALAB__MAX_REGIONS)
            return false;
        from = (MPI_Aint)(m->addr[i] + m->size[i]);
    }
    return from >= to;
}

static int dyn_check(rmalab_win *w, const char *what, int target, MPI_Aint disp,
                     MPI_Aint bytes)
{
    struct rmalab__dyn_meta m;
    if (target == w->rank) {
        m = *w->lay.my_meta;
    } else {
        int e = MPI_Get(&m, sizeof m, MPI_BYTE, target, 0, sizeof m, MPI_BYTE, w->lay.meta);
        if (e == MPI_SUCCESS)
            e = MPI_Win_flush(target, w->lay.meta);
        if (e != MPI_SUCCESS)
            return rmalab__err_mpi(e, "reading the target's attached regions");
    }
    for (int64_t i = 0; i < m.n && i < RMALAB__MAX_REGIONS; i++)
        if (disp >= m.addr[i] && bytes <= m.size[i] && disp - m.addr[i] <= m.size[i] - bytes)
            return RMALAB_OK;
    if (bytes > 0 && regions_cover(&m, disp, disp + bytes))
        return RMALAB_OK;
    return rmalab__err_fail(RMALAB_ERR_RMA_RANGE,
                            "%s to rank %d: address %ld (+%ld bytes) is not inside memory rank %d "
                            "has attached to this dynamic window (%ld region%s); use an address "
                            "its attach() returned",
                            what, target, (long)disp, (long)bytes, target, (long)m.n,
                            m.n == 1 ? "" : "s");
}

int rmalab__layout_check_range(rmalab_win *w, const char *what, int target, MPI_Aint disp,
                               rmalab_type type, int count)
{
    if (w->flavor == RMALAB_FLAVOR_DYNAMIC)
        return dyn_check(w, what, target, disp, (MPI_Aint)count * rmalab_type_size(type));
    return static_range(w, what, target, disp, type, count);
}

/* Room for one more region of this rank's, or an error for `call`. The
 * program's memory may be empty, as MPI allows; the core's may not. */
static int region_room(rmalab_win *w, const char *call, MPI_Aint size, bool owned)
{
    if (!w)
        return rmalab__err_fail(RMALAB_ERR_WIN, "window is NULL or freed");
    if (w->flavor != RMALAB_FLAVOR_DYNAMIC)
        return rmalab__err_fail(RMALAB_ERR_RMA_FLAVOR,
                                "%s: only dynamic windows (win_create_dynamic) take attached "
                                "memory; this one is a %s window",
                                call, rmalab_flavor_name(w->flavor));
    if (size < 0 || (size == 0 && owned))
        return rmalab__err_fail(RMALAB_ERR_ARG, "%s: size must be %s, got %ld", call,
                                owned ? "positive" : "zero or more", (long)size);
    if (w->lay.nregions == RMALAB__MAX_REGIONS)
        return rmalab__err_fail(RMALAB_ERR_RMA_ATTACH,
                                "%s: rmalab tracks at most %d attached regions per rank (so "
                                "that origins can check their displacements); detach one first",
                                call, RMALAB__MAX_REGIONS);
    if (w->lay.nregions == w->lay.capregions) {
        int cap = w->lay.capregions ? 2 * w->lay.capregions : 4;
        struct rmalab__region *r = rmalab__mem_realloc(w->lay.regions, (size_t)cap * sizeof *r);
        if (!r)
            return rmalab__err_fail(RMALAB_ERR_NO_MEM, "%s: out of memory", call);
        w->lay.regions = r;
        w->lay.capregions = cap;
    }
    return RMALAB_OK;
}

/* Attach [mem, mem + size) to the MPI windows and publish it. MPICH 4.0.2
 * places operations on attached memory right at any alignment (the
 * window's base is MPI_BOTTOM): only created and allocated windows suffer
 * its base rounding. */
static int attach(rmalab_win *w, void *mem, MPI_Aint size, bool owned, MPI_Aint *addr)
{
    int e = MPI_Win_attach(w->win, mem, size);
    if (e == MPI_SUCCESS && w->plain != w->win && (e = MPI_Win_attach(w->plain, mem, size)))
        MPI_Win_detach(w->win, mem);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "MPI_Win_attach");
    MPI_Aint a;
    MPI_Get_address(mem, &a);
    w->lay.regions[w->lay.nregions++] = (struct rmalab__region){mem, a, size, owned};
    publish_regions(w);
    if (addr)
        *addr = a;
    return RMALAB_OK;
}

int rmalab_win_attach(rmalab_win *w, MPI_Aint size, MPI_Aint *addr)
{
    int rc = region_room(w, "attach", size, true);
    if (rc)
        return rc;
    void *mem;
    if (rmalab__mem_align(&mem, RMALAB__MEM_ALIGN, (size_t)rmalab__win_round16(size)))
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "attach: cannot allocate %ld bytes", (long)size);
    memset(mem, 0, (size_t)rmalab__win_round16(size));
    if ((rc = attach(w, mem, size, true, addr)))
        rmalab__mem_free(mem);
    return rc;
}

int rmalab_win_attach_memory(rmalab_win *w, void *base, MPI_Aint size)
{
    int rc = region_room(w, "attach", size, false);
    if (rc)
        return rc;
    if (!base)
        return rmalab__err_fail(RMALAB_ERR_ARG, "attach: the memory is NULL");
    for (int i = 0; i < w->lay.nregions; i++) {
        const struct rmalab__region *r = &w->lay.regions[i];
        if ((char *)base < (char *)r->mem + r->size && (char *)r->mem < (char *)base + size)
            return rmalab__err_fail(RMALAB_ERR_RMA_ATTACH,
                                    "attach: these %ld bytes overlap memory already attached "
                                    "(%ld bytes at %p); MPI forbids attaching it twice",
                                    (long)size, (long)r->size, r->mem);
    }
    return attach(w, base, size, false, NULL);
}

int rmalab_win_detach(rmalab_win *w, MPI_Aint addr)
{
    if (!w)
        return rmalab__err_fail(RMALAB_ERR_WIN, "window is NULL or freed");
    if (w->flavor != RMALAB_FLAVOR_DYNAMIC)
        return rmalab__err_fail(RMALAB_ERR_RMA_FLAVOR, "detach: this is a %s window, not dynamic",
                                rmalab_flavor_name(w->flavor));
    for (int i = 0; i < w->lay.nregions; i++) {
        if (w->lay.regions[i].addr != addr)
            continue;
        int e = MPI_Win_detach(w->win, w->lay.regions[i].mem);
        if (e == MPI_SUCCESS && w->plain != w->win)
            e = MPI_Win_detach(w->plain, w->lay.regions[i].mem);
        if (e != MPI_SUCCESS)
            return rmalab__err_mpi(e, "MPI_Win_detach");
        if (w->lay.regions[i].owned)
            rmalab__mem_free(w->lay.regions[i].mem);
        w->lay.regions[i] = w->lay.regions[--w->lay.nregions];
        publish_regions(w);
        return RMALAB_OK;
    }
    return rmalab__err_fail(RMALAB_ERR_RMA_ATTACH,
                            "detach: no memory of this window is attached at address %ld; use the "
                            "address attach() returned",
                            (long)addr);
}

/* The local bytes [off, off + n) of a displacement: for dynamic windows the
 * displacement is an address inside an attached region. */
/* Is [disp, disp + n) this rank's memory (for dynamic windows: inside an
 * attached region)? *p: where it is. */
static bool local_at(rmalab_win *w, MPI_Aint disp, MPI_Aint n, unsigned char **p)
{
    if (w->flavor == RMALAB_FLAVOR_DYNAMIC) {
        for (int i = 0; i < w->lay.nregions; i++) {
            const struct rmalab__region *r = &w->lay.regions[i];
            if (disp >= r->addr && n <= r->size && disp - r->addr <= r->size - n) {
                *p = (unsigned char *)r->mem + (disp - r->addr);
                return true;
            }
        }
        return false;
    }
    /* In that order, so that no product or sum can overflow. */
    if (disp < 0 || n > w->size_req || disp > (w->size_req - n) / w->disp_unit)
        return false;
    *p = (unsigned char *)w->base + disp * w->disp_unit;
    return true;
}

int rmalab__layout_local(rmalab_win *w, const char *what, MPI_Aint disp, MPI_Aint n,
                         unsigned char **p)
{
    if (local_at(w, disp, n, p))
        return RMALAB_OK;
    if (w->flavor == RMALAB_FLAVOR_DYNAMIC)
        return rmalab__err_fail(RMALAB_ERR_RMA_RANGE,
                                "%s: address %ld (+%ld bytes) is not inside memory attached to "
                                "this dynamic window",
                                what, (long)disp, (long)n);
    char at[64];
    if (disp >= 0 && disp <= w->size_req / w->disp_unit)
        snprintf(at, sizeof at, "byte %ld", (long)(disp * w->disp_unit));
    else
        snprintf(at, sizeof at, "x disp_unit %d", w->disp_unit);
    return rmalab__err_fail(RMALAB_ERR_RMA_RANGE,
                            "%s: displacement %ld (%s) + %ld bytes is outside this rank's window "
                            "of %ld bytes",
                            what, (long)disp, at, (long)n, (long)w->size_req);
}

/* ------------------------------------------------------------------------ */
/* Operations on this process's own memory                                  */

bool rmalab__layout_own(const rmalab_win *w, int target)
{
    return target == w->rank ||
           (w->flavor == RMALAB_FLAVOR_SHARED && target >= 0 && target < w->size &&
            w->lay.nodes[target] == w->lay.nodes[w->rank]);
}

/* Where target's n bytes at disp are in this process, or NULL when they are
 * not memory this process has (rmalab__layout_own), or not a valid
 * target: the operation's own checks, made after this one, refuse that. */
static unsigned char *local_target(rmalab_win *w, int target, MPI_Aint disp, MPI_Aint n)
{
    unsigned char *p = NULL;
    if (target == w->rank)
        return local_at(w, disp, n, &p) ? p : NULL;
    if (!rmalab__layout_own(w, target))
        return NULL;
    MPI_Aint sz, tsize = w->lay.sizes[target];
    int du;
    void *base;
    if (MPI_Win_shared_query(w->win, target, &sz, &du, &base) != MPI_SUCCESS || !base ||
        du <= 0 || disp < 0 || n > tsize || disp > (tsize - n) / du)
        return NULL;
    return (unsigned char *)base + disp * du;
}

static int overlap_error(const rmalab_win *w, const char *what, int target, MPI_Aint disp,
                         const char *role, const char *reach)
{
    return rmalab__err_fail(RMALAB_ERR_ARG,
                            "%s to rank %d: its %s buffer overlaps the bytes it reaches in rank "
                            "%d's window (displacement %ld, %s), which are %s; MPI forbids an "
                            "operation whose buffers overlap its target: copy the data to memory "
                            "of its own first",
                            what, target, role, target, (long)disp, reach,
                            target == w->rank ? "this process's own memory"
                                              : "memory this process shares");
}

int rmalab__layout_overlap(rmalab_win *w, const char *what, int target, MPI_Aint disp,
                           rmalab_type type, int span, const rmalab_vector *vec,
                           const void *mem, size_t n, const char *role)
{
    size_t tsize = (size_t)rmalab_type_size(type);
    unsigned char *p;
    if (!mem || !n || span <= 0 || !(p = local_target(w, target, disp, span * (MPI_Aint)tsize)))
        return RMALAB_OK;
    int blocks = vec ? vec->count : 1;
    size_t len = (vec ? (size_t)vec->blocklen : (size_t)span) * tsize;
    size_t step = vec ? (size_t)vec->stride * tsize : 0;
    uintptr_t a = (uintptr_t)mem, z = a + n;
    int i = 0;
    while (i < blocks && !(a < (uintptr_t)(p + i * step) + len && (uintptr_t)(p + i * step) < z))
        i++;
    if (i == blocks)
        return RMALAB_OK;
    char reach[96];
    if (vec)
        snprintf(reach, sizeof reach, "%d blocks of %d x %s", blocks, vec->blocklen,
                 rmalab_type_name(type));
    else
        snprintf(reach, sizeof reach, "%d x %s", span, rmalab_type_name(type));
    return overlap_error(w, what, target, disp, role, reach);
}

int rmalab__layout_overlap_spans(rmalab_win *w, const char *what, int target, MPI_Aint disp,
                                 const rmalab_span *t, int nt, const void *mem,
                                 const rmalab_span *m, int nm, const char *role)
{
    unsigned char *p;
    if (!nt || !nm || !(p = local_target(w, target, disp, t[nt - 1].off + t[nt - 1].len)))
        return RMALAB_OK;
    uintptr_t tb = (uintptr_t)p, mb = (uintptr_t)mem;
    int i = 0, j = 0; /* both lists ascend: one sweep */
    while (i < nt && j < nm) {
        uintptr_t ta = tb + (uintptr_t)t[i].off, ma = mb + (uintptr_t)m[j].off;
        if (ta < ma + (uintptr_t)m[j].len && ma < ta + (uintptr_t)t[i].len)
            break;
        if (ta + (uintptr_t)t[i].len <= ma + (uintptr_t)m[j].len)
            i++;
        else
            j++;
    }
    if (i == nt || j == nm)
        return RMALAB_OK;
    char reach[96];
    snprintf(reach, sizeof reach, "%d spans of its target datatype", nt);
    return overlap_error(w, what, target, disp, role, reach);
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
const int *rmalab_win_world_ranks(const rmalab_win *w) { return w ? w->lay.world_ranks : NULL; }

MPI_Aint rmalab_win_size_of(const rmalab_win *w, int rank)
{
    return w && rank >= 0 && rank < w->size ? w->lay.sizes[rank] : -1;
}

int rmalab_win_shared_query(rmalab_win *w, int rank, MPI_Aint *size, int *disp_unit,
                            void **base)
{
    RMALAB__CHECK_WIN(w);
    if (w->flavor != RMALAB_FLAVOR_SHARED)
        return rmalab__err_fail(RMALAB_ERR_WIN,
                                "shared_query: this window was made by %s, and only "
                                "win_allocate_shared windows share memory between ranks",
                                rmalab_flavor_name(w->flavor));
    if (rank < 0 || rank >= w->size)
        return rmalab__err_fail(
            RMALAB_ERR_RANK, "shared_query: rank %d is not in the window's group (ranks 0 to %d)",
            rank, w->size - 1);
    if (w->lay.nodes[rank] != w->lay.nodes[w->rank])
        return rmalab__err_fail(RMALAB_ERR_RANK,
                                "shared_query: rank %d is on another node, and its segment is not "
                                "memory this rank shares; use RMA calls to reach it",
                                rank);
    MPI_Aint sz;
    int du;
    void *p;
    int e = MPI_Win_shared_query(w->win, rank, &sz, &du, &p);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "MPI_Win_shared_query");
    *size = w->lay.sizes[rank];
    *disp_unit = du;
    *base = p;
    return RMALAB_OK;
}

int rmalab_win_disp_unit_of(const rmalab_win *w, int rank)
{
    return w && rank >= 0 && rank < w->size ? w->lay.disp_units[rank] : -1;
}

int rmalab_win_set_name(rmalab_win *w, const char *name)
{
    if (!w)
        return rmalab__err_fail(RMALAB_ERR_WIN, "window is NULL or freed");
    if (!name)
        return rmalab__err_fail(RMALAB_ERR_ARG, "set_name: name is NULL");
    if (strlen(name) >= sizeof w->name)
        return rmalab__err_fail(RMALAB_ERR_ARG, "set_name: names hold at most %zu characters",
                                sizeof w->name - 1);
    rmalab__win_state_lock(w);
    snprintf(w->name, sizeof w->name, "%s", name);
    rmalab__win_state_unlock(w);
    MPI_Win_set_name(w->win, name);
    return RMALAB_OK;
}

const char *rmalab_win_get_name(const rmalab_win *w)
{
    return w ? w->name : "";
}

