/* Allocation failures in the core (rmalab/debug.h): the nth allocation the
 * core makes fails, swept over n until the call succeeds.
 *
 * Window creation is collective, so a failure on one rank must end it on
 * every rank, or the others would wait forever in the next collective
 * call (and before the fix, a failure inside the layout exchange made MPI
 * gather every rank's entry into room for one). Each sweep fails only one
 * rank's allocations, the "victim", and checks that every rank returns an
 * error, that nothing the core allocated is left behind, and that the next
 * creation works. Operations that return data are swept too. */
#include "testutil.h"

#include <mpi.h>

#include <rmalab/comm.h>
#include <rmalab/debug.h>

#define SWEEP_MAX 400 /* more allocations than any creation makes */

static int create(rmalab_flavor fl, rmalab_info *info, rmalab_win **w)
{
    rmalab_win_opts o = {.size = 40, .disp_unit = 8, .info = info};
    switch (fl) {
    case RMALAB_FLAVOR_CREATE: return rmalab_win_create(&o, w, NULL);
    case RMALAB_FLAVOR_ALLOCATE: return rmalab_win_allocate(&o, w, NULL);
    case RMALAB_FLAVOR_SHARED: return rmalab_win_allocate_shared(&o, w, NULL);
    default: o.size = 0, o.disp_unit = 0; return rmalab_win_create_dynamic(&o, w, NULL);
    }
}

