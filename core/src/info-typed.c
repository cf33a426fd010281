/* The standard's typed representations of info values: booleans, integers and comma-separated lists, on raw text and
 * through an info object's key. Calls info.c to look keys up. */
#include "private.h"
#include "alloc.h"
#include "error-private.h"
#include "info-private.h"
#include "info-typed.h"

#include <ctype.h>
#include <limits.h>
#include <string.h>

/* Leading and trailing white space, as the standard strips it from typed
 * values. */
void rmalab__info_typed_trim(const char **s, size_t *n)
{
    while (*n && isspace((unsigned char)**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n && isspace((unsigned char)(*s)[*n - 1]))
        (*n)--;
}

int rmalab_parse_bool(const char *s, size_t n, bool *out)
{
    const char *t = s;
    size_t m = n;
    rmalab__info_typed_trim(&t, &m);
    if (m == 4 && memcmp(t, "true", 4) == 0) {
        *out = true;
        return RMALAB_OK;
    }
    if (m == 5 && memcmp(t, "false", 5) == 0) {
        *out = false;
        return RMALAB_OK;
    }
    return rmalab__err_fail(RMALAB_ERR_ARG,
                            "\"%.*s\" is not a boolean: the standard's representations are "
                            "\"true\" and \"false\" (lowercase)",
                            (int)n, s);
}

int rmalab_parse_int(const char *s, size_t n, int *out)
{
    const char *t = s;
    size_t m = n, i = 0;
    rmalab__info_typed_trim(&t, &m);
    int neg = 0;
    if (m && (t[0] == '+' || t[0] == '-')) {
        neg = t[0] == '-';
        i = 1;
    }
    if (i == m || !isdigit((unsigned char)t[i]))
        return rmalab__err_fail(RMALAB_ERR_ARG,
                                "\"%.*s\" is not an integer: write decimal digits with an "
                                "optional sign and no space after it",
                                (int)n, s);
    long long v = 0;
    for (; i < m; i++) {
        if (!isdigit((unsigned char)t[i]))
            return rmalab__err_fail(RMALAB_ERR_ARG, "\"%.*s\" is not an integer: unexpected '%c'",
                                    (int)n, s, t[i]);
        v = v * 10 + (t[i] - '0');
        if (v > (long long)INT_MAX + 1)
            break;
    }
    if (neg)
        v = -v;
    if (v > INT_MAX || v < INT_MIN)
        return rmalab__err_fail(RMALAB_ERR_ARG, "\"%.*s\" does not fit a C int (%d to %d)", (int)n,
                                s, INT_MIN, INT_MAX);
    *out = (int)v;
    return RMALAB_OK;
}

void rmalab_list_free(char **items, int count)
{
    if (!items)
        return;
    for (int i = 0; i < count; i++)
        rmalab__mem_free(items[i]);
    rmalab__mem_free(items);
}

int rmalab_parse_list(const char *s, size_t n, char ***items, int *count)
{
    const char *t = s;
    size_t m = n;
    rmalab__info_typed_trim(&t, &m);
    *items = NULL;
    *count = 0;
    if (m == 0)
        return RMALAB_OK;
    int cap = 1;
    for (size_t i = 0; i < m; i++)
        cap += t[i] == ',';
    char **out = rmalab__mem_calloc((size_t)cap, sizeof *out);
    if (!out)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory parsing a list");
    int k = 0;
    const char *p = t, *end = t + m;
    while (k < cap) {
        const char *q = memchr(p, ',', (size_t)(end - p));
        if (!q)
            q = end;
        const char *e = p;
        size_t el = (size_t)(q - p);
        rmalab__info_typed_trim(&e, &el);
        if (el == 0) {
            rmalab_list_free(out, k);
            return rmalab__err_fail(RMALAB_ERR_ARG,
                                    "\"%.*s\" is not a list: element %d is empty (write "
                                    "elements separated by single commas)",
                                    (int)n, s, k + 1);
        }
        if (!(out[k] = rmalab__info_strndup(e, el))) {
            rmalab_list_free(out, k);
            return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory parsing a list");
        }
        k++;
        p = q + 1;
    }
    *items = out;
    *count = k;
    return RMALAB_OK;
}

/* Look up the text behind a typed reader; prefixes parse errors with the key. */
#define TYPED_READER(info, key, flag, parse)                                                       \
    const char *v;                                                                                 \
    size_t vlen;                                                                                   \
    int rc = rmalab__info_find(info, key, &v, &vlen);                                              \
    if (rc)                                                                                        \
        return rc;                                                                                 \
    *flag = 0;                                                                                     \
    if (!v)                                                                                        \
        return RMALAB_OK;                                                                          \
    if ((rc = (parse)))                                                                            \
        return rmalab__err_prefix(rc, "info key \"%s\"", key);                                     \
    *flag = 1;                                                                                     \
    return RMALAB_OK

int rmalab_info_get_bool(const rmalab_info *info, const char *key, bool *value, int *flag)
{
    TYPED_READER(info, key, flag, rmalab_parse_bool(v, vlen, value));
}

int rmalab_info_get_int(const rmalab_info *info, const char *key, int *value, int *flag)
{
    TYPED_READER(info, key, flag, rmalab_parse_int(v, vlen, value));
}

int rmalab_info_get_list(const rmalab_info *info, const char *key, char ***items, int *count,
                         int *flag)
{
    TYPED_READER(info, key, flag, rmalab_parse_list(v, vlen, items, count));
}
