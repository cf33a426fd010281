/* Window hints after creation: set_info, get_info, the report and the
 * agreement check; and the rules creation shares with them (win.c): which
 * hints an MPI window gets, whether no_locks is promised, and which PSCW
 * engine the hints choose. Calls layout.c, the engines and hints-report.c. */
#include "win-private.h"
#include "error-private.h"
#include "hints-private.h"
#include "hints-validate.h"
#include "block.h"
#include "layout.h"
#include "engine-native.h"
#include "engine-rma.h"
#include "win-hints.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const rmalab__engine *const engines[] = {&rmalab__engine_rma, &rmalab__engine_native};

static const rmalab__engine *find_engine(const char *name)
{
    for (size_t i = 0; name && i < sizeof engines / sizeof *engines; i++)
        if (strcmp(name, engines[i]->name) == 0)
            return engines[i];
    return NULL;
}

/* The PSCW engine: the rmalab_pscw hint, else the environment variable
 * RMALAB_PSCW ("native" or "rma", so that a whole program or test suite
 * can run on either engine unchanged), else rma: MPICH 4.0.2's own
 * matching counts posts from any rank and any epoch, so an early post of
 * the next epoch can hang a correct program there (docs/pscw.md). */
const rmalab__engine *rmalab__win_hints_engine(const rmalab_info *valid, rmalab_diags *diags)
{
    const rmalab__engine *e = find_engine(rmalab__hints_lookup(valid, RMALAB_KEY_PSCW));
    const char *env = getenv("RMALAB_PSCW");
    if (!e && env && *env && !(e = find_engine(env)))
        rmalab__hints_validate_diag_add(diags, RMALAB_KEY_PSCW, "the environment variable "
                                        "RMALAB_PSCW=\"%s\" is neither \"native\" nor \"rma\"; "
                                        "using rma", env);
    return e ? e : engines[0];
}

/* The engine's place in engines[], which creation's first agreement
 * compares. */
int rmalab__win_hints_engine_index(const rmalab__engine *e)
{
    return e == engines[0] ? 0 : 1 + (e != engines[1]);
}

/* Whether the canonical hints `valid` promise no_locks, or `fallback`. */
bool rmalab__win_hints_no_locks(const rmalab_info *valid, bool fallback)
{
    const char *v = rmalab__hints_lookup(valid, RMALAB_KEY_NO_LOCKS);
    return v ? strcmp(v, "true") == 0 : fallback;
}

/* The hints in `valid` for an MPI window: all of them for `plain`, but
 * without no_locks for the window of an engine that keeps it in a lock_all
 * of its own (`engine_window`). A fresh MPI_Info: MPICH rewrites it. */
int rmalab__win_hints_to_mpi(const rmalab_win *w, const rmalab_info *valid,
                             bool engine_window, MPI_Info *out)
{
    int rc = rmalab_info_to_mpi(valid, out);
    if (!rc && engine_window && w->eng->own_lock_all &&
        rmalab__hints_lookup(valid, RMALAB_KEY_NO_LOCKS))
        MPI_Info_delete(*out, RMALAB_KEY_NO_LOCKS);
    return rc;
}


/* Local: the MPI infos of `valid` (MPICH rewrites what it is given): for
 * the fence and lock window every hint, for the rma engine's own window
 * all but no_locks (MPI_INFO_NULL when there is no such window); when
 * they are one window, all but no_locks. */
static int set_info_prepare(rmalab_win *w, const rmalab_info *valid, MPI_Info mi[2])
{
    int rc = rmalab__win_hints_to_mpi(w, valid, w->plain == w->win, &mi[0]);
    if (!rc && w->plain != w->win)
        rc = rmalab__win_hints_to_mpi(w, valid, true, &mi[1]);
    return rc;
}

/* Collective: MPI_Win_set_info on both windows, then every rank's
 * no_locks (exchanged whatever MPI said, so that every rank makes the same
 * collective calls). */
static int set_info_mpi(rmalab_win *w, const rmalab_info *valid, MPI_Info mi[2])
{
    int e = MPI_Win_set_info(w->plain, mi[0]);
    if (e == MPI_SUCCESS && mi[1] != MPI_INFO_NULL)
        e = MPI_Win_set_info(w->win, mi[1]);
    bool mine = w->lay.no_locks[w->rank];
    int rc = rmalab__layout_set_no_locks(
        w, e == MPI_SUCCESS ? rmalab__win_hints_no_locks(valid, mine) : mine);
    return e != MPI_SUCCESS ? rmalab__err_mpi(e, "MPI_Win_set_info") : rc;
}

/* Local: the keys MPICH or rmalab reads at creation only, as diagnostics. */
static void set_info_diags(const rmalab_info *info, rmalab_diags *diags)
{
    int n = 0;
    if (info)
        rmalab_info_get_nkeys(info, &n);
    for (int i = 0; i < n; i++) {
        const char *k;
        rmalab_info_nth((rmalab_info *)info, i, &k, NULL, NULL, NULL);
        const rmalab_hint_def *d = rmalab_hints_find(RMALAB_SCOPE_WIN, k);
        if (d && !d->after_create)
            rmalab__hints_validate_diag_add(
                diags, k,
                "%s is read only when the window is created; %s ignores it in "
                "set_info. Give it at creation instead",
                k, d->rmalab_own ? "rmalab" : "MPICH 4.0.2");
    }
}

/* `status`: a failure the caller found itself. Everything that can fail
 * on one rank alone (validation, memory) comes before the agreement, and
 * a failure on any rank leaves every rank's hints as they were. */
