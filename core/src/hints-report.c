/* The hints report (what the user asked for against what is in effect)
 * and the check that every rank gave the same value for the keys that must
 * agree. Calls hints.c and below. */
#include "private.h"
#include "alloc.h"
#include "error-private.h"
#include "info-private.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* The report                                                               */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Do two values of a hint mean the same (*same)? Lists compare as sets.
 * ERR_NO_MEM when the answer needs memory that is not there. */
static int same_value(const rmalab_hint_def *d, const char *a, const char *b, int *same)
{
    *same = 0;
    if (!a || !b) {
        *same = a == b;
        return RMALAB_OK;
    }
    char na[RMALAB_MAX_INFO_VAL + 1], nb[RMALAB_MAX_INFO_VAL + 1];
    int rc = d ? rmalab_hint_normalize(d, a, strlen(a), na) : RMALAB_ERR_ARG;
    if (rc == RMALAB_OK)
        rc = rmalab_hint_normalize(d, b, strlen(b), nb);
    if (rc == RMALAB_ERR_NO_MEM)
        return rc;
    if (rc) {
        *same = strcmp(a, b) == 0;
        return RMALAB_OK;
    }
    if (d->type != RMALAB_HINT_LIST) {
        *same = strcmp(na, nb) == 0;
        return RMALAB_OK;
    }
    char **la, **lb;
    int ca, cb;
    if ((rc = rmalab_parse_list(na, strlen(na), &la, &ca)))
        return rc;
    if ((rc = rmalab_parse_list(nb, strlen(nb), &lb, &cb)) == RMALAB_OK) {
        if (ca == cb) {
            qsort(la, (size_t)ca, sizeof *la, cmp_str);
            qsort(lb, (size_t)cb, sizeof *lb, cmp_str);
            *same = 1;
            for (int i = 0; i < ca && *same; i++)
                *same = strcmp(la[i], lb[i]) == 0;
        }
        rmalab_list_free(lb, cb);
    }
    rmalab_list_free(la, ca);
    return rc;
}

static char *dup_or_null(const char *s) { return s ? rmalab__info_strndup(s, strlen(s)) : NULL; }

static const char *get0(const rmalab_info *info, const char *key)
{
    return info ? rmalab_info_lookup(info, key, strlen(key), NULL) : NULL;
}

static int add_row(rmalab_hints_report *r, rmalab_hint_scope scope, const char *key,
                   const rmalab_info *requested, const rmalab_info *effective)
{
    const rmalab_hint_def *d = rmalab_hints_find(scope, key);
    const char *req = get0(requested, key), *eff = get0(effective, key);
    rmalab_hint_row row = {0};
    char buf[RMALAB_MAX_INFO_VAL + 1], note[1536] = "";
    int rc = RMALAB_OK, same = 0;
    row.default_value = d ? d->default_value : NULL;
    if (req) {
        if (d && (rc = rmalab_hint_normalize(d, req, strlen(req), buf))) {
            if (rc == RMALAB_ERR_NO_MEM)
                return rc;
            row.status = RMALAB_HINT_IGNORED;
            snprintf(note, sizeof note, "%s; not passed on", rmalab_errmsg());
        } else if ((rc = same_value(d, req, eff, &same))) {
            return rc;
        } else if (same) {
            row.status = RMALAB_HINT_APPLIED;
        } else {
            row.status = RMALAB_HINT_IGNORED;
            if (d && d->report_unreliable)
                snprintf(note, sizeof note, "MPICH 4.0.2 reports unrelated text for %s", key);
            else if (!eff)
                snprintf(note, sizeof note, "the implementation does not report %s", key);
            else
                snprintf(note, sizeof note, "the implementation kept %s", eff);
        }
    } else if (d && eff && (rc = same_value(d, eff, d->default_value, &same))) {
        return rc;
    } else if (!eff || (d && same)) {
        row.status = RMALAB_HINT_DEFAULT;
    } else {
        row.status = RMALAB_HINT_IMPLEMENTATION;
        if (d && d->report_unreliable)
            snprintf(note, sizeof note, "MPICH 4.0.2 reports unrelated text for %s", key);
    }
    row.key = dup_or_null(key);
    row.requested = dup_or_null(req);
    row.effective = dup_or_null(eff);
    row.note = note[0] ? dup_or_null(note) : NULL;
    if (!row.key || (req && !row.requested) || (eff && !row.effective)) {
        rmalab__mem_free(row.key);
        rmalab__mem_free(row.requested);
        rmalab__mem_free(row.effective);
        rmalab__mem_free(row.note);
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory building a hints report");
    }
    r->rows[r->count++] = row;
    return RMALAB_OK;
}

