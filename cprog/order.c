/* The race checker's clock beside the program's messages (order.h has the
 * design), while one thread makes the process's MPI calls. Three small
 * tables under one mutex: the shadows of the
 * communicators, the clocks still going out (their MPI_Isend not yet
 * complete), and the requests whose completion brings a clock. A program
 * has a few of each, so arrays scanned in order serve; no MPI call that
 * may block is made under the mutex. */
#include "order.h"

#include "threads.h"
#include "watch.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rmalab/races.h>

typedef struct {
    MPI_Comm comm, shadow;
} shadow_t;

typedef struct {
    MPI_Request r;
    int64_t v[]; /* the clock, until its send completes */
} out_t;

typedef struct {
    MPI_Request req;
    MPI_Comm shadow;
    run_order_kind kind;
    int dest, tag;
    bool active;   /* started and not completed (a receive: always) */
    bool orphan;   /* freed by the program while active: completed here */
    MPI_Request clock;    /* a collective's: its clocks' own collective */
    int64_t *v;           /* ... over v (rmalab_clock_coll) */
    void *join;           /* where its result is, NULL if none here */
} track_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static shadow_t *shadows;
static out_t **outs;
static track_t *tracks;
static int nshadows, cshadows, nouts, couts, ntracks, ctracks, norphans;

static void reap_orphans(void);

/* Room for one more of n items of size sz in *p (capacity *cap). */
static bool room(void *p, int *cap, int n, size_t sz)
{
    if (n < *cap)
        return true;
    int c = *cap ? 2 * *cap : 8;
    void *q = realloc(*(void **)p, (size_t)c * sz);
    if (!q)
        return false;
    *(void **)p = q;
    *cap = c;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Threads                                                                  */

static pthread_t one_thread;
static int threads; /* 0: no call yet; 1: one_thread's alone; 2: more */

void run_order_thread(void)
{
    run_threads_mpi();
    int n = __atomic_load_n(&threads, __ATOMIC_ACQUIRE);
    if (n == 2 || (n == 1 && pthread_equal(pthread_self(), one_thread)))
        return;
    pthread_mutex_lock(&lock);
    if (threads == 0)
        one_thread = pthread_self();
    __atomic_store_n(&threads, threads == 0 ? 1 : 2, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
}

/* The clock of the calling thread's calls is one thread's (it may go out
 * and come in): the process's while one thread calls MPI, or the thread's
 * own view with per-thread entries (threads.h). */
static bool one_clock(void)
{
    run_order_thread();
    return run_threads_own_clocks() || __atomic_load_n(&threads, __ATOMIC_ACQUIRE) == 1;
}

bool run_order_on(void)
{
    static int on = -1;
    if (on < 0) {
        const char *v = getenv("RMALAB_CHECK");
        on = v && (!strcmp(v, "races") || !strcmp(v, "races:warn") ||
                   !strcmp(v, "races:quiet"));
    }
    return on;
}

/* ------------------------------------------------------------------------ */
/* Shadows                                                                  */

void run_order_comm_made(MPI_Comm comm)
{
    int inter = 1;
    if (!run_order_on() || comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) ||
        inter)
        return;
    MPI_Comm sh;
    if (PMPI_Comm_dup(comm, &sh) != MPI_SUCCESS)
        return;
    PMPI_Comm_set_errhandler(sh, MPI_ERRORS_RETURN);
    pthread_mutex_lock(&lock);
    if (room(&shadows, &cshadows, nshadows, sizeof *shadows))
        shadows[nshadows++] = (shadow_t){comm, sh};
    else
        PMPI_Comm_free(&sh); /* collective; a failure here is one of memory */
    pthread_mutex_unlock(&lock);
}

void run_order_comm_freed(MPI_Comm comm)
{
    MPI_Comm sh = MPI_COMM_NULL;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nshadows; i++)
        if (shadows[i].comm == comm) {
            sh = shadows[i].shadow;
            shadows[i] = shadows[--nshadows];
            break;
        }
    pthread_mutex_unlock(&lock);
    if (sh != MPI_COMM_NULL)
        PMPI_Comm_free(&sh);
}

MPI_Comm run_order_shadow(MPI_Comm comm)
{
    MPI_Comm sh = MPI_COMM_NULL;
    if (!run_order_on())
        return sh;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nshadows && sh == MPI_COMM_NULL; i++)
        if (shadows[i].comm == comm)
            sh = shadows[i].shadow;
    pthread_mutex_unlock(&lock);
    return sh;
}

/* ------------------------------------------------------------------------ */
/* Clocks on the shadow                                                     */

