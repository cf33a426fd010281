/* The recorder: each traced window's ring of events, its clock offset, and
 * the process's list of records, which outlive their windows.
 *
 * A record is a ring of fixed-size events. A call with a group (post,
 * start, complete, wait, a test that returned true) is followed in the ring
 * by one MEMBER event per rank of the group (a run of tests, by the
 * arrivals it saw first), carrying the index of the
 * epoch between this rank and that one: the k-th post of t to o matches the
 * k-th start of o to t, and the k-th complete of o to t the k-th wait of t
 * that includes o. trace-gather.c turns these into arrows. The ring may
 * overwrite a call and keep some of its members: the gatherer drops members
 * that follow no call.
 *
 * Cost. A window that does not record pays one NULL test per call
 * (each function below tests it first). A recording window pays two clock reads and one event (56 bytes) per call, plus one
 * per group member. Calls below trace-gather.c run on the window's owning
 * thread only, so the ring needs no lock; the list of records is under a
 * mutex, taken when a record is opened, retired or gathered. */
#include "trace-private.h"
#include "alloc.h"
#include "error-private.h"
#include "sync-kinds.h"
#include "hints-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEMBER RMALAB_TRACE_NKINDS /* internal kind: a rank of the call before */
#define DEFAULT_CAPACITY 4096
#define SYNC_ROUNDS 20             /* ping-pongs per rank when aligning clocks */
#define SYNC_TAG 4711
#define BOOT_ID_LEN 40             /* a UUID, its newline and the NUL */

pthread_mutex_t rmalab__trace_lock = PTHREAD_MUTEX_INITIALIZER;
rmalab__trace *rmalab__trace_list; /* oldest first */
static bool default_on;

int64_t rmalab__trace_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void rmalab_trace_default(bool on)
{
    default_on = on;
}

/* ------------------------------------------------------------------------ */
/* Recording                                                                */

static rmalab__tev *push(rmalab__trace *t)
{
    rmalab__tev *e = &t->ring[t->head];
    t->head = (t->head + 1) % t->cap;
    if (t->count < t->cap)
        t->count++;
    else
        t->dropped++;
    t->recorded++;
    memset(e, 0, sizeof *e);
    return e;
}

/* The epoch index between this rank and `peer` that a call's member
 * carries: posts and starts open the next one. */
static uint32_t member_seq(rmalab__trace *t, int kind, int peer)
{
    switch (kind) {
    case RMALAB_TRACE_POST: return ++t->expose_seq[peer];
    case RMALAB_TRACE_START: return ++t->access_seq[peer];
    case RMALAB_TRACE_COMPLETE: return t->access_seq[peer];
    default: return t->expose_seq[peer]; /* wait, test */
    }
}

/* The run of failed tests that a test may extend: the last event, or the
 * one before the arrivals that the tests saw. */
static rmalab__tev *test_run(rmalab__trace *t)
{
    for (uint32_t back = 1; back <= t->count; back++) {
        rmalab__tev *e = &t->ring[(t->head + t->cap - back) % t->cap];
        if (e->kind == RMALAB_TRACE_POST_ARRIVED || e->kind == RMALAB_TRACE_COMPLETE_ARRIVED)
            continue;
        return e->kind == RMALAB_TRACE_TEST && !e->flag ? e : NULL;
    }
    return NULL;
}

int64_t rmalab__trace_t0(const rmalab_win *w)
{
    return w && w->trace ? rmalab__trace_clock() : 0;
}

void rmalab__trace_call(rmalab_win *w, int kind, int64_t t0, int peer, const int *group, int n,
                        int flag)
{
    rmalab__trace *t = w->trace;
    if (!t)
        return;
    int64_t now = rmalab__trace_clock();
    rmalab__tev *run = kind == RMALAB_TRACE_TEST ? test_run(t) : NULL;
    if (run) { /* a polling loop: one event for the run of tests */
        run->t1 = now;
        run->calls++;
        run->flag = (uint8_t)flag;
    } else {
        rmalab__tev *e = push(t);
        *e = (rmalab__tev){.t0 = t0, .t1 = now, .kind = (uint8_t)kind, .flag = (uint8_t)flag,
                           .peer = peer, .count = n, .calls = 1};
    }
    if (kind == RMALAB_TRACE_TEST && !flag)
        return;
    /* Members follow their call, or the arrivals after a run of tests. A
     * group larger than the ring keeps what fits. */
    for (int i = 0; i < n && i < (int)t->cap - 1; i++) {
        rmalab__tev *m = push(t);
        m->kind = MEMBER;
        m->peer = group[i];
        m->seq = member_seq(t, kind, group[i]);
    }
}

