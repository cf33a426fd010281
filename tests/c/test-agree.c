/* The "agree" suite: every collective call of the core's window and
 * communicator API takes part in the agreement before it calls MPI
 * (docs/core.md, "Collective failure"). A mistake on one rank (the last)
 * fails the call there with its own error and on every other rank with
 * "another rank failed", nothing is changed on any rank, and the next
 * correct call works; a rank whose caller found the mistake itself takes
 * part through the _status form. Before the agreement each of these left
 * the other ranks waiting in MPI for ever: the suite's timeout. Runs on any
 * number of ranks from two (core-mpi-rma, core-mpi-3). */
#include <stdint.h>
#include <string.h>

#include <rmalab/debug.h>

#include "testutil.h"

static rmalab_win *W;
static int rank, nranks, right, left, bad;

static void setup(void)
{
    rmalab_win_opts o = {.size = 64, .disp_unit = 8, .name = "agree"};
    rank = tu_rank();
    nranks = tu_size();
    right = (rank + 1) % nranks;
    left = (rank + nranks - 1) % nranks;
    bad = nranks - 1;
    W = NULL;
    tu_begin();
    ck_assert_ok(rmalab_win_allocate(&o, &W, NULL));
}

static void teardown(void)
{
    tu_win_discard(&W);
}

/* The verdict of a call that failed on rank `bad` alone: `code` on every
 * rank, `own` in the message there, "another rank failed" elsewhere. */
#define EXPECT_ONE_RANK(call, code, own)                                       \
    EXPECT_ERR(call, code, rank == bad ? (own) : "another rank failed")

/* A fence epoch that moves one int64 to the right; the window works. */
static void expect_usable(int64_t mark)
{
    int64_t v = mark + rank, got = -1;
    EXPECT_OK(rmalab_win_fence(W, 0));
    EXPECT_OK(rmalab_win_put(W, right, 0, RMALAB_INT64, 1, &v));
    EXPECT_OK(rmalab_win_fence(W, RMALAB_MODE_NOSUCCEED));
    EXPECT_OK(rmalab_win_read(W, 0, RMALAB_INT64, 1, &got));
    EXPECT_INT_EQ(got, mark + left);
}

static rmalab_access access_now(void)
{
    rmalab_epoch_state s;
    rmalab_win_state(W, &s);
    return s.access;
}

START_TEST(test_fence_checks)
{
    /* An assertion fence does not take, on one rank. */
    EXPECT_ONE_RANK(rmalab_win_fence(W, rank == bad ? RMALAB_MODE_NOCHECK : 0), RMALAB_ERR_ARG,
                    "does not apply to fence");
    EXPECT_INT_EQ(access_now(), RMALAB_ACCESS_NONE);
    /* A passive-target epoch open on one rank. */
    if (rank == bad)
        EXPECT_OK(rmalab_win_lock(W, 0, false, 0));
    EXPECT_ONE_RANK(rmalab_win_fence(W, 0), RMALAB_ERR_RMA_SYNC, "passive-target epoch is open");
    if (rank == bad)
        EXPECT_OK(rmalab_win_unlock(W, 0));
    /* Inside a fence epoch with RMA calls: "noprecede" on one rank. */
    int64_t v = 7;
    EXPECT_OK(rmalab_win_fence(W, 0));
    EXPECT_OK(rmalab_win_put(W, right, 1, RMALAB_INT64, 1, &v));
    EXPECT_ONE_RANK(rmalab_win_fence(W, rank == bad ? RMALAB_MODE_NOPRECEDE : 0), RMALAB_ERR_ARG,
                    "promises that no RMA calls precede");
    EXPECT_INT_EQ(access_now(), RMALAB_ACCESS_FENCE);
    /* The caller's own mistake, carried by the _status form. */
    int status = rank == bad ? rmalab_set_error(RMALAB_ERR_ARG, "fence: the caller's mistake")
                             : RMALAB_OK;
    EXPECT_ONE_RANK(rmalab_win_fence_status(W, 0, status), RMALAB_ERR_ARG, "the caller's mistake");
    EXPECT_OK(rmalab_win_fence(W, RMALAB_MODE_NOSUCCEED));
    int64_t got = 0;
    EXPECT_OK(rmalab_win_read(W, 1, RMALAB_INT64, 1, &got));
    EXPECT_INT_EQ(got, 7);
    expect_usable(100);
    tu_end();
}
END_TEST

