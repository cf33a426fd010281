/* The race checker's reports (docs/races.md): a race in words (which
 * accesses, why nothing orders them, the fix), the process's list of
 * races (rmalab/races.h), what a call that found races does (raise, warn
 * or keep quiet, with every rank at fence and free), and the reports of a
 * communicator's processes: their total, and their texts on rank 0. */
#include "races-private.h"
#include "races-report.h"
#include "alloc.h"
#include "error-private.h"
#include "sync-kinds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Call sites                                                               */

static _Thread_local char site_now[48];

/* Both run on every access of a checked window: plain copies. */
static void copy(char *dst, size_t size, const char *src)
{
    size_t n = strnlen(src, size - 1);
    memcpy(dst, src, n);
    dst[n] = 0;
}

void rmalab_check_site(const char *site)
{
    copy(site_now, sizeof site_now, site ? site : "");
}

void rmalab__races_report_site(char *buf, size_t size, const char *fallback)
{
    copy(buf, size, site_now[0] ? site_now : fallback);
    site_now[0] = 0;
}

void rmalab__races_report_site_keep(char *buf, size_t size, const char *fallback)
{
    copy(buf, size, site_now[0] ? site_now : fallback);
}

static struct {
    rmalab_race *list;
    int n, cap;
    uint64_t found, seq;
} session;

void rmalab_races(const rmalab_race **list, int *n, uint64_t *found)
{
    *list = session.list;
    *n = session.n;
    if (found)
        *found = session.found;
}

void rmalab_races_clear(void)
{
    session.n = 0;
    session.found = 0;
}

static const char *kind_name(const rmalab__racc *r)
{
    return r->kind == RMALAB__RK_READ ? "read" : r->kind == RMALAB__RK_WRITE ? "write" : "atomic";
}

static const char *call_name(const rmalab__racc *r)
{
    if (r->call == RMALAB__RC_READ)
        return "win:read";
    if (r->call == RMALAB__RC_WRITE)
        return "win:write";
    return rmalab_trace_kind_name((rmalab_trace_kind)r->call);
}

/* The epoch an access was made in (rmalab/sync.h), NULL for none. */
static const rmalab_sync_epoch *epoch_of(const rmalab__racc *r)
{
    return r->during < RMALAB_SYNC_NKINDS ? rmalab__kind_rows[r->during].opens : NULL;
}

static void during_text(const rmalab__racc *r, char *buf, size_t size)
{
    static const char *const lock[] = {"", ", holding a shared lock on itself",
                                       ", holding an exclusive lock on itself"};
    const rmalab_sync_epoch *e = epoch_of(r);
    if (r->local)
        snprintf(buf, size, "%s%s", e ? e->exposure_text : "outside any exposure epoch",
                 lock[r->lock % 3]);
    else if (rmalab__kind_rows[r->during].scope == RMALAB_SYNC_PEER) /* lock */
        snprintf(buf, size, "%s(%d, \"%s\")", e->access_text, r->target,
                 r->lock == 2 ? "exclusive" : "shared");
    else
        snprintf(buf, size, "%s", e->access_text);
}

/* What completes a remote access. */
static const char *completer(const rmalab__racc *r)
{
    return epoch_of(r)->completed_by;
}

/* A local access during the exposure epoch in which the remote one may
 * land (fence, post and start), or NULL. */
static const rmalab_sync_epoch *landing(const rmalab__racc *loc, const rmalab__racc *rem)
{
    const rmalab_sync_epoch *e = epoch_of(loc);
    return e && e->landed_by == rem->during ? e : NULL;
}