void rmalab__trace_op(rmalab_win *w, int kind, int64_t t0, int target, MPI_Aint disp,
                      rmalab_type type, int count, uint32_t seq)
{
    if (!w->trace)
        return;
    rmalab__tev *e = push(w->trace);
    *e = (rmalab__tev){.t0 = t0, .t1 = rmalab__trace_clock(), .kind = (uint8_t)kind,
                       .peer = target, .count = count, .calls = 1, .disp = disp,
                       .bytes = (int64_t)count * rmalab_type_size(type), .seq = seq};
}

/* A race: the event, then one member per access (its issuer and number),
 * which the gathering turns into arrows to the accesses' events. */
void rmalab__trace_race(rmalab_win *w, uint32_t race, int target, int64_t lo, int64_t hi,
                        const int issuer[2], const uint32_t id[2])
{
    rmalab__trace *t = w->trace;
    if (!t)
        return;
    int64_t now = rmalab__trace_clock();
    rmalab__tev *e = push(t);
    *e = (rmalab__tev){.t0 = now, .t1 = now, .kind = RMALAB_TRACE_RACE, .peer = target,
                       .calls = 1, .disp = lo, .bytes = hi - lo, .seq = race};
    for (int i = 0; i < 2 && t->cap > 2; i++) {
        rmalab__tev *m = push(t);
        m->kind = MEMBER;
        m->peer = issuer[i];
        m->seq = id[i];
    }
}

/* Once per epoch and peer: the engine reports what it sees at every poll. */
void rmalab__trace_arrival(rmalab_win *w, int kind, int peer)
{
    rmalab__trace *t = w->trace;
    if (!t)
        return;
    bool post = kind == RMALAB_TRACE_POST_ARRIVED;
    uint32_t seq = post ? t->access_seq[peer] : t->expose_seq[peer];
    uint32_t *seen = post ? &t->seen_post[peer] : &t->seen_complete[peer];
    if (*seen == seq)
        return;
    *seen = seq;
    rmalab__tev *e = push(t);
    int64_t now = rmalab__trace_clock();
    *e = (rmalab__tev){.t0 = now, .t1 = now, .kind = (uint8_t)kind, .peer = peer, .calls = 1,
                       .seq = seq};
}

/* ------------------------------------------------------------------------ */
/* Clocks                                                                   */

/* A rank waits for its turn (a token from rank 0, or the end: a barrier)
 * asleep, so that on a crowded node the two ranks that measure have the
 * cores (busy-polling ranks made it milliseconds). */
static int await_asleep(MPI_Comm comm, bool barrier)
{
    int token, done = 0;
    MPI_Request req;
    int e = barrier ? MPI_Ibarrier(comm, &req)
                    : MPI_Irecv(&token, 1, MPI_INT, 0, SYNC_TAG, comm, &req);
    while (e == MPI_SUCCESS && !done) {
        e = MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (e == MPI_SUCCESS && !done)
            nanosleep(&(struct timespec){.tv_nsec = 20000}, NULL);
    }
    return e;
}

/* Collective over comm: this rank's offset to rank 0's clock (add it to a
 * local time) and its uncertainty, half the smallest of SYNC_ROUNDS round
 * trips (never 0: 0 means a shared clock). Rank 0 serves the others in
 * turn, waking each with a token. */