static int words(void)
{
    return (int)(rmalab_clock_wire_size() / sizeof(int64_t));
}

/* Forget the clocks whose sends completed (under the mutex). */
static void reap_outs(void)
{
    for (int i = 0; i < nouts;) {
        int done = 0;
        PMPI_Test(&outs[i]->r, &done, MPI_STATUS_IGNORE);
        if (done) {
            free(outs[i]);
            outs[i] = outs[--nouts];
        } else {
            i++;
        }
    }
}

void run_order_send(MPI_Comm shadow, int dest, int tag)
{
    run_watch_flush();
    out_t *o = one_clock() ? malloc(sizeof *o + rmalab_clock_wire_size()) : NULL;
    if (!o) { /* an empty clock, which the receiver takes and ignores */
        PMPI_Send(NULL, 0, MPI_INT64_T, dest, tag, shadow);
        return;
    }
    rmalab_clock_snapshot(o->v);
    PMPI_Isend(o->v, words(), MPI_INT64_T, dest, tag, shadow, &o->r);
    pthread_mutex_lock(&lock);
    reap_outs();
    if (room(&outs, &couts, nouts, sizeof *outs)) {
        outs[nouts++] = o;
    } else {
        PMPI_Wait(&o->r, MPI_STATUS_IGNORE);
        free(o);
    }
    pthread_mutex_unlock(&lock);
}

void run_order_recv(MPI_Comm shadow, const MPI_Status *st)
{
    int cancelled = 0;
    PMPI_Test_cancelled(st, &cancelled);
    if (cancelled || st->MPI_SOURCE < 0) /* MPI_PROC_NULL, or none matched */
        return;
    if (__atomic_load_n(&norphans, __ATOMIC_RELAXED))
        reap_orphans(); /* their clocks came before this one */
    run_watch_flush();
    int64_t *v = malloc(rmalab_clock_wire_size());
    if (!v)
        return; /* the clock stays behind: later ones come one late (older) */
    MPI_Status got;
    int n = 0;
    if (PMPI_Recv(v, words(), MPI_INT64_T, st->MPI_SOURCE, st->MPI_TAG, shadow, &got) ==
            MPI_SUCCESS &&
        PMPI_Get_count(&got, MPI_INT64_T, &n) == MPI_SUCCESS && n == words() && one_clock())
        rmalab_clock_join(v);
    free(v);
}

/* ------------------------------------------------------------------------ */
/* Requests                                                                 */

static track_t *track_find(MPI_Request req)
{
    for (int i = 0; i < ntracks && req != MPI_REQUEST_NULL; i++)
        if (tracks[i].req == req && !tracks[i].orphan)
            return &tracks[i];
    return NULL;
}

void run_order_track(MPI_Request req, MPI_Comm shadow, run_order_kind kind, int dest, int tag)
{
    pthread_mutex_lock(&lock);
    if (room(&tracks, &ctracks, ntracks, sizeof *tracks))
        tracks[ntracks++] = (track_t){req, shadow, kind, dest, tag,
                                      kind <= RUN_ORDER_COLL, false, MPI_REQUEST_NULL,
                                      NULL, NULL};
    pthread_mutex_unlock(&lock);
}

bool run_order_any(const MPI_Request *reqs, int n)
{
    bool any = false;
    if (!run_order_on())
        return any;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < n && ntracks > 0 && !any; i++)
        any = track_find(reqs[i]) != NULL;
    pthread_mutex_unlock(&lock);
    return any;
}

void run_order_started(MPI_Request req)
{
    pthread_mutex_lock(&lock);
    track_t *t = track_find(req);
    track_t copy = t ? *t : (track_t){.kind = RUN_ORDER_RECV};
    if (t && t->kind == RUN_ORDER_PRECV)
        t->active = true;
    pthread_mutex_unlock(&lock);
    if (copy.kind == RUN_ORDER_PSEND)
        run_order_send(copy.shadow, copy.dest, copy.tag);
}

static void coll_in(track_t *t);

/* The entry i of the table completed with st: its clock, if a receive or
 * a collective. */
static void complete_at(int i, const MPI_Status *st)
{
    track_t t = tracks[i];
    MPI_Status at = *st;
    if (t.kind == RUN_ORDER_SENDRECV)
        at.MPI_SOURCE = t.dest, at.MPI_TAG = t.tag;
    if (t.kind <= RUN_ORDER_COLL || t.orphan)
        tracks[i] = tracks[--ntracks];
    if (t.orphan)
        norphans--;
    else
        tracks[i].active = false;
    pthread_mutex_unlock(&lock);
    if (t.kind == RUN_ORDER_COLL)
        coll_in(&t);
    else if (t.kind != RUN_ORDER_PSEND && t.active)
        run_order_recv(t.shadow, &at);
    if (t.orphan && t.kind > RUN_ORDER_COLL) /* persistent: still allocated */
        PMPI_Request_free(&t.req);
    pthread_mutex_lock(&lock);
}