/* Why two atomic accesses are not atomic together. */
static void why_atomic(const rmalab__racc *a, const rmalab__racc *b, char *buf, size_t size)
{
    const char *ta = rmalab_type_name((rmalab_type)a->type);
    if (a->type != b->type)
        snprintf(buf, size, "accumulates of %s and %s are not atomic with respect to each "
                 "other: MPI's atomicity needs the same basic type\n  fix: use one type "
                 "for a location", ta, rmalab_type_name((rmalab_type)b->type));
    else if ((a->lo - b->lo) % rmalab_type_size((rmalab_type)a->type))
        snprintf(buf, size, "their %s elements start %lld byte%s apart: atomicity is per "
                 "element\n  fix: use the same displacements", ta,
                 (long long)llabs((long long)(a->lo - b->lo)),
                 llabs((long long)(a->lo - b->lo)) == 1 ? "" : "s");
    else
        snprintf(buf, size, "ops %s and %s differ: MPI makes accumulates atomic only with "
                 "the same op (and no_op)\n  fix: one op per location in an epoch, or "
                 "order them", a->op == RMALAB_NOPS ? "compare_and_swap"
                                                    : rmalab_op_name((rmalab_op)a->op),
                 b->op == RMALAB_NOPS ? "compare_and_swap" : rmalab_op_name((rmalab_op)b->op));
}

/* Why two remote accesses from different origins are not ordered. */
static void why_remote(const rmalab__racc *a, const rmalab__racc *b, char *buf, size_t size)
{
    if (a->lock && b->lock)
        snprintf(buf, size, "both under shared locks of rank %d (lock_all counts as "
                 "shared): shared locks do not exclude each other\n  fix: take "
                 "lock(%d, \"exclusive\"), or a barrier after the first unlock",
                 a->target, a->target);
    else if (a->during == b->during && epoch_of(a)->together)
        snprintf(buf, size, "%s of rank %d, from different origins\n  fix: %s",
                 epoch_of(a)->together, a->target, epoch_of(a)->together_fix);
    else
        snprintf(buf, size, "no synchronisation orders rank %d's %s and rank %d's %s\n"
                 "  fix: order them with a barrier, fence or PSCW epoch",
                 a->issuer, call_name(a), b->issuer, call_name(b));
}

/* Why a target's local access `loc` and a remote one `rem` are not ordered. */
static void why_local(const struct rmalab__races *R, const rmalab__racc *rem,
                      const rmalab__racc *loc, char *buf, size_t size)
{
    int o = rem->issuer, t = loc->issuer;
    const rmalab_sync_epoch *x = landing(loc, rem);
    if (x)
        snprintf(buf, size, "rank %d's %s happened %s, in which rank %d's %s may land%s\n"
                 "  fix: access local memory %s", t, call_name(loc), x->landing_when, o,
                 call_name(rem), x->landing_until, x->landing_fix);
    else if (rem->lock && loc->lock)
        snprintf(buf, size, "rank %d's %s and rank %d's %s both hold shared locks on rank %d "
                 "(lock_all counts as shared): shared locks do not exclude each other\n  fix: "
                 "take lock(%d, \"exclusive\") for one of them, or a barrier after the unlock",
                 t, call_name(loc), o, call_name(rem), t, t);
    else if (rem->lock && !loc->lock)
        snprintf(buf, size, "rank %d's %s holds no lock on itself, and nothing orders rank "
                 "%d's %s (complete only at %s) before or after it\n  fix: access under "
                 "lock(%d, \"exclusive\") on itself, or a barrier after the unlock",
                 t, call_name(loc), o, call_name(rem), completer(rem), t);
    else if (rem->vc[loc->entry] >= loc->c && rem->c > loc->vc[rem->entry])
        snprintf(buf, size, "rank %d's %s completes only at %s, and nothing orders that "
                 "before rank %d's %s\n  fix: complete it before the synchronisation that "
                 "orders them", o, call_name(rem), completer(rem), t, call_name(loc));
    else
        snprintf(buf, size, "no synchronisation orders rank %d's %s and rank %d's %s\n"
                 "  fix: order them with a barrier, fence or PSCW epoch",
                 o, call_name(rem), t, call_name(loc));
}

/* Why neither access is ordered, and the fix: the first rule that matches.
 * Pure functions of the two records, so the same on every run. */
