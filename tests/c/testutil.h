/* Shared helpers of the check suites: the suite constructors the runners
 * call, assertions on rmalab status codes that print the core's detailed
 * message when they fail, small builders for info objects, reports and
 * diagnostics, and for the MPI suites soft checks that let every rank reach
 * every collective call, and a window teardown. Header-only and private to
 * tests/c. */
#ifndef RMALAB_TESTUTIL_H
#define RMALAB_TESTUTIL_H

#include <check.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rmalab/rmalab.h>

/* Pure suites: no MPI call needs MPI_Init (test-core-nompi). */
Suite *info_suite(void);
Suite *hints_suite(void);
/* Suites that need MPI_Init and two ranks (test-core-mpi). */
Suite *info_mpi_suite(void);
Suite *comm_suite(void);
Suite *attr_suite(void);
/* Windows, RMA and epochs (`test-core-mpi rma`, MPI_THREAD_MULTIPLE): they
 * adapt to the world size, two ranks or more. */
Suite *win_suite(void);
Suite *sync_suite(void);
Suite *rma_suite(void);
/* PSCW on the engine that RMALAB_PSCW selects (test-pscw.c), and the rma
 * engine's own behaviour (test-rma-engine.c); also in the `rma` set. */
Suite *pscw_suite(void);
Suite *rma_engine_suite(void);
/* The core's allocations failing one at a time (test-alloc.c). */
Suite *alloc_suite(void);
/* What the process is blocked in, and its last failed call (test-block.c;
 * MPI_THREAD_MULTIPLE). */
Suite *block_suite(void);
Suite *interrupt_suite(void);
/* Every collective call agrees before MPI (test-agree.c). */
Suite *agree_suite(void);

/* What the core asked of MPI in this process (mpi-watch.c, a PMPI layer of
 * test-core-mpi): accumulates not yet completed by a flush, unlock, fence
 * or complete on their window, and MPI_Win_sync calls so far. */
long tu_mpi_unflushed_accumulates(void);
long tu_mpi_win_syncs(void);

/* `call` returns the status `expected`; on failure the message names both
 * codes and quotes rmalab_errmsg(). */
#define ck_assert_rc(call, expected)                                           \
    do {                                                                       \
        int ck_rc_ = (call);                                                   \
        int ck_exp_ = (expected);                                              \
        ck_assert_msg(ck_rc_ == ck_exp_, "%s returned %s, expected %s (%s)",   \
                      #call, rmalab_err_name(ck_rc_), rmalab_err_name(ck_exp_), \
                      rmalab_errmsg());                                        \
    } while (0)

#define ck_assert_ok(call) ck_assert_rc(call, RMALAB_OK)

/* `hay` (a C string, not NULL) contains `needle`. */
#define ck_assert_contains(hay, needle)                                        \
    do {                                                                       \
        const char *ck_h_ = (hay);                                             \
        const char *ck_n_ = (needle);                                          \
        ck_assert_msg(ck_h_ != NULL && strstr(ck_h_, ck_n_) != NULL,           \
                      "\"%s\" does not contain \"%s\"", ck_h_ ? ck_h_ : "(null)", \
                      ck_n_);                                                  \
    } while (0)

/* A new info holding the pairs key1, value1, ..., NULL, in that order.
 * Aborts the test (ck_assert) on failure. */
static inline rmalab_info *tu_info(const char *key, ...)
{
    rmalab_info *info = NULL;
    va_list ap;
    ck_assert_ok(rmalab_info_create(&info));
    va_start(ap, key);
    for (const char *k = key; k; k = va_arg(ap, const char *)) {
        const char *v = va_arg(ap, const char *);
        ck_assert_ok(rmalab_info_set(info, k, v));
    }
    va_end(ap);
    return info;
}

/* The value of `key` in `info`, or NULL when absent (or info is NULL). */
static inline const char *tu_get(const rmalab_info *info, const char *key)
{
    return rmalab_info_lookup(info, key, strlen(key), NULL);
}

static inline int tu_nkeys(const rmalab_info *info)
{
    int n = -1;
    ck_assert_ok(rmalab_info_get_nkeys(info, &n));
    return n;
}

/* The n-th key of `info` in a static buffer (valid until the next call). */
static inline const char *tu_nthkey(rmalab_info *info, int n)
{
    static char key[RMALAB_MAX_INFO_KEY + 1];
    ck_assert_ok(rmalab_info_get_nthkey(info, n, key));
    return key;
}

