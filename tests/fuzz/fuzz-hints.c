/* fuzz-hints: the typed readers (rmalab_info_get_bool, _int, _list) and the
 * normalisation and validation of every hint in the catalogue, on text from
 * the input.
 *
 * The readers are checked against a model of the standard's representations
 * (info-object.txt): "true" and "false"; decimal integers of a C int with an
 * optional sign and no space after it; comma-separated lists; leading and
 * trailing white space stripped from the value and from each element (the
 * C locale's isspace set, as rmalab/info.h and hints.c say). Normalisation
 * is checked against rmalab/hints.h: a value of the hint's type gives its
 * canonical text, anything else ERR_INFO_VALUE with a message naming the
 * key; the canonical text is a fixed point; the readers agree with it.
 * Validation passes known keys on in canonical form, drops invalid ones with
 * a diagnostic, leaves rmalab's own keys out and unknown keys untouched. A
 * second mode builds a request of several keys, some deleted again, and
 * validates and reports it, sometimes with the core's allocations failing:
 * then the calls succeed or return ERR_NO_MEM, and nothing leaks. */
#include <limits.h>

#include <rmalab/debug.h>
#include <rmalab/rmalab.h>

#include "fuzz.h"

#define MAXV RMALAB_MAX_INFO_VAL

/* ------------------------------------------------------------------------ */
/* The standard's representations, written here from the text               */

static int ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static void strip(const char **s, size_t *n)
{
    while (*n && ws(**s))
        (*s)++, (*n)--;
    while (*n && ws((*s)[*n - 1]))
        (*n)--;
}

static int model_bool(const char *s, size_t n, int *b)
{
    strip(&s, &n);
    if (n == 4 && memcmp(s, "true", 4) == 0)
        return *b = 1, 1;
    if (n == 5 && memcmp(s, "false", 5) == 0)
        return *b = 0, 1;
    return 0;
}

static int model_int(const char *s, size_t n, int *v)
{
    strip(&s, &n);
    size_t i = 0;
    int neg = 0;
    if (n && (s[0] == '+' || s[0] == '-'))
        neg = s[i++] == '-';
    if (i == n)
        return 0;
    long long x = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        if (x <= 10LL * INT_MAX) /* once beyond any int, it stays beyond */
            x = x * 10 + (s[i] - '0');
    }
    x = neg ? -x : x;
    if (x < INT_MIN || x > INT_MAX)
        return 0;
    *v = (int)x;
    return 1;
}

#define MAXITEMS 1100

typedef struct {
    int count;
    const char *item[MAXITEMS];
    size_t len[MAXITEMS];
} list;

static int model_list(const char *s, size_t n, list *l)
{
    l->count = 0;
    strip(&s, &n);
    if (n == 0)
        return 1;
    for (size_t i = 0;;) {
        size_t j = i;
        while (j < n && s[j] != ',')
            j++;
        const char *e = s + i;
        size_t el = j - i;
        strip(&e, &el);
        if (el == 0 || l->count == MAXITEMS)
            return 0;
        l->item[l->count] = e;
        l->len[l->count++] = el;
        if (j == n)
            return 1;
        i = j + 1;
    }
}

static int in_values(const char *const *values, const char *s, size_t n)
{
    for (int i = 0; values && values[i]; i++)
        if (strlen(values[i]) == n && memcmp(values[i], s, n) == 0)
            return 1;
    return 0;
}

/* What rmalab/hints.h promises for a value of `d`: 1 and the canonical text
 * in want, or 0. */
