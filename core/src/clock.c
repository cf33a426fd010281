/* The process's vector clock (docs/races.md): made once, ticked at each
 * release, joined at each acquire; its wire form, which collectives and
 * messages carry (coll.c, xchg.c, msg.c) and the race checker sends
 * (races-*.c), and which a caller's own messages and collectives carry
 * through rmalab_clock_snapshot, _join and _coll (rmalab/races.h); and
 * the jitter that rmalab_races_jitter asks for before each synchronising
 * call. clock.h has the design. */
#include "clock.h"
#include "alloc.h"
#include "error-private.h"

#include <rmalab/races.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

struct rmalab__clock rmalab__clock_proc = {.T = 1};
_Thread_local int64_t *rmalab__clock_seen;
_Thread_local int rmalab__clock_slot;

int rmalab__clock_ready(void)
{
    if (rmalab__clock_proc.vc)
        return RMALAB_OK;
    MPI_Comm_size(MPI_COMM_WORLD, &rmalab__clock_proc.W);
    MPI_Comm_rank(MPI_COMM_WORLD, &rmalab__clock_proc.me);
    int T = rmalab__clock_proc.T;
    rmalab__clock_proc.vc =
        rmalab__mem_calloc((size_t)rmalab__clock_proc.W * (size_t)T, sizeof *rmalab__clock_proc.vc);
    if (!rmalab__clock_proc.vc)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory for the race checker's clock");
    rmalab__clock_proc.N = rmalab__clock_proc.W * T;
    for (int s = 0; s < T; s++)
        rmalab__clock_proc.vc[rmalab__clock_proc.me * T + s] = 1;
    return RMALAB_OK;
}

/* With T > 1 a thread's own entry ticks past every value its slot had in
 * the process (a slot that another thread held before, or shares), so
 * that no record of its own is taken for an older one's. */
void rmalab__clock_release(int64_t *S)
{
    int64_t *vc = rmalab__clock_proc.vc, *view = rmalab__clock_seen;
    int e = rmalab__clock_entry();
    if (rmalab__clock_proc.T == 1 || !view) {
        vc[e]++;
        memcpy(S, vc, rmalab__clock_bytes());
        return;
    }
    vc[e] = view[e] = (view[e] > vc[e] ? view[e] : vc[e]) + 1;
    memcpy(S, view, rmalab__clock_bytes());
}

void rmalab__clock_acquire(const int64_t *V)
{
    int N = rmalab__clock_size();
    int64_t *vc = rmalab__clock_proc.vc, *view = rmalab__clock_seen;
    for (int i = 0; i < N; i++)
        if (V[i] > vc[i])
            vc[i] = V[i];
    if (rmalab__clock_proc.T > 1 && view)
        for (int i = 0; i < N; i++)
            if (V[i] > view[i])
                view[i] = V[i];
}

/* ------------------------------------------------------------------------ */
/* The clock on the wire                                                    */

size_t rmalab__clock_wire(void)
{
    static int W;
    if (!W)
        MPI_Comm_size(MPI_COMM_WORLD, &W);
    return (size_t)W * (size_t)rmalab__clock_proc.T * sizeof(int64_t);
}

int rmalab_clock_threads(int n)
{
    if (n < 1 || n > RMALAB_CLOCK_MAX_THREADS)
        return rmalab__err_fail(RMALAB_ERR_ARG, "clock_threads: %d slots (1 to %d)", n,
                                RMALAB_CLOCK_MAX_THREADS);
    if (rmalab__clock_exists() && n != rmalab__clock_proc.T)
        return rmalab__err_fail(RMALAB_ERR_ARG,
                                "clock_threads: the race checker's clock is made already");
    rmalab__clock_proc.T = n;
    return RMALAB_OK;
}

void rmalab_clock_thread(void *view, int slot)
{
    int T = rmalab__clock_proc.T;
    rmalab__clock_seen = view;
    rmalab__clock_slot = view && slot > 0 ? (slot < T ? slot : T - 1) : 0;
}

bool rmalab__clock_out(int64_t *S)
{
    if (!rmalab__clock_exists())
        return false;
    rmalab__clock_release(S);
    return true;
}

int rmalab__clock_in(const void *S)
{
    int rc = rmalab__clock_ready();
    if (rc)
        return rc;
    int64_t *V = rmalab__mem_alloc(rmalab__clock_wire());
    if (!V)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    memcpy(V, S, rmalab__clock_wire()); /* S may be unaligned */
    rmalab__clock_acquire(V);
    rmalab__mem_free(V);
    return RMALAB_OK;
}

size_t rmalab_clock_wire_size(void)
{
    return rmalab__clock_wire();
}

void rmalab_clock_snapshot(void *buf)
{
    if (!rmalab__clock_out(buf))
        memset(buf, 0, rmalab__clock_wire());
}

