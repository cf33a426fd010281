/* The "rma-engine" suite: what rmalab's own PSCW engine (hint rmalab_pscw =
 * "rma", core/src/engine-rma.c) adds to the PSCW that the "pscw" suite
 * checks on both engines. Its matching happens in rmalab's memory, so
 * another thread can see it while the owner is blocked: a target blocked in
 * wait shows which origins have not completed, an origin blocked in a put
 * shows which targets have not posted. Also the paths get_info reports,
 * nocheck on both sides, per-peer matching of a post that arrives early,
 * and fences and locks on an rma window of every flavour. Needs MPI_Init and two
 * ranks or more; ranks 0 and 1 take part and the others look on. Tests
 * synchronise ranks, so they use the soft checks of testutil.h. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testutil.h"

static rmalab_win *W;
static int rank, nranks, other, active;

static rmalab_win *rma_window(rmalab_flavor flavor, MPI_Aint size, rmalab_diags *diags)
{
    rmalab_info *info = tu_info("rmalab_pscw", "rma", NULL);
    rmalab_win_opts o = {.size = size, .disp_unit = 8, .info = info, .name = "rma"};
    rmalab_win *w = NULL;
    int rc = flavor == RMALAB_FLAVOR_CREATE     ? rmalab_win_create(&o, &w, diags)
             : flavor == RMALAB_FLAVOR_SHARED   ? rmalab_win_allocate_shared(&o, &w, diags)
             : flavor == RMALAB_FLAVOR_DYNAMIC  ? (o.disp_unit = 1,
                                                   rmalab_win_create_dynamic(&o, &w, diags))
                                                : rmalab_win_allocate(&o, &w, diags);
    rmalab_info_destroy(&info);
    ck_assert_ok(rc); /* collective: fails on every rank alike */
    return w;
}

static void setup(void)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    active = rank < 2;
    other = rank == 0 ? 1 : 0;
    tu_soft_begin();
    W = rma_window(RMALAB_FLAVOR_ALLOCATE, 32, NULL);
}