/* MPI: if any rank gives noprecede (nosucceed), every rank must. */
START_TEST(test_fence_alike)
{
    static const int modes[] = {RMALAB_MODE_NOPRECEDE, RMALAB_MODE_NOSUCCEED};
    static const char *const names[] = {"\"noprecede\"", "\"nosucceed\""};
    for (int i = 0; i < 2; i++) {
        EXPECT_ERR(rmalab_win_fence(W, rank == bad ? modes[i] : 0), RMALAB_ERR_ARG,
                   "and others did not");
        EXPECT_CONTAINS(rmalab_errmsg(), names[i]);
        EXPECT_CONTAINS(rmalab_errmsg(), rank == bad ? "this rank did)" : "this rank did not)");
        EXPECT_INT_EQ(access_now(), RMALAB_ACCESS_NONE);
    }
    /* The same bits on every rank pass, whatever the others are. */
    EXPECT_OK(rmalab_win_fence(W, RMALAB_MODE_NOPRECEDE | (rank == bad ? RMALAB_MODE_NOPUT : 0)));
    EXPECT_OK(rmalab_win_fence(W, RMALAB_MODE_NOSUCCEED));
    expect_usable(200);
    tu_end();
}
END_TEST

/* A free refused on one rank leaves the window usable on every rank. */
START_TEST(test_free_refused)
{
    if (rank == bad)
        EXPECT_OK(rmalab_win_lock(W, 0, true, 0));
    EXPECT_ONE_RANK(rmalab_win_free(&W), RMALAB_ERR_RMA_SYNC, "close it first (unlock(target))");
    ck_assert_ptr_nonnull(W);
    if (rank == bad)
        EXPECT_OK(rmalab_win_unlock(W, 0));
    expect_usable(300);
    int status = rank == bad ? rmalab_set_error(RMALAB_ERR_RMA_SYNC, "free: a buffer in flight")
                             : RMALAB_OK;
    EXPECT_ONE_RANK(rmalab_win_free_status(&W, status), RMALAB_ERR_RMA_SYNC, "a buffer in flight");
    ck_assert_ptr_nonnull(W);
    expect_usable(400);
    EXPECT_OK(rmalab_win_free(&W));
    EXPECT(W == NULL, "the window was freed");
    tu_end();
}
END_TEST

/* Has this rank's set_info requested accumulate_ordering? */
static bool requested(void)
{
    rmalab_hints_report *r = NULL;
    ck_assert_ok(rmalab_win_hints(W, &r));
    const rmalab_hint_row *row = tu_row(r, "accumulate_ordering");
    bool set = row && row->requested;
    rmalab_hints_report_destroy(r);
    return set;
}

START_TEST(test_win_set_info)
{
    rmalab_info *info = tu_info("accumulate_ordering", "none", NULL);
    if (rank == bad)
        rmalab_debug_fail_alloc(1); /* validating the hints runs out of memory */
    EXPECT_ONE_RANK(rmalab_win_set_info(W, info, NULL), RMALAB_ERR_NO_MEM,
                    "out of memory validating hints");
    rmalab_debug_fail_alloc(0);
    EXPECT(!requested(), "no rank's hints changed");
    int status = rank == bad ? rmalab_set_error(RMALAB_ERR_INFO_VALUE, "set_info: a bad value")
                             : RMALAB_OK;
    EXPECT_ONE_RANK(rmalab_win_set_info_status(W, info, NULL, status), RMALAB_ERR_INFO_VALUE,
                    "a bad value");
    EXPECT(!requested(), "no rank's hints changed");
    EXPECT_OK(rmalab_win_set_info(W, info, NULL));
    EXPECT(requested(), "the hint is set");
    rmalab_info_destroy(&info);
    expect_usable(500);
    tu_end();
}
END_TEST