void rmalab_clock_peek(void *buf)
{
    if (rmalab__clock_exists())
        memcpy(buf, rmalab__clock_proc.vc, rmalab__clock_bytes());
    else
        memset(buf, 0, rmalab__clock_wire());
}

void rmalab_clock_view(void *buf)
{
    rmalab__clock_seen = NULL;
    if (!buf || !rmalab__clock_exists())
        return;
    int64_t *view = buf; /* the caller's, used in place: nothing to free */
    view[rmalab__clock_entry()] = rmalab__clock_proc.vc[rmalab__clock_entry()];
    rmalab__clock_seen = view;
}

int rmalab_clock_join(const void *buf)
{
    const int64_t *S = buf;
    size_t W = rmalab__clock_wire() / sizeof *S, i = 0;
    while (i < W && S[i] == 0)
        i++;
    return i == W ? RMALAB_OK : rmalab__clock_in(buf);
}

_Static_assert((int)RMALAB_CLOCK_ALL == (int)RMALAB_REDUCE_ALL &&
                   (int)RMALAB_CLOCK_TO_ROOT == (int)RMALAB_REDUCE_ROOT &&
                   (int)RMALAB_CLOCK_SCAN == (int)RMALAB_REDUCE_SCAN &&
                   (int)RMALAB_CLOCK_EXSCAN == (int)RMALAB_REDUCE_EXSCAN,
               "a reduction's kind is the shape of its clocks");

int rmalab_clock_coll(MPI_Comm comm, rmalab_clock_shape shape, int root, void *buf,
                      void **join, MPI_Request *r)
{
    int me = 0, W = (int)(rmalab__clock_wire() / sizeof(int64_t));
    MPI_Comm_rank(comm, &me);
    const MPI_Datatype I = MPI_INT64_T;
    int64_t *v = buf;
    *join = v;
    switch (shape) {
    case RMALAB_CLOCK_BCAST:
        return r ? MPI_Ibcast(v, W, I, root, comm, r) : MPI_Bcast(v, W, I, root, comm);
    case RMALAB_CLOCK_TO_ROOT: {
        const void *send = me == root ? MPI_IN_PLACE : v;
        *join = me == root ? v : NULL;
        return r ? MPI_Ireduce(send, v, W, I, MPI_MAX, root, comm, r)
                 : MPI_Reduce(send, v, W, I, MPI_MAX, root, comm);
    }
    case RMALAB_CLOCK_ALL:
        return r ? MPI_Iallreduce(MPI_IN_PLACE, v, W, I, MPI_MAX, comm, r)
                 : MPI_Allreduce(MPI_IN_PLACE, v, W, I, MPI_MAX, comm);
    case RMALAB_CLOCK_SCAN:
        return r ? MPI_Iscan(MPI_IN_PLACE, v, W, I, MPI_MAX, comm, r)
                 : MPI_Scan(MPI_IN_PLACE, v, W, I, MPI_MAX, comm);
    default:
        *join = me > 0 ? v + W : NULL;
        return r ? MPI_Iexscan(v, v + W, W, I, MPI_MAX, comm, r)
                 : MPI_Exscan(v, v + W, W, I, MPI_MAX, comm);
    }
}

int rmalab__clock_reduce(MPI_Comm mc, rmalab_reduce_kind kind, int root, const char *what)
{
    int rc = rmalab__clock_ready();
    int64_t *S = rc ? NULL : rmalab__mem_alloc(2 * rmalab__clock_wire());
    if (!rc && !S)
        rc = rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    if ((rc = rmalab__err_agree(mc, rc, "carrying the race checker's clocks"))) {
        rmalab__mem_free(S);
        return rc;
    }
    rmalab__clock_release(S);
    void *join;
    int e = rmalab_clock_coll(mc, (rmalab_clock_shape)kind, root, S, &join, NULL);
    if (e == MPI_SUCCESS && join)
        rmalab__clock_acquire(join);
    rmalab__mem_free(S);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__err_mpi(e, what);
}

/* ------------------------------------------------------------------------ */
/* Jitter                                                                   */

static double jitter_max;
static uint64_t jitter_state;

void rmalab_races_jitter(double max_seconds, uint64_t seed)
{
    jitter_max = max_seconds > 0 && max_seconds < 10 ? max_seconds : 0;
    jitter_state = seed * 0x9E3779B97F4A7C15ull + 1;
}

void rmalab__clock_jitter(void)
{
    if (jitter_max <= 0)
        return;
    jitter_state ^= jitter_state << 13; /* xorshift64 */
    jitter_state ^= jitter_state >> 7;
    jitter_state ^= jitter_state << 17;
    double s = jitter_max * (double)(jitter_state >> 11) / (double)(1ull << 53);
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}