static void why(const struct rmalab__races *R, const rmalab__racc *a, const rmalab__racc *b,
                char *buf, size_t size)
{
    if (a->kind == RMALAB__RK_ATOMIC && b->kind == RMALAB__RK_ATOMIC) {
        why_atomic(a, b, buf, size);
    } else if (a->issuer == b->issuer) {
        const rmalab__racc *first = a->id < b->id ? a : b;
        snprintf(buf, size, "both from rank %d, and its %s completes only at %s, after the %s "
                 "was issued: MPI does not order one origin's operations before that\n  fix: "
                 "flush between them (passive target), or put them in different epochs",
                 a->issuer, call_name(first), completer(first),
                 call_name(first == a ? b : a));
    } else if (!a->local && !b->local) {
        why_remote(a, b, buf, size);
    } else {
        why_local(R, a->local ? b : a, a->local ? a : b, buf, size);
    }
}

static void fill_access(const rmalab__racc *r, rmalab_race_access *x)
{
    x->rank = r->issuer;
    snprintf(x->call, sizeof x->call, "%s", call_name(r));
    snprintf(x->kind, sizeof x->kind, "%s", kind_name(r));
    snprintf(x->site, sizeof x->site, "%s", r->site);
    during_text(r, x->during, sizeof x->during);
}

static int access_line(char *buf, size_t size, const rmalab_race_access *x,
                       const rmalab__racc *r)
{
    return snprintf(buf, size, "  rank %d  %-6s %s(%s x%u) at %s, %s\n", x->rank, x->kind,
                    x->call, rmalab_type_name((rmalab_type)r->type), r->count, x->site,
                    x->during);
}

/* `at` names the call that found it; NULL: the access `b` itself. */
/* The same race again: the same window, rank, bytes and pair of calls from
 * the same sites (a polling loop's reads against one put). */
static bool known(const rmalab_race *x)
{
    for (int i = session.n - 1; i >= 0; i--) {
        const rmalab_race *y = &session.list[i];
        if (y->target == x->target && y->lo == x->lo && y->hi == x->hi &&
            y->a.rank == x->a.rank && y->b.rank == x->b.rank &&
            strcmp(y->a.site, x->a.site) == 0 && strcmp(y->b.site, x->b.site) == 0 &&
            strcmp(y->a.call, x->a.call) == 0 && strcmp(y->b.call, x->b.call) == 0 &&
            strcmp(y->window, x->window) == 0)
            return true;
    }
    return false;
}

/* A new race joins the call's list for the recorder (the event layer hands
 * it on); out of memory, the recorder misses it, the report stays. */
static void found(struct rmalab__races *R, const rmalab_race *x, const rmalab__racc *a,
                  const rmalab__racc *b)
{
    if (R->nfound == R->capfound) {
        int cap = R->capfound ? 2 * R->capfound : 4;
        struct rmalab__races_found *p = rmalab__mem_realloc(R->found, (size_t)cap * sizeof *p);
        if (!p)
            return;
        R->found = p;
        R->capfound = cap;
    }
    R->found[R->nfound++] = (struct rmalab__races_found){
        .seq = (uint32_t)x->seq, .target = x->target, .lo = x->lo, .hi = x->hi,
        .issuer = {a->issuer, b->issuer}, .id = {a->id, b->id}};
}

