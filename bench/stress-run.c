/* One engine's run of the long run (stress.c): its windows, the epochs
 * of the schedule (stress-schedule.c) with every byte that arrives checked
 * against the model, the checkpoints, and the samples (stress-report.c). */
#include <time.h>

#include "stress-shared.h"

/* ------------------------------------------------------------------------ */
/* One engine's run                                                         */

static void compare(const struct run *r, MPI_Aint at, MPI_Aint n, const char *what)
{
    for (MPI_Aint i = at; i < at + n; i++)
        if (r->base[i] != r->model[i])
            die("%s engine, epoch %ld: %s: byte %ld of the window holds 0x%02x, expected 0x%02x",
                r->engine, r->epoch, what, (long)i, r->base[i], r->model[i]);
}

/* An access epoch's results: gets, checked after complete. */
struct pending_get {
    rmalab_result *res;
    int target;
    MPI_Aint disp;
};

static void check_get(const struct run *r, const struct pending_get *g)
{
    const void *data;
    rmalab_type type;
    int count;
    CHECK(rmalab_result_data(g->res, &data, &type, &count));
    const unsigned char *p = data;
    MPI_Aint off = g->disp - id_at();
    for (int i = 0; i < count * rmalab_type_size(type); i++)
        if (p[i] != identity(g->target, (int)off + i))
            die("%s engine, epoch %ld: get from rank %d, byte %ld of its identity: 0x%02x, "
                "expected 0x%02x",
                r->engine, r->epoch, g->target, (long)off + i, p[i],
                identity(g->target, (int)off + i));
    rmalab_result_release(g->res);
}

/* Issue one op; a get adds to gets. */
static void issue(struct run *r, int t, const struct op *p, struct pending_get *gets, int *ngets)
{
    unsigned char data[SLOT];
    size_t bytes = (size_t)p->count * (size_t)rmalab_type_size(p->type);
    r->ops++;
    if (p->kind == OP_GET) {
        struct pending_get *g = &gets[(*ngets)++];
        g->target = t;
        g->disp = p->disp;
        CHECK(rmalab_win_get(r->w, t, p->disp, p->type, p->count, &g->res));
        return;
    }
    fill(p->data, data, bytes);
    if (p->kind == OP_PUT)
        CHECK(rmalab_win_put(r->w, t, p->disp, p->type, p->count, data));
    else
        CHECK(rmalab_win_accumulate(r->w, t, p->disp, p->type, p->count, data, RMALAB_OP_SUM));
}

static void pscw_epoch(struct run *r, const struct graph *g)
{
    rng order = rng_at(r->seed, (uint64_t)r->epoch, 4, (uint64_t)rank);
    int origins[MAX_RANKS], targets[MAX_RANKS];
    int norigins = ranks_of(g->in[rank], &order, origins);
    int ntargets = ranks_of(g->out[rank], &order, targets);
    struct pending_get gets[MAX_RANKS * MAX_OPS];
    int ngets = 0;
    struct op ops[MAX_OPS];

    if (g->barrier)
        MPI_Barrier(MPI_COMM_WORLD);
    CHECK(rmalab_win_post(r->w, origins, norigins, 0));
    CHECK(rmalab_win_start(r->w, targets, ntargets, 0));
    for (int i = 0; i < ntargets; i++) {
        int t = targets[i];
        if (g->quiet[rank] >> t & 1)
            continue;
        int n = draw_ops(r->seed, r->epoch, rank, t, ops);
        for (int k = 0; k < n; k++)
            issue(r, t, &ops[k], gets, &ngets);
    }
    CHECK(rmalab_win_complete(r->w));
    for (int i = 0; i < ngets; i++)
        check_get(r, &gets[i]);
    if (below(&order, 4) == 0) {
        bool done = false;
        r->polled++;
        while (!done)
            CHECK(rmalab_win_test(r->w, &done));
    } else {
        CHECK(rmalab_win_wait(r->w));
    }
    /* What the origins wrote, against the model. */
    for (int i = 0; i < norigins; i++) {
        int o = origins[i];
        if (g->quiet[o] >> rank & 1)
            continue;
        int n = draw_ops(r->seed, r->epoch, o, rank, ops);
        for (int k = 0; k < n; k++)
            apply(r->model, &ops[k]);
        compare(r, put_at(o), SLOT, "the put slot of an origin");
    }
    if (norigins)
        compare(r, acc_at(), ACC_CELLS * 8, "the accumulate region");
}

