/* The "pscw" suite: post/start/complete/wait/test through the core API, on
 * whichever engine RMALAB_PSCW selects for windows that give no rmalab_pscw
 * hint (rma by default). meson runs it twice: in test-core-mpi with
 * RMALAB_PSCW=native, and alone (CK_RUN_SUITE=pscw) with RMALAB_PSCW=rma,
 * so every test here must hold on both engines: it uses no fence and no
 * lock, except to check that they are refused inside a PSCW epoch with the
 * same message on both, and around the request-based operations of
 * test_request_rules. Needs MPI_Init and two ranks or more; ranks 0 and 1
 * take part and the others look on. Tests synchronise ranks, so they use
 * the soft checks of testutil.h and end with tu_soft_end(); the fixture
 * creates the window on every rank and the teardown closes what a test left
 * open before freeing it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define SLOTS 4

static rmalab_win *W;
static int rank, nranks, other, active;

/* The engine the windows of this suite must have. */
static const char *engine(void)
{
    const char *e = getenv("RMALAB_PSCW");
    return e && strcmp(e, "native") == 0 ? "native" : "rma"; /* rma by default */
}

static bool is_rma(void)
{
    return strcmp(engine(), "rma") == 0;
}

static void setup(void)
{
    rmalab_win_opts o = {.size = 8 * SLOTS, .disp_unit = 8, .name = "pscw"};
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    active = rank < 2;
    other = rank == 0 ? 1 : 0;
    W = NULL;
    tu_soft_begin();
    ck_assert_ok(rmalab_win_allocate(&o, &W, NULL));
}

/* Close whatever a failed test left open, then free (collective). */
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

static int64_t slot(rmalab_win *w, int i)
{
    int64_t v = -1;
    SOFT_OK(rmalab_win_read(w, i, RMALAB_INT64, 1, &v));
    return v;
}

/* One epoch between ranks 0 and 1: each puts `v` into the other's slot
 * `at`; returns what arrived here (-1 on ranks that look on). */
static int64_t exchange(rmalab_win *w, int at, int64_t v)
{
    if (!active)
        return -1;
    SOFT_OK(rmalab_win_post(w, &other, 1, 0));
    SOFT_OK(rmalab_win_start(w, &other, 1, 0));
    SOFT_OK(rmalab_win_put(w, other, at, RMALAB_INT64, 1, &v));
    SOFT_OK(rmalab_win_complete(w));
    SOFT_OK(rmalab_win_wait(w));
    return slot(w, at);
}

/* ------------------------------------------------------------------------ */
/* Epochs                                                                   */

START_TEST(test_engine)
{
    rmalab_epoch_state s;
    rmalab_info *eff = NULL;
    rmalab_win_state(W, &s);
    SOFT_STR_EQ(s.engine, engine());
    SOFT_OK(rmalab_win_get_info(W, &eff));
    SOFT_STR_EQ(tu_get(eff, "rmalab_pscw"), engine());
    SOFT(tu_get(eff, "rmalab_pscw_sync_path") != NULL || !is_rma(), "rma: a sync path");
    SOFT(tu_get(eff, "rmalab_pscw_data_path") == NULL || is_rma(), "native: no data path");
    rmalab_info_destroy(&eff);
    tu_soft_end();
}
END_TEST

START_TEST(test_exchange)
{
    for (int i = 1; i <= 5; i++) {
        int64_t got = exchange(W, i % SLOTS, 100 * i + rank);
        if (active)
            SOFT_INT(got, 100 * i + other);
    }
    rmalab_epoch_state s;
    rmalab_win_state(W, &s);
    SOFT_INT(s.epochs, active ? 5 : 0);
    SOFT_INT(s.access, RMALAB_ACCESS_NONE);
    SOFT_INT(s.exposure, RMALAB_EXPOSURE_NONE);
    tu_soft_end();
}
END_TEST

/* Rank 0 only accesses, rank 1 only exposes; a get in the same epoch as a
 * put to another slot, and its result only after complete. */