static void report(struct rmalab__races *R, const rmalab__racc *a, const rmalab__racc *b,
                   const char *at)
{
    rmalab_race x = {0};
    if (at)
        snprintf(x.found_at, sizeof x.found_at, "%s", at);
    else
        snprintf(x.found_at, sizeof x.found_at, "%s() at %s", call_name(b), b->site);
    if (a->issuer > b->issuer || (a->issuer == b->issuer && a->id > b->id)) {
        const rmalab__racc *t = a;
        a = b;
        b = t;
    }
    snprintf(x.window, sizeof x.window, "%s", R->name);
    x.target = a->target;
    x.lo = a->lo > b->lo ? a->lo : b->lo;
    x.hi = a->hi < b->hi ? a->hi : b->hi;
    fill_access(a, &x.a);
    fill_access(b, &x.b);
    if (known(&x))
        return;
    x.seq = ++session.seq;
    why(R, a, b, x.why, sizeof x.why);
    x.found_by = R->rank;
    size_t n = (size_t)snprintf(x.text, sizeof x.text, "race on window %s%s%s, rank %d, %s "
                                "%lld-%lld:\n", x.window[0] ? "\"" : "",
                                x.window[0] ? x.window : "(unnamed)", x.window[0] ? "\"" : "",
                                x.target,
                                R->dynamic ? "addresses" : "bytes",
                                (long long)x.lo, (long long)x.hi - 1);
    if (n < sizeof x.text)
        n += (size_t)access_line(x.text + n, sizeof x.text - n, &x.a, a);
    if (n < sizeof x.text)
        n += (size_t)access_line(x.text + n, sizeof x.text - n, &x.b, b);
    if (n < sizeof x.text)
        snprintf(x.text + n, sizeof x.text - n, "  not ordered: %s\n  found by rank %d at %s",
                 x.why, x.found_by, x.found_at);
    session.found++;
    if (R->found_now++ == 0)
        snprintf(R->now_text, sizeof R->now_text, "%s", x.text);
    if (session.n == session.cap && session.cap < RMALAB_RACES_KEEP) {
        int cap = session.cap ? 2 * session.cap : 16;
        rmalab_race *p = rmalab__mem_realloc(session.list, (size_t)cap * sizeof *p);
        if (p) {
            session.list = p;
            session.cap = cap;
        }
    }
    if (session.n < session.cap)
        session.list[session.n++] = x;
    found(R, &x, a, b);
}

void rmalab__races_report(struct rmalab__races *R, struct rmalab__rlist *pairs, const char *at)
{
    size_t sz = rmalab__races_racc_size();
    for (int i = 0; i + 1 < pairs->n; i += 2)
        report(R, (const rmalab__racc *)(pairs->p + (size_t)i * sz),
               (const rmalab__racc *)(pairs->p + (size_t)(i + 1) * sz), at);
    pairs->n = 0;
}

/* ------------------------------------------------------------------------ */
/* What a call that found races does                                        */

/* "wait() at x.lua:31" */
void rmalab__races_report_where(char *buf, size_t size, const char *call)
{
    char site[48];
    rmalab__races_report_site(site, sizeof site, "");
    snprintf(buf, size, site[0] ? "%s() at %s" : "%s()", call, site);
}

/* What this rank found during `call`: raised, printed or kept. */
int rmalab__races_report_finish(struct rmalab__races *R, const char *call, int rc)
{
    unsigned n = R->found_now;
    R->found_now = 0;
    if (rc || !n || R->mode == RMALAB_CHECK_QUIET)
        return rc;
    char more[96] = "";
    if (n > 1)
        snprintf(more, sizeof more, "\n(and %u more races: rmalab.races.list())", n - 1);
    if (R->mode == RMALAB_CHECK_WARN) {
        rmalab__err_warn("rmalab: %s%s\n(races:warn: continuing)", R->now_text, more);
        return RMALAB_OK;
    }
    return rmalab__err_found_by(
        rmalab__err_fail(RMALAB_ERR_RMA_CONFLICT, "%s: %s%s", call, R->now_text, more),
        R->world[R->rank]);
}

/* Collective: the lowest rank that found a race tells the others, so that
 * in mode races every rank raises at the same fence or free. `S` holds
 * this rank's release clock and gets the join; NULL: no clock. When no rank
 * of the window raises (R->raise_together), no rank needs to hear of another's
 * race, and the fence's messages joined the clocks already (races-wire.c):
 * each rank only finishes its own. */