static int measure_offset(MPI_Comm comm, int rank, int size, double *offset, double *uncert)
{
    int e = MPI_SUCCESS;
    *offset = *uncert = 0;
    if (rank == 0) {
        for (int r = 1; r < size && e == MPI_SUCCESS; r++) {
            e = MPI_Send(&r, 1, MPI_INT, r, SYNC_TAG, comm);
            for (int k = 0; k < SYNC_ROUNDS && e == MPI_SUCCESS; k++) {
                int64_t ping, t;
                e = MPI_Recv(&ping, 1, MPI_INT64_T, r, SYNC_TAG, comm, MPI_STATUS_IGNORE);
                t = rmalab__trace_clock();
                if (e == MPI_SUCCESS)
                    e = MPI_Send(&t, 1, MPI_INT64_T, r, SYNC_TAG, comm);
            }
        }
        return e;
    }
    int64_t best = INT64_MAX;
    e = await_asleep(comm, false);
    for (int k = 0; k < SYNC_ROUNDS && e == MPI_SUCCESS; k++) {
        int64_t t1 = rmalab__trace_clock(), t0;
        e = MPI_Send(&t1, 1, MPI_INT64_T, 0, SYNC_TAG, comm);
        if (e == MPI_SUCCESS)
            e = MPI_Recv(&t0, 1, MPI_INT64_T, 0, SYNC_TAG, comm, MPI_STATUS_IGNORE);
        int64_t t2 = rmalab__trace_clock();
        if (e == MPI_SUCCESS && t2 - t1 < best) {
            best = t2 - t1 > 0 ? t2 - t1 : 1;
            *offset = 1e-9 * (double)(t0 - (t1 + (t2 - t1) / 2));
            *uncert = 0.5e-9 * (double)best;
        }
    }
    return e;
}

/* The running kernel's boot id, which processes on one host share, and
 * with it CLOCK_MONOTONIC; "" when unknown, or when RMALAB_TRACE_CLOCK=measure
 * asks to treat every rank as on a host of its own. */
static void boot_id(char id[BOOT_ID_LEN])
{
    memset(id, 0, BOOT_ID_LEN);
    const char *how = getenv("RMALAB_TRACE_CLOCK");
    if (how && strcmp(how, "measure") == 0)
        return;
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f)
        return;
    if (!fgets(id, BOOT_ID_LEN, f))
        id[0] = 0;
    fclose(f);
}

/* Collective over comm: the offset and uncertainty of measure_offset, or 0
 * and 0 on a rank that shares rank 0's clock: the same boot id, and a
 * measured offset within its uncertainty (a time namespace would show). */
static int align_clocks(MPI_Comm comm, double *offset, double *uncert)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    char mine[BOOT_ID_LEN], root[BOOT_ID_LEN];
    boot_id(mine);
    memcpy(root, mine, sizeof root);
    int e = MPI_Bcast(root, BOOT_ID_LEN, MPI_CHAR, 0, comm);
    if (e == MPI_SUCCESS)
        e = measure_offset(comm, rank, size, offset, uncert);
    if (e == MPI_SUCCESS)
        e = await_asleep(comm, true);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "aligning clocks");
    if (mine[0] && memcmp(mine, root, sizeof mine) == 0 && *offset <= *uncert && -*offset <= *uncert)
        *offset = *uncert = 0;
    return RMALAB_OK;
}

int rmalab__trace_align(MPI_Comm comm, double *offset, double *uncert)
{
    return align_clocks(comm, offset, uncert);
}

/* ------------------------------------------------------------------------ */
/* Records and their list                                                   */

static void record_free(rmalab__trace *t)
{
    if (!t)
        return;
    rmalab__mem_free(t->ring);
    rmalab__mem_free(t->access_seq);
    rmalab__mem_free(t->expose_seq);
    rmalab__mem_free(t->seen_post);
    rmalab__mem_free(t->seen_complete);
    rmalab__mem_free(t->world_ranks);
    rmalab__mem_free(t);
}