/* A fence epoch: every rank puts into its fence slot of every rank. */
static void fence_epoch(struct run *r)
{
    unsigned char data[SIDE_SLOT];
    CHECK(rmalab_win_fence(r->w, RMALAB_MODE_NOPRECEDE));
    for (int t = 0; t < size; t++) {
        fill(rng_at(r->seed, (uint64_t)r->epoch, 5, (uint64_t)rank * MAX_RANKS + (uint64_t)t),
             data, SIDE_SLOT);
        CHECK(rmalab_win_put(r->w, t, fence_at(rank), RMALAB_UINT8, SIDE_SLOT, data));
    }
    CHECK(rmalab_win_fence(r->w, RMALAB_MODE_NOSUCCEED));
    for (int o = 0; o < size; o++)
        fill(rng_at(r->seed, (uint64_t)r->epoch, 5, (uint64_t)o * MAX_RANKS + (uint64_t)rank),
             r->model + fence_at(o), SIDE_SLOT);
}

/* A passive-target epoch: each rank writes its lock slot at one rank drawn
 * for it and gets that rank's identity; lock/unlock, or lock_all with a
 * flush on every other checkpoint. */
static void lock_epoch(struct run *r)
{
    rng g = rng_at(r->seed, (uint64_t)r->epoch, 6, 0);
    int target_of[MAX_RANKS];
    bool exclusive[MAX_RANKS];
    for (int o = 0; o < size; o++) {
        target_of[o] = (int)below(&g, (uint32_t)size);
        exclusive[o] = below(&g, 2);
    }
    bool all = r->checkpoints % 2 == 1;
    int t = target_of[rank];
    unsigned char data[SIDE_SLOT];
    fill(rng_at(r->seed, (uint64_t)r->epoch, 7, (uint64_t)rank), data, SIDE_SLOT);
    struct pending_get get = {.target = t, .disp = id_at() + 8};
    if (all)
        CHECK(rmalab_win_lock_all(r->w, 0));
    else
        CHECK(rmalab_win_lock(r->w, t, exclusive[rank], 0));
    CHECK(rmalab_win_put(r->w, t, lock_at(rank), RMALAB_UINT8, SIDE_SLOT, data));
    CHECK(rmalab_win_get(r->w, t, get.disp, RMALAB_UINT64, 4, &get.res));
    if (all) {
        CHECK(rmalab_win_flush(r->w, t));
        check_get(r, &get);
        CHECK(rmalab_win_unlock_all(r->w));
    } else {
        CHECK(rmalab_win_unlock(r->w, t));
        check_get(r, &get);
    }
    for (int o = 0; o < size; o++)
        if (target_of[o] == rank)
            fill(rng_at(r->seed, (uint64_t)r->epoch, 7, (uint64_t)o), r->model + lock_at(o),
                 SIDE_SLOT);
}

/* Where rank o puts into the side window in epoch e. */
static int side_target(const struct run *r, long e, int o)
{
    rng g = rng_at(r->seed, (uint64_t)e, 8, (uint64_t)o);
    return (int)below(&g, (uint32_t)size);
}

static void side_epoch(struct run *r)
{
    int64_t e = r->epoch;
    int t = side_target(r, r->epoch, rank);
    CHECK(rmalab_win_put(r->side, t, rank, RMALAB_INT64, 1, &e));
    CHECK(rmalab_win_flush(r->side, t));
    for (int o = 0; o < size; o++)
        if (side_target(r, r->epoch, o) == rank)
            r->side_last[o] = e;
}

