/* The hint catalogue, normalisation and validation. The report of what was
 * asked against what is in effect, and the agreement check across ranks,
 * are in hints-report.c.
 *
 * The catalogue records for MPICH 4.0.2 (measured here with MPI_Win_get_info
 * and MPI_Comm_get_info): the keys it reports, their defaults, and which
 * window keys a set_info after creation changes. Six window keys are
 * creation-only and silently ignored later: which_accumulate_ops,
 * accumulate_noncontig_dtype, accumulate_max_bytes, disable_shm_accumulate,
 * coll_attach, perf_preference. */
#include "private.h"

#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* The catalogue                                                            */

static const char *const ordering_values[] = {"rar", "raw", "war", "waw", "none", NULL};
static const char *const accops_values[] = {"same_op", "same_op_no_op", NULL};
static const char *const ops_values[] = {"cswap", "max",    "min",    "sum",     "prod",
                                         "land",  "band",   "lor",    "bor",     "lxor",
                                         "bxor",  "minloc", "maxloc", "replace", "no_op",
                                         NULL};
static const char *const perf_values[] = {"none", "lat", "mr", NULL};
static const char *const pscw_values[] = {"native", "rma", NULL};
static const char *const check_values[] = {
#define CHECK_VALUE(suffix, name) name,
    RMALAB_CHECK_MODE_MAP(CHECK_VALUE)
#undef CHECK_VALUE
    NULL};

#define W RMALAB_SCOPE_WIN
#define C RMALAB_SCOPE_COMM
#define BOOL RMALAB_HINT_BOOL
#define INT RMALAB_HINT_INT
#define LIST RMALAB_HINT_LIST
#define ENUM RMALAB_HINT_ENUM
#define STR RMALAB_HINT_STRING