static rmalab__trace *record_new(const rmalab_win *w, int capacity)
{
    rmalab__trace *t = rmalab__mem_calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->cap = (uint32_t)capacity;
    t->ring = rmalab__mem_alloc((size_t)capacity * sizeof *t->ring);
    t->access_seq = rmalab__mem_calloc((size_t)w->size, sizeof *t->access_seq);
    t->expose_seq = rmalab__mem_calloc((size_t)w->size, sizeof *t->expose_seq);
    t->seen_post = rmalab__mem_calloc((size_t)w->size, sizeof *t->seen_post);
    t->seen_complete = rmalab__mem_calloc((size_t)w->size, sizeof *t->seen_complete);
    t->world_ranks = rmalab__mem_alloc((size_t)w->size * sizeof *t->world_ranks);
    if (!t->ring || !t->access_seq || !t->expose_seq || !t->seen_post || !t->seen_complete ||
        !t->world_ranks) {
        record_free(t);
        return NULL;
    }
    memcpy(t->world_ranks, w->lay.world_ranks, (size_t)w->size * sizeof *t->world_ranks);
    t->rank = w->rank;
    t->size = w->size;
    snprintf(t->engine, sizeof t->engine, "%s", w->eng->name);
    return t;
}

/* Does the window want a record? Its hint, else the process's default. */
bool rmalab__trace_wanted(const rmalab_win *w)
{
    const char *v = rmalab__hints_lookup(w->at_create, RMALAB_KEY_TRACE);
    if (v)
        return strcmp(v, "true") == 0;
    const char *env = getenv("RMALAB_TRACE");
    return default_on || (env && strcmp(env, "1") == 0);
}

static int hint_capacity(const rmalab_win *w)
{
    const char *v = rmalab__hints_lookup(w->at_create, RMALAB_KEY_TRACE_SIZE);
    return v ? atoi(v) : DEFAULT_CAPACITY; /* validated against the catalogue */
}

/* Local, under the list's lock: forget the oldest records of freed windows
 * beyond RMALAB_TRACE_KEEP. */
static void trim_retired(void)
{
    int retired = 0;
    for (rmalab__trace *t = rmalab__trace_list; t; t = t->next)
        retired += t->win == NULL;
    for (rmalab__trace **p = &rmalab__trace_list; *p && retired > RMALAB_TRACE_KEEP;) {
        rmalab__trace *t = *p;
        if (t->win) {
            p = &t->next;
            continue;
        }
        *p = t->next;
        record_free(t);
        retired--;
    }
}

/* Collective over the window: the ranks agree to record if any wants to
 * (`force`: all do), each makes its record, they agree that all could, and
 * align their clocks to rank 0's. The record's key is rank 0's world rank
 * and a count of its records, the same on every rank. */
int rmalab__trace_open(rmalab_win *w, bool force)
{
    static uint64_t opened;
    int want = force || rmalab__trace_wanted(w), any = 0;
    int e = MPI_Allreduce(&want, &any, 1, MPI_INT, MPI_MAX, w->comm);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "deciding whether to trace");
    if (!any || w->trace || w->trace_paused)
        return RMALAB_OK;
    rmalab__trace *t = record_new(w, hint_capacity(w));
    int rc = rmalab__err_agree(
        w->comm,
        t ? RMALAB_OK : rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory for the trace's ring"),
        "starting the trace");
    int64_t key[2] = {w->lay.world_ranks[0], (int64_t)++opened};
    if (!rc && (e = MPI_Bcast(key, 2, MPI_INT64_T, 0, w->comm)) != MPI_SUCCESS)
        rc = rmalab__err_mpi(e, "naming the trace");
    if (!rc)
        rc = align_clocks(w->comm, &t->offset, &t->uncert);
    if (rc) {
        record_free(t);
        return rc;
    }
    snprintf(t->key, sizeof t->key, "r%lld.%lld", (long long)key[0], (long long)key[1]);
    t->win = w;
    pthread_mutex_lock(&rmalab__trace_lock);
    rmalab__trace **p = &rmalab__trace_list;
    while (*p)
        p = &(*p)->next;
    *p = t;
    pthread_mutex_unlock(&rmalab__trace_lock);
    w->trace = t;
    return RMALAB_OK;
}

void rmalab__trace_retire(rmalab_win *w)
{
    rmalab__trace *t = w->trace ? w->trace : w->trace_paused;
    if (!t)
        return;
    pthread_mutex_lock(&rmalab__trace_lock);
    snprintf(t->name, sizeof t->name, "%s", w->name);
    t->win = NULL;
    w->trace = w->trace_paused = NULL;
    trim_retired();
    pthread_mutex_unlock(&rmalab__trace_lock);
}