/* Did every rank get the same verdict (all failed, or all succeeded)? */
static int same_everywhere(int failed)
{
    int lo, hi;
    MPI_Allreduce(&failed, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&failed, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

/* Loop index: flavour (4) x engine (2) x victim (first or last rank). */
START_TEST(test_creation_fails_everywhere)
{
    static const char *const engines[] = {"rma", "native"};
    rmalab_flavor fl = (rmalab_flavor)(_i % 4);
    const char *engine = engines[(_i / 4) % 2];
    int victim = _i / 8 ? tu_size() - 1 : 0, n, failures = 0;
    tu_begin();
    rmalab_info *info = tu_info("rmalab_pscw", engine, NULL);
    for (n = 1; n <= SWEEP_MAX; n++) {
        rmalab_win *w = NULL;
        long before = rmalab_debug_live_allocs();
        rmalab_debug_fail_alloc(tu_rank() == victim ? n : 0);
        int rc = create(fl, info, &w);
        rmalab_debug_fail_alloc(0);
        EXPECT(same_everywhere(rc != RMALAB_OK),
               "%s/%s, allocation %d failing on rank %d: this rank returned %s (%s), "
               "another rank did not",
               rmalab_flavor_name(fl), engine, n, victim, rmalab_err_name(rc), rmalab_errmsg());
        if (rc == RMALAB_OK) {
            EXPECT_OK(rmalab_win_free(&w));
            break;
        }
        failures++;
        EXPECT(tu_rank() != victim || rc == RMALAB_ERR_NO_MEM,
               "allocation %d: the victim returned %s (%s)", n, rmalab_err_name(rc),
               rmalab_errmsg());
        EXPECT(rmalab_debug_live_allocs() == before,
               "%s/%s, allocation %d failing: %ld core allocations left behind",
               rmalab_flavor_name(fl), engine, n, rmalab_debug_live_allocs() - before);
    }
    EXPECT(n <= SWEEP_MAX, "creation never succeeded");
    EXPECT(failures >= 5, "only %d allocations failed: is the hook in place?", failures);
    rmalab_info_destroy(&info);
    tu_end();
}
END_TEST

/* An operation whose result or staging cannot be allocated fails alone:
 * the epoch goes on, closes, and the window's data are right. */
START_TEST(test_operations)
{
    rmalab_win *w = NULL;
    int right = (tu_rank() + 1) % tu_size(), n;
    long v = 7 + tu_rank();
    tu_begin();
    long before = rmalab_debug_live_allocs();
    ck_assert_ok(create(RMALAB_FLAVOR_ALLOCATE, NULL, &w));
    EXPECT_OK(rmalab_win_fence(w, 0));
    for (n = 1; n <= 3; n++) {
        rmalab_result *r = NULL;
        rmalab_debug_fail_alloc(n);
        int rc = rmalab_win_fetch_and_op(w, right, 0, RMALAB_INT64, &v, RMALAB_OP_SUM, &r);
        rmalab_debug_fail_alloc(0);
        EXPECT(rc == RMALAB_OK || rc == RMALAB_ERR_NO_MEM, "fetch_and_op: %s (%s)",
               rmalab_err_name(rc), rmalab_errmsg());
        rmalab_result_release(r);
        if (rc == RMALAB_OK)
            break;
    }
    EXPECT(n > 1, "the first allocation of fetch_and_op did not fail");
    EXPECT_OK(rmalab_win_fence(w, 0));
    long got = 0;
    EXPECT_OK(rmalab_win_read(w, 0, RMALAB_INT64, 1, &got));
    EXPECT_INT_EQ(got, 7 + (tu_rank() + tu_size() - 1) % tu_size());
    EXPECT_OK(rmalab_win_free(&w));
    EXPECT(rmalab_debug_live_allocs() == before, "%ld core allocations left behind",
           rmalab_debug_live_allocs() - before);
    tu_end();
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Local calls: each rank sweeps its own                                    */

/* One piece of work that releases all it made, success or not, and
 * returns the first status that was not RMALAB_OK. */
typedef int (*work_fn)(rmalab_win *w);

/* Fail allocation n = 1, 2, ... until the work succeeds: every failure is
 * ERR_NO_MEM and leaves the core's live allocations where they were. */
static void sweep_local(const char *what, work_fn work, rmalab_win *w)
{
    int n, failures = 0;
    for (n = 1; n <= SWEEP_MAX; n++) {
        long before = rmalab_debug_live_allocs();
        rmalab_debug_fail_alloc(n);
        int rc = work(w);
        rmalab_debug_fail_alloc(0);
        EXPECT(rmalab_debug_live_allocs() == before,
               "%s, allocation %d failing: %ld core allocations left behind (%s)", what, n,
               rmalab_debug_live_allocs() - before, rmalab_err_name(rc));
        if (rc == RMALAB_OK)
            break;
        failures++;
        EXPECT(rc == RMALAB_ERR_NO_MEM, "%s, allocation %d failing: %s (%s)", what, n,
               rmalab_err_name(rc), rmalab_errmsg());
    }
    EXPECT(n <= SWEEP_MAX, "%s never succeeded", what);
    EXPECT(failures >= 1, "%s: no allocation failed: is the hook in place?", what);
}

#define STEP(call) (rc == RMALAB_OK ? (rc = (call)) : rc)

/* Info objects: create, set, dup, the typed list reader, the round trip
 * through MPI_Info, and the environment's info. */
static int info_work(rmalab_win *w)
{
    rmalab_info *a = NULL, *b = NULL, *c = NULL, *env = NULL;
    MPI_Info m = MPI_INFO_NULL;
    char **items = NULL;
    int n = 0, flag = 0, rc = RMALAB_OK;
    (void)w;
    STEP(rmalab_info_create(&a));
    STEP(rmalab_info_set(a, "no_locks", "true"));
    STEP(rmalab_info_set(a, "which_accumulate_ops", "sum, max ,min"));
    STEP(rmalab_info_set(a, "no_locks", "false")); /* replaces in place */
    STEP(rmalab_info_dup(a, &b));
    STEP(rmalab_info_get_list(b, "which_accumulate_ops", &items, &n, &flag));
    STEP(rmalab_info_to_mpi(b, &m));
    STEP(rmalab_info_from_mpi(m, &c));
    STEP(rmalab_info_env(&env));
    if (m != MPI_INFO_NULL)
        MPI_Info_free(&m);
    rmalab_list_free(items, n);
    rmalab_info_destroy(&env);
    rmalab_info_destroy(&c);
    rmalab_info_destroy(&b);
    rmalab_info_destroy(&a);
    return rc;
}

static int delete_nothing(rmalab_win *w, rmalab_keyval *kv, void *attr, void *extra)
{
    (void)w, (void)kv, (void)attr, (void)extra;
    return RMALAB_OK;
}

/* Keyvals and attributes: create, set, replace, delete, free. */
static int keyval_work(rmalab_win *w)
{
    rmalab_keyval *kv = NULL;
    static int one, two;
    int rc = RMALAB_OK;
    STEP(rmalab_keyval_create(NULL, delete_nothing, NULL, NULL, &kv));
    STEP(rmalab_win_set_attr(w, kv, &one));
    STEP(rmalab_win_set_attr(w, kv, &two));
    if (kv)
        rmalab_win_delete_attr(w, kv);
    rmalab_keyval_free(&kv);
    return rc;
}

/* A window's hints: get_info, and the report of asked against in effect. */
static int hints_work(rmalab_win *w)
{
    rmalab_info *info = NULL;
    rmalab_hints_report *report = NULL;
    int rc = RMALAB_OK;
    STEP(rmalab_win_get_info(w, &info));
    STEP(rmalab_win_hints(w, &report));
    rmalab_hints_report_destroy(report);
    rmalab_info_destroy(&info);
    return rc;
}

/* Results: a get and a get_accumulate on the rank's own part of the
 * window (inside an epoch that test_results opens). */
static int result_work(rmalab_win *w)
{
    rmalab_result *r1 = NULL, *r2 = NULL;
    long v = 1;
    int rc = RMALAB_OK;
    STEP(rmalab_win_get(w, tu_rank(), 0, RMALAB_INT64, 2, &r1));
    STEP(rmalab_win_get_accumulate(w, tu_rank(), 1, RMALAB_INT64, 1, &v, RMALAB_OP_SUM, &r2));
    rmalab_result_release(r2);
    rmalab_result_release(r1);
    return rc;
}

START_TEST(test_local_constructors)
{
    rmalab_win *w = NULL;
    tu_begin();
    long before = rmalab_debug_live_allocs();
    ck_assert_ok(create(RMALAB_FLAVOR_ALLOCATE, NULL, &w));
    sweep_local("info objects", info_work, w);
    sweep_local("keyvals and attributes", keyval_work, w);
    sweep_local("get_info and the hints report", hints_work, w);
    EXPECT_OK(rmalab_win_free(&w));
    EXPECT(rmalab_debug_live_allocs() == before, "%ld core allocations left behind",
           rmalab_debug_live_allocs() - before);
    tu_end();
}
END_TEST

/* Results: the window holds each until the epoch that carries it ends, so
 * every try closes its fence epoch (the ranks try in step) before the
 * count is checked; the sweep ends when every rank succeeded. */
START_TEST(test_results)
{
    rmalab_win *w = NULL;
    int n, failures = 0;
    tu_begin();
    long before = rmalab_debug_live_allocs();
    ck_assert_ok(create(RMALAB_FLAVOR_ALLOCATE, NULL, &w));
    EXPECT_OK(rmalab_win_fence(w, 0));
    /* A first round grows what the window keeps for its life (its list of
     * pending results); the sweep's rounds must add nothing to it. */
    EXPECT_OK(result_work(w));
    EXPECT_OK(rmalab_win_fence(w, 0));
    long with_window = rmalab_debug_live_allocs();
    for (n = 1; n <= SWEEP_MAX; n++) {
        rmalab_debug_fail_alloc(n);
        int rc = result_work(w);
        rmalab_debug_fail_alloc(0);
        EXPECT_OK(rmalab_win_fence(w, 0));
        EXPECT(rmalab_debug_live_allocs() == with_window,
               "results, allocation %d failing: %ld core allocations left behind (%s)", n,
               rmalab_debug_live_allocs() - with_window, rmalab_err_name(rc));
        EXPECT(rc == RMALAB_OK || rc == RMALAB_ERR_NO_MEM, "allocation %d failing: %s (%s)", n,
               rmalab_err_name(rc), rmalab_errmsg());
        failures += rc != RMALAB_OK;
        int all_ok = 0, ok = rc == RMALAB_OK;
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (all_ok)
            break;
    }
    EXPECT(n <= SWEEP_MAX, "the results never succeeded");
    EXPECT(failures >= 2, "only %d allocations failed: is the hook in place?", failures);
    EXPECT_OK(rmalab_win_free(&w));
    EXPECT(rmalab_debug_live_allocs() == before, "%ld core allocations left behind",
           rmalab_debug_live_allocs() - before);
    tu_end();
}
END_TEST

/* Communicators are collective: one rank's failures (the victim's, first
 * or last rank) must end the duplication on every rank. */
START_TEST(test_comm_dup_fails_everywhere)
{
    int victim = _i ? tu_size() - 1 : 0, n, failures = 0;
    rmalab_comm *world = NULL;
    tu_begin();
    ck_assert_ok(rmalab_comm_wrap(MPI_COMM_WORLD, &world));
    rmalab_info *info = tu_info("mpi_assert_no_any_tag", "true", NULL);
    for (n = 1; n <= SWEEP_MAX; n++) {
        rmalab_comm *c = NULL;
        long before = rmalab_debug_live_allocs();
        rmalab_debug_fail_alloc(tu_rank() == victim ? n : 0);
        int rc = rmalab_comm_dup(world, info, &c, NULL);
        rmalab_debug_fail_alloc(0);
        EXPECT(same_everywhere(rc != RMALAB_OK),
               "comm_dup, allocation %d failing on rank %d: this rank returned %s (%s), "
               "another rank did not", n, victim, rmalab_err_name(rc), rmalab_errmsg());
        if (rc == RMALAB_OK) {
            EXPECT_OK(rmalab_comm_free(&c));
            break;
        }
        failures++;
        EXPECT(rmalab_debug_live_allocs() == before,
               "comm_dup, allocation %d failing: %ld core allocations left behind", n,
               rmalab_debug_live_allocs() - before);
    }
    EXPECT(n <= SWEEP_MAX, "comm_dup never succeeded");
    EXPECT(failures >= 2, "only %d allocations failed: is the hook in place?", failures);
    rmalab_info_destroy(&info);
    rmalab_comm_free(&world);
    tu_end();
}
END_TEST

/* ------------------------------------------------------------------------ */
/* The race checker's messages                                              */

static char warned[2048]; /* this round's warnings, one after another */

static void keep_warning(void *ud, const char *text)
{
    (void)ud;
    size_t n = strlen(warned);
    snprintf(warned + n, sizeof warned - n, "%s\n", text);
}

/* A checked window (races mode) per n: rank 0 puts into the last rank in
 * a fence epoch, and the last rank's closing fence fails its nth
 * allocation. Whatever failed, the fences after it pair with the right
 * messages: rank 0 puts again, and the last rank then writes the same
 * bytes in the next epoch, which the fences order; no rank warns that the
 * checker's messages are out of step (a checker that left a message it
 * had no memory for in the queue took that stale message at the next
 * fence, and that one's at the one after). The sweep ends when the fence
 * succeeds; some allocation failed it with ERR_NO_MEM and a warning that
 * checking stops. */
static int lost_message_round(rmalab_info *info, long n)
{
    int rank = tu_rank(), last = tu_size() - 1;
    int64_t v = 5, got = 0;
    rmalab_win *w = NULL;
    ck_assert_ok(create(RMALAB_FLAVOR_ALLOCATE, info, &w));
    EXPECT_OK(rmalab_win_fence(w, 0));
    if (rank == 0)
        EXPECT_OK(rmalab_win_put(w, last, 0, RMALAB_INT64, 1, &v));
    warned[0] = 0;
    if (rank == last)
        rmalab_debug_fail_alloc(n);
    int rc = rmalab_win_fence(w, 0);
    rmalab_debug_fail_alloc(0);
    EXPECT(rc == RMALAB_OK || rc == RMALAB_ERR_NO_MEM, "fence, allocation %ld failing: %s (%s)",
           n, rmalab_err_name(rc), rmalab_errmsg());
    if (rc) {
        EXPECT_CONTAINS(rmalab_errmsg(), "race checking of this window stops on this rank");
        EXPECT_CONTAINS(warned, "stops on rank");
    }
    v = 6;
    if (rank == 0)
        EXPECT_OK(rmalab_win_put(w, last, 0, RMALAB_INT64, 1, &v));
    EXPECT_OK(rmalab_win_fence(w, 0));
    if (rank == last) {
        EXPECT_OK(rmalab_win_read(w, 0, RMALAB_INT64, 1, &got));
        EXPECT_INT_EQ(got, 6);
        v = 7;
        EXPECT_OK(rmalab_win_write(w, 0, RMALAB_INT64, 1, &v));
    }
    EXPECT_OK(rmalab_win_fence(w, 0));
    EXPECT_OK(rmalab_win_free(&w));
    EXPECT(!strstr(warned, "out of step"), "allocation %ld failing: %s", n, warned);
    return rc;
}

START_TEST(test_races_lost_message)
{
    tu_begin();
    int last = tu_size() - 1, lost = 0, rc = RMALAB_ERR_NO_MEM;
    rmalab_info *info = NULL;
    EXPECT_OK(rmalab_info_create(&info));
    EXPECT_OK(rmalab_info_set(info, "rmalab_check", "races"));
    rmalab_set_warnf(keep_warning, NULL);
    for (long n = 1; n <= SWEEP_MAX && rc; n++) {
        rc = lost_message_round(info, n);
        lost += rc != RMALAB_OK;
        MPI_Bcast(&rc, 1, MPI_INT, last, MPI_COMM_WORLD);
    }
    rmalab_set_warnf(NULL, NULL);
    rmalab_info_destroy(&info);
    rmalab_races_clear();
    EXPECT(tu_rank() != last || lost > 0, "no allocation of the fence failed it");
    EXPECT(rc == RMALAB_OK, "the fence failed for every allocation swept");
    tu_end();
}
END_TEST

Suite *alloc_suite(void)
{
    Suite *s = suite_create("alloc");
    TCase *tc = tcase_create("failures");
    tcase_add_loop_test(tc, test_creation_fails_everywhere, 0, 16);
    tcase_add_test(tc, test_operations);
    tcase_add_test(tc, test_local_constructors);
    tcase_add_test(tc, test_results);
    tcase_add_loop_test(tc, test_comm_dup_fails_everywhere, 0, 2);
    tcase_add_test(tc, test_races_lost_message);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}