START_TEST(test_comm_set_info)
{
    rmalab_comm *world = NULL, *c = NULL;
    ck_assert_ok(rmalab_comm_wrap(MPI_COMM_WORLD, &world));
    ck_assert_ok(rmalab_comm_dup(world, NULL, &c, NULL));
    rmalab_info *info = tu_info("mpi_assert_no_any_tag", "true", NULL);
    if (rank == bad)
        rmalab_debug_fail_alloc(1);
    EXPECT_ONE_RANK(rmalab_comm_set_info(c, info, NULL), RMALAB_ERR_NO_MEM, "out of memory");
    rmalab_debug_fail_alloc(0);
    int status = rank == bad ? rmalab_set_error(RMALAB_ERR_ARG, "set_info: not a table")
                             : RMALAB_OK;
    EXPECT_ONE_RANK(rmalab_comm_set_info_status(c, info, NULL, status), RMALAB_ERR_ARG,
                    "not a table");
    EXPECT_OK(rmalab_comm_set_info(c, info, NULL));
    EXPECT_STR_EQ(tu_get(rmalab_comm_requested(c), "mpi_assert_no_any_tag"), "true");
    rmalab_info_destroy(&info);
    EXPECT_OK(rmalab_comm_free(&c));
    rmalab_comm_free(&world);
    tu_end();
}
END_TEST

/* Ranks out of step, in different collective calls on one window (the
 * REPL lets that happen): they meet in the agreement, and all fail. */
START_TEST(test_different_calls)
{
    int rc = rank == bad ? rmalab_win_fence(W, 0) : rmalab_win_free(&W);
    EXPECT_ERR(rc, RMALAB_ERR_OTHER, "another rank made a different collective call");
    ck_assert_ptr_nonnull(W);
    EXPECT_INT_EQ(access_now(), RMALAB_ACCESS_NONE);
    expect_usable(700);
    tu_end();
}
END_TEST

/* Sizes that cannot be had fail before MPI sees them, on every rank. */
START_TEST(test_sizes)
{
    static const rmalab_flavor flavors[] = {RMALAB_FLAVOR_CREATE, RMALAB_FLAVOR_ALLOCATE,
                                            RMALAB_FLAVOR_SHARED};
    static const MPI_Aint sizes[] = {(MPI_Aint)1 << 40, (MPI_Aint)1 << 62, INT64_MAX};
    for (int f = 0; f < 3; f++)
        for (int s = 0; s < 3; s++) {
            rmalab_win *w = NULL;
            rmalab_win_opts o = {.size = rank == bad ? sizes[s] : 64};
            int rc = flavors[f] == RMALAB_FLAVOR_CREATE ? rmalab_win_create(&o, &w, NULL)
                     : flavors[f] == RMALAB_FLAVOR_ALLOCATE
                         ? rmalab_win_allocate(&o, &w, NULL)
                         : rmalab_win_allocate_shared(&o, &w, NULL);
            EXPECT_ONE_RANK(rc, RMALAB_ERR_NO_MEM, "cannot be had on this rank");
            EXPECT(w == NULL, "no window");
        }
    expect_usable(600);
    tu_end();
}
END_TEST

Suite *agree_suite(void)
{
    Suite *s = suite_create("agree");
    TCase *tc = tcase_create("one-rank");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_fence_checks);
    tcase_add_test(tc, test_fence_alike);
    tcase_add_test(tc, test_free_refused);
    tcase_add_test(tc, test_win_set_info);
    tcase_add_test(tc, test_comm_set_info);
    tcase_add_test(tc, test_different_calls);
    tcase_add_test(tc, test_sizes);
    suite_add_tcase(s, tc);
    return s;
}