static const rmalab_hint_def win_hints[] = {
    {
        .key = RMALAB_KEY_NO_LOCKS,
        .scope = W,
        .type = BOOL,
        .default_value = "false",
        .doc = "true promises that no passive-target lock will target this process",
        .after_create = true,
    },
    {
        .key = RMALAB_KEY_ACCUMULATE_ORDERING,
        .scope = W,
        .type = LIST,
        .values = ordering_values,
        .default_value = "rar,raw,war,waw",
        .doc = "orderings accumulates must keep: rar, raw, war, waw, or none",
        .must_agree = true,
        .after_create = true,
        .sole = "none",
    },
    {
        .key = RMALAB_KEY_ACCUMULATE_OPS,
        .scope = W,
        .type = ENUM,
        .values = accops_values,
        .default_value = "same_op_no_op",
        .doc = "same_op: concurrent accumulates to one location use the same op (no_op too if "
            "same_op_no_op)",
        .must_agree = true,
        .after_create = true,
    },
    {
        .key = "same_size",
        .scope = W,
        .type = BOOL,
        .default_value = "false",
        .doc = "true promises every rank gives the same size",
        .must_agree = true,
        .after_create = true,
    },
    {
        .key = "same_disp_unit",
        .scope = W,
        .type = BOOL,
        .default_value = "false",
        .doc = "true promises every rank gives the same disp_unit",
        .must_agree = true,
        .after_create = true,
    },
    {
        .key = "alloc_shared_noncontig",
        .scope = W,
        .type = BOOL,
        .default_value = "false",
        .doc = "allocate_shared may place each rank's memory apart (not contiguous)",
        .must_agree = true,
        .after_create = true,
    },
    {
        .key = "mpi_accumulate_granularity",
        .scope = W,
        .type = INT,
        .default_value = "0",
        .doc = "bytes accumulates may be split at (MPI-4.1); MPICH 4.0.2 does not support it",
        .must_agree = true,
        .min = 0,
        .max = INT_MAX,
    },
    {
        .key = "alloc_shm",
        .scope = W,
        .type = BOOL,
        .default_value = "true",
        .doc = "MPICH: allocate the window in shared memory",
        .must_agree = true,
        .after_create = true,
    },
    {
        .key = "which_accumulate_ops",
        .scope = W,
        .type = LIST,
        .values = ops_values,
        .default_value =
            "cswap,max,min,sum,prod,land,band,lor,bor,lxor,bxor,minloc,maxloc,replace,no_op",
        .doc = "MPICH: the only ops accumulates will use (creation only)",
        .must_agree = true,
    },
    {
        .key = "accumulate_noncontig_dtype",
        .scope = W,
        .type = BOOL,
        .default_value = "true",
        .doc = "MPICH: accumulates may use non-contiguous datatypes (creation only)",
        .must_agree = true,
    },
    {
        .key = "accumulate_max_bytes",
        .scope = W,
        .type = INT,
        .default_value = "unlimited",
        .doc = "MPICH: largest accumulate in bytes, or unlimited (creation only)",
        .must_agree = true,
        .min = 0,
        .max = INT_MAX,
        .unlimited = "unlimited",
    },
    {
        .key = "disable_shm_accumulate",
        .scope = W,
        .type = BOOL,
        .default_value = "false",
        .doc = "MPICH: do accumulates through the network even within a node (creation only)",
        .must_agree = true,
    },
    {
        .key = "coll_attach",
        .scope = W,
        .type = BOOL,
        .default_value = "false",
        .doc = "MPICH: attach and detach on dynamic windows are collective (creation only)",
        .must_agree = true,
    },
    {
        .key = "perf_preference",
        .scope = W,
        .type = LIST,
        .values = perf_values,
        .default_value = "none",
        .doc = "MPICH: lat (latency) or mr (message rate) (creation only; MPICH 4.0.2 reports "
            "garbage)",
        .report_unreliable = true,
        .sole = "none",
    },
    {
        .key = RMALAB_KEY_PSCW,
        .scope = W,
        .type = ENUM,
        .values = pscw_values,
        .default_value = "rma",
        .doc = "rmalab: the PSCW engine, rma (matched per peer over passive-target atomics) or "
            "native (MPICH's calls, which can hang a correct program: docs/pscw.md)",
        .must_agree = true,
        .rmalab_own = true,
    },
    {
        .key = RMALAB_KEY_TRACE,
        .scope = W,
        .type = BOOL,
        .default_value = "false",
        .doc = "rmalab: record this window's calls for rmalab.trace (docs/trace.md); "
            "RMALAB_TRACE=1 records every window (creation only)",
        .rmalab_own = true,
    },
    {
        .key = RMALAB_KEY_TRACE_SIZE,
        .scope = W,
        .type = INT,
        .default_value = "4096",
        .doc = "rmalab: events the window's trace keeps, the latest (creation only)",
        .rmalab_own = true,
        .min = 16,
        .max = 1 << 24,
    },
    {
        .key = RMALAB_KEY_CHECK,
        .scope = W,
        .type = ENUM,
        .values = check_values,
        .default_value = "off",
        .doc = "rmalab: find conflicting accesses by happens-before (docs/races.md): races raises "
            "ERR_RMA_CONFLICT, races:warn prints, races:quiet records; RMALAB_CHECK checks "
            "every window (creation only)",
        .rmalab_own = true,
    },
};