static int model_normalize(const rmalab_hint_def *d, const char *s, size_t n, char *want)
{
    const char *t = s;
    size_t m = n;
    strip(&t, &m);
    switch (d->type) {
    case RMALAB_HINT_BOOL: {
        int b;
        if (!model_bool(s, n, &b))
            return 0;
        strcpy(want, b ? "true" : "false");
        return 1;
    }
    case RMALAB_HINT_INT: {
        int v;
        if (d->unlimited && strlen(d->unlimited) == m && memcmp(t, d->unlimited, m) == 0) {
            strcpy(want, d->unlimited);
            return 1;
        }
        if (!model_int(s, n, &v))
            return 0;
        if (d->unlimited && v == -1) {
            strcpy(want, d->unlimited);
            return 1;
        }
        if (v < d->min || v > d->max)
            return 0;
        sprintf(want, "%d", v);
        return 1;
    }
    case RMALAB_HINT_ENUM:
        if (!in_values(d->values, t, m))
            return 0;
        memcpy(want, t, m);
        want[m] = '\0';
        return 1;
    case RMALAB_HINT_LIST: {
        static list l;
        if (!model_list(s, n, &l) || l.count == 0)
            return 0;
        size_t off = 0;
        for (int i = 0; i < l.count; i++) {
            if (d->values && !in_values(d->values, l.item[i], l.len[i]))
                return 0;
            if (d->sole && l.count > 1 && strlen(d->sole) == l.len[i] &&
                memcmp(d->sole, l.item[i], l.len[i]) == 0)
                return 0;
            if (off + (i > 0) + l.len[i] > MAXV)
                return 0;
            if (i)
                want[off++] = ',';
            memcpy(want + off, l.item[i], l.len[i]);
            off += l.len[i];
        }
        want[off] = '\0';
        return 1;
    }
    case RMALAB_HINT_STRING:
        if (n > MAXV)
            return 0;
        memcpy(want, s, n);
        want[n] = '\0';
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* One value against every hint                                             */

static void check_readers(const char *s, size_t n)
{
    rmalab_info *info;
    FUZZ_CHECK(rmalab_info_create(&info) == RMALAB_OK, "create");
    FUZZ_CHECK(rmalab_info_set_n(info, "k", 1, s, n) == RMALAB_OK, "set: %s", rmalab_errmsg());

    int mb, mi, flag = -1;
    bool b = false;
    int rc = rmalab_info_get_bool(info, "k", &b, &flag);
    if (model_bool(s, n, &mb))
        FUZZ_CHECK(rc == RMALAB_OK && flag == 1 && b == (bool)mb, "get_bool of \"%.*s\"",
                   (int)n, s);
    else
        FUZZ_CHECK(rc == RMALAB_ERR_ARG, "get_bool accepted \"%.*s\"", (int)n, s);

    int v = 0;
    flag = -1;
    rc = rmalab_info_get_int(info, "k", &v, &flag);
    if (model_int(s, n, &mi))
        FUZZ_CHECK(rc == RMALAB_OK && flag == 1 && v == mi, "get_int of \"%.*s\": %s %d",
                   (int)n, s, rmalab_err_name(rc), v);
    else
        FUZZ_CHECK(rc == RMALAB_ERR_ARG, "get_int accepted \"%.*s\" as %d", (int)n, s, v);

    static list l;
    char **items = NULL;
    int count = -1;
    flag = -1;
    rc = rmalab_info_get_list(info, "k", &items, &count, &flag);
    if (model_list(s, n, &l)) {
        FUZZ_CHECK(rc == RMALAB_OK && flag == 1 && count == l.count,
                   "get_list of \"%.*s\": %s, %d items, model %d", (int)n, s,
                   rmalab_err_name(rc), count, l.count);
        for (int i = 0; i < count; i++)
            FUZZ_CHECK(strlen(items[i]) == l.len[i] && memcmp(items[i], l.item[i], l.len[i]) == 0,
                       "get_list of \"%.*s\": item %d is \"%s\"", (int)n, s, i, items[i]);
        rmalab_list_free(items, count);
    } else {
        FUZZ_CHECK(rc == RMALAB_ERR_ARG, "get_list accepted \"%.*s\"", (int)n, s);
    }

    /* Absent keys: flag 0, nothing written. */
    flag = -1;
    b = true;
    FUZZ_CHECK(rmalab_info_get_bool(info, "absent", &b, &flag) == RMALAB_OK && flag == 0 && b,
               "get_bool of an absent key");
    rmalab_info_destroy(&info);
}

/* Validation of {key = value} in `scope` for the hint d (of either scope). */
static void check_validate(rmalab_hint_scope scope, const rmalab_hint_def *d, const char *s,
                           size_t n, int valid, const char *canon)
{
    rmalab_info *req, *out = NULL;
    rmalab_diags diags;
    rmalab_diags_init(&diags);
    FUZZ_CHECK(rmalab_info_create(&req) == RMALAB_OK, "create");
    FUZZ_CHECK(rmalab_info_set_n(req, d->key, strlen(d->key), s, n) == RMALAB_OK, "set");
    FUZZ_CHECK(rmalab_hints_validate(scope, req, &out, &diags) == RMALAB_OK, "validate: %s",
               rmalab_errmsg());
    int nkeys = -1;
    rmalab_info_get_nkeys(out, &nkeys);
    size_t vl = 0;
    const char *got = rmalab_info_lookup(out, d->key, strlen(d->key), &vl);
    if (d->scope != scope) { /* another scope's hint is unknown here: passed as it is */
        FUZZ_CHECK(got && vl == n && memcmp(got, s, n) == 0 && nkeys == 1,
                   "%s passed to the other scope changed", d->key);
        FUZZ_CHECK(diags.count == 1 && strcmp(diags.items[0].key, d->key) == 0,
                   "%s in the other scope: %d diagnostics", d->key, diags.count);
    } else if (!valid) {
        FUZZ_CHECK(!got && nkeys == 0, "invalid %s=\"%.*s\" was passed on", d->key, (int)n, s);
        FUZZ_CHECK(diags.count == 1 && strcmp(diags.items[0].key, d->key) == 0,
                   "invalid %s: %d diagnostics", d->key, diags.count);
    } else if (d->rmalab_own) {
        FUZZ_CHECK(!got && nkeys == 0 && diags.count == 0, "rmalab's own %s was passed on",
                   d->key);
    } else {
        FUZZ_CHECK(got && strcmp(got, canon) == 0 && nkeys == 1 && diags.count == 0,
                   "valid %s=\"%.*s\" gave \"%s\", want \"%s\"", d->key, (int)n, s,
                   got ? got : "(absent)", canon);
    }
    rmalab_diags_clear(&diags);
    rmalab_info_destroy(&out);
    rmalab_info_destroy(&req);
}

static void check_hint(const rmalab_hint_def *d, const char *s, size_t n)
{
    char buf[MAXV + 1], again[MAXV + 1], want[MAXV + 1];
    int nul = memchr(s, '\0', n) != NULL;
    memset(buf, '#', sizeof buf);
    int rc = rmalab_hint_normalize(d, s, n, buf);
    FUZZ_CHECK(rc == RMALAB_OK || rc == RMALAB_ERR_INFO_VALUE, "normalize %s: %s", d->key,
               rmalab_err_name(rc));
    if (rc) {
        FUZZ_CHECK(strstr(rmalab_errmsg(), d->key), "the message does not name %s: %s",
                   d->key, rmalab_errmsg());
    } else {
        FUZZ_CHECK(memchr(buf, '\0', sizeof buf), "normalized %s is not terminated", d->key);
        size_t bl = strlen(buf);
        FUZZ_CHECK(rmalab_hint_normalize(d, buf, bl, again) == RMALAB_OK &&
                       strcmp(buf, again) == 0,
                   "%s: \"%s\" is not a fixed point (gives \"%s\")", d->key, buf, again);
    }
    if (nul) /* no info value holds a NUL; the model is about info values */
        return;
    int valid = model_normalize(d, s, n, want);
    FUZZ_CHECK(valid == (rc == RMALAB_OK), "%s=\"%.*s\": normalize says %s, the model %s",
               d->key, (int)n, s, rmalab_err_name(rc), valid ? "valid" : "invalid");
    if (valid)
        FUZZ_CHECK(strcmp(buf, want) == 0, "%s=\"%.*s\": \"%s\", model \"%s\"", d->key, (int)n,
                   s, buf, want);
    if (n > MAXV)
        return;

    /* The typed readers agree with normalisation. */
    rmalab_info *info;
    FUZZ_CHECK(rmalab_info_create(&info) == RMALAB_OK, "create");
    FUZZ_CHECK(rmalab_info_set_n(info, d->key, strlen(d->key), s, n) == RMALAB_OK, "set");
    int flag = -1;
    if (d->type == RMALAB_HINT_BOOL) {
        bool b;
        int r = rmalab_info_get_bool(info, d->key, &b, &flag);
        FUZZ_CHECK((r == RMALAB_OK) == valid && (!valid || strcmp(buf, b ? "true" : "false") == 0),
                   "%s: get_bool and normalize disagree on \"%.*s\"", d->key, (int)n, s);
    } else if (d->type == RMALAB_HINT_INT && !d->unlimited) {
        int v;
        int r = rmalab_info_get_int(info, d->key, &v, &flag);
        int in_range = r == RMALAB_OK && v >= d->min && v <= d->max;
        FUZZ_CHECK(in_range == valid, "%s: get_int and normalize disagree on \"%.*s\"", d->key,
                   (int)n, s);
    } else if (d->type == RMALAB_HINT_LIST) {
        char **items;
        int count;
        int r = rmalab_info_get_list(info, d->key, &items, &count, &flag);
        FUZZ_CHECK(r == RMALAB_OK || !valid, "%s: get_list refuses valid \"%.*s\"", d->key,
                   (int)n, s);
        if (r == RMALAB_OK) {
            FUZZ_CHECK(count > 0 || !valid, "%s: an empty list is valid", d->key);
            rmalab_list_free(items, count);
        }
    }
    rmalab_info_destroy(&info);

    check_validate(d->scope, d, s, n, valid, buf);
    check_validate(d->scope == RMALAB_SCOPE_WIN ? RMALAB_SCOPE_COMM : RMALAB_SCOPE_WIN, d, s, n,
                   valid, buf);
}

static void one_value(const char *s, size_t n)
{
    if (n <= MAXV && !memchr(s, '\0', n))
        check_readers(s, n);
    for (int sc = 0; sc < 2; sc++)
        for (int i = 0; i < rmalab_hints_count((rmalab_hint_scope)sc); i++)
            check_hint(rmalab_hints_at((rmalab_hint_scope)sc, i), s, n);
}

/* ------------------------------------------------------------------------ */
/* A request of several keys                                                */

static const char *const strange[] = {"no_lock", "NO_LOCKS", "accumulate_order", "vci ",
                                      "rmalab_psc", "x", "mpi_assert_no_any_tags", "sender_vcii"};

static void key_from(fuzz_in *in, char *k, size_t *kl)
{
    unsigned r = fuzz_byte(in);
    if (r < 160) {
        rmalab_hint_scope sc = (rmalab_hint_scope)(r & 1);
        const rmalab_hint_def *d = rmalab_hints_at(sc, (int)(r >> 1) % rmalab_hints_count(sc));
        *kl = strlen(d->key);
        memcpy(k, d->key, *kl);
    } else if (r < 200) {
        const char *s = strange[r % (sizeof strange / sizeof *strange)];
        *kl = strlen(s);
        memcpy(k, s, *kl);
    } else {
        const char *s = fuzz_bytes(in, 64, kl);
        memcpy(k, s, *kl);
    }
    k[*kl] = '\0';
}

static void request(fuzz_in *in)
{
    long live = rmalab_debug_live_allocs();
    rmalab_hint_scope scope = (rmalab_hint_scope)(fuzz_byte(in) & 1);
    long fail_at = fuzz_byte(in);
    fail_at = fail_at < 64 ? 0 : fail_at % 24 + 1;
    rmalab_info *req;
    FUZZ_CHECK(rmalab_info_create(&req) == RMALAB_OK, "create");
    for (int i = 0; i < 40 && fuzz_left(in); i++) {
        char k[300];
        size_t kl, vl;
        key_from(in, k, &kl);
        if (fuzz_byte(in) < 40) { /* deletes leave holes that nth must skip */
            rmalab_info_delete_n(req, k, kl);
            continue;
        }
        const char *v = fuzz_bytes(in, 80, &vl);
        rmalab_info_set_n(req, k, kl, v, vl); /* invalid keys and values are refused */
    }

    rmalab_info *out = NULL;
    rmalab_diags diags;
    rmalab_diags_init(&diags);
    rmalab_debug_fail_alloc(fail_at);
    int rc = rmalab_hints_validate(scope, req, &out, &diags);
    rmalab_debug_fail_alloc(0);
    FUZZ_CHECK(rc == RMALAB_OK || (fail_at && rc == RMALAB_ERR_NO_MEM), "validate: %s (%s)",
               rmalab_err_name(rc), rmalab_errmsg());
    FUZZ_CHECK((rc == RMALAB_OK) == (out != NULL), "validate: output and status disagree");
    if (rc == RMALAB_OK) {
        /* Every key passed on was requested, and has its canonical value. */
        int n = 0;
        rmalab_info_get_nkeys(out, &n);
        for (int i = 0; i < n; i++) {
            const char *k, *v, *r;
            size_t kl, vl, rl;
            FUZZ_CHECK(rmalab_info_nth(out, i, &k, &kl, &v, &vl) == RMALAB_OK, "nth");
            FUZZ_CHECK((r = rmalab_info_lookup(req, k, kl, &rl)), "%s was not requested", k);
            const rmalab_hint_def *d = rmalab_hints_find(scope, k);
            char want[MAXV + 1];
            if (!d)
                FUZZ_CHECK(vl == rl && memcmp(v, r, vl) == 0, "unknown %s changed", k);
            else
                FUZZ_CHECK(!d->rmalab_own && model_normalize(d, r, rl, want) &&
                               strcmp(want, v) == 0,
                           "%s=\"%s\" passed on as \"%s\"", k, r, v);
        }
        { /* and every key that should be is, memory short or not */
            int nr = 0, expect = 0;
            rmalab_info_get_nkeys(req, &nr);
            for (int i = 0; i < nr; i++) {
                const char *k, *v;
                size_t kl, vl;
                char want[MAXV + 1];
                rmalab_info_nth(req, i, &k, &kl, &v, &vl);
                const rmalab_hint_def *d = rmalab_hints_find(scope, k);
                expect += !d || (!d->rmalab_own && model_normalize(d, v, vl, want));
            }
            FUZZ_CHECK(n == expect, "%d keys passed on, %d expected", n, expect);
        }
    }
    for (int i = 0; i < diags.count; i++)
        FUZZ_CHECK(rmalab_info_lookup(req, diags.items[i].key, strlen(diags.items[i].key),
                                      NULL),
                   "a diagnostic about %s, which was not requested", diags.items[i].key);
    rmalab_diags_clear(&diags);

    /* The report over what was asked and what went on. */
    rmalab_hints_report *report = NULL;
    rmalab_debug_fail_alloc(fail_at ? fail_at / 2 + 1 : 0);
    rc = rmalab_hints_report_build(scope, req, out, &report);
    rmalab_debug_fail_alloc(0);
    FUZZ_CHECK(rc == RMALAB_OK || (fail_at && rc == RMALAB_ERR_NO_MEM), "report: %s (%s)",
               rmalab_err_name(rc), rmalab_errmsg());
    if (rc == RMALAB_OK) {
        FUZZ_CHECK(report->count >= rmalab_hints_count(scope), "report of %d rows",
                   report->count);
        for (int i = 0; i < rmalab_hints_count(scope); i++)
            FUZZ_CHECK(strcmp(report->rows[i].key, rmalab_hints_at(scope, i)->key) == 0,
                       "row %d is %s", i, report->rows[i].key);
        rmalab_hints_report_destroy(report);
    }
    rmalab_info_destroy(&out);
    rmalab_info_destroy(&req);
    FUZZ_CHECK(rmalab_debug_live_allocs() == live, "the core holds %ld allocations more",
               rmalab_debug_live_allocs() - live);
}

/* ------------------------------------------------------------------------ */
/* The run                                                                  */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    fuzz_in in = {data + 1, size - 1};
    if (data[0] & 1)
        request(&in);
    else
        one_value((const char *)data + 1, size - 1);
    return 0;
}
