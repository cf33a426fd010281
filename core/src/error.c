/* The status table of the core and the per-thread detail of the last
 * failure. Internal code fails through rmalab__err_fail(), which records a
 * formatted message and returns the code, so that every error path is one
 * expression: `return rmalab__err_fail(RMALAB_ERR_ARG, "...", ...);`. Warnings,
 * which fail nothing, leave through rmalab__err_warn and the embedder's
 * function. */
#include "private.h"
#include "error-private.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    const char *msg;
} err_table[] = {
    {"SUCCESS", "no error"},
#define RMALAB__ROW(name, msg) {"ERR_" #name, msg},
    RMALAB_ERRNO_MAP(RMALAB__ROW)
#undef RMALAB__ROW
};

static _Thread_local char last_msg[2048];
static _Thread_local int last_finder = -1; /* rmalab_err_finder */
static _Thread_local char went_msg[2048];  /* rmalab_err_went_on */
static _Thread_local int went_code;

const char *rmalab_err_name(int code)
{
    if (code < 0 || code >= RMALAB_ERR_LASTCODE)
        return "ERR_UNKNOWN";
    return err_table[code].name;
}

const char *rmalab_strerror(int code)
{
    if (code < 0 || code >= RMALAB_ERR_LASTCODE)
        return "unknown error code";
    return err_table[code].msg;
}

const char *rmalab_errmsg(void)
{
    return last_msg;
}

int rmalab__err_vfail(int code, const char *fmt, va_list ap)
{
    last_finder = -1;
    if (fmt)
        vsnprintf(last_msg, sizeof last_msg, fmt, ap);
    else
        snprintf(last_msg, sizeof last_msg, "%s", rmalab_strerror(code));
    return code;
}

int rmalab__err_found_by(int code, int world_rank)
{
    last_finder = world_rank;
    return code;
}

int rmalab_err_finder(void)
{
    return last_finder;
}

int rmalab_set_error(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rmalab__err_vfail(code, fmt, ap);
    va_end(ap);
    return code;
}

int rmalab__err_went_on(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(went_msg, sizeof went_msg, fmt, ap);
    va_end(ap);
    went_code = code;
    return RMALAB_OK;
}

int rmalab_err_went_on(const char **msg)
{
    int code = went_code;
    went_code = RMALAB_OK;
    if (msg)
        *msg = went_msg;
    return code;
}