static void teardown(void)
{
    rmalab_epoch_state s;
    rmalab_win_state(W, &s);
    if (s.access == RMALAB_ACCESS_START)
        rmalab_win_complete(W);
    if (s.exposure == RMALAB_EXPOSURE_POST)
        rmalab_win_wait(W);
    rmalab_win_free(&W);
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static int64_t slot(int i)
{
    int64_t v = -1;
    SOFT_OK(rmalab_win_read(W, i, RMALAB_INT64, 1, &v));
    return v;
}

/* ------------------------------------------------------------------------ */
/* Visible while blocked                                                    */

/* A thread that watches a window: the first snapshot (state and text) taken
 * once the owner has been blocked in `call` for at least `min_s`. It only
 * reads the window's state, from another thread, as win.h allows. */
typedef struct {
    rmalab_win *win;
    const char *call;
    double min_s;
    atomic_int stop;
    int seen;
    rmalab_epoch_state s;
    char text[512];
} sampler;

static void *sample(void *arg)
{
    sampler *sp = arg;
    while (!atomic_load(&sp->stop)) {
        rmalab_epoch_state s;
        rmalab_win_state(sp->win, &s);
        if (s.blocked_in && strcmp(s.blocked_in, sp->call) == 0 && s.blocked_for >= sp->min_s) {
            sp->s = s;
            rmalab_win_describe(sp->win, sp->text, sizeof sp->text);
            sp->seen = 1;
            break;
        }
        sleep_s(0.002);
    }
    return NULL;
}

static void sampler_start(sampler *sp, pthread_t *t, const char *call)
{
    memset(sp, 0, sizeof *sp);
    sp->win = W;
    sp->call = call;
    sp->min_s = 0.1;
    ck_assert_int_eq(pthread_create(t, NULL, sample, sp), 0);
}

static void sampler_stop(sampler *sp, pthread_t t)
{
    atomic_store(&sp->stop, 1);
    pthread_join(t, NULL);
}

/* Rank 1 waits for rank 0, which sleeps 300 ms before start/put/complete:
 * the other thread sees the wait and that nothing has arrived. */
START_TEST(test_target_visible_while_blocked)
{
    int zero = 0, one = 1;
    int64_t v = 4242;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        sampler sp;
        pthread_t t;
        sampler_start(&sp, &t, "wait");
        SOFT_OK(rmalab_win_post(W, &zero, 1, 0));
        SOFT_OK(rmalab_win_wait(W));
        sampler_stop(&sp, t);
        SOFT(sp.seen, "the other thread never saw the owner blocked in wait");
        if (sp.seen) {
            SOFT_STR_EQ(sp.s.blocked_in, "wait");
            SOFT(sp.s.blocked_for >= 0.1 && sp.s.blocked_for < 30, "blocked for %f s",
                 sp.s.blocked_for);
            SOFT_STR_EQ(sp.s.engine, "rma");
            SOFT_INT(sp.s.exposure, RMALAB_EXPOSURE_POST);
            SOFT_INT(sp.s.access, RMALAB_ACCESS_NONE);
            SOFT_INT(sp.s.n_exposure, 1);
            SOFT_INT(sp.s.exposure_ranks[0], 0);
            SOFT_INT(sp.s.arrived[0], 0);
            SOFT_CONTAINS(sp.text, "blocked ");
            SOFT_CONTAINS(sp.text, " s in wait(); no access epoch; exposure epoch to {0}: waits "
                                   "for complete() from {0}: 0 of 1 arrived");
        }
        rmalab_epoch_state s;
        rmalab_win_state(W, &s);
        SOFT(s.blocked_in == NULL, "still blocked in %s", s.blocked_in);
        SOFT_INT(s.exposure, RMALAB_EXPOSURE_NONE);
        SOFT_INT(slot(0), 4242);
    } else if (rank == 0) {
        /* Busy for 300 ms, but inside MPI: on the network path rank 1's
         * post completes its signal before it returns, which needs this
         * rank's progress. */
        double until = MPI_Wtime() + 0.3;
        while (MPI_Wtime() < until) {
            int flag;
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            sleep_s(0.001);
        }
        SOFT_OK(rmalab_win_start(W, &one, 1, 0));
        SOFT_OK(rmalab_win_put(W, 1, 0, RMALAB_INT64, 1, &v));
        SOFT_OK(rmalab_win_complete(W));
    }
    tu_soft_end();
}
END_TEST

/* Rank 0 starts at once (weak synchronisation) and blocks in its put until
 * rank 1, which sleeps 300 ms, posts: the other thread sees the put waiting
 * and which target has not posted. */
START_TEST(test_origin_visible_while_blocked)
{
    int zero = 0, one = 1;
    int64_t v = 77;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        sampler sp;
        pthread_t t;
        SOFT_OK(rmalab_win_start(W, &one, 1, 0)); /* returns at once */
        rmalab_epoch_state s;
        rmalab_win_state(W, &s);
        SOFT_INT(s.access, RMALAB_ACCESS_START);
        SOFT_INT(s.posted[0], 0);
        sampler_start(&sp, &t, "put");
        SOFT_OK(rmalab_win_put(W, 1, 1, RMALAB_INT64, 1, &v));
        sampler_stop(&sp, t);
        SOFT(sp.seen, "the other thread never saw the owner blocked in put");
        if (sp.seen) {
            SOFT_INT(sp.s.access, RMALAB_ACCESS_START);
            SOFT_INT(sp.s.n_access, 1);
            SOFT_INT(sp.s.access_ranks[0], 1);
            SOFT_INT(sp.s.posted[0], 0);
            SOFT_INT(sp.s.ops_in_epoch, 1);
            SOFT_CONTAINS(sp.text, " s in put(); access epoch to {1}: post() arrived from 0 of "
                                   "1, missing {1}");
        }
        rmalab_win_state(W, &s);
        SOFT_INT(s.posted[0], 1);
        SOFT(s.blocked_in == NULL, "still blocked in %s", s.blocked_in);
        char text[256];
        rmalab_win_describe(W, text, sizeof text);
        SOFT_STR_EQ(text, "access epoch to {1}: post() arrived from 1 of 1");
        SOFT_OK(rmalab_win_complete(W));
    } else if (rank == 1) {
        sleep_s(0.3);
        SOFT_OK(rmalab_win_post(W, &zero, 1, 0));
        SOFT_OK(rmalab_win_wait(W));
        SOFT_INT(slot(1), 77);
    }
    tu_soft_end();
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Paths, nocheck, matching, refusals                                       */

