/* Validation of requested hints before MPICH sees them: each problem is a
 * diagnostic (unknown keys, typos, keys of the other scope, values not of
 * the hint's type), and what MPI gets is in canonical form. Hints never
 * change semantics, so nothing here is an error but running out of memory.
 * Calls hints.c and hints-value.c. */
#include "private.h"
#include "alloc.h"
#include "error-private.h"
#include "info-private.h"
#include "hints-private.h"
#include "hints-validate.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Diagnostics                                                              */

void rmalab_diags_init(rmalab_diags *d)
{
    memset(d, 0, sizeof *d);
}

void rmalab_diags_clear(rmalab_diags *d)
{
    if (!d)
        return;
    for (int i = 0; i < d->count; i++) {
        rmalab__mem_free(d->items[i].key);
        rmalab__mem_free(d->items[i].message);
    }
    rmalab__mem_free(d->items);
    rmalab_diags_init(d);
}

__attribute__((format(printf, 4, 0))) static void vdiag(rmalab_diags *d, const char *key,
                                                        size_t klen, const char *fmt,
                                                        va_list ap)
{
    if (!d)
        return;
    if (d->count == d->cap) {
        int cap = d->cap ? 2 * d->cap : 8;
        rmalab_diag *items = rmalab__mem_realloc(d->items, (size_t)cap * sizeof *items);
        if (!items)
            return;
        d->items = items;
        d->cap = cap;
    }
    char msg[1536];
    vsnprintf(msg, sizeof msg, fmt, ap);
    char *k = rmalab__info_strndup(key, klen), *m = rmalab__info_strndup(msg, strlen(msg));
    if (!k || !m) {
        rmalab__mem_free(k);
        rmalab__mem_free(m);
        return;
    }
    d->items[d->count++] = (rmalab_diag){k, m};
}

__attribute__((format(printf, 4, 5))) static void diag(rmalab_diags *d, const char *key,
                                                        size_t klen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdiag(d, key, klen, fmt, ap);
    va_end(ap);
}

void rmalab__hints_validate_diag_add(rmalab_diags *d, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdiag(d, key, strlen(key), fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------------ */
/* Validation                                                               */

static size_t edit_distance(const char *a, size_t n, const char *b, size_t m)
{
    size_t row[RMALAB_MAX_INFO_KEY + 2];
    if (m > RMALAB_MAX_INFO_KEY)
        return SIZE_MAX;
    for (size_t j = 0; j <= m; j++)
        row[j] = j;
    for (size_t i = 1; i <= n; i++) {
        size_t diag_prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t up = row[j];
            size_t best = diag_prev + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag_prev = up;
        }
    }
    return row[m];
}

/* The closest known key of `scope`, when close enough to be a typo. */
static const rmalab_hint_def *suggest(rmalab_hint_scope scope, const char *key, size_t klen)
{
    const rmalab_hint_def *best = NULL;
    size_t best_d = SIZE_MAX;
    for (int i = 0; i < rmalab_hints_count(scope); i++) {
        const rmalab_hint_def *d = rmalab_hints_at(scope, i);
        size_t dl = strlen(d->key);
        size_t dist = edit_distance(key, klen, d->key, dl);
        if (dist < best_d) {
            best_d = dist;
            best = d;
        }
    }
    size_t limit = klen < 6 ? 1 : klen < 12 ? 2 : 3;
    return best_d <= limit ? best : NULL;
}

int rmalab_hints_validate(rmalab_hint_scope scope, const rmalab_info *requested,
                          rmalab_info **to_mpi, rmalab_diags *diags)
{
    return rmalab__hints_validate(scope, requested, to_mpi, diags, 0);
}

/* By the info's keys, last first (a deletion leaves those before it in
 * place): a creation's info holds a key or two, the catalogue some twenty
 * (issue 41: the catalogue's walk was 1,800 instructions a creation). */
int rmalab__hints_validate_strip_own(rmalab_hint_scope scope, rmalab_info *info)
{
    int n = 0, rc = RMALAB_OK;
    rmalab_info_get_nkeys(info, &n);
    for (int i = n - 1; i >= 0 && !rc; i--) {
        const char *k;
        const rmalab_hint_def *d;
        if (!rmalab_info_nth(info, i, &k, NULL, NULL, NULL) &&
            (d = rmalab_hints_find(scope, k)) && d->rmalab_own)
            rc = rmalab_info_delete(info, d->key);
    }
    return rc;
}

int rmalab__hints_validate(rmalab_hint_scope scope, const rmalab_info *requested,
                           rmalab_info **to_mpi, rmalab_diags *diags, int keep_own)
{
    rmalab_info *out = NULL;
    int rc, n = 0;
    char *buf = rmalab__mem_alloc(RMALAB_MAX_INFO_VAL + 1);
    if (!buf)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory validating hints");
    if ((rc = rmalab_info_create(&out)))
        goto fail;
    if (requested)
        rmalab_info_get_nkeys(requested, &n);
    for (int i = 0; i < n; i++) {
        const char *k, *v;
        size_t kl, vl;
        rmalab_info_nth((rmalab_info *)requested, i, &k, &kl, &v, &vl);
        const rmalab_hint_def *d = rmalab_hints_find(scope, k);
        if (!d) {
            rmalab_hint_scope other = scope == RMALAB_SCOPE_WIN ? RMALAB_SCOPE_COMM
                                                                : RMALAB_SCOPE_WIN;
            const rmalab_hint_def *s = suggest(scope, k, kl);
            if (rmalab_hints_find(other, k))
                diag(diags, k, kl, "%s: a %s hint, not a %s hint; it has no effect here", k,
                     other == RMALAB_SCOPE_WIN ? "window" : "communicator",
                     scope == RMALAB_SCOPE_WIN ? "window" : "communicator");
            else if (s)
                diag(diags, k, kl, "%s: unknown hint; did you mean %s?", k, s->key);
            if ((rc = rmalab_info_set_n(out, k, kl, v, vl)))
                goto fail;
            continue;
        }
        if ((rc = rmalab_hint_normalize(d, v, vl, buf)) == RMALAB_ERR_NO_MEM)
            goto fail;
        if (rc) {
            diag(diags, k, kl, "%s; the hint is not passed on", rmalab_errmsg());
            continue;
        }
        if ((keep_own || !d->rmalab_own) && (rc = rmalab_info_set(out, d->key, buf)))
            goto fail;
    }
    rmalab__mem_free(buf);
    if (to_mpi)
        *to_mpi = out;
    else
        rmalab_info_destroy(&out);
    return RMALAB_OK;
fail:
    rmalab__mem_free(buf);
    rmalab_info_destroy(&out);
    return rc;
}