START_TEST(test_one_sided_roles)
{
    int64_t seven = 7, mine = 50 + rank;
    SOFT_OK(rmalab_win_write(W, 2, RMALAB_INT64, 1, &mine));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int one = 1;
        rmalab_result *r = NULL;
        const void *data = NULL;
        SOFT_OK(rmalab_win_start(W, &one, 1, 0));
        SOFT_OK(rmalab_win_put(W, 1, 1, RMALAB_INT64, 1, &seven));
        SOFT_OK(rmalab_win_get(W, 1, 2, RMALAB_INT64, 1, &r));
        SOFT(!rmalab_result_ready(r), "ready before complete");
        SOFT_RC(rmalab_result_data(r, &data, NULL, NULL), RMALAB_ERR_RMA_SYNC);
        SOFT_CONTAINS(rmalab_errmsg(), "here at complete()");
        SOFT_OK(rmalab_win_complete(W));
        SOFT(rmalab_result_ready(r), "not ready after complete");
        SOFT_OK(rmalab_result_data(r, &data, NULL, NULL));
        SOFT(data && *(const int64_t *)data == 51, "get gave %lld",
             data ? (long long)*(const int64_t *)data : -1LL);
        rmalab_result_release(r);
    } else if (rank == 1) {
        int zero = 0;
        SOFT_OK(rmalab_win_post(W, &zero, 1, 0));
        SOFT_OK(rmalab_win_wait(W));
        SOFT_INT(slot(W, 1), 7);
    }
    tu_soft_end();
}
END_TEST

/* test() is false while the origin has not completed (it waits in a
 * barrier), and true once it has. */