/* After a barrier: every put into the side window has been flushed. */
static void side_check(const struct run *r)
{
    const int64_t *cell = rmalab_win_base(r->side);
    for (int o = 0; o < size; o++)
        if (cell[o] != r->side_last[o])
            die("%s engine, epoch %ld: the side window's cell of rank %d holds %lld, "
                "expected %lld",
                r->engine, r->epoch, o, (long long)cell[o], (long long)r->side_last[o]);
}

static void checkpoint(struct run *r)
{
    r->checkpoints++;
    MPI_Barrier(MPI_COMM_WORLD);
    side_check(r);
    fence_epoch(r);
    lock_epoch(r);
    MPI_Barrier(MPI_COMM_WORLD); /* every unlock has returned */
    compare(r, 0, win_bytes(), "the whole window at a checkpoint");
    schedule_reset(&r->sched); /* the barriers made every edge safe */
    long e = r->epoch;
    bool warm = e == r->warmup, tenth = e >= r->next_tenth;
    if ((warm || tenth) && r->nsamples < MAX_SAMPLES) {
        if (r->nsamples == 0 || r->samples[r->nsamples - 1].epoch != e)
            r->samples[r->nsamples++] = take_sample(e);
    }
    while (r->next_tenth <= e)
        r->next_tenth += r->epochs / 10 > 0 ? r->epochs / 10 : 1;
}

static uint64_t checksum(const unsigned char *p, MPI_Aint n)
{
    uint64_t h = 1469598103934665603u;
    for (MPI_Aint i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211u;
    return h;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void run_engine(struct run *r)
{
    MPI_Barrier(MPI_COMM_WORLD);
    r->before = take_sample(0);
    rmalab_info *info;
    CHECK(rmalab_info_create(&info));
    CHECK(rmalab_info_set(info, "rmalab_pscw", r->engine));
    rmalab_win_opts o = {.size = win_bytes(), .disp_unit = 1, .info = info, .name = "stress"};
    CHECK(rmalab_win_allocate(&o, &r->w, NULL));
    rmalab_win_opts side = {.size = 8 * size, .disp_unit = 8, .info = info,
                            .name = "stress-side"};
    CHECK(rmalab_win_allocate(&side, &r->side, NULL));
    rmalab_info_destroy(&info);
    CHECK(rmalab_win_lock_all(r->side, 0));
    r->base = rmalab_win_base(r->w);
    r->model = calloc((size_t)win_bytes(), 1);
    if (!r->model)
        die("out of memory for the model");
    for (int i = 0; i < ID_BYTES; i++)
        r->base[id_at() + i] = r->model[id_at() + i] = identity(rank, i);
    r->sched.seed = r->seed;
    schedule_reset(&r->sched);
    r->next_tenth = r->epochs / 10 > 0 ? r->epochs / 10 : 1;
    MPI_Barrier(MPI_COMM_WORLD); /* identities written before anyone gets them */

    double t0 = now_s();
    struct graph g;
    for (r->epoch = 1; r->epoch <= r->epochs; r->epoch++) {
        draw_graph(&r->sched, r->epoch, &g);
        pscw_epoch(r, &g);
        side_epoch(r);
        if (r->epoch % r->check == 0 || r->epoch == r->epochs || r->epoch == r->warmup)
            checkpoint(r);
    }
    r->epoch = r->epochs;
    r->seconds = now_s() - t0;
    double slowest;
    MPI_Allreduce(&r->seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    r->seconds = slowest;
    r->checksum = checksum(r->base, win_bytes());
    CHECK(rmalab_win_unlock_all(r->side));
    CHECK(rmalab_win_free(&r->side));
    CHECK(rmalab_win_free(&r->w));
    free(r->model);
    r->model = r->base = NULL;
    MPI_Barrier(MPI_COMM_WORLD);
    r->after_free = take_sample(r->epochs);
}