/* `n` copies of `c` into `buf`, NUL-terminated; returns buf. */
static inline char *tu_fill(char *buf, char c, size_t n)
{
    memset(buf, c, n);
    buf[n] = '\0';
    return buf;
}

static inline const rmalab_hint_row *tu_row(const rmalab_hints_report *r, const char *key)
{
    for (int i = 0; r && i < r->count; i++)
        if (strcmp(r->rows[i].key, key) == 0)
            return &r->rows[i];
    return NULL;
}

/* Index of the row of `key`, -1 when there is none. */
static inline int tu_row_index(const rmalab_hints_report *r, const char *key)
{
    const rmalab_hint_row *row = tu_row(r, key);
    return row ? (int)(row - r->rows) : -1;
}

/* The row of `key` has status `st`; names both statuses on failure. */
#define ck_assert_status(report, key, st)                                      \
    do {                                                                       \
        const rmalab_hint_row *ck_row_ = tu_row((report), (key));              \
        ck_assert_msg(ck_row_ != NULL, "the report has no row for %s", (key)); \
        ck_assert_msg(ck_row_->status == (st), "%s: status %s, expected %s",   \
                      (key), rmalab_hint_status_name(ck_row_->status),         \
                      rmalab_hint_status_name(st));                            \
    } while (0)

static inline const rmalab_diag *tu_diag(const rmalab_diags *d, const char *key)
{
    for (int i = 0; d && i < d->count; i++)
        if (strcmp(d->items[i].key, key) == 0)
            return &d->items[i];
    return NULL;
}