int rmalab__races_report_finish_together(struct rmalab__races *R, int64_t *S, const char *call)
{
    if (!R->raise_together)
        return rmalab__races_report_finish(R, call, RMALAB_OK);
    int W = rmalab__clock_size();
    int64_t *v = R->together;
    if (S)
        memcpy(v, S, (size_t)W * sizeof *v);
    else
        memset(v, 0, (size_t)W * sizeof *v);
    v[W] = R->found_now ? R->size - R->rank : 0;
    int e = MPI_Allreduce(MPI_IN_PLACE, v, W + 1, MPI_INT64_T, MPI_MAX, R->comm);
    int64_t code = v[W];
    if (e == MPI_SUCCESS && S)
        rmalab__clock_acquire(v);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "joining the race checker's clocks");
    if (!code)
        return RMALAB_OK;
    int finder = R->size - (int)code;
    char first[sizeof R->now_text];
    memcpy(first, R->now_text, sizeof first);
    e = MPI_Bcast(first, sizeof first, MPI_CHAR, finder, R->comm);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "sharing a race report");
    if (R->found_now) /* this rank's own report */
        return rmalab__races_report_finish(R, call, RMALAB_OK);
    if (R->mode != RMALAB_CHECK_RACES)
        return RMALAB_OK;
    return rmalab__err_found_by(
        rmalab__err_fail(RMALAB_ERR_RMA_CONFLICT, "%s: rank %d found a race on this window:\n%s",
                         call, finder, first),
        R->world[finder]);
}

/* ------------------------------------------------------------------------ */
/* A communicator's races                                                   */

int rmalab_races_total(MPI_Comm comm, uint64_t *total)
{
    int refused = rmalab__err_collective_refused("races total");
    if (refused)
        return refused;
    const rmalab_race *l;
    int n;
    uint64_t found;
    rmalab_races(&l, &n, &found);
    int e = MPI_Allreduce(&found, total, 1, MPI_UINT64_T, MPI_SUM, comm);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__err_mpi(e, "MPI_Allreduce (races total)");
}

/* This rank's reports, one after the other. */
static char *own_text(void)
{
    const rmalab_race *l;
    int n;
    uint64_t found;
    rmalab_races(&l, &n, &found);
    size_t size = 1;
    for (int i = 0; i < n; i++)
        size += strlen(l[i].text) + 2;
    size += 128;
    char *s = rmalab__mem_alloc(size), *p = s;
    if (!s)
        return NULL;
    *p = 0;
    for (int i = 0; i < n; i++)
        p += sprintf(p, "%s\n\n", l[i].text);
    if (found > (uint64_t)n)
        sprintf(p, "(%llu more races were found than kept)\n\n",
                (unsigned long long)(found - (uint64_t)n));
    return s;
}

/* Rank 0 gets every rank's text; lens has 2 * size ints on rank 0. */
static int gather_text(MPI_Comm comm, int rank, int size, const char *mine, int *lens,
                       char **text)
{
    int len = (int)strlen(mine), total = 0, *offs = lens ? lens + size : NULL;
    int e = MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, comm);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "gathering race reports");
    for (int i = 0; rank == 0 && i < size; i++) {
        offs[i] = total;
        total += lens[i];
    }
    char *all = rank == 0 ? malloc((size_t)total + 32) : NULL; /* the caller's: free() */
    int rc = rank == 0 && !all
                 ? rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory gathering race reports")
                 : RMALAB_OK;
    rc = rmalab__err_agree(comm, rc, "gathering race reports");
    if (!rc && (e = MPI_Gatherv(mine, len, MPI_CHAR, all, lens, offs, MPI_CHAR, 0, comm)) !=
                   MPI_SUCCESS)
        rc = rmalab__err_mpi(e, "gathering race reports");
    if (rc) {
        free(all);
        return rc;
    }
    if (rank == 0) {
        while (total > 0 && all[total - 1] == '\n')
            total--;
        all[total] = 0;
        if (!total)
            strcpy(all, "no races found");
        *text = all;
    }
    return RMALAB_OK;
}

int rmalab_races_text(MPI_Comm comm, char **text)
{
    int refused = rmalab__err_collective_refused("races text");
    if (refused)
        return refused;
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    *text = NULL;
    char *mine = own_text();
    int *lens = rank == 0 ? rmalab__mem_calloc(2 * (size_t)size, sizeof *lens) : NULL;
    int rc = !mine || (rank == 0 && !lens)
                 ? rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory gathering race reports")
                 : RMALAB_OK;
    if (!(rc = rmalab__err_agree(comm, rc, "gathering race reports")))
        rc = gather_text(comm, rank, size, mine, lens, text);
    rmalab__mem_free(mine);
    rmalab__mem_free(lens);
    return rc;
}