int rmalab_hints_report_build(rmalab_hint_scope scope, const rmalab_info *requested,
                              const rmalab_info *effective, rmalab_hints_report **out)
{
    int nreq = 0, neff = 0, rc = RMALAB_OK;
    if (requested)
        rmalab_info_get_nkeys(requested, &nreq);
    if (effective)
        rmalab_info_get_nkeys(effective, &neff);
    rmalab_hints_report *r = rmalab__mem_calloc(1, sizeof *r);
    if (!r)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory building a hints report");
    r->rows =
        rmalab__mem_calloc((size_t)(rmalab_hints_count(scope) + nreq + neff), sizeof *r->rows);
    if (!r->rows) {
        rmalab__mem_free(r);
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory building a hints report");
    }
    for (int i = 0; i < rmalab_hints_count(scope) && !rc; i++)
        rc = add_row(r, scope, rmalab_hints_at(scope, i)->key, requested, effective);
    for (int pass = 0; pass < 2 && !rc; pass++) {
        const rmalab_info *src = pass ? effective : requested;
        int n = pass ? neff : nreq;
        for (int i = 0; i < n && !rc; i++) {
            const char *k;
            rmalab_info_nth((rmalab_info *)src, i, &k, NULL, NULL, NULL);
            if (rmalab_hints_find(scope, k) || (pass && get0(requested, k)))
                continue;
            rc = add_row(r, scope, k, requested, effective);
        }
    }
    if (rc) {
        rmalab_hints_report_destroy(r);
        return rc;
    }
    *out = r;
    return RMALAB_OK;
}

void rmalab_hints_report_destroy(rmalab_hints_report *report)
{
    if (!report)
        return;
    for (int i = 0; i < report->count; i++) {
        rmalab__mem_free(report->rows[i].key);
        rmalab__mem_free(report->rows[i].requested);
        rmalab__mem_free(report->rows[i].effective);
        rmalab__mem_free(report->rows[i].note);
    }
    rmalab__mem_free(report->rows);
    rmalab__mem_free(report);
}

/* ------------------------------------------------------------------------ */
/* Agreement across ranks                                                   */

/* Encode the canonical value of every must-agree key: for each, a 4-byte
 * length (UINT32_MAX when unset, or not of the key's type) and the bytes. */
static char *encode_agree(rmalab_hint_scope scope, const rmalab_info *requested, int *len)
{
    size_t cap = 64, off = 0;
    char *out = rmalab__mem_alloc(cap), val[RMALAB_MAX_INFO_VAL + 1];
    for (int i = 0; out && i < rmalab_hints_count(scope); i++) {
        const rmalab_hint_def *d = rmalab_hints_at(scope, i);
        if (!d->must_agree)
            continue;
        const char *v = get0(requested, d->key);
        uint32_t n = UINT32_MAX;
        int rc = v ? rmalab_hint_normalize(d, v, strlen(v), val) : RMALAB_ERR_INFO_VALUE;
        if (rc == RMALAB_ERR_NO_MEM) { /* not "unset": the ranks would disagree */
            rmalab__mem_free(out);
            return NULL;
        }
        if (rc == RMALAB_OK)
            n = (uint32_t)strlen(val);
        size_t need = off + 4 + (n == UINT32_MAX ? 0 : n);
        if (need > cap) {
            char *p = rmalab__mem_realloc(out, cap = 2 * need);
            if (!p) {
                rmalab__mem_free(out);
                return NULL;
            }
            out = p;
        }
        memcpy(out + off, &n, 4);
        off += 4;
        if (n != UINT32_MAX) {
            memcpy(out + off, val, n);
            off += n;
        }
    }
    *len = (int)off;
    return out;
}

void rmalab_agreement_destroy(rmalab_agreement *a)
{
    if (!a)
        return;
    for (int i = 0; i < a->count; i++) {
        for (int r = 0; r < a->items[i].nranks; r++)
            rmalab__mem_free(a->items[i].values[r]);
        rmalab__mem_free(a->items[i].values);
    }
    rmalab__mem_free(a->items);
    rmalab__mem_free(a);
}

/* What the ranks send each other, and where each rank's part lies. */
struct gathered {
    int size, len;
    char *mine, *all;
    int *lens, *displs;
    size_t *cursor;             /* per rank: how far its part is decoded */
};