void rmalab_trace_clear(void)
{
    pthread_mutex_lock(&rmalab__trace_lock);
    for (rmalab__trace **p = &rmalab__trace_list; *p;) {
        rmalab__trace *t = *p;
        if (t->win) { /* keep the epoch indices: arrows still match */
            t->head = t->count = 0;
            t->dropped = t->recorded = 0;
            p = &t->next;
        } else {
            *p = t->next;
            record_free(t);
        }
    }
    pthread_mutex_unlock(&rmalab__trace_lock);
}

int rmalab_win_trace_start(rmalab_win *w)
{
    int refused = rmalab__err_collective_refused("trace start");
    if (refused)
        return refused;
    RMALAB__CHECK_WIN(w);
    int rc = rmalab__trace_open(w, true);
    return rc || !w->trace_paused ? rc : rmalab_win_trace_pause(w, false);
}

int rmalab_win_trace_pause(rmalab_win *w, bool paused)
{
    RMALAB__CHECK_WIN(w);
    if (!w->trace && !w->trace_paused)
        return rmalab__err_fail(RMALAB_ERR_WIN,
                                "trace: this window records nothing; create it with the hint "
                                "rmalab_trace = \"true\" or start its recording first");
    /* A paused window keeps its record aside, so that every call skips
     * recording with the same NULL test. */
    rmalab__trace *t = w->trace ? w->trace : w->trace_paused;
    t->paused = paused;
    w->trace = paused ? NULL : t;
    w->trace_paused = paused ? t : NULL;
    return RMALAB_OK;
}

void rmalab_win_trace_status(const rmalab_win *w, rmalab_trace_status *out)
{
    memset(out, 0, sizeof *out);
    const rmalab__trace *t = w ? (w->trace ? w->trace : w->trace_paused) : NULL;
    if (!t)
        return;
    *out = (rmalab_trace_status){.on = true, .paused = t->paused, .capacity = (int)t->cap,
                                 .recorded = t->recorded, .dropped = t->dropped,
                                 .offset = t->offset, .uncertainty = t->uncert};
}

/* The kinds that are no synchronisation call (those are their rows of
 * rmalab/sync.h): their names, and whether each is an access. */
static const struct {
    const char *name;
    bool access;
} others[RMALAB_TRACE_NKINDS] = {
    [RMALAB_TRACE_PUT] = {"put", true},
    [RMALAB_TRACE_GET] = {"get", true},
    [RMALAB_TRACE_ACCUMULATE] = {"accumulate", true},
    [RMALAB_TRACE_GET_ACCUMULATE] = {"get_accumulate", true},
    [RMALAB_TRACE_FETCH_AND_OP] = {"fetch_and_op", true},
    [RMALAB_TRACE_COMPARE_AND_SWAP] = {"compare_and_swap", true},
    [RMALAB_TRACE_POST_ARRIVED] = {"post_arrived", false},
    [RMALAB_TRACE_COMPLETE_ARRIVED] = {"complete_arrived", false},
    [RMALAB_TRACE_READ] = {"read", true},
    [RMALAB_TRACE_WRITE] = {"write", true},
    [RMALAB_TRACE_RACE] = {"race", false},
};

const char *rmalab_trace_kind_name(rmalab_trace_kind kind)
{
    if ((unsigned)kind >= RMALAB_TRACE_NKINDS)
        return NULL;
    const rmalab_sync_kind *k = rmalab__kind_of_trace((int)kind);
    return k ? k->name : others[kind].name;
}

bool rmalab__trace_is_access(int kind)
{
    return (unsigned)kind < RMALAB_TRACE_NKINDS && others[kind].access;
}

const char *rmalab_flow_kind_name(rmalab_flow_kind kind)
{
    static const char *const names[] = {[RMALAB_FLOW_POST] = "post",
                                        [RMALAB_FLOW_COMPLETE] = "complete",
                                        [RMALAB_FLOW_RACE] = "race"};
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}
