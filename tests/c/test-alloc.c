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

Suite *alloc_suite(void)
{
    Suite *s = suite_create("alloc");
    TCase *tc = tcase_create("failures");
    tcase_add_loop_test(tc, test_creation_fails_everywhere, 0, 16);
    tcase_add_test(tc, test_operations);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}