static int set_info_call(rmalab_win *w, const rmalab_info *info, rmalab_diags *diags,
                         int status)
{
    if (!w)
        return status ? status : rmalab__err_fail(RMALAB_ERR_WIN, "window is NULL or freed");
    rmalab_info *valid = NULL;
    MPI_Info mi[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
    int rc = status ? status : rmalab_hints_validate(RMALAB_SCOPE_WIN, info, &valid, diags);
    if (!rc) {
        set_info_diags(info, diags);
        rc = set_info_prepare(w, valid, mi);
    }
    rmalab__err_packet agree;
    rmalab__err_agree_pack(&agree, rc, "setting the window's hints", 0, 0);
    rmalab__block b;
    int entered = rmalab__win_block_agree(w, &b, "set_info", &agree);
    if (entered && !rc)
        rc = entered;
    if (!entered) {
        if (!(rc = rmalab__block_agree(&b, NULL)))
            rc = set_info_mpi(w, valid, mi);
        rmalab__win_unblock(w, &b);
    }
    int n = 0;
    if (info && !rc)
        rmalab_info_get_nkeys(info, &n);
    for (int i = 0; i < n && !rc; i++) {
        const char *k, *v;
        size_t kl, vl;
        rmalab_info_nth((rmalab_info *)info, i, &k, &kl, &v, &vl);
        rc = rmalab_info_set_n(w->requested, k, kl, v, vl);
    }
    for (int i = 0; i < 2; i++)
        if (mi[i] != MPI_INFO_NULL)
            MPI_Info_free(&mi[i]);
    rmalab_info_destroy(&valid);
    return rc;
}

int rmalab_win_set_info(rmalab_win *w, const rmalab_info *info, rmalab_diags *diags)
{
    rmalab__block_call_begin();
    return rmalab__win_call_end(rmalab__win_id(w), "set_info",
                                set_info_call(w, info, diags, RMALAB_OK));
}

int rmalab_win_set_info_status(rmalab_win *w, const rmalab_info *info, rmalab_diags *diags,
                               int status)
{
    rmalab__block_call_begin();
    return rmalab__win_call_end(rmalab__win_id(w), "set_info",
                                set_info_call(w, info, diags, status));
}

/* The value in force of rmalab's own window hint `key`, or NULL when it is
 * not in force (the trace size of a window that does not record). The
 * catalogue (hints.c) lists the own hints, and get_info reports each row
 * it lists through this one function. hints.c sits below the window and
 * cannot read it, and what is in force can change after creation in the
 * files that own it (tracing starts and stops in trace.c; the race checker
 * and the engine are chosen at creation), so the window's side of each row
 * is read here, where the key constant of the row names it: a new own
 * window hint is its catalogue row, a branch here and the code that uses
 * it.
 * `buf` holds text this function makes. */
static const char *own_value(rmalab_win *w, const char *key, char *buf, size_t size)
{
    rmalab_trace_status ts;
    rmalab_win_trace_status(w, &ts);
    if (strcmp(key, RMALAB_KEY_PSCW) == 0)
        return w->eng->name;
    if (strcmp(key, RMALAB_KEY_TRACE) == 0)
        return ts.on ? "true" : "false";
    if (strcmp(key, RMALAB_KEY_TRACE_SIZE) == 0 && ts.on) {
        snprintf(buf, size, "%d", ts.capacity);
        return buf;
    }
    if (strcmp(key, RMALAB_KEY_CHECK) == 0)
        return rmalab_check_mode_name(rmalab_win_check_mode(w));
    return NULL;
}

/* The value in force of the catalogue's row `d` where MPI's report
 * `mpi` does not give it, or NULL to keep MPI's report: rmalab's own
 * hints, which MPI never sees, and keys MPICH 4.0.2 reports unrelated text
 * for (what was in force from creation, or the default). */
static const char *in_force(rmalab_win *w, const rmalab_info *mpi, const rmalab_hint_def *d,
                            char *buf, size_t size)
{
    if (d->rmalab_own)
        return own_value(w, d->key, buf, size);
    if (w->plain == w->win && w->eng->own_lock_all && strcmp(d->key, RMALAB_KEY_NO_LOCKS) == 0)
        return w->lay.no_locks[w->rank] ? "true" : "false"; /* MPICH is not told: rmalab holds it */
    if (!d->report_unreliable || !rmalab__hints_lookup(mpi, d->key))
        return NULL;
    const char *v = rmalab__hints_lookup(w->at_create, d->key);
    return v ? v : d->default_value;
}

int rmalab_win_get_info(rmalab_win *w, rmalab_info **out)
{
    if (!w)
        return rmalab__err_fail(RMALAB_ERR_WIN, "window is NULL or freed");
    MPI_Info mi = MPI_INFO_NULL;
    int e = MPI_Win_get_info(w->plain, &mi); /* the window with every hint */
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "MPI_Win_get_info");
    rmalab_info *info;
    int rc = rmalab_info_from_mpi(mi, &info);
    MPI_Info_free(&mi);
    if (rc)
        return rc;
    for (int i = 0; i < rmalab_hints_count(RMALAB_SCOPE_WIN) && !rc; i++) {
        const rmalab_hint_def *d = rmalab_hints_at(RMALAB_SCOPE_WIN, i);
        char buf[16];
        const char *v = in_force(w, info, d, buf, sizeof buf);
        if (v)
            rc = rmalab_info_set(info, d->key, v);
    }
    if (!rc && w->eng->info)
        rc = w->eng->info(w, info);
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
        return rmalab__err_fail(RMALAB_ERR_WIN, "window is NULL or freed");
    return rmalab_hints_check_agreement(w->comm, RMALAB_SCOPE_WIN, w->requested, out);
}