void run_order_completed(MPI_Request req, const MPI_Status *st)
{
    pthread_mutex_lock(&lock);
    track_t *t = track_find(req);
    if (t)
        complete_at((int)(t - tracks), st);
    pthread_mutex_unlock(&lock);
}

/* The receives the program freed while active: those done now complete
 * (a persistent one is then freed). The table may change while a clock
 * is received: the scan starts again after each. */
static void reap_orphans(void)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < ntracks && norphans > 0; i++) {
        int done = 0;
        MPI_Status st;
        if (tracks[i].orphan && PMPI_Test(&tracks[i].req, &done, &st) == MPI_SUCCESS && done) {
            complete_at(i, &st);
            i = -1;
        }
    }
    pthread_mutex_unlock(&lock);
}

bool run_order_free(MPI_Request *req)
{
    pthread_mutex_lock(&lock);
    track_t *t = track_find(*req);
    bool keep = t && t->active;
    if (keep)
        t->orphan = true, norphans++;
    else if (t)
        *t = tracks[--ntracks];
    pthread_mutex_unlock(&lock);
    if (keep) {
        *req = MPI_REQUEST_NULL;
        reap_orphans();
    }
    return keep;
}

/* ------------------------------------------------------------------------ */
/* Collectives                                                              */

/* The clocks as they stand, in a new v (2 W int64): this rank's, unless
 * it only receives (a bcast's other ranks) or another thread has called
 * MPI. NULL when memory runs out. */
static int64_t *clocks_out(MPI_Comm shadow, rmalab_clock_shape shape, int root)
{
    int me = 0;
    PMPI_Comm_rank(shadow, &me);
    run_watch_flush();
    int64_t *v = calloc(2 * (size_t)words(), sizeof *v);
    if (v && one_clock() && (shape != RMALAB_CLOCK_BCAST || me == root))
        rmalab_clock_snapshot(v);
    return v;
}

void run_order_coll(MPI_Comm shadow, rmalab_clock_shape shape, int root)
{
    int64_t *v = clocks_out(shadow, shape, root);
    void *join;
    if (!v)
        return;
    if (rmalab_clock_coll(shadow, shape, root, v, &join, NULL) == MPI_SUCCESS && join &&
        one_clock())
        rmalab_clock_join(join);
    free(v);
}

void run_order_icoll(MPI_Request req, MPI_Comm shadow, rmalab_clock_shape shape, int root)
{
    int64_t *v = clocks_out(shadow, shape, root);
    track_t t = {req, shadow, RUN_ORDER_COLL, .active = true, .clock = MPI_REQUEST_NULL, .v = v};
    if (!v || rmalab_clock_coll(shadow, shape, root, v, &t.join, &t.clock) != MPI_SUCCESS) {
        free(v);
        return;
    }
    pthread_mutex_lock(&lock);
    bool kept = room(&tracks, &ctracks, ntracks, sizeof *tracks);
    if (kept)
        tracks[ntracks++] = t;
    pthread_mutex_unlock(&lock);
    if (!kept) { /* no room to wait for it later: its clocks are not joined */
        PMPI_Wait(&t.clock, MPI_STATUS_IGNORE);
        free(v);
    }
}

/* A collective's payload completed: its clocks' collective, started with
 * it on every member, completes too, and this rank's result is joined. */
static void coll_in(track_t *t)
{
    run_watch_flush();
    if (PMPI_Wait(&t->clock, MPI_STATUS_IGNORE) == MPI_SUCCESS && t->join && one_clock())
        rmalab_clock_join(t->join);
    free(t->v);
}

/* ------------------------------------------------------------------------ */
/* The end                                                                  */

void run_order_end(void)
{
    reap_orphans();
    pthread_mutex_lock(&lock);
    reap_outs();
    for (int i = 0; i < nouts; i++) { /* a clock no receive took */
        PMPI_Cancel(&outs[i]->r);
        PMPI_Request_free(&outs[i]->r);
    }
    nouts = 0;
    ntracks = norphans = 0;
    while (nshadows > 0)
        PMPI_Comm_free(&shadows[--nshadows].shadow);
    pthread_mutex_unlock(&lock);
}