static int gathered_alloc(struct gathered *g, rmalab_hint_scope scope,
                          const rmalab_info *requested)
{
    size_t P = (size_t)g->size;
    g->mine = encode_agree(scope, requested, &g->len);
    g->lens = rmalab__mem_calloc(P, sizeof *g->lens);
    g->displs = rmalab__mem_calloc(P, sizeof *g->displs);
    g->cursor = rmalab__mem_calloc(P, sizeof *g->cursor);
    if (!g->mine || !g->lens || !g->displs || !g->cursor)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory checking hint agreement");
    return RMALAB_OK;
}

static void gathered_free(struct gathered *g)
{
    rmalab__mem_free(g->mine);
    rmalab__mem_free(g->lens);
    rmalab__mem_free(g->displs);
    rmalab__mem_free(g->cursor);
    rmalab__mem_free(g->all);
}

/* Collective: every rank's encoded hints into g->all. Each allocation is
 * agreed on before the next collective call, so no rank is left in one. */
static int gather(struct gathered *g, MPI_Comm comm, int rc)
{
    if ((rc = rmalab__err_agree(comm, rc, "checking hint agreement")))
        return rc;
    int e = MPI_Allgather(&g->len, 1, MPI_INT, g->lens, 1, MPI_INT, comm);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "MPI_Allgather");
    long total = 0;
    for (int r = 0; r < g->size; r++) {
        g->displs[r] = (int)total;
        total += g->lens[r];
    }
    g->all = rmalab__mem_alloc((size_t)total + 1);
    rc = g->all ? RMALAB_OK
                : rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory checking hint agreement");
    if ((rc = rmalab__err_agree(comm, rc, "checking hint agreement")))
        return rc;
    e = MPI_Allgatherv(g->mine, g->len, MPI_BYTE, g->all, g->lens, g->displs, MPI_BYTE, comm);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__err_mpi(e, "MPI_Allgatherv");
}

/* The next value of every rank's part: hint d's. A disagreement when they
 * differ. */
static int decode_hint(struct gathered *g, const rmalab_hint_def *d, rmalab_agreement *a)
{
    char **vals = rmalab__mem_calloc((size_t)g->size, sizeof *vals);
    int differ = 0;
    if (!vals)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory checking hint agreement");
    for (int r = 0; r < g->size; r++) {
        const char *part = g->all + g->displs[r];
        uint32_t n;
        memcpy(&n, part + g->cursor[r], 4);
        g->cursor[r] += 4;
        if (n != UINT32_MAX) {
            vals[r] = rmalab__info_strndup(part + g->cursor[r], n);
            g->cursor[r] += n;
        }
        int same; /* out of memory: reported as a disagreement, never hidden */
        if (r > 0 && (same_value(d, vals[0], vals[r], &same) || !same))
            differ = 1;
    }
    if (differ) {
        a->items[a->count++] = (rmalab_disagreement){d->key, g->size, vals};
        return RMALAB_OK;
    }
    for (int r = 0; r < g->size; r++)
        rmalab__mem_free(vals[r]);
    rmalab__mem_free(vals);
    return RMALAB_OK;
}

int rmalab_hints_check_agreement(MPI_Comm comm, rmalab_hint_scope scope,
                                 const rmalab_info *requested, rmalab_agreement **out)
{
    struct gathered g = {0};
    int nkeys = 0;
    RMALAB__CHECK_MPI(MPI_Comm_size(comm, &g.size), "MPI_Comm_size");
    for (int i = 0; i < rmalab_hints_count(scope); i++)
        nkeys += rmalab_hints_at(scope, i)->must_agree;
    rmalab_agreement *a = rmalab__mem_calloc(1, sizeof *a);
    if (a)
        a->items = rmalab__mem_calloc((size_t)nkeys + 1, sizeof *a->items);
    int rc = a && a->items
                 ? gathered_alloc(&g, scope, requested)
                 : rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory checking hint agreement");
    rc = gather(&g, comm, rc);
    for (int i = 0; !rc && i < rmalab_hints_count(scope); i++)
        if (rmalab_hints_at(scope, i)->must_agree)
            rc = decode_hint(&g, rmalab_hints_at(scope, i), a);
    gathered_free(&g);
    if (rc) {
        rmalab_agreement_destroy(a);
        return rc;
    }
    *out = a;
    return RMALAB_OK;
}