static inline const rmalab_disagreement *tu_disagreement(const rmalab_agreement *a,
                                                         const char *key)
{
    for (int i = 0; a && i < a->count; i++)
        if (strcmp(a->items[i].key, key) == 0)
            return &a->items[i];
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* MPI suites                                                               */

static inline int tu_rank(void)
{
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

static inline int tu_size(void)
{
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}

/* Soft checks. In no-fork mode a failing ck_assert leaves the test at once,
 * on that rank only, and the other ranks then wait forever in the next
 * collective call. The EXPECT macros record a failure (file:line and
 * message) and let the test go on, so that every rank makes every
 * collective call and closes every epoch; tu_end(), the last statement of
 * the test, fails it with what was recorded. Use ck_assert only where
 * going on would crash. */
#ifndef TU_SOFT_MAX
#define TU_SOFT_MAX 6 /* failures quoted in the message */
#endif

typedef struct {
    int failed;
    size_t len;
    char text[3000]; /* check's messages hold 4096 bytes */
} tu_soft_state;

static inline tu_soft_state *tu_soft(void)
{
    static tu_soft_state state;
    return &state;
}

__attribute__((format(printf, 3, 4))) static inline void
tu_soft_fail(const char *file, int line, const char *fmt, ...)
{
    tu_soft_state *s = tu_soft();
    if (getenv("TU_VERBOSE")) { /* every failure, on stderr */
        va_list ap;
        fprintf(stderr, "rank %d: %s:%d: ", tu_rank(), file, line);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
    }
    if (s->failed++ < TU_SOFT_MAX && s->len < sizeof s->text) {
        va_list ap;
        int n = snprintf(s->text + s->len, sizeof s->text - s->len, "%s[%s:%d] ",
                         s->len ? "; " : "", file, line);
        s->len += n > 0 ? (size_t)n : 0;
        if (s->len < sizeof s->text) {
            va_start(ap, fmt);
            n = vsnprintf(s->text + s->len, sizeof s->text - s->len, fmt, ap);
            va_end(ap);
            s->len += n > 0 ? (size_t)n : 0;
        }
        if (s->len > sizeof s->text)
            s->len = sizeof s->text;
    }
}

/* Forget failures left over (call first in a test that uses EXPECT). */
static inline void tu_begin(void)
{
    tu_soft_state *s = tu_soft();
    s->failed = 0;
    s->len = 0;
    s->text[0] = '\0';
}

#define tu_end()                                                               \
    do {                                                                       \
        tu_soft_state *tu_s_ = tu_soft();                                      \
        int tu_n_ = tu_s_->failed;                                             \
        tu_s_->failed = 0;                                                     \
        tu_s_->len = 0;                                                        \
        ck_assert_msg(tu_n_ == 0, "rank %d: %d failed expectation(s): %s",     \
                      tu_rank(), tu_n_, tu_s_->text);                          \
    } while (0)

#define EXPECT(cond, ...)                                                      \
    do {                                                                       \
        if (!(cond))                                                           \
            tu_soft_fail(__FILE__, __LINE__, __VA_ARGS__);                     \
    } while (0)

#define EXPECT_RC(call, expected)                                              \
    do {                                                                       \
        int ex_rc_ = (call);                                                   \
        int ex_exp_ = (expected);                                              \
        EXPECT(ex_rc_ == ex_exp_, "%s returned %s, expected %s (%s)", #call,   \
               rmalab_err_name(ex_rc_), rmalab_err_name(ex_exp_), rmalab_errmsg()); \
    } while (0)

#define EXPECT_OK(call) EXPECT_RC(call, RMALAB_OK)

/* `call` fails with `expected` and rmalab_errmsg() contains `phrase`. */
#define EXPECT_ERR(call, expected, phrase)                                     \
    do {                                                                       \
        int ex_rc_ = (call);                                                   \
        int ex_exp_ = (expected);                                              \
        const char *ex_msg_ = rmalab_errmsg();                                 \
        EXPECT(ex_rc_ == ex_exp_, "%s returned %s, expected %s (%s)", #call,   \
               rmalab_err_name(ex_rc_), rmalab_err_name(ex_exp_), ex_msg_);    \
        EXPECT(ex_rc_ == RMALAB_OK || strstr(ex_msg_, (phrase)) != NULL,       \
               "%s: message \"%s\" lacks \"%s\"", #call, ex_msg_, (phrase));  \
    } while (0)

#define EXPECT_INT_EQ(a, b)                                                    \
    do {                                                                       \
        long long ex_a_ = (long long)(a), ex_b_ = (long long)(b);              \
        EXPECT(ex_a_ == ex_b_, "%s == %lld, expected %s == %lld", #a, ex_a_,   \
               #b, ex_b_);                                                     \
    } while (0)

#define EXPECT_STR_EQ(a, b)                                                    \
    do {                                                                       \
        const char *ex_a_ = (a), *ex_b_ = (b);                                 \
        EXPECT(ex_a_ && ex_b_ && strcmp(ex_a_, ex_b_) == 0,                    \
               "%s is \"%s\", expected \"%s\"", #a, ex_a_ ? ex_a_ : "(null)",   \
               ex_b_ ? ex_b_ : "(null)");                                      \
    } while (0)

#define EXPECT_CONTAINS(hay, needle)                                           \
    do {                                                                       \
        const char *ex_h_ = (hay), *ex_n_ = (needle);                          \
        EXPECT(ex_h_ && strstr(ex_h_, ex_n_), "\"%s\" does not contain \"%s\"", \
               ex_h_ ? ex_h_ : "(null)", ex_n_);                               \
    } while (0)

/* Tests of known bugs assert the correct behaviour and fail until the core
 * is fixed, so they are not run by default. RMALAB_KNOWN_BUGS=1 in the
 * environment adds those that fail; =all also those that hang. */
static inline int tu_known_bugs(int hangs)
{
    const char *v = getenv("RMALAB_KNOWN_BUGS");
    if (!v || !*v || strcmp(v, "0") == 0)
        return 0;
    return !hangs || strcmp(v, "all") == 0;
}

/* Teardown of a window whose test may have stopped halfway: closes the
 * epochs this rank still has open, then frees it. Collective, best effort
 * (a fence is collective: it is made only when RMA calls are pending). */
static inline void tu_win_discard(rmalab_win **w)
{
    rmalab_epoch_state s;
    if (!w || !*w)
        return;
    rmalab_win_state(*w, &s);
    switch (s.access) {
    case RMALAB_ACCESS_START: rmalab_win_complete(*w); break;
    case RMALAB_ACCESS_LOCK:
        for (int i = 0; i < s.n_access && i < RMALAB_STATE_MAX_RANKS; i++)
            rmalab_win_unlock(*w, s.access_ranks[i]);
        break;
    case RMALAB_ACCESS_LOCK_ALL: rmalab_win_unlock_all(*w); break;
    case RMALAB_ACCESS_FENCE:
        if (s.ops_in_epoch)
            rmalab_win_fence(*w, RMALAB_MODE_NOSUCCEED);
        break;
    default: break;
    }
    if (s.exposure == RMALAB_EXPOSURE_POST)
        rmalab_win_wait(*w);
    rmalab_win_free(w);
}

/* ------------------------------------------------------------------------ */
/* Soft checks, for tests whose ranks synchronise with each other           */

/* A check that fails in a test where ranks wait for each other must not end
 * the test on one rank only (check's assertions longjmp out of it), or the
 * other ranks wait forever in the next collective or epoch. SOFT* record a
 * failure and go on; tu_soft_end(), the last statement of such a test,
 * fails the test with every message recorded. tu_soft_begin() in the
 * fixture's setup forgets the failures of an earlier test. */
typedef struct {
    int n;
    size_t len;
    char text[8192];
} tu_soft_log;

static inline tu_soft_log *tu_softlog(void)
{
    static tu_soft_log log;
    return &log;
}

static inline void tu_soft_begin(void)
{
    tu_softlog()->n = 0;
    tu_softlog()->len = 0;
    tu_softlog()->text[0] = '\0';
}

__attribute__((format(printf, 3, 4))) static inline void tu_softlog_fail(const char *file, int line,
                                                                      const char *fmt, ...)
{
    tu_soft_log *l = tu_softlog();
    va_list ap;
    l->n++;
    if (l->len + 1 >= sizeof l->text)
        return;
    int k = snprintf(l->text + l->len, sizeof l->text - l->len, "\n  %s:%d: ", file, line);
    if (k > 0)
        l->len = l->len + (size_t)k < sizeof l->text ? l->len + (size_t)k : sizeof l->text - 1;
    va_start(ap, fmt);
    k = vsnprintf(l->text + l->len, sizeof l->text - l->len, fmt, ap);
    va_end(ap);
    if (k > 0)
        l->len = l->len + (size_t)k < sizeof l->text ? l->len + (size_t)k : sizeof l->text - 1;
}

#define SOFT(cond, ...)                                                        \
    do {                                                                       \
        if (!(cond))                                                           \
            tu_softlog_fail(__FILE__, __LINE__, __VA_ARGS__);                     \
    } while (0)

/* `call` returns `expected`; the message quotes rmalab_errmsg(). */
#define SOFT_RC(call, expected)                                                \
    do {                                                                       \
        int soft_rc_ = (call);                                                 \
        int soft_exp_ = (expected);                                            \
        SOFT(soft_rc_ == soft_exp_, "%s returned %s, expected %s (%s)", #call, \
             rmalab_err_name(soft_rc_), rmalab_err_name(soft_exp_), rmalab_errmsg()); \
    } while (0)

#define SOFT_OK(call) SOFT_RC(call, RMALAB_OK)

#define SOFT_INT(got, want)                                                    \
    do {                                                                       \
        long long soft_g_ = (long long)(got), soft_w_ = (long long)(want);     \
        SOFT(soft_g_ == soft_w_, "%s is %lld, expected %lld", #got, soft_g_, soft_w_); \
    } while (0)

/* `hay` contains `needle` (C strings; hay may be NULL). */
#define SOFT_CONTAINS(hay, needle)                                             \
    do {                                                                       \
        const char *soft_h_ = (hay), *soft_n_ = (needle);                      \
        SOFT(soft_h_ && strstr(soft_h_, soft_n_), "\"%s\" does not contain \"%s\"", \
             soft_h_ ? soft_h_ : "(null)", soft_n_);                           \
    } while (0)

#define SOFT_STR_EQ(got, want)                                                 \
    do {                                                                       \
        const char *soft_g_ = (got), *soft_w_ = (want);                        \
        SOFT(soft_g_ && soft_w_ ? strcmp(soft_g_, soft_w_) == 0 : soft_g_ == soft_w_, \
             "%s is \"%s\", expected \"%s\"", #got, soft_g_ ? soft_g_ : "(null)", \
             soft_w_ ? soft_w_ : "(null)");                                   \
    } while (0)

#define tu_soft_end()                                                          \
    do {                                                                       \
        if (tu_softlog()->n)                                                      \
            ck_abort_msg("%d soft check(s) failed:%s", tu_softlog()->n, tu_softlog()->text); \
    } while (0)

#endif
