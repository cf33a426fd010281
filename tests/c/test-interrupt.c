/* The interrupt suite: rmalab_interrupt (rmalab/block.h) from a second
 * thread ends a call blocked in the rma engine's own loop with
 * RMALAB_ERR_INTERRUPTED, and the window goes on as if the call had not
 * been made: a put waiting for a post (not issued; the access epoch stays
 * open, and the put made again after the post lands), a wait for a
 * complete (the exposure epoch stays open), and the student's deadlock,
 * both ranks starting and putting before anyone posts, after which a
 * correct epoch moves the right values. A request never outlives its call:
 * made while nothing blocks, it ends no later call. A call blocked inside
 * MPI (a native window's PSCW) is not interruptible, and the request
 * leaves it alone. Needs MPI_THREAD_MULTIPLE and two ranks; ranks 0 and 1
 * take part. */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "testutil.h"

static int rank, other;

static rmalab_win *window(const char *engine)
{
    rmalab_info *info = tu_info("rmalab_pscw", engine, NULL);
    rmalab_win_opts o = {.size = 64, .disp_unit = 8, .info = info};
    rmalab_win *w = NULL;
    int rc = rmalab_win_allocate(&o, &w, NULL);
    rmalab_info_destroy(&info);
    ck_assert_ok(rc); /* collective: fails on every rank alike */
    return w;
}

/* A second thread that waits until this process has been blocked in
 * `call` (NULL: any) for 50 ms, notes whether it is interruptible, and asks to
 * interrupt it. */
typedef struct {
    const char *call;
    pthread_t t;
    bool seen, interruptible, interrupted;
} stopper;

static void *stop_it(void *arg)
{
    stopper *s = arg;
    for (int i = 0; i < 5000 && !s->seen; i++) { /* 10 s */
        rmalab_blocked b;
        if (rmalab_blocked_get(&b) && (!s->call || strcmp(b.call, s->call) == 0) && b.seconds >= 0.05) {
            s->seen = true;
            s->interruptible = b.interruptible;
            s->interrupted = rmalab_interrupt();
        }
        usleep(2000);
    }
    return NULL;
}

static void stopper_start(stopper *s, const char *call)
{
    *s = (stopper){.call = call};
    ck_assert_int_eq(pthread_create(&s->t, NULL, stop_it, s), 0);
}

/* The call ran: what the thread saw. */
static void stopper_check(stopper *s, bool interruptible)
{
    pthread_join(s->t, NULL);
    const char *c = s->call ? s->call : "a call";
    EXPECT(s->seen, "never saw the process blocked in %s", c);
    EXPECT(s->interruptible == interruptible, "%s: interruptible is %d", c, s->interruptible);
    EXPECT(s->interrupted == interruptible, "%s: rmalab_interrupt returned %d", c,
           s->interrupted);
}

/* A test's start on every rank: a window of the engine. */
static rmalab_win *begin(const char *engine)
{
    tu_begin();
    rank = tu_rank();
    other = rank == 0 ? 1 : 0;
    return window(engine);
}

/* `call` (a blocking call named `name`) is interrupted from a second
 * thread: ERR_INTERRUPTED with `phrase`. */
#define EXPECT_INTERRUPTED(name, call, phrase)                                 \
    do {                                                                       \
        stopper s_;                                                            \
        stopper_start(&s_, name);                                              \
        EXPECT_ERR(call, RMALAB_ERR_INTERRUPTED, phrase);                      \
        stopper_check(&s_, true);                                              \
    } while (0)

static int64_t value_at(rmalab_win *w)
{
    int64_t v = -1;
    EXPECT_OK(rmalab_win_read(w, 0, RMALAB_INT64, 1, &v));
    return v;
}

/* The epochs after an interrupt: as the interrupted call found them. */
static void expect_epochs(rmalab_win *w, rmalab_access access, rmalab_exposure exposure)
{
    rmalab_epoch_state s;
    rmalab_win_state(w, &s);
    EXPECT(s.access == access && s.exposure == exposure,
           "the epochs are %s and %s after the interrupt", rmalab_access_name(s.access),
           rmalab_exposure_name(s.exposure));
}

/* The rest of an access epoch to the other rank, open already: put v. */
static void finish_epoch(rmalab_win *w, int64_t v)
{
    EXPECT_OK(rmalab_win_put(w, other, 0, RMALAB_INT64, 1, &v));
    EXPECT_OK(rmalab_win_complete(w));
}