START_TEST(test_test_polls)
{
    int zero = 0, one = 1;
    int64_t v = 71;
    bool done = true;
    if (rank == 0) {
        SOFT_OK(rmalab_win_post(W, &one, 1, 0));
        for (int i = 0; i < 100; i++) {
            SOFT_OK(rmalab_win_test(W, &done));
            SOFT(!done, "test %d returned true before rank 1 started", i);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        SOFT_OK(rmalab_win_start(W, &zero, 1, 0));
        SOFT_OK(rmalab_win_put(W, 0, 0, RMALAB_INT64, 1, &v));
        SOFT_OK(rmalab_win_complete(W));
    } else if (rank == 0) {
        double until = MPI_Wtime() + 20;
        done = false;
        while (!done && MPI_Wtime() < until)
            SOFT_OK(rmalab_win_test(W, &done));
        SOFT(done, "test never returned true");
        SOFT_INT(slot(W, 0), 71);
        SOFT_RC(rmalab_win_test(W, &done), RMALAB_ERR_RMA_SYNC);
        SOFT_CONTAINS(rmalab_errmsg(), "test() already returned true");
    }
    tu_soft_end();
}
END_TEST

START_TEST(test_empty_groups)
{
    int64_t v = 1;
    bool done = false;
    SOFT_OK(rmalab_win_post(W, NULL, 0, 0));
    SOFT_OK(rmalab_win_start(W, NULL, 0, 0));
    SOFT_RC(rmalab_win_put(W, rank, 0, RMALAB_INT64, 1, &v), RMALAB_ERR_RMA_SYNC);
    SOFT_CONTAINS(rmalab_errmsg(), "start() was given {}");
    SOFT_OK(rmalab_win_complete(W));
    SOFT_OK(rmalab_win_test(W, &done));
    SOFT(done, "test on an empty exposure epoch");
    SOFT_INT(exchange(W, 0, 60 + rank), active ? 60 + other : -1);
    tu_soft_end();
}
END_TEST

/* Empty groups are no-ops that reach no engine ("a call is a noop, and can
 * be skipped, if the group argument is empty"). Regression: MPICH 4.0.2
 * counts posts from any rank and epoch, so when rank 1 finishes an empty
 * epoch and posts the next one to rank 0 while rank 0, driving progress,
 * has not yet made its own empty start, an empty MPI_Win_start spun
 * forever on the native engine. */
START_TEST(test_early_post_empty)
{
    int zero = 0, one = 1, flag = 0;
    if (active) {
        SOFT_OK(rmalab_win_post(W, NULL, 0, 0));
        if (rank == 0) { /* see rank 1's next post arrive */
            double t0 = MPI_Wtime();
            while (MPI_Wtime() - t0 < 0.3)
                MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        }
        SOFT_OK(rmalab_win_start(W, NULL, 0, 0));
        SOFT_OK(rmalab_win_complete(W));
        SOFT_OK(rmalab_win_wait(W));
        int64_t v = 77;
        if (rank == 1) {
            SOFT_OK(rmalab_win_post(W, &zero, 1, 0));
            SOFT_OK(rmalab_win_wait(W));
            SOFT_INT(slot(W, 0), 77);
        } else {
            SOFT_OK(rmalab_win_start(W, &one, 1, 0));
            SOFT_OK(rmalab_win_put(W, 1, 0, RMALAB_INT64, 1, &v));
            SOFT_OK(rmalab_win_complete(W));
        }
    }
    tu_soft_end();
}
END_TEST

/* start({me}) before post({..., me}) could never match: refused, and the
 * window stays usable; after the post it is a valid epoch to itself. */
START_TEST(test_start_self)
{
    int me = rank;
    int64_t v = 500 + rank;
    SOFT_RC(rmalab_win_start(W, &me, 1, 0), RMALAB_ERR_RMA_SYNC);
    SOFT_CONTAINS(rmalab_errmsg(), "has not posted to itself");
    SOFT_CONTAINS(rmalab_errmsg(), "call post() with a group holding");
    rmalab_epoch_state s;
    rmalab_win_state(W, &s);
    SOFT_INT(s.access, RMALAB_ACCESS_NONE);
    SOFT_OK(rmalab_win_post(W, &me, 1, 0));
    SOFT_OK(rmalab_win_start(W, &me, 1, 0));
    SOFT_OK(rmalab_win_put(W, me, 1, RMALAB_INT64, 1, &v));
    SOFT_OK(rmalab_win_complete(W));
    SOFT_OK(rmalab_win_wait(W));
    SOFT_INT(slot(W, 1), 500 + rank);
    tu_soft_end();
}
END_TEST

/* nocheck promises that each post comes before its start: a barrier. */
START_TEST(test_nocheck)
{
    for (int i = 0; i < 5; i++) {
        int64_t v = 10 * i + rank;
        if (active)
            SOFT_OK(rmalab_win_post(W, &other, 1, RMALAB_MODE_NOCHECK | RMALAB_MODE_NOSTORE));
        MPI_Barrier(MPI_COMM_WORLD);
        if (active) {
            SOFT_OK(rmalab_win_start(W, &other, 1, RMALAB_MODE_NOCHECK));
            SOFT_OK(rmalab_win_put(W, other, 3, RMALAB_INT64, 1, &v));
            SOFT_OK(rmalab_win_complete(W));
            SOFT_OK(rmalab_win_wait(W));
            SOFT_INT(slot(W, 3), 10 * i + other);
        }
    }
    SOFT_INT(exchange(W, 0, 5 + rank), active ? 5 + other : -1);
    tu_soft_end();
}
END_TEST

/* Atomic operations in a PSCW epoch (through MPI on the rma engine too). */
START_TEST(test_atomics)
{
    int64_t init[SLOTS] = {10, 20, 30, 40 + rank}, one = 1, five = 5, cmp, val = 99;
    rmalab_result *ga = NULL, *fo = NULL, *cs = NULL;
    SOFT_OK(rmalab_win_write(W, 0, RMALAB_INT64, SLOTS, init));
    MPI_Barrier(MPI_COMM_WORLD);
    if (active) {
        cmp = 40 + other;
        SOFT_OK(rmalab_win_post(W, &other, 1, 0));
        SOFT_OK(rmalab_win_start(W, &other, 1, 0));
        SOFT_OK(rmalab_win_accumulate(W, other, 0, RMALAB_INT64, 1, &five, RMALAB_OP_SUM));
        SOFT_OK(rmalab_win_get_accumulate(W, other, 1, RMALAB_INT64, 1, &one, RMALAB_OP_SUM, &ga));
        SOFT_OK(rmalab_win_fetch_and_op(W, other, 2, RMALAB_INT64, &five, RMALAB_OP_PROD, &fo));
        SOFT_OK(rmalab_win_compare_and_swap(W, other, 3, RMALAB_INT64, &cmp, &val, &cs));
        SOFT_OK(rmalab_win_complete(W));
        SOFT_OK(rmalab_win_wait(W));
        const void *d;
        SOFT_OK(rmalab_result_data(ga, &d, NULL, NULL));
        SOFT_INT(*(const int64_t *)d, 20);
        SOFT_OK(rmalab_result_data(fo, &d, NULL, NULL));
        SOFT_INT(*(const int64_t *)d, 30);
        SOFT_OK(rmalab_result_data(cs, &d, NULL, NULL));
        SOFT_INT(*(const int64_t *)d, 40 + other);
        int64_t got[SLOTS];
        SOFT_OK(rmalab_win_read(W, 0, RMALAB_INT64, SLOTS, got));
        SOFT_INT(got[0], 15);
        SOFT_INT(got[1], 21);
        SOFT_INT(got[2], 150);
        SOFT_INT(got[3], 99);
        rmalab_result_release(ga);
        rmalab_result_release(fo);
        rmalab_result_release(cs);
    }
    tu_soft_end();
}
END_TEST

/* Every flavour: the rma engine takes a different data path for each. */
START_TEST(test_flavours)
{
    for (int f = 0; f < 4; f++) {
        rmalab_win_opts o = {.size = 16, .disp_unit = f == 3 ? 1 : 8, .name = "flavour"};
        rmalab_win *w = NULL;
        int rc = f == 0   ? rmalab_win_create(&o, &w, NULL)
                 : f == 1 ? rmalab_win_allocate_shared(&o, &w, NULL)
                 : f == 2 ? rmalab_win_allocate(&o, &w, NULL)
                          : rmalab_win_create_dynamic(&o, &w, NULL);
        ck_assert_ok(rc); /* collective: fails on every rank alike */
        MPI_Aint mine = 8, theirs = 8;
        if (f == 3) { /* learn the other's address: slot 1 of its region */
            MPI_Aint *all = calloc((size_t)nranks, sizeof *all);
            ck_assert_ptr_nonnull(all);
            SOFT_OK(rmalab_win_attach(w, 16, &mine));
            mine += 8;
            MPI_Allgather(&mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
            theirs = all[other];
            free(all);
        }
        if (active) {
            int64_t v = 1000 * f + rank, got = -1;
            MPI_Aint disp = f == 3 ? theirs : 1;
            SOFT_OK(rmalab_win_post(w, &other, 1, 0));
            SOFT_OK(rmalab_win_start(w, &other, 1, 0));
            SOFT_OK(rmalab_win_put(w, other, disp, RMALAB_INT64, 1, &v));
            SOFT_OK(rmalab_win_complete(w));
            SOFT_OK(rmalab_win_wait(w));
            SOFT_OK(rmalab_win_read(w, f == 3 ? mine : 1, RMALAB_INT64, 1, &got));
            SOFT(got == 1000 * f + other, "flavour %s: got %lld",
                 rmalab_flavor_name(rmalab_win_flavor(w)), (long long)got);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        SOFT_OK(rmalab_win_free(&w));
    }
    tu_soft_end();
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Misuse                                                                   */

START_TEST(test_misuse)
{
    char want[256];
    SOFT_RC(rmalab_win_complete(W), RMALAB_ERR_RMA_SYNC);
    SOFT_CONTAINS(rmalab_errmsg(), "complete: it ends an access epoch opened by "
                                   "start(group), and none is open");
    SOFT_RC(rmalab_win_wait(W), RMALAB_ERR_RMA_SYNC);
    SOFT_CONTAINS(rmalab_errmsg(), "wait: it ends an exposure epoch opened by post(group)");
    if (active) {
        SOFT_OK(rmalab_win_post(W, &other, 1, 0));
        SOFT_RC(rmalab_win_post(W, &other, 1, 0), RMALAB_ERR_RMA_SYNC);
        snprintf(want, sizeof want, "post: an exposure epoch (posted to {%d}) is already open",
                 other);
        SOFT_CONTAINS(rmalab_errmsg(), want);
        /* fence and lock inside PSCW: the same message on both engines */
        SOFT_RC(rmalab_win_fence(W, 0), RMALAB_ERR_RMA_SYNC);
        SOFT_STR_EQ(rmalab_errmsg(), "fence: a PSCW epoch is open (exposure, from post()); "
                                     "fences may not be called inside it, so end it with "
                                     "wait() first");
        SOFT_RC(rmalab_win_lock(W, other, true, 0), RMALAB_ERR_RMA_SYNC);
        SOFT_STR_EQ(rmalab_errmsg(), "lock: a PSCW epoch is open (exposure, from post()); "
                                     "locks may not be taken inside it, so end it with "
                                     "wait() first");
        SOFT_OK(rmalab_win_start(W, &other, 1, 0));
        SOFT_RC(rmalab_win_start(W, &other, 1, 0), RMALAB_ERR_RMA_SYNC);
        SOFT_CONTAINS(rmalab_errmsg(), "start: an access epoch (started to");
        SOFT_RC(rmalab_win_lock_all(W, 0), RMALAB_ERR_RMA_SYNC);
        SOFT_STR_EQ(rmalab_errmsg(), "lock_all: a PSCW epoch is open (access, from start()); "
                                     "locks may not be taken inside it, so end it with "
                                     "complete() first");
        SOFT_RC(rmalab_win_fence(W, RMALAB_MODE_NOSUCCEED), RMALAB_ERR_RMA_SYNC);
        SOFT_CONTAINS(rmalab_errmsg(), "so end it with complete() first");
        /* an RMA call to a rank outside the start group */
        int64_t v = 1;
        SOFT_RC(rmalab_win_put(W, rank, 0, RMALAB_INT64, 1, &v), RMALAB_ERR_RMA_SYNC);
        snprintf(want, sizeof want, "put to rank %d: RMA calls in an access epoch may only "
                                    "target processes in its group; start() was given {%d}",
                 rank, other);
        SOFT_CONTAINS(rmalab_errmsg(), want);
        /* free inside the epoch: the same text on both engines */
        rmalab_win *keep = W;
        SOFT_RC(rmalab_win_free(&keep), RMALAB_ERR_RMA_SYNC);
        snprintf(want, sizeof want, "free: a window may only be freed outside of any epoch, "
                                    "and this one has access epoch to {%d}; exposure epoch to "
                                    "{%d}; close it first (complete())",
                 other, other);
        SOFT_STR_EQ(rmalab_errmsg(), want);
        SOFT(keep == W, "the window survived");
        v = 20 + rank;
        SOFT_OK(rmalab_win_put(W, other, 0, RMALAB_INT64, 1, &v));
        SOFT_OK(rmalab_win_complete(W));
        SOFT_OK(rmalab_win_wait(W));
        SOFT_INT(slot(W, 0), 20 + other);
    }
    tu_soft_end();
}
END_TEST

/* Request-based operations in a fence or start epoch: MPI allows them only
 * in a passive-target epoch, MPICH carries them out. Refused (ERR_RMA_SYNC,
 * nothing issued) on a window with the default rules; on one under
 * RMALAB_RULES_REPORT (rmalab run's) carried out on either engine, the plain
 * copies of the rma engine's shared memory too, the rule told once by
 * rmalab_err_went_on, and each request complete at its wait, before or
 * after the epoch's end. Outside any epoch, where MPICH refuses too, refused
 * under either rules. The fences are the same on both engines. */
START_TEST(test_request_rules)
{
    rmalab_win_opts o = {.size = 8 * SLOTS, .disp_unit = 8, .rules = RMALAB_RULES_REPORT};
    rmalab_win *R = NULL;
    rmalab_request *q = NULL, *p = NULL;
    int64_t mine = 70 + rank, got = -1, got2 = -1, put = 80 + rank;
    const char *msg = NULL;
    SOFT_OK(rmalab_win_allocate(&o, &R, NULL));
    SOFT_OK(rmalab_win_write(R, 0, RMALAB_INT64, 1, &mine));
    SOFT_OK(rmalab_win_fence(W, 0));
    SOFT_OK(rmalab_win_fence(R, 0));
    if (active) {
        SOFT_RC(rmalab_win_rget(W, other, 0, RMALAB_INT64, 1, &got, NULL, &q),
                RMALAB_ERR_RMA_SYNC);
        SOFT_CONTAINS(rmalab_errmsg(), "passive-target epoch, and this is a fence epoch");
        SOFT(q == NULL && rmalab_err_went_on(NULL) == RMALAB_OK, "refused: nothing issued");
        SOFT_OK(rmalab_win_rget(R, other, 0, RMALAB_INT64, 1, &got, NULL, &q));
        SOFT_INT(rmalab_err_went_on(&msg), RMALAB_ERR_RMA_SYNC);
        SOFT_CONTAINS(msg, "passive-target epoch, and this is a fence epoch");
        SOFT_CONTAINS(msg, "MPICH carries it out all the same");
        SOFT_INT(rmalab_err_went_on(NULL), RMALAB_OK); /* told once */
        SOFT_OK(rmalab_request_wait(q, NULL, NULL, NULL));
        SOFT_INT(got, 70 + other);
        SOFT_OK(rmalab_win_rput(R, other, 1, RMALAB_INT64, 1, &put, NULL, &p));
        SOFT_INT(rmalab_err_went_on(NULL), RMALAB_ERR_RMA_SYNC);
    }
    SOFT_OK(rmalab_win_fence(R, 0));
    SOFT_OK(rmalab_win_fence(W, 0));
    if (active) {
        SOFT_OK(rmalab_request_wait(p, NULL, NULL, NULL)); /* the fence completed it */
        SOFT_INT(slot(R, 1), 80 + other);
        rmalab_request_destroy(&q);
        rmalab_request_destroy(&p);
        SOFT_OK(rmalab_win_post(R, &other, 1, 0));
        SOFT_OK(rmalab_win_start(R, &other, 1, 0));
        SOFT_OK(rmalab_win_rget(R, other, 1, RMALAB_INT64, 1, &got2, NULL, &q));
        SOFT_INT(rmalab_err_went_on(&msg), RMALAB_ERR_RMA_SYNC);
        SOFT_CONTAINS(msg, "and this is an active-target start() epoch");
        put += 10;
        SOFT_OK(rmalab_win_rput(R, other, 2, RMALAB_INT64, 1, &put, NULL, &p));
        SOFT_INT(rmalab_err_went_on(NULL), RMALAB_ERR_RMA_SYNC);
        SOFT_OK(rmalab_request_wait(q, NULL, NULL, NULL));
        SOFT_INT(got2, 80 + rank);
        SOFT_OK(rmalab_win_complete(R));
        SOFT_OK(rmalab_request_wait(p, NULL, NULL, NULL));
        SOFT_OK(rmalab_win_wait(R));
        SOFT_INT(slot(R, 2), 90 + other);
        rmalab_request_destroy(&q);
        rmalab_request_destroy(&p);
        SOFT_RC(rmalab_win_rput(R, other, 0, RMALAB_INT64, 1, &put, NULL, &p),
                RMALAB_ERR_RMA_SYNC);
        SOFT_CONTAINS(rmalab_errmsg(), "and no epoch is open");
        SOFT(p == NULL && rmalab_err_went_on(NULL) == RMALAB_OK, "no epoch: refused");
    }
    o.rules = 7;
    rmalab_win *bad = NULL;
    SOFT_RC(rmalab_win_allocate(&o, &bad, NULL), RMALAB_ERR_ARG);
    SOFT_CONTAINS(rmalab_errmsg(), "rules 7 is none of rmalab_rules");
    SOFT_OK(rmalab_win_free(&R));
    tu_soft_end();
}
END_TEST

START_TEST(test_bad_groups)
{
    int bad[3] = {0, 1, 0}, out[2] = {0, 99}, neg = -1;
    SOFT_RC(rmalab_win_post(W, bad, 3, 0), RMALAB_ERR_GROUP);
    SOFT_STR_EQ(rmalab_errmsg(), "post: rank 0 appears twice in the group; list each rank once");
    SOFT_RC(rmalab_win_start(W, out, 2, 0), RMALAB_ERR_RANK);
    SOFT_CONTAINS(rmalab_errmsg(), "start: rank 99 is not in the window's group (ranks 0 to");
    SOFT_RC(rmalab_win_start(W, &neg, 1, 0), RMALAB_ERR_RANK);
    SOFT_RC(rmalab_win_post(W, NULL, 1, 0), RMALAB_ERR_GROUP);
    SOFT_RC(rmalab_win_post(W, &neg, 1, RMALAB_MODE_NOPRECEDE), RMALAB_ERR_ARG);
    SOFT_CONTAINS(rmalab_errmsg(), "post: the assertion \"noprecede\" does not apply to post");
    SOFT_RC(rmalab_win_start(W, &other, 1, RMALAB_MODE_NOPUT), RMALAB_ERR_ARG);
    rmalab_epoch_state s;
    rmalab_win_state(W, &s);
    SOFT_INT(s.access, RMALAB_ACCESS_NONE);
    SOFT_INT(s.exposure, RMALAB_EXPOSURE_NONE);
    SOFT_INT(exchange(W, 1, 30 + rank), active ? 30 + other : -1);
    tu_soft_end();
}
END_TEST

/* ------------------------------------------------------------------------ */
/* State                                                                    */

START_TEST(test_state)
{
    rmalab_epoch_state s;
    char text[512];
    if (active) {
        SOFT_OK(rmalab_win_post(W, &other, 1, 0));
        rmalab_win_state(W, &s);
        SOFT_INT(s.exposure, RMALAB_EXPOSURE_POST);
        SOFT_INT(s.n_exposure, 1);
        SOFT_INT(s.exposure_ranks[0], other);
        /* nobody starts before the barrier: nothing has arrived */
        SOFT_INT(s.arrived[0], is_rma() ? 0 : -1);
        rmalab_win_describe(W, text, sizeof text);
        char want[256];
        if (is_rma())
            snprintf(want, sizeof want, "no access epoch; exposure epoch to {%d}: waits for "
                                        "complete() from {%d}: 0 of 1 arrived",
                     other, other);
        else
            snprintf(want, sizeof want, "no access epoch; exposure epoch to {%d}", other);
        SOFT_STR_EQ(text, want);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (active) {
        int64_t v = 9;
        SOFT_OK(rmalab_win_start(W, &other, 1, 0));
        SOFT_OK(rmalab_win_put(W, other, 0, RMALAB_INT64, 1, &v));
        rmalab_win_state(W, &s);
        SOFT_INT(s.access, RMALAB_ACCESS_START);
        SOFT_INT(s.n_access, 1);
        SOFT_INT(s.access_ranks[0], other);
        SOFT_INT(s.ops_in_epoch, 1);
        /* the put went through: the target's post had arrived */
        SOFT_INT(s.posted[0], is_rma() ? 1 : -1);
        SOFT(s.blocked_in == NULL, "blocked in %s", s.blocked_in);
        SOFT_OK(rmalab_win_complete(W));
        SOFT_OK(rmalab_win_wait(W));
        rmalab_win_state(W, &s);
        SOFT_INT(s.access, RMALAB_ACCESS_NONE);
        SOFT_INT(s.exposure, RMALAB_EXPOSURE_NONE);
        SOFT_INT(s.epochs, 1);
        rmalab_win_describe(W, text, sizeof text);
        SOFT_STR_EQ(text, "no access epoch");
    }
    tu_soft_end();
}
END_TEST

Suite *pscw_suite(void)
{
    Suite *s = suite_create("pscw");
    TCase *tc = tcase_create("epochs");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_engine);
    tcase_add_test(tc, test_exchange);
    tcase_add_test(tc, test_one_sided_roles);
    tcase_add_test(tc, test_test_polls);
    tcase_add_test(tc, test_empty_groups);
    tcase_add_test(tc, test_early_post_empty);
    tcase_add_test(tc, test_start_self);
    tcase_add_test(tc, test_nocheck);
    tcase_add_test(tc, test_atomics);
    tcase_add_test(tc, test_flavours);
    suite_add_tcase(s, tc);

    tc = tcase_create("misuse");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_misuse);
    tcase_add_test(tc, test_bad_groups);
    tcase_add_test(tc, test_request_rules);
    suite_add_tcase(s, tc);

    tc = tcase_create("state");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_state);
    suite_add_tcase(s, tc);
    return s;
}