START_TEST(test_info_paths)
{
    /* ranks on one node, unless MPICH is told that every rank is a node
     * (MPIR_CVAR_NOLOCAL=1, or -launcher fork -hosts: RMALAB_TEST_NODES) */
    const char *nl = getenv("MPIR_CVAR_NOLOCAL"), *nodes = getenv("RMALAB_TEST_NODES");
    int nolocal = (nl && strcmp(nl, "1") == 0) || (nodes && strcmp(nodes, "each") == 0);
    static const struct {
        rmalab_flavor f;
        const char *sync, *data, *sync_nl, *data_nl;
    } want[] = {
        {RMALAB_FLAVOR_CREATE, "shm", "shm", "shm,mpi", "shm,mpi"},
        {RMALAB_FLAVOR_ALLOCATE, "shm", "shm", "shm,mpi", "shm,mpi"},
        {RMALAB_FLAVOR_SHARED, "shm", "shm", "shm,mpi", "shm,mpi"},
        {RMALAB_FLAVOR_DYNAMIC, "shm", "mpi", "shm,mpi", "mpi"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        rmalab_win *w = rma_window(want[i].f, 16, NULL);
        rmalab_info *eff = NULL;
        SOFT_OK(rmalab_win_get_info(w, &eff));
        SOFT_STR_EQ(tu_get(eff, "rmalab_pscw"), "rma");
        SOFT_STR_EQ(tu_get(eff, "rmalab_pscw_sync_path"), nolocal ? want[i].sync_nl : want[i].sync);
        SOFT_STR_EQ(tu_get(eff, "rmalab_pscw_data_path"),
                    nolocal ? want[i].data_nl : want[i].data);
        rmalab_info_destroy(&eff);
        SOFT_OK(rmalab_win_free(&w));
    }
    tu_soft_end();
}
END_TEST

/* win_create where rank 0 gives its own memory and the others let rmalab
 * allocate: only the memory rmalab allocated is node-shared, so every rank
 * copies to the others but goes through MPI to rank 0; every put lands in
 * the right bytes, and rank 0's memory is the memory it gave. */
START_TEST(test_create_mixed_memory)
{
    const char *nl = getenv("MPIR_CVAR_NOLOCAL"), *nodes = getenv("RMALAB_TEST_NODES");
    int nolocal = (nl && strcmp(nl, "1") == 0) || (nodes && strcmp(nodes, "each") == 0);
    _Alignas(64) int64_t mine[4] = {0};
    rmalab_info *info = tu_info("rmalab_pscw", "rma", NULL);
    rmalab_win_opts o = {.size = sizeof mine, .disp_unit = 8, .info = info,
                         .base = rank == 0 ? mine : NULL};
    rmalab_win *w = NULL;
    ck_assert_ok(rmalab_win_create(&o, &w, NULL));
    rmalab_info_destroy(&info);
    rmalab_info *eff = NULL;
    SOFT_OK(rmalab_win_get_info(w, &eff));
    /* rank 0 reaches itself through MPI; with one rank per node, each rank
     * other than 0 reaches only itself by copy */
    const char *want = nranks == 1 ? "mpi" : nolocal && rank == 0 ? "mpi" : "shm,mpi";
    SOFT_STR_EQ(tu_get(eff, "rmalab_pscw_data_path"), want);
    rmalab_info_destroy(&eff);
    SOFT(rank != 0 || rmalab_win_base(w) == (void *)mine, "rank 0's window is its memory");
    if (active) {
        SOFT_OK(rmalab_win_post(w, &other, 1, 0));
        SOFT_OK(rmalab_win_start(w, &other, 1, 0));
        int64_t v = 70 + rank;
        SOFT_OK(rmalab_win_put(w, other, 1 + rank, RMALAB_INT64, 1, &v));
        SOFT_OK(rmalab_win_complete(w));
        SOFT_OK(rmalab_win_wait(w));
        int64_t got[4];
        SOFT_OK(rmalab_win_read(w, 0, RMALAB_INT64, 4, got));
        for (int i = 0; i < 4; i++)
            SOFT(got[i] == (i == 1 + other ? 70 + other : 0), "rank %d: slot %d holds %lld",
                 rank, i, (long long)got[i]);
        SOFT(rank != 0 || mine[1 + other] == 70 + other, "in rank 0's own memory");
    }
    SOFT_OK(rmalab_win_free(&w));
    tu_soft_end();
}
END_TEST

START_TEST(test_nocheck_both_sides)
{
    for (int i = 0; i < 20; i++) {
        int64_t v = 100 * i + rank;
        if (active)
            SOFT_OK(rmalab_win_post(W, &other, 1, RMALAB_MODE_NOCHECK));
        MPI_Barrier(MPI_COMM_WORLD); /* the promise nocheck makes */
        if (active) {
            rmalab_epoch_state s;
            SOFT_OK(rmalab_win_start(W, &other, 1, RMALAB_MODE_NOCHECK));
            rmalab_win_state(W, &s);
            SOFT_INT(s.posted[0], 1); /* nothing to wait for */
            SOFT_OK(rmalab_win_put(W, other, i % 4, RMALAB_INT64, 1, &v));
            SOFT_OK(rmalab_win_complete(W));
            SOFT_OK(rmalab_win_wait(W));
            SOFT_INT(slot(i % 4), 100 * i + other);
        }
    }
    /* checked epochs afterwards are matched as before */
    for (int i = 20; i < 25 && active; i++) {
        int64_t v = 100 * i + rank;
        SOFT_OK(rmalab_win_post(W, &other, 1, 0));
        SOFT_OK(rmalab_win_start(W, &other, 1, 0));
        SOFT_OK(rmalab_win_put(W, other, 0, RMALAB_INT64, 1, &v));
        SOFT_OK(rmalab_win_complete(W));
        SOFT_OK(rmalab_win_wait(W));
        SOFT_INT(slot(0), 100 * i + other);
    }
    tu_soft_end();
}
END_TEST

/* A post meant for a later epoch arrives before a start it is not meant
 * for (legal MPI). MPICH 4.0.2's native MPI_Win_start counts notifications
 * until the count equals the group size, so there it spins forever; the
 * rma engine matches per peer. */
START_TEST(test_early_post)
{
    int zero = 0, one = 1;
    for (int round = 1; round <= 10; round++) {
        if (rank == 0) {
            SOFT_OK(rmalab_win_post(W, &one, 1, 0)); /* for rank 1's second epoch */
            SOFT_OK(rmalab_win_wait(W));
            SOFT_INT(slot(0), 200 + round);
        } else if (rank == 1) {
            int64_t a = 100 + round, b = 200 + round;
            bool done = true;
            sleep_s(0.001);
            SOFT_OK(rmalab_win_post(W, &one, 1, 0));
            SOFT_OK(rmalab_win_test(W, &done));
            SOFT(!done, "test before the epoch to itself");
            SOFT_OK(rmalab_win_start(W, &one, 1, 0));
            SOFT_OK(rmalab_win_put(W, 1, 1, RMALAB_INT64, 1, &a));
            SOFT_OK(rmalab_win_complete(W));
            SOFT_OK(rmalab_win_wait(W));
            SOFT_INT(slot(1), 100 + round);
            SOFT_OK(rmalab_win_start(W, &zero, 1, 0));
            SOFT_OK(rmalab_win_put(W, 0, 0, RMALAB_INT64, 1, &b));
            SOFT_OK(rmalab_win_complete(W));
        }
    }
    tu_soft_end();
}
END_TEST

/* Hints never change what a call means: fences and passive-target epochs
 * work on an rma window of every flavour (through a companion MPI window
 * over the same memory), with correct values, between PSCW epochs. Ranks
 * beyond the first two take part in the collective fences only. */
static void fence_and_locks(rmalab_win *w, MPI_Aint base, MPI_Aint mine, MPI_Aint du)
{
    int64_t v, got = -1;
    const void *data;
    rmalab_result *g = NULL, *fo = NULL;
    SOFT_OK(rmalab_win_write(w, mine + 2 * du, RMALAB_INT64, 1, &(int64_t){60 + rank}));
    SOFT_OK(rmalab_win_fence(w, 0));
    if (active) {
        v = 10 + rank;
        SOFT_OK(rmalab_win_put(w, other, base, RMALAB_INT64, 1, &v));
        SOFT_OK(rmalab_win_accumulate(w, other, base + du, RMALAB_INT64, 1, &(int64_t){3},
                                      RMALAB_OP_SUM));
        SOFT_OK(rmalab_win_get(w, other, base + 2 * du, RMALAB_INT64, 1, &g));
    }
    SOFT_OK(rmalab_win_fence(w, RMALAB_MODE_NOSUCCEED));
    if (active) {
        SOFT_OK(rmalab_win_read(w, mine, RMALAB_INT64, 1, &got));
        SOFT_INT(got, 10 + other);
        SOFT_OK(rmalab_win_read(w, mine + du, RMALAB_INT64, 1, &got));
        SOFT_INT(got, 3);
        if (g && !rmalab_result_data(g, &data, NULL, NULL))
            SOFT_INT(*(const int64_t *)data, 60 + other);
        /* exclusive lock, then lock_all with flush and fetch_and_op */
        v = 20 + rank;
        SOFT_OK(rmalab_win_lock(w, other, true, 0));
        SOFT_OK(rmalab_win_put(w, other, base, RMALAB_INT64, 1, &v));
        SOFT_OK(rmalab_win_unlock(w, other));
        SOFT_OK(rmalab_win_lock_all(w, 0));
        SOFT_OK(rmalab_win_accumulate(w, other, base + du, RMALAB_INT64, 1, &(int64_t){4},
                                      RMALAB_OP_SUM));
        SOFT_OK(rmalab_win_flush(w, other));
        SOFT_OK(rmalab_win_fetch_and_op(w, other, base + du, RMALAB_INT64, &(int64_t){0},
                                        RMALAB_OP_NO_OP, &fo));
        SOFT_OK(rmalab_win_flush_all(w));
        if (fo && !rmalab_result_data(fo, &data, NULL, NULL))
            SOFT_INT(*(const int64_t *)data, 7);
        SOFT_OK(rmalab_win_unlock_all(w));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (active) {
        SOFT_OK(rmalab_win_read(w, mine, RMALAB_INT64, 1, &got));
        SOFT_INT(got, 20 + other);
        /* and a PSCW epoch after them */
        v = 30 + rank;
        SOFT_OK(rmalab_win_post(w, &other, 1, 0));
        SOFT_OK(rmalab_win_start(w, &other, 1, 0));
        SOFT_OK(rmalab_win_put(w, other, base, RMALAB_INT64, 1, &v));
        SOFT_OK(rmalab_win_complete(w));
        SOFT_OK(rmalab_win_wait(w));
        SOFT_OK(rmalab_win_read(w, mine, RMALAB_INT64, 1, &got));
        SOFT_INT(got, 30 + other);
    }
    rmalab_result_release(g);
    rmalab_result_release(fo);
}

START_TEST(test_fence_and_locks)
{
    static const rmalab_flavor flavors[] = {RMALAB_FLAVOR_CREATE, RMALAB_FLAVOR_ALLOCATE,
                                            RMALAB_FLAVOR_SHARED, RMALAB_FLAVOR_DYNAMIC};
    rmalab_flavor f = flavors[_i];
    rmalab_win *w = rma_window(f, 32, NULL);
    MPI_Aint mine = 0, base = 0, du = f == RMALAB_FLAVOR_DYNAMIC ? 8 : 1;
    if (f == RMALAB_FLAVOR_DYNAMIC) {
        MPI_Aint all[64] = {0};
        SOFT_OK(rmalab_win_attach(w, 32, &mine));
        MPI_Allgather(&mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
        base = all[other];
    }
    fence_and_locks(w, base, mine, du);
    rmalab_epoch_state s;
    rmalab_win_state(w, &s);
    SOFT_STR_EQ(s.engine, "rma");
    if (f == RMALAB_FLAVOR_DYNAMIC)
        SOFT_OK(rmalab_win_detach(w, mine));
    SOFT_OK(rmalab_win_free(&w));
    tu_soft_end();
}
END_TEST

/* "Once post is issued, the sequence must complete without further
 * dependencies": once complete returns, the target's wait finishes with no
 * further MPI call from the origin, which here sleeps 3 s outside MPI. The
 * engine completes its signals before complete (and post) return; the
 * network path (MPIR_CVAR_NOLOCAL=1, or a node per rank with -launcher fork
 * -hosts) is the one where it matters. The other direction cannot hold on
 * MPICH 4.0.2's network path: an origin's data and signals to a target
 * that sleeps outside MPI after its post wait for that target's progress
 * (measured: 3.0 s), which is why idle REPL ranks poke progress. MPI_Wtime
 * is one clock on one machine. */
START_TEST(test_progress_after_complete)
{
    int zero = 0, one = 1;
    int64_t v = 99;
    double t = 0, all[128] = {0};
    if (nranks > 64)
        return;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        SOFT_OK(rmalab_win_start(W, &one, 1, 0));
        SOFT_OK(rmalab_win_put(W, 1, 0, RMALAB_INT64, 1, &v));
        long before = tu_mpi_unflushed_accumulates();
        SOFT_OK(rmalab_win_complete(W));
        t = MPI_Wtime();
        /* UCX sends small accumulates eagerly, so timing alone cannot show
         * a signal left unflushed: the PMPI layer (mpi-watch.c) can. */
        SOFT_INT(tu_mpi_unflushed_accumulates(), before);
        sleep_s(3.0); /* outside MPI */
    } else if (rank == 1) {
        long before = tu_mpi_unflushed_accumulates();
        SOFT_OK(rmalab_win_post(W, &zero, 1, 0));
        SOFT_INT(tu_mpi_unflushed_accumulates(), before); /* post's signal too */
        SOFT_OK(rmalab_win_wait(W));
        t = MPI_Wtime();
        SOFT_INT(slot(0), 99);
    }
    MPI_Allgather(&t, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    SOFT(all[1] - all[0] < 0.1, "the target's wait returned %.3f s after the origin's "
                                "complete, while the origin slept outside MPI",
         all[1] - all[0]);
    tu_soft_end();
}
END_TEST

/* no_locks reaches the window that serves fences and locks, and the state
 * machine enforces the promise, as on the native engine. */
/* nocheck on one side only: rank 0 starts with nocheck, rank 1 posts
 * without it. The state says which side used nocheck, and the post that
 * nobody waited for does not skew the matching of the epochs after it
 * (before, every later epoch matched one post early, so puts landed
 * before the target had posted for them). */
START_TEST(test_nocheck_mismatch)
{
    int zero = 0, one = 1;
    int64_t v = 0;
    char text[512];
    rmalab_epoch_state s;
    if (active && rank == 1)
        SOFT_OK(rmalab_win_post(W, &zero, 1, 0));
    MPI_Barrier(MPI_COMM_WORLD); /* the post comes first, as nocheck promises */
    if (rank == 0) {
        SOFT_OK(rmalab_win_start(W, &one, 1, RMALAB_MODE_NOCHECK));
        rmalab_win_state(W, &s);
        SOFT(s.access_nocheck, "the state shows the nocheck start");
        rmalab_win_describe(W, text, sizeof text);
        SOFT_CONTAINS(text, "access epoch to {1} (start() was nocheck)");
        SOFT_OK(rmalab_win_put(W, 1, 0, RMALAB_INT64, 1, &(int64_t){1}));
        SOFT_OK(rmalab_win_complete(W));
    } else if (rank == 1) {
        SOFT_OK(rmalab_win_wait(W));
    }
    for (int epoch = 2; epoch <= 3 && active; epoch++) {
        if (rank == 1) {
            /* late, and writing its window just before it posts: a put
             * matched with the stale post would land first and be lost */
            sleep_s(0.2);
            SOFT_OK(rmalab_win_write(W, 0, RMALAB_INT64, 1, &(int64_t){-1}));
            SOFT_OK(rmalab_win_post(W, &zero, 1, 0));
            SOFT_OK(rmalab_win_wait(W));
            SOFT_INT(slot(0), epoch);
            continue;
        }
        v = epoch;
        SOFT_OK(rmalab_win_start(W, &one, 1, 0));
        SOFT_OK(rmalab_win_put(W, 1, 0, RMALAB_INT64, 1, &v));
        SOFT_OK(rmalab_win_complete(W));
    }
    tu_soft_end();
}
END_TEST

START_TEST(test_no_locks)
{
    rmalab_info *info = tu_info("rmalab_pscw", "rma", "no_locks", "true", NULL);
    rmalab_win_opts o = {.size = 16, .disp_unit = 8, .info = info};
    rmalab_win *w = NULL;
    rmalab_info *eff = NULL;
    rmalab_diags d;
    rmalab_diags_init(&d);
    ck_assert_ok(rmalab_win_allocate(&o, &w, &d));
    rmalab_info_destroy(&info);
    SOFT(tu_diag(&d, "no_locks") == NULL, "a diagnostic for no_locks");
    rmalab_diags_clear(&d);
    SOFT_OK(rmalab_win_get_info(w, &eff));
    SOFT_STR_EQ(tu_get(eff, "no_locks"), "true");
    rmalab_info_destroy(&eff);
    SOFT_RC(rmalab_win_lock(w, other, true, 0), RMALAB_ERR_RMA_SYNC);
    SOFT_CONTAINS(rmalab_errmsg(), "gave the hint no_locks = true");
    SOFT_OK(rmalab_win_free(&w));
    tu_soft_end();
}
END_TEST

Suite *rma_engine_suite(void)
{
    Suite *s = suite_create("rma-engine");
    TCase *tc = tcase_create("observe");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_target_visible_while_blocked);
    tcase_add_test(tc, test_origin_visible_while_blocked);
    suite_add_tcase(s, tc);

    tc = tcase_create("engine");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_info_paths);
    tcase_add_test(tc, test_create_mixed_memory);
    tcase_add_test(tc, test_nocheck_both_sides);
    tcase_add_test(tc, test_nocheck_mismatch);
    tcase_add_test(tc, test_early_post);
    tcase_add_loop_test(tc, test_fence_and_locks, 0, 4);
    tcase_add_test(tc, test_no_locks);
    suite_add_tcase(s, tc);

    tc = tcase_create("progress");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_progress_after_complete);
    suite_add_tcase(s, tc);
    return s;
}