static const rmalab_hint_def comm_hints[] = {
    {
        .key = "mpi_assert_no_any_tag",
        .scope = C,
        .type = BOOL,
        .default_value = "false",
        .doc = "true promises MPI_ANY_TAG is never used on this communicator",
        .after_create = true,
    },
    {
        .key = "mpi_assert_no_any_source",
        .scope = C,
        .type = BOOL,
        .default_value = "false",
        .doc = "true promises MPI_ANY_SOURCE is never used on this communicator",
        .after_create = true,
    },
    {
        .key = "mpi_assert_exact_length",
        .scope = C,
        .type = BOOL,
        .default_value = "false",
        .doc = "true promises receive buffers match message lengths exactly",
        .after_create = true,
    },
    {
        .key = "mpi_assert_allow_overtaking",
        .scope = C,
        .type = BOOL,
        .default_value = "false",
        .doc = "true lets messages overtake each other (no non-overtaking order)",
        .after_create = true,
    },
    {
        .key = "mpi_assert_strict_persistent_collective_ordering",
        .scope = C,
        .type = BOOL,
        .default_value = "false",
        .doc = "true promises persistent collectives start in the same order on all ranks",
        .must_agree = true,
        .after_create = true,
    },
    {
        .key = "mpi_assert_memory_alloc_kinds",
        .scope = C,
        .type = STR,
        .doc = "the memory allocation kinds communication buffers use (MPI-4.1)",
        .after_create = true,
    },
    {
        .key = "enable_multi_nic_striping",
        .scope = C,
        .type = BOOL,
        .default_value = "true",
        .doc = "MPICH: stripe large messages over several NICs",
        .after_create = true,
    },
    {
        .key = "enable_multi_nic_hashing",
        .scope = C,
        .type = BOOL,
        .default_value = "true",
        .doc = "MPICH: spread communicators over several NICs",
        .after_create = true,
    },
    {
        .key = "multi_nic_pref_nic",
        .scope = C,
        .type = INT,
        .default_value = "-1",
        .doc = "MPICH: preferred NIC, or -1 for any",
        .after_create = true,
        .min = -1,
        .max = INT_MAX,
    },
    {
        .key = "sender_vci",
        .scope = C,
        .type = INT,
        .default_value = "-1",
        .doc = "MPICH: virtual communication interface for sends",
        .after_create = true,
        .min = -1,
        .max = INT_MAX,
    },
    {
        .key = "receiver_vci",
        .scope = C,
        .type = INT,
        .default_value = "-1",
        .doc = "MPICH: virtual communication interface for receives",
        .after_create = true,
        .min = -1,
        .max = INT_MAX,
    },
    {
        .key = "vci",
        .scope = C,
        .type = INT,
        .default_value = "-1",
        .doc = "MPICH: virtual communication interface",
        .after_create = true,
        .min = -1,
        .max = INT_MAX,
    },
};

#undef W
#undef C
#undef BOOL
#undef INT
#undef LIST
#undef ENUM
#undef STR

#define NELEMS(a) ((int)(sizeof(a) / sizeof((a)[0])))

const char *rmalab_hint_type_name(rmalab_hint_type type)
{
    static const char *const names[] = {"bool", "int", "list", "enum", "string"};
    return (unsigned)type < 5 ? names[type] : "?";
}

const char *rmalab_hint_scope_name(rmalab_hint_scope scope)
{
    return scope == RMALAB_SCOPE_WIN ? "win" : "comm";
}

const char *rmalab_hint_status_name(rmalab_hint_status status)
{
    static const char *const names[] = {"applied", "ignored", "default", "implementation"};
    return (unsigned)status < 4 ? names[status] : "?";
}

int rmalab_hints_count(rmalab_hint_scope scope)
{
    return scope == RMALAB_SCOPE_WIN ? NELEMS(win_hints) : NELEMS(comm_hints);
}

const rmalab_hint_def *rmalab_hints_at(rmalab_hint_scope scope, int i)
{
    if (i < 0 || i >= rmalab_hints_count(scope))
        return NULL;
    return scope == RMALAB_SCOPE_WIN ? &win_hints[i] : &comm_hints[i];
}

static const rmalab_hint_def *find_n(rmalab_hint_scope scope, const char *key, size_t klen)
{
    for (int i = 0; i < rmalab_hints_count(scope); i++) {
        const rmalab_hint_def *d = rmalab_hints_at(scope, i);
        if (strlen(d->key) == klen && memcmp(d->key, key, klen) == 0)
            return d;
    }
    return NULL;
}