int rmalab__err_prefix(int code, const char *fmt, ...)
{
    char head[512], tail[sizeof last_msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    snprintf(tail, sizeof tail, "%s", last_msg);
    snprintf(last_msg, sizeof last_msg, "%s: %s", head, tail);
    return code;
}

/* Map an MPI error code onto the core's codes, keeping MPI's own text. */
int rmalab__err_mpi(int mpierr, const char *what)
{
    int cls = MPI_ERR_OTHER, code, len = 0;
    char text[MPI_MAX_ERROR_STRING + 1] = "";
    MPI_Error_class(mpierr, &cls);
    MPI_Error_string(mpierr, text, &len);
    switch (cls) {
    case MPI_ERR_ARG: code = RMALAB_ERR_ARG; break;
    case MPI_ERR_INFO_KEY: code = RMALAB_ERR_INFO_KEY; break;
    case MPI_ERR_INFO_VALUE: code = RMALAB_ERR_INFO_VALUE; break;
    case MPI_ERR_INFO_NOKEY: code = RMALAB_ERR_INFO_NOKEY; break;
    case MPI_ERR_INFO: code = RMALAB_ERR_INFO; break;
    case MPI_ERR_RMA_SYNC: code = RMALAB_ERR_RMA_SYNC; break;
    case MPI_ERR_RMA_RANGE: code = RMALAB_ERR_RMA_RANGE; break;
    case MPI_ERR_RMA_ATTACH: code = RMALAB_ERR_RMA_ATTACH; break;
    case MPI_ERR_RMA_FLAVOR: code = RMALAB_ERR_RMA_FLAVOR; break;
    case MPI_ERR_RANK: code = RMALAB_ERR_RANK; break;
    case MPI_ERR_GROUP: code = RMALAB_ERR_GROUP; break;
    case MPI_ERR_KEYVAL: code = RMALAB_ERR_KEYVAL; break;
    case MPI_ERR_COMM: code = RMALAB_ERR_COMM; break;
    case MPI_ERR_WIN: code = RMALAB_ERR_WIN; break;
    case MPI_ERR_NO_MEM: code = RMALAB_ERR_NO_MEM; break;
    case MPI_ERR_TRUNCATE: code = RMALAB_ERR_TRUNCATE; break;
    default: code = RMALAB_ERR_OTHER; break;
    }
    return rmalab__err_fail(code, "%s failed in MPI: %s", what, text);
}

/* A number for the step or call `what` names (FNV-1a), the same on every
 * rank, so that ranks in different collective calls see it. */
static int call_number(const char *what)
{
    uint32_t h = 2166136261u;
    for (const char *p = what; p && *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return (int)(h & 0x3fffffff);
}

/* The verdict of an agreement folded into a collective that the caller
 * makes anyway (window creation's MPI_MAX of each rank's rc among its
 * values): `worst` is that maximum, `e` the collective's MPI code. */
int rmalab__err_agreed(int rc, int worst, int e, const char *what)
{
    if (rc)
        return rc; /* with this rank's own message */
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, what);
    if (worst)
        return rmalab__err_fail(worst, "%s: another rank failed (%s), so every rank gives up", what,
                                rmalab_strerror(worst));
    return RMALAB_OK;
}

/* One MPI_Allreduce (MPI_MAX) of a packet of the same shape for every
 * agreement of the core, so that two ranks in different collective calls
 * on one communicator (a REPL's ranks out of step: free on one, fence on
 * another) meet in a well-formed collective and both learn it: this
 * rank's status, the call's number and its negation, and for each of the
 * RMALAB__AGREE_FLAGS flags whether this rank set it and whether it did
 * not (a flag that some ranks set and others did not has both at 1). */
void rmalab__err_agree_pack(rmalab__err_packet *p, int rc, const char *what, int flags, int mask)
{
    p->rc = rc;
    p->what = what;
    p->v[0] = rc;
    p->v[1] = call_number(what);
    p->v[2] = -p->v[1];
    for (int bit = 0; bit < RMALAB__AGREE_FLAGS; bit++) {
        int set = (mask >> bit) & (flags >> bit) & 1;
        p->v[3 + 2 * bit] = set;
        p->v[4 + 2 * bit] = ((mask >> bit) & 1) && !set;
    }
}

int rmalab__err_agree_reduce(rmalab__err_packet *p, MPI_Comm comm, MPI_Request *req)
{
    return req ? MPI_Iallreduce(MPI_IN_PLACE, p->v, RMALAB__AGREE_N, MPI_INT, MPI_MAX, comm, req)
               : MPI_Allreduce(MPI_IN_PLACE, p->v, RMALAB__AGREE_N, MPI_INT, MPI_MAX, comm);
}

int rmalab__err_out_of_step(const char *what)
{
    return rmalab__err_fail(RMALAB_ERR_OTHER,
                            "%s: another rank made a different collective call on this "
                            "communicator at the same time, so every rank gives up; every "
                            "rank must make the same collective calls in the same order",
                            what);
}

int rmalab__err_agree_verdict(const rmalab__err_packet *p, int e, int *mixed)
{
    const int *all = p->v;
    int rc;
    if (mixed)
        *mixed = 0;
    if (!p->rc && e == MPI_SUCCESS && all[1] != -all[2])
        return rmalab__err_out_of_step(p->what);
    if ((rc = rmalab__err_agreed(p->rc, all[0], e, p->what)))
        return rc;
    for (int bit = 0; mixed && bit < RMALAB__AGREE_FLAGS; bit++)
        if (all[3 + 2 * bit] && all[4 + 2 * bit])
            *mixed |= 1 << bit;
    return RMALAB_OK;
}

/* The collective call whose callbacks this thread runs past its agreement
 * (a free's delete callbacks), or NULL. */
static _Thread_local const char *in_callbacks;

_Atomic int rmalab__err_callbacks_live;

const char *rmalab__err_callbacks_begin(const char *call)
{
    const char *outer = in_callbacks;
    in_callbacks = call;
    atomic_fetch_add_explicit(&rmalab__err_callbacks_live, 1, memory_order_relaxed);
    return outer;
}

void rmalab__err_callbacks_end(const char *outer)
{
    in_callbacks = outer;
    atomic_fetch_sub_explicit(&rmalab__err_callbacks_live, 1, memory_order_relaxed);
}

int rmalab__err_collective_refused(const char *what)
{
    if (!in_callbacks)
        return RMALAB_OK;
    return rmalab__err_fail(RMALAB_ERR_OTHER,
                            "%s: a collective call cannot be made from a callback that %s runs: "
                            "the other ranks are past the agreement of that %s, inside MPI, and "
                            "would never join this call; make it after the %s returns",
                            what, in_callbacks, in_callbacks, in_callbacks);
}

int rmalab__err_agree_flags(MPI_Comm comm, int rc, const char *what, int flags, int mask,
                            int *mixed)
{
    int refused = rmalab__err_collective_refused(what);
    if (refused)
        return rc ? rc : refused;
    rmalab__err_packet p;
    rmalab__err_agree_pack(&p, rc, what, flags, mask);
    return rmalab__err_agree_verdict(&p, rmalab__err_agree_reduce(&p, comm, NULL), mixed);
}

int rmalab__err_agree(MPI_Comm comm, int rc, const char *what)
{
    return rmalab__err_agree_flags(comm, rc, what, 0, 0, NULL);
}

/* ------------------------------------------------------------------------ */
/* Warnings                                                                 */

static pthread_mutex_t warn_lock = PTHREAD_MUTEX_INITIALIZER;
static rmalab_warn_fn warn_fn; /* under warn_lock; NULL: stderr */
static void *warn_ud;

void rmalab_set_warnf(rmalab_warn_fn fn, void *ud)
{
    pthread_mutex_lock(&warn_lock);
    warn_fn = fn;
    warn_ud = fn ? ud : NULL;
    pthread_mutex_unlock(&warn_lock);
}

void rmalab_get_warnf(rmalab_warn_fn *fn, void **ud)
{
    pthread_mutex_lock(&warn_lock);
    if (fn)
        *fn = warn_fn;
    if (ud)
        *ud = warn_ud;
    pthread_mutex_unlock(&warn_lock);
}

void rmalab__err_warn(const char *fmt, ...)
{
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    rmalab_warn_fn fn;
    void *ud;
    rmalab_get_warnf(&fn, &ud);
    if (fn)
        fn(ud, text);
    else
        fprintf(stderr, "%s\n", text);
}