START_TEST(test_put_for_post)
{
    rmalab_win *w = begin("rma");
    int64_t v = 42, zero = 0;
    if (rank < 2)
        EXPECT_OK(rmalab_win_write(w, 0, RMALAB_INT64, 1, &zero));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        EXPECT(!rmalab_interrupt(), "nothing is blocked, yet an interrupt was taken");
        EXPECT_OK(rmalab_win_start(w, &other, 1, 0));
        EXPECT_INTERRUPTED("put", rmalab_win_put(w, 1, 0, RMALAB_INT64, 1, &v),
                           "put to rank 1: interrupted while it waited for rank 1's post(); "
                           "it was not issued, and the access epoch stays open");
        expect_epochs(w, RMALAB_ACCESS_START, RMALAB_EXPOSURE_NONE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        EXPECT_INT_EQ(value_at(w), 0); /* not issued */
        EXPECT_OK(rmalab_win_post(w, &other, 1, 0));
        EXPECT_OK(rmalab_win_wait(w));
        EXPECT_INT_EQ(value_at(w), 42);
    } else if (rank == 0) {
        finish_epoch(w, v);
    }
    EXPECT_OK(rmalab_win_free(&w));
    tu_end();
}
END_TEST

START_TEST(test_wait_for_complete)
{
    rmalab_win *w = begin("rma");
    int64_t v = 7;
    if (rank == 1) {
        EXPECT_OK(rmalab_win_post(w, &other, 1, 0));
        EXPECT_INTERRUPTED("wait", rmalab_win_wait(w),
                           "wait: interrupted while it waited for complete() from {0}; the "
                           "exposure epoch stays open");
        expect_epochs(w, RMALAB_ACCESS_NONE, RMALAB_EXPOSURE_POST);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        EXPECT_OK(rmalab_win_start(w, &other, 1, 0));
        finish_epoch(w, v);
    } else if (rank == 1) {
        EXPECT_OK(rmalab_win_wait(w));
        EXPECT_INT_EQ(value_at(w), 7);
    }
    EXPECT_OK(rmalab_win_free(&w));
    tu_end();
}
END_TEST

/* Both ranks start and put before either posts: each put waits for a post
 * that never comes. Interrupted on both, then each posts and puts again. */
START_TEST(test_both_start)
{
    rmalab_win *w = begin("rma");
    int64_t v = 100 + rank;
    if (rank < 2) {
        EXPECT_OK(rmalab_win_start(w, &other, 1, 0));
        EXPECT_INTERRUPTED("put", rmalab_win_put(w, other, 0, RMALAB_INT64, 1, &v),
                           "interrupted while it waited for rank");
        expect_epochs(w, RMALAB_ACCESS_START, RMALAB_EXPOSURE_NONE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank < 2) {
        EXPECT_OK(rmalab_win_post(w, &other, 1, 0));
        finish_epoch(w, v);
        EXPECT_OK(rmalab_win_wait(w));
        EXPECT_INT_EQ(value_at(w), 100 + other);
        /* and the next epoch matches as usual */
        v += 10;
        EXPECT_OK(rmalab_win_post(w, &other, 1, 0));
        EXPECT_OK(rmalab_win_start(w, &other, 1, 0));
        finish_epoch(w, v);
        EXPECT_OK(rmalab_win_wait(w));
        EXPECT_INT_EQ(value_at(w), 110 + other);
    }
    EXPECT_OK(rmalab_win_free(&w));
    tu_end();
}
END_TEST

/* On the native engine PSCW waits inside MPI: rank 0's start or complete
 * (MPICH decides which) waits for rank 1's late post, and the interrupt is
 * refused and changes nothing. */
START_TEST(test_native_not_interruptible)
{
    rmalab_win *w = begin("native");
    int64_t v = 5;
    stopper s;
    if (rank == 0) {
        stopper_start(&s, NULL);
        EXPECT_OK(rmalab_win_start(w, &other, 1, 0));
        finish_epoch(w, v);
        stopper_check(&s, false);
    } else if (rank == 1) {
        usleep(300000);
        EXPECT_OK(rmalab_win_post(w, &other, 1, 0));
        EXPECT_OK(rmalab_win_wait(w));
        EXPECT_INT_EQ(value_at(w), 5);
    }
    EXPECT_OK(rmalab_win_free(&w));
    tu_end();
}
END_TEST

Suite *interrupt_suite(void)
{
    Suite *s = suite_create("interrupt");
    TCase *tc = tcase_create("interrupt");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_put_for_post);
    tcase_add_test(tc, test_wait_for_complete);
    tcase_add_test(tc, test_both_start);
    tcase_add_test(tc, test_native_not_interruptible);
    suite_add_tcase(s, tc);
    return s;
}