const rmalab_hint_def *rmalab_hints_find(rmalab_hint_scope scope, const char *key)
{
    return key ? find_n(scope, key, strlen(key)) : NULL;
}

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
        rmalab__free(d->items[i].key);
        rmalab__free(d->items[i].message);
    }
    rmalab__free(d->items);
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
        rmalab_diag *items = rmalab__realloc(d->items, (size_t)cap * sizeof *items);
        if (!items)
            return;
        d->items = items;
        d->cap = cap;
    }
    char msg[1536];
    vsnprintf(msg, sizeof msg, fmt, ap);
    char *k = rmalab__strndup(key, klen), *m = rmalab__strndup(msg, strlen(msg));
    if (!k || !m) {
        rmalab__free(k);
        rmalab__free(m);
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

void rmalab__diag_add(rmalab_diags *d, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdiag(d, key, strlen(key), fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------------ */
/* Normalisation                                                            */

static int in_values(const char *const *values, const char *s, size_t n)
{
    for (int i = 0; values && values[i]; i++)
        if (strlen(values[i]) == n && memcmp(values[i], s, n) == 0)
            return 1;
    return 0;
}

/* "a, b or c" of the allowed values, for messages. */
static void values_text(const char *const *values, char *buf, size_t size)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; values && values[i] && off < size; i++)
        off += (size_t)snprintf(buf + off, size - off, "%s%s", i ? ", " : "", values[i]);
}

/* Leading and trailing white space, as the standard strips it from typed
 * values (the same rule as rmalab_parse_bool/int/list). */
static void trim_space(const char **s, size_t *n)
{
    while (*n && isspace((unsigned char)**s))
        (*s)++, (*n)--;
    while (*n && isspace((unsigned char)(*s)[*n - 1]))
        (*n)--;
}

static int append(char *buf, size_t *off, const char *s, size_t n)
{
    if (*off + n > RMALAB_MAX_INFO_VAL)
        return rmalab__fail(RMALAB_ERR_INFO_VALUE, "normalised value is too long");
    memcpy(buf + *off, s, n);
    *off += n;
    buf[*off] = '\0';
    return RMALAB_OK;
}

static int normalize_bool(const rmalab_hint_def *def, const char *value, size_t vlen, char *buf)
{
    bool b;
    if (rmalab_parse_bool(value, vlen, &b))
        return rmalab__fail(RMALAB_ERR_INFO_VALUE,
                            "%s is a boolean: \"%.*s\" is neither \"true\" nor \"false\"",
                            def->key, (int)vlen, value);
    strcpy(buf, b ? "true" : "false");
    return RMALAB_OK;
}

static int normalize_int(const rmalab_hint_def *def, const char *value, size_t vlen, char *buf)
{
    int v;
    const char *t = value;
    size_t m = vlen;
    trim_space(&t, &m);
    if (def->unlimited && strlen(def->unlimited) == m && memcmp(t, def->unlimited, m) == 0) {
        strcpy(buf, def->unlimited);
        return RMALAB_OK;
    }
    if (rmalab_parse_int(value, vlen, &v))
        return rmalab__fail(RMALAB_ERR_INFO_VALUE, "%s is an integer%s%s%s: \"%.*s\" is not",
                            def->key, def->unlimited ? " or \"" : "",
                            def->unlimited ? def->unlimited : "", def->unlimited ? "\"" : "",
                            (int)vlen, value);
    if (def->unlimited && v == -1) {
        strcpy(buf, def->unlimited);
        return RMALAB_OK;
    }
    if (v < def->min || v > def->max)
        return rmalab__fail(RMALAB_ERR_INFO_VALUE, "%s must lie in %d..%d: %d does not",
                            def->key, def->min, def->max, v);
    snprintf(buf, RMALAB_MAX_INFO_VAL + 1, "%d", v);
    return RMALAB_OK;
}

static int normalize_enum(const rmalab_hint_def *def, const char *value, size_t vlen, char *buf)
{
    char allowed[512];
    size_t off = 0;
    const char *t = value;
    size_t m = vlen;
    trim_space(&t, &m);
    if (!in_values(def->values, t, m)) {
        values_text(def->values, allowed, sizeof allowed);
        return rmalab__fail(RMALAB_ERR_INFO_VALUE, "%s must be one of %s: \"%.*s\" is not",
                            def->key, allowed, (int)vlen, value);
    }
    return append(buf, &off, t, m);
}

/* One item of a list hint, appended to buf. */
static int list_item(const rmalab_hint_def *def, char **items, int count, int i, char *buf,
                     size_t *off)
{
    char allowed[512];
    size_t n = strlen(items[i]);
    if (def->values && !in_values(def->values, items[i], n)) {
        values_text(def->values, allowed, sizeof allowed);
        return rmalab__fail(RMALAB_ERR_INFO_VALUE, "%s: \"%s\" is not one of %s", def->key,
                            items[i], allowed);
    }
    if (def->sole && count > 1 && strcmp(items[i], def->sole) == 0)
        return rmalab__fail(RMALAB_ERR_INFO_VALUE, "%s: \"%s\" must stand alone in the list",
                            def->key, def->sole);
    int rc = i ? append(buf, off, ",", 1) : RMALAB_OK;
    return rc ? rc : append(buf, off, items[i], n);
}

static int normalize_list(const rmalab_hint_def *def, const char *value, size_t vlen, char *buf)
{
    char **items;
    int count, rc = RMALAB_OK;
    size_t off = 0;
    if ((rc = rmalab_parse_list(value, vlen, &items, &count)) == RMALAB_ERR_NO_MEM)
        return rc;
    if (rc) {
        char why[1024];
        snprintf(why, sizeof why, "%s", rmalab_errmsg());
        return rmalab__fail(RMALAB_ERR_INFO_VALUE, "%s is a comma-separated list: %s", def->key,
                            why);
    }
    if (count == 0)
        rc = rmalab__fail(RMALAB_ERR_INFO_VALUE, "%s: the list is empty", def->key);
    for (int i = 0; i < count && !rc; i++)
        rc = list_item(def, items, count, i, buf, &off);
    rmalab_list_free(items, count);
    return rc;
}

int rmalab_hint_normalize(const rmalab_hint_def *def, const char *value, size_t vlen,
                          char *buf)
{
    size_t off = 0;
    buf[0] = '\0';
    switch (def->type) {
    case RMALAB_HINT_BOOL: return normalize_bool(def, value, vlen, buf);
    case RMALAB_HINT_INT: return normalize_int(def, value, vlen, buf);
    case RMALAB_HINT_ENUM: return normalize_enum(def, value, vlen, buf);
    case RMALAB_HINT_LIST: return normalize_list(def, value, vlen, buf);
    case RMALAB_HINT_STRING: return append(buf, &off, value, vlen);
    }
    return rmalab__fail(RMALAB_ERR_ARG, "unknown hint type");
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

const char *rmalab__hint_value(const rmalab_info *info, const char *key)
{
    return info ? rmalab_info_lookup(info, key, strlen(key), NULL) : NULL;
}

int rmalab__hints_strip_own(rmalab_hint_scope scope, rmalab_info *info)
{
    for (int i = 0; i < rmalab_hints_count(scope); i++) {
        const rmalab_hint_def *d = rmalab_hints_at(scope, i);
        if (d->rmalab_own && rmalab_info_lookup(info, d->key, strlen(d->key), NULL)) {
            int rc = rmalab_info_delete(info, d->key);
            if (rc)
                return rc;
        }
    }
    return RMALAB_OK;
}

int rmalab__hints_validate(rmalab_hint_scope scope, const rmalab_info *requested,
                           rmalab_info **to_mpi, rmalab_diags *diags, int keep_own)
{
    rmalab_info *out = NULL;
    int rc, n = 0;
    char *buf = rmalab__malloc(RMALAB_MAX_INFO_VAL + 1);
    if (!buf)
        return rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory validating hints");
    if ((rc = rmalab_info_create(&out)))
        goto fail;
    if (requested)
        rmalab_info_get_nkeys(requested, &n);
    for (int i = 0; i < n; i++) {
        const char *k, *v;
        size_t kl, vl;
        rmalab_info_nth((rmalab_info *)requested, i, &k, &kl, &v, &vl);
        const rmalab_hint_def *d = find_n(scope, k, kl);
        if (!d) {
            rmalab_hint_scope other = scope == RMALAB_SCOPE_WIN ? RMALAB_SCOPE_COMM
                                                                : RMALAB_SCOPE_WIN;
            const rmalab_hint_def *s = suggest(scope, k, kl);
            if (find_n(other, k, kl))
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
    rmalab__free(buf);
    if (to_mpi)
        *to_mpi = out;
    else
        rmalab_info_destroy(&out);
    return RMALAB_OK;
fail:
    rmalab__free(buf);
    rmalab_info_destroy(&out);
    return rc;
}
