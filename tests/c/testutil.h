/* Shared helpers of the check suites: the suite constructors the runners
 * call, assertions on rmalab status codes that print the core's detailed
 * message when they fail, and small builders for info objects, reports and
 * diagnostics. Header-only and private to tests/c. */
#ifndef RMALAB_TESTUTIL_H
#define RMALAB_TESTUTIL_H

#include <check.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <rmalab/rmalab.h>

/* Pure suites: no MPI call needs MPI_Init (test-core-nompi). */
Suite *info_suite(void);
Suite *hints_suite(void);
/* Suites that need MPI_Init and two ranks (test-core-mpi). */
Suite *info_mpi_suite(void);
Suite *comm_suite(void);
Suite *attr_suite(void);

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

#endif
