/* The "hints" suite: the pure half of core/src/hints.c -- the catalogue of
 * window and communicator hints, normalisation to canonical text, the
 * validation that drops what MPICH would choke on, and the report that sets
 * requested against effective values. Nothing here needs MPI_Init; the
 * cross-rank agreement check is in the "comm" suite. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include <rmalab/debug.h>

/* ------------------------------------------------------------------------ */
/* The catalogue                                                            */

/* Every key the header and src/hints.c name, in catalogue order. */
static const char *const win_keys[] = {
    "no_locks",
    "accumulate_ordering",
    "accumulate_ops",
    "same_size",
    "same_disp_unit",
    "alloc_shared_noncontig",
    "mpi_accumulate_granularity",
    "alloc_shm",
    "which_accumulate_ops",
    "accumulate_noncontig_dtype",
    "accumulate_max_bytes",
    "disable_shm_accumulate",
    "coll_attach",
    "perf_preference",
    "rmalab_pscw",
    "rmalab_trace",
    "rmalab_trace_size",
    "rmalab_check",
};

static const char *const comm_keys[] = {
    "mpi_assert_no_any_tag",
    "mpi_assert_no_any_source",
    "mpi_assert_exact_length",
    "mpi_assert_allow_overtaking",
    "mpi_assert_strict_persistent_collective_ordering",
    "mpi_assert_memory_alloc_kinds",
    "enable_multi_nic_striping",
    "enable_multi_nic_hashing",
    "multi_nic_pref_nic",
    "sender_vci",
    "receiver_vci",
    "vci",
};

#define NWIN ((int)(sizeof win_keys / sizeof win_keys[0]))
#define NCOMM ((int)(sizeof comm_keys / sizeof comm_keys[0]))

static void check_scope(rmalab_hint_scope scope, const char *const *keys, int n)
{
    rmalab_hint_scope other = scope == RMALAB_SCOPE_WIN ? RMALAB_SCOPE_COMM : RMALAB_SCOPE_WIN;
    ck_assert_int_eq(rmalab_hints_count(scope), n);
    for (int i = 0; i < n; i++) {
        const rmalab_hint_def *d = rmalab_hints_find(scope, keys[i]);
        ck_assert_msg(d != NULL, "%s hint %s is missing", rmalab_hint_scope_name(scope), keys[i]);
        ck_assert_str_eq(d->key, keys[i]);
        ck_assert_int_eq(d->scope, scope);
        ck_assert_ptr_eq(rmalab_hints_at(scope, i), d);
        ck_assert_ptr_nonnull(d->doc);
        ck_assert_msg(d->doc[0] != '\0', "%s has no doc line", keys[i]);
        ck_assert_msg(rmalab_hints_find(other, keys[i]) == NULL, "%s is in both scopes", keys[i]);
        /* The default, when there is one, is valid and already canonical. */
        if (d->default_value) {
            char buf[RMALAB_MAX_INFO_VAL + 1];
            ck_assert_msg(rmalab_hint_normalize(d, d->default_value, strlen(d->default_value),
                                                buf) == RMALAB_OK,
                          "default of %s: %s", keys[i], rmalab_errmsg());
            ck_assert_str_eq(buf, d->default_value);
        }
        if (d->type == RMALAB_HINT_ENUM)
            ck_assert_ptr_nonnull(d->values);
        if (d->type == RMALAB_HINT_INT)
            ck_assert_int_le(d->min, d->max);
    }
    ck_assert_ptr_null(rmalab_hints_at(scope, -1));
    ck_assert_ptr_null(rmalab_hints_at(scope, n));
    ck_assert_ptr_null(rmalab_hints_find(scope, "no_such_hint"));
    ck_assert_ptr_null(rmalab_hints_find(scope, NULL));
}

START_TEST(test_catalogue_complete)
{
    check_scope(RMALAB_SCOPE_WIN, win_keys, NWIN);
    check_scope(RMALAB_SCOPE_COMM, comm_keys, NCOMM);
    /* Lookups are exact and case-sensitive. */
    ck_assert_ptr_null(rmalab_hints_find(RMALAB_SCOPE_WIN, "no_lock"));
    ck_assert_ptr_null(rmalab_hints_find(RMALAB_SCOPE_WIN, "NO_LOCKS"));
    ck_assert_ptr_null(rmalab_hints_find(RMALAB_SCOPE_WIN, "no_locks "));
}
END_TEST

START_TEST(test_catalogue_definitions)
{
    const rmalab_hint_def *d = rmalab_hints_find(RMALAB_SCOPE_WIN, "no_locks");
    ck_assert_ptr_nonnull(d);
    ck_assert_int_eq(d->type, RMALAB_HINT_BOOL);
    ck_assert_str_eq(d->default_value, "false");
    ck_assert(!d->must_agree);
    ck_assert(d->after_create);
    ck_assert(!d->rmalab_own);

    d = rmalab_hints_find(RMALAB_SCOPE_WIN, "accumulate_ordering");
    ck_assert_ptr_nonnull(d);
    ck_assert_int_eq(d->type, RMALAB_HINT_LIST);
    ck_assert_str_eq(d->default_value, "rar,raw,war,waw");
    ck_assert_pstr_eq(d->sole, "none");
    ck_assert(d->must_agree);

    d = rmalab_hints_find(RMALAB_SCOPE_WIN, "accumulate_ops");
    ck_assert_int_eq(d->type, RMALAB_HINT_ENUM);
    ck_assert_str_eq(d->default_value, "same_op_no_op");
    ck_assert(d->must_agree);

    d = rmalab_hints_find(RMALAB_SCOPE_WIN, "rmalab_pscw");
    ck_assert_ptr_nonnull(d);
    ck_assert_int_eq(d->type, RMALAB_HINT_ENUM);
    ck_assert_str_eq(d->default_value, "rma");
    ck_assert(d->rmalab_own);
    ck_assert_str_eq(d->values[0], "native");
    ck_assert_str_eq(d->values[1], "rma");
    ck_assert_ptr_null(d->values[2]);

    d = rmalab_hints_find(RMALAB_SCOPE_WIN, "accumulate_max_bytes");
    ck_assert_int_eq(d->type, RMALAB_HINT_INT);
    ck_assert_str_eq(d->default_value, "unlimited");
    ck_assert_pstr_eq(d->unlimited, "unlimited");

    d = rmalab_hints_find(RMALAB_SCOPE_WIN, "perf_preference");
    ck_assert(d->report_unreliable);

    /* The six creation-only window keys MPICH ignores in a later set_info. */
    static const char *const creation_only[] = {
        "which_accumulate_ops",   "accumulate_noncontig_dtype", "accumulate_max_bytes",
        "disable_shm_accumulate", "coll_attach",                "perf_preference",
    };
    for (int i = 0; i < 6; i++) {
        d = rmalab_hints_find(RMALAB_SCOPE_WIN, creation_only[i]);
        ck_assert_msg(d && !d->after_create, "%s should be creation-only", creation_only[i]);
    }

    d = rmalab_hints_find(RMALAB_SCOPE_COMM, "mpi_assert_no_any_tag");
    ck_assert_ptr_nonnull(d);
    ck_assert_int_eq(d->scope, RMALAB_SCOPE_COMM);
    ck_assert_int_eq(d->type, RMALAB_HINT_BOOL);
    ck_assert_str_eq(d->default_value, "false");
    ck_assert(!d->must_agree);

    d = rmalab_hints_find(RMALAB_SCOPE_COMM, "mpi_assert_strict_persistent_collective_ordering");
    ck_assert(d->must_agree);
    d = rmalab_hints_find(RMALAB_SCOPE_COMM, "mpi_assert_memory_alloc_kinds");
    ck_assert_int_eq(d->type, RMALAB_HINT_STRING);
    ck_assert_ptr_null(d->default_value);
    d = rmalab_hints_find(RMALAB_SCOPE_COMM, "vci");
    ck_assert_int_eq(d->type, RMALAB_HINT_INT);
    ck_assert_str_eq(d->default_value, "-1");
    ck_assert_int_eq(d->min, -1);
}
END_TEST

START_TEST(test_names)
{
    ck_assert_str_eq(rmalab_hint_type_name(RMALAB_HINT_BOOL), "bool");
    ck_assert_str_eq(rmalab_hint_type_name(RMALAB_HINT_INT), "int");
    ck_assert_str_eq(rmalab_hint_type_name(RMALAB_HINT_LIST), "list");
    ck_assert_str_eq(rmalab_hint_type_name(RMALAB_HINT_ENUM), "enum");
    ck_assert_str_eq(rmalab_hint_type_name(RMALAB_HINT_STRING), "string");
    ck_assert_str_eq(rmalab_hint_scope_name(RMALAB_SCOPE_WIN), "win");
    ck_assert_str_eq(rmalab_hint_scope_name(RMALAB_SCOPE_COMM), "comm");
    ck_assert_str_eq(rmalab_hint_status_name(RMALAB_HINT_APPLIED), "applied");
    ck_assert_str_eq(rmalab_hint_status_name(RMALAB_HINT_IGNORED), "ignored");
    ck_assert_str_eq(rmalab_hint_status_name(RMALAB_HINT_DEFAULT), "default");
    ck_assert_str_eq(rmalab_hint_status_name(RMALAB_HINT_IMPLEMENTATION), "implementation");
    /* values outside an enum have no name */
    ck_assert_str_eq(rmalab_hint_type_name((rmalab_hint_type)5), "?");
    ck_assert_str_eq(rmalab_hint_scope_name((rmalab_hint_scope)2), "?");
    ck_assert_str_eq(rmalab_hint_status_name((rmalab_hint_status)-1), "?");
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Normalisation                                                            */

static const struct {
    rmalab_hint_scope scope;
    const char *key, *in, *out; /* out NULL: ERR_INFO_VALUE, `in` quoted */
} norm_cases[] = {
    /* booleans */
    {RMALAB_SCOPE_WIN, "no_locks", " true ", "true"},
    {RMALAB_SCOPE_WIN, "no_locks", "false", "false"},
    {RMALAB_SCOPE_WIN, "no_locks", "TRUE", NULL},
    {RMALAB_SCOPE_WIN, "no_locks", "1", NULL},
    {RMALAB_SCOPE_WIN, "no_locks", "maybe", NULL},
    {RMALAB_SCOPE_COMM, "mpi_assert_no_any_tag", "\ttrue\n", "true"},
    /* integers and the unlimited word */
    {RMALAB_SCOPE_WIN, "accumulate_max_bytes", "-1", "unlimited"},
    {RMALAB_SCOPE_WIN, "accumulate_max_bytes", " -1 ", "unlimited"},
    {RMALAB_SCOPE_WIN, "accumulate_max_bytes", "unlimited", "unlimited"},
    {RMALAB_SCOPE_WIN, "accumulate_max_bytes", " unlimited ", "unlimited"},
    {RMALAB_SCOPE_WIN, "accumulate_max_bytes", "+4096", "4096"},
    {RMALAB_SCOPE_WIN, "accumulate_max_bytes", " 0 ", "0"},
    {RMALAB_SCOPE_WIN, "accumulate_max_bytes", "-2", NULL},
    {RMALAB_SCOPE_WIN, "accumulate_max_bytes", "4k", NULL},
    {RMALAB_SCOPE_WIN, "accumulate_max_bytes", "Unlimited", NULL},
    {RMALAB_SCOPE_WIN, "mpi_accumulate_granularity", "-1", NULL},
    {RMALAB_SCOPE_WIN, "mpi_accumulate_granularity", "008", "8"},
    {RMALAB_SCOPE_COMM, "vci", "-1", "-1"},
    {RMALAB_SCOPE_COMM, "vci", "-2", NULL},
    {RMALAB_SCOPE_COMM, "vci", "unlimited", NULL},
    {RMALAB_SCOPE_COMM, "sender_vci", "2147483648", NULL},
    /* enums */
    {RMALAB_SCOPE_WIN, "accumulate_ops", " same_op ", "same_op"},
    {RMALAB_SCOPE_WIN, "accumulate_ops", "same_op_no_op", "same_op_no_op"},
    {RMALAB_SCOPE_WIN, "accumulate_ops", "SAME_OP", NULL},
    {RMALAB_SCOPE_WIN, "accumulate_ops", "same_op,same_op_no_op", NULL},
    {RMALAB_SCOPE_WIN, "rmalab_pscw", "rma", "rma"},
    {RMALAB_SCOPE_WIN, "rmalab_pscw", "native", "native"},
    {RMALAB_SCOPE_WIN, "rmalab_pscw", "emulated", NULL},
    /* lists */
    {RMALAB_SCOPE_WIN, "which_accumulate_ops", "sum, max", "sum,max"},
    {RMALAB_SCOPE_WIN, "which_accumulate_ops", " replace ,no_op , cswap", "replace,no_op,cswap"},
    {RMALAB_SCOPE_WIN, "which_accumulate_ops", "sum,avg", NULL},
    {RMALAB_SCOPE_WIN, "which_accumulate_ops", "SUM", NULL},
    {RMALAB_SCOPE_WIN, "which_accumulate_ops", "sum,,max", NULL},
    {RMALAB_SCOPE_WIN, "which_accumulate_ops", "", NULL},
    {RMALAB_SCOPE_WIN, "accumulate_ordering", "none", "none"},
    {RMALAB_SCOPE_WIN, "accumulate_ordering", " none ", "none"},
    {RMALAB_SCOPE_WIN, "accumulate_ordering", "rar, waw", "rar,waw"},
    {RMALAB_SCOPE_WIN, "accumulate_ordering", "rar,none", NULL},
    {RMALAB_SCOPE_WIN, "accumulate_ordering", "none,waw", NULL},
    {RMALAB_SCOPE_WIN, "accumulate_ordering", "rwa", NULL},
    {RMALAB_SCOPE_WIN, "perf_preference", "lat,mr", "lat,mr"},
    {RMALAB_SCOPE_WIN, "perf_preference", "none,lat", NULL},
    /* strings pass verbatim */
    {RMALAB_SCOPE_COMM, "mpi_assert_memory_alloc_kinds", "mpi:alloc_mem, system",
     "mpi:alloc_mem, system"},
    {RMALAB_SCOPE_COMM, "mpi_assert_memory_alloc_kinds", "", ""},
};

START_TEST(test_normalize)
{
    const rmalab_hint_def *d = rmalab_hints_find(norm_cases[_i].scope, norm_cases[_i].key);
    const char *in = norm_cases[_i].in, *want = norm_cases[_i].out;
    char buf[RMALAB_MAX_INFO_VAL + 1];
    ck_assert_ptr_nonnull(d);
    memset(buf, '#', sizeof buf);
    int rc = rmalab_hint_normalize(d, in, strlen(in), buf);
    if (want) {
        ck_assert_msg(rc == RMALAB_OK, "%s=\"%s\": %s (%s)", d->key, in, rmalab_err_name(rc),
                      rmalab_errmsg());
        ck_assert_str_eq(buf, want);
    } else {
        ck_assert_msg(rc == RMALAB_ERR_INFO_VALUE, "%s=\"%s\" was accepted as \"%s\"", d->key,
                      in, buf);
        ck_assert_contains(rmalab_errmsg(), d->key);
    }
}
END_TEST

START_TEST(test_normalize_messages)
{
    char buf[RMALAB_MAX_INFO_VAL + 1];
    const rmalab_hint_def *d = rmalab_hints_find(RMALAB_SCOPE_WIN, "which_accumulate_ops");
    ck_assert_rc(rmalab_hint_normalize(d, "sum,avg", 7, buf), RMALAB_ERR_INFO_VALUE);
    ck_assert_contains(rmalab_errmsg(), "\"avg\"");
    ck_assert_contains(rmalab_errmsg(), "replace"); /* lists the allowed ops */

    d = rmalab_hints_find(RMALAB_SCOPE_WIN, "accumulate_ordering");
    ck_assert_rc(rmalab_hint_normalize(d, "rar,none", 8, buf), RMALAB_ERR_INFO_VALUE);
    ck_assert_contains(rmalab_errmsg(), "\"none\" must stand alone");

    d = rmalab_hints_find(RMALAB_SCOPE_WIN, "no_locks");
    ck_assert_rc(rmalab_hint_normalize(d, "yes", 3, buf), RMALAB_ERR_INFO_VALUE);
    ck_assert_contains(rmalab_errmsg(), "\"yes\"");

    d = rmalab_hints_find(RMALAB_SCOPE_WIN, "accumulate_max_bytes");
    ck_assert_rc(rmalab_hint_normalize(d, "-5", 2, buf), RMALAB_ERR_INFO_VALUE);
    ck_assert_contains(rmalab_errmsg(), "-5");

    /* The length is honoured: no NUL needed. */
    d = rmalab_hints_find(RMALAB_SCOPE_WIN, "no_locks");
    ck_assert_ok(rmalab_hint_normalize(d, "truexyz", 4, buf));
    ck_assert_str_eq(buf, "true");
}
END_TEST

/* Regression (fixed: core/src/hints.c, rmalab_hint_normalize, RMALAB_HINT_LIST):
 * a list that does not parse fails with
 *   rmalab__err_fail(..., "%s is a comma-separated list: %s", def->key,
 *                rmalab_errmsg())
 * whose argument is the very buffer rmalab__err_vfail (core/src/error.c:45)
 * vsnprintf's into: overlapping source and destination, undefined
 * behaviour (valgrind: "Source and destination overlap in mempcpy"). With
 * glibc, which_accumulate_ops="sum,,max" gives "which_accumulate_ops is a
 * comma-separated list: which_accumulate_ops is a comma-separated list: ite
 * elements separated by single commas)" instead of naming "sum,,max" and
 * element 2. The garbled text reaches validation diagnostics and report
 * notes. */
START_TEST(test_normalize_list_message)
{
    char buf[RMALAB_MAX_INFO_VAL + 1];
    const rmalab_hint_def *d = rmalab_hints_find(RMALAB_SCOPE_WIN, "which_accumulate_ops");
    ck_assert_rc(rmalab_hint_normalize(d, "sum,,max", 8, buf), RMALAB_ERR_INFO_VALUE);
    const char *msg = rmalab_errmsg();
    ck_assert_contains(msg, "which_accumulate_ops is a comma-separated list: ");
    ck_assert_contains(msg, "\"sum,,max\"");
    ck_assert_contains(msg, "element 2 is empty");
    ck_assert_ptr_null(strstr(strstr(msg, "list: ") + 1, "comma-separated list"));

    rmalab_info *req = tu_info("accumulate_ordering", "rar,,waw", NULL);
    rmalab_diags diags;
    rmalab_diags_init(&diags);
    ck_assert_ok(rmalab_hints_validate(RMALAB_SCOPE_WIN, req, NULL, &diags));
    ck_assert_int_eq(diags.count, 1);
    ck_assert_contains(diags.items[0].message, "\"rar,,waw\"");
    rmalab_diags_clear(&diags);
    rmalab_info_destroy(&req);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Validation                                                               */

START_TEST(test_validate_drops_invalid)
{
    rmalab_info *req = tu_info("no_locks", "maybe",                  /* dropped */
                               "same_size", " true ",                /* canonical */
                               "accumulate_ordering", "rar,none",    /* dropped */
                               "which_accumulate_ops", "sum, max",   /* canonical */
                               "accumulate_ops", "bogus",            /* dropped */
                               "my_own_key", " anything, really ",   /* verbatim */
                               "accumulate_max_bytes", "-1", NULL);  /* canonical */
    rmalab_info *out = NULL;
    rmalab_diags diags;
    rmalab_diags_init(&diags);
    ck_assert_ok(rmalab_hints_validate(RMALAB_SCOPE_WIN, req, &out, &diags));
    ck_assert_ptr_nonnull(out);

    ck_assert_int_eq(tu_nkeys(out), 4);
    ck_assert_str_eq(tu_nthkey(out, 0), "same_size");
    ck_assert_str_eq(tu_nthkey(out, 1), "which_accumulate_ops");
    ck_assert_str_eq(tu_nthkey(out, 2), "my_own_key");
    ck_assert_str_eq(tu_nthkey(out, 3), "accumulate_max_bytes");
    ck_assert_str_eq(tu_get(out, "same_size"), "true");
    ck_assert_str_eq(tu_get(out, "which_accumulate_ops"), "sum,max");
    ck_assert_str_eq(tu_get(out, "my_own_key"), " anything, really ");
    ck_assert_str_eq(tu_get(out, "accumulate_max_bytes"), "unlimited");
    ck_assert_ptr_null(tu_get(out, "no_locks"));
    ck_assert_ptr_null(tu_get(out, "accumulate_ordering"));
    ck_assert_ptr_null(tu_get(out, "accumulate_ops"));

    /* One diagnostic per invalid value, in request order. */
    ck_assert_int_eq(diags.count, 3);
    ck_assert_str_eq(diags.items[0].key, "no_locks");
    ck_assert_str_eq(diags.items[1].key, "accumulate_ordering");
    ck_assert_str_eq(diags.items[2].key, "accumulate_ops");
    ck_assert_contains(diags.items[0].message, "\"maybe\"");
    ck_assert_contains(diags.items[1].message, "must stand alone");
    ck_assert_contains(diags.items[2].message, "\"bogus\"");
    for (int i = 0; i < diags.count; i++)
        ck_assert_contains(diags.items[i].message, "not passed on");

    /* The request itself is untouched. */
    ck_assert_int_eq(tu_nkeys(req), 7);
    ck_assert_str_eq(tu_get(req, "same_size"), " true ");

    rmalab_diags_clear(&diags);
    ck_assert_int_eq(diags.count, 0);
    ck_assert_ptr_null(diags.items);
    rmalab_diags_clear(&diags); /* twice is fine */
    rmalab_diags_clear(NULL);
    rmalab_info_destroy(&out);
    rmalab_info_destroy(&req);
}
END_TEST

START_TEST(test_validate_unknown_passthrough)
{
    rmalab_info *req = tu_info("vendor_magic", "", "x", "1", NULL);
    rmalab_info *out = NULL;
    rmalab_diags diags;
    rmalab_diags_init(&diags);
    ck_assert_ok(rmalab_hints_validate(RMALAB_SCOPE_WIN, req, &out, &diags));
    ck_assert_int_eq(tu_nkeys(out), 2);
    ck_assert_str_eq(tu_get(out, "vendor_magic"), "");
    ck_assert_str_eq(tu_get(out, "x"), "1");
    ck_assert_int_eq(diags.count, 0); /* nothing close to a known key */
    rmalab_diags_clear(&diags);
    rmalab_info_destroy(&out);
    rmalab_info_destroy(&req);
}
END_TEST

START_TEST(test_validate_rmalab_own)
{
    rmalab_info *req = tu_info("rmalab_pscw", "rma", "no_locks", "true", NULL);
    rmalab_info *out = NULL;
    rmalab_diags diags;
    rmalab_diags_init(&diags);
    ck_assert_ok(rmalab_hints_validate(RMALAB_SCOPE_WIN, req, &out, &diags));
    ck_assert_int_eq(tu_nkeys(out), 1);
    ck_assert_ptr_null(tu_get(out, "rmalab_pscw"));
    ck_assert_str_eq(tu_get(out, "no_locks"), "true");
    ck_assert_int_eq(diags.count, 0);
    rmalab_info_destroy(&out);
    rmalab_info_destroy(&req);

    req = tu_info("rmalab_pscw", "fast", NULL);
    ck_assert_ok(rmalab_hints_validate(RMALAB_SCOPE_WIN, req, &out, &diags));
    ck_assert_int_eq(tu_nkeys(out), 0);
    ck_assert_int_eq(diags.count, 1);
    ck_assert_str_eq(diags.items[0].key, "rmalab_pscw");
    ck_assert_contains(diags.items[0].message, "native");
    rmalab_diags_clear(&diags);
    rmalab_info_destroy(&out);
    rmalab_info_destroy(&req);
}
END_TEST

START_TEST(test_validate_suggestions)
{
    rmalab_info *req = tu_info("no_lock", "true", "accumulate_oredring", "none",
                               "mpi_assert_no_any_tag", "true", NULL);
    rmalab_info *out = NULL;
    rmalab_diags diags;
    rmalab_diags_init(&diags);
    ck_assert_ok(rmalab_hints_validate(RMALAB_SCOPE_WIN, req, &out, &diags));
    ck_assert_int_eq(diags.count, 3);

    const rmalab_diag *dg = tu_diag(&diags, "no_lock");
    ck_assert_ptr_nonnull(dg);
    ck_assert_contains(dg->message, "did you mean no_locks?");
    dg = tu_diag(&diags, "accumulate_oredring");
    ck_assert_ptr_nonnull(dg);
    ck_assert_contains(dg->message, "did you mean accumulate_ordering?");
    /* A hint of the other scope is named as such, not as a typo. */
    dg = tu_diag(&diags, "mpi_assert_no_any_tag");
    ck_assert_ptr_nonnull(dg);
    ck_assert_contains(dg->message, "a comm"); /* "comm" or "communicator" */
    ck_assert_contains(dg->message, "not a win");
    ck_assert_contains(dg->message, "no effect");

    /* Unknown keys still go to MPI, verbatim: hints never change semantics. */
    ck_assert_int_eq(tu_nkeys(out), 3);
    ck_assert_str_eq(tu_get(out, "no_lock"), "true");
    ck_assert_str_eq(tu_get(out, "accumulate_oredring"), "none");
    rmalab_diags_clear(&diags);
    rmalab_info_destroy(&out);
    rmalab_info_destroy(&req);

    /* Two typos in a short key are still recognised; a name close to
     * nothing gets no diagnostic. */
    req = tu_info("n_lcks", "true", "zzz_qqq", "1", NULL);
    ck_assert_ok(rmalab_hints_validate(RMALAB_SCOPE_WIN, req, &out, &diags));
    ck_assert_int_eq(diags.count, 1);
    ck_assert_str_eq(diags.items[0].key, "n_lcks");
    ck_assert_contains(diags.items[0].message, "did you mean no_locks?");
    rmalab_diags_clear(&diags);
    rmalab_info_destroy(&out);
    rmalab_info_destroy(&req);

    req = tu_info("mpi_assert_no_any_tags", "true", "no_locks", "true", NULL);
    ck_assert_ok(rmalab_hints_validate(RMALAB_SCOPE_COMM, req, &out, &diags));
    ck_assert_int_eq(diags.count, 2);
    ck_assert_contains(tu_diag(&diags, "mpi_assert_no_any_tags")->message,
                       "did you mean mpi_assert_no_any_tag?");
    ck_assert_contains(tu_diag(&diags, "no_locks")->message, "a win");
    ck_assert_contains(tu_diag(&diags, "no_locks")->message, "not a comm");
    rmalab_diags_clear(&diags);
    rmalab_info_destroy(&out);
    rmalab_info_destroy(&req);
}
END_TEST

START_TEST(test_validate_null)
{
    rmalab_info *out = NULL, *req = tu_info("no_locks", "nope", NULL);
    rmalab_diags diags;
    rmalab_diags_init(&diags);
    ck_assert_ok(rmalab_hints_validate(RMALAB_SCOPE_COMM, NULL, &out, &diags));
    ck_assert_ptr_nonnull(out);
    ck_assert_int_eq(tu_nkeys(out), 0);
    ck_assert_int_eq(diags.count, 0);
    rmalab_info_destroy(&out);
    /* No output and no diagnostics wanted: still fine. */
    ck_assert_ok(rmalab_hints_validate(RMALAB_SCOPE_WIN, req, NULL, NULL));
    ck_assert_ok(rmalab_hints_validate(RMALAB_SCOPE_WIN, req, NULL, &diags));
    ck_assert_int_eq(diags.count, 1);
    rmalab_diags_clear(&diags);
    rmalab_info_destroy(&req);
}
END_TEST

/* Regression (found by tests/fuzz/fuzz-hints.c; fixed in core/src/info.c):
 * validation and the report walk the request with rmalab_info_nth, which
 * squeezed out deleted entries into a fresh allocation. With that
 * allocation failing, nth left the key pointer unset and validation read
 * it (a SEGV). A request with holes now validates and reports under every
 * single allocation failure: it succeeds or says ERR_NO_MEM, and frees
 * what it took. */
START_TEST(test_validate_out_of_memory)
{
    int done = 0;
    for (long n = 1; n < 100 && !done; n++) {
        rmalab_info *req = tu_info("no_locks", "true", "x", "1", "vci", "2",
                                   "accumulate_ordering", "rar", "rmalab_pscw", "rma", NULL);
        ck_assert_ok(rmalab_info_delete(req, "x"));
        ck_assert_ok(rmalab_info_delete(req, "vci")); /* two holes before the last keys */
        rmalab_info *out = NULL;
        rmalab_hints_report *report = NULL;
        rmalab_diags diags;
        rmalab_diags_init(&diags);
        long live = rmalab_debug_live_allocs();
        rmalab_debug_fail_alloc(n);
        int rc = rmalab_hints_validate(RMALAB_SCOPE_WIN, req, &out, &diags);
        int rr = rmalab_hints_report_build(RMALAB_SCOPE_WIN, req, out, &report);
        rmalab_debug_fail_alloc(0);
        ck_assert_msg(rc == RMALAB_OK || rc == RMALAB_ERR_NO_MEM, "validate: %s",
                      rmalab_err_name(rc));
        ck_assert_msg(rr == RMALAB_OK || rr == RMALAB_ERR_NO_MEM, "report: %s",
                      rmalab_err_name(rr));
        done = rc == RMALAB_OK && rr == RMALAB_OK;
        if (rc == RMALAB_OK)
            ck_assert_str_eq(tu_get(out, "accumulate_ordering"), "rar");
        rmalab_hints_report_destroy(report);
        rmalab_diags_clear(&diags);
        rmalab_info_destroy(&out);
        ck_assert_int_eq(rmalab_debug_live_allocs(), live);
        rmalab_info_destroy(&req);
    }
    ck_assert(done);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* The report                                                               */

START_TEST(test_report_statuses)
{
    rmalab_info *req = tu_info("no_locks", " true ",                /* applied */
                               "accumulate_ordering", "none",       /* ignored: kept */
                               "which_accumulate_ops", "sum,max",   /* applied as a set */
                               "accumulate_ops", "bogus",           /* ignored: invalid */
                               "accumulate_max_bytes", "4096",      /* ignored: unreported */
                               "my_key", "1",                       /* unknown, unreported */
                               "vendor_echo", "x", NULL);           /* unknown, applied */
    rmalab_info *eff = tu_info("mpich_internal", "7",               /* implementation */
                               "no_locks", "true",
                               "accumulate_ordering", "rar,raw,war,waw",
                               "which_accumulate_ops", "max,sum",
                               "accumulate_ops", "same_op_no_op",
                               "same_size", "false",                /* default */
                               "alloc_shm", "false",                /* implementation */
                               "vendor_echo", "x", NULL);
    rmalab_hints_report *r = NULL;
    const rmalab_hint_row *row;

    ck_assert_ok(rmalab_hints_report_build(RMALAB_SCOPE_WIN, req, eff, &r));
    ck_assert_ptr_nonnull(r);
    /* The catalogue, then unknown requested keys, then unknown reported keys. */
    ck_assert_int_eq(r->count, NWIN + 3);
    for (int i = 0; i < NWIN; i++)
        ck_assert_str_eq(r->rows[i].key, win_keys[i]);
    ck_assert_str_eq(r->rows[NWIN].key, "my_key");
    ck_assert_str_eq(r->rows[NWIN + 1].key, "vendor_echo");
    ck_assert_str_eq(r->rows[NWIN + 2].key, "mpich_internal");

    ck_assert_status(r, "no_locks", RMALAB_HINT_APPLIED);
    row = tu_row(r, "no_locks");
    ck_assert_str_eq(row->requested, " true ");
    ck_assert_str_eq(row->effective, "true");
    ck_assert_str_eq(row->default_value, "false");
    ck_assert_ptr_null(row->note);

    ck_assert_status(r, "accumulate_ordering", RMALAB_HINT_IGNORED);
    ck_assert_contains(tu_row(r, "accumulate_ordering")->note, "rar,raw,war,waw");

    ck_assert_status(r, "which_accumulate_ops", RMALAB_HINT_APPLIED);
    ck_assert_str_eq(tu_row(r, "which_accumulate_ops")->requested, "sum,max");
    ck_assert_str_eq(tu_row(r, "which_accumulate_ops")->effective, "max,sum");

    ck_assert_status(r, "accumulate_ops", RMALAB_HINT_IGNORED);
    ck_assert_contains(tu_row(r, "accumulate_ops")->note, "\"bogus\"");
    ck_assert_contains(tu_row(r, "accumulate_ops")->note, "not passed on");

    ck_assert_status(r, "accumulate_max_bytes", RMALAB_HINT_IGNORED);
    ck_assert_contains(tu_row(r, "accumulate_max_bytes")->note, "does not report");
    ck_assert_ptr_null(tu_row(r, "accumulate_max_bytes")->effective);

    ck_assert_status(r, "same_size", RMALAB_HINT_DEFAULT);
    ck_assert_ptr_null(tu_row(r, "same_size")->requested);
    ck_assert_status(r, "same_disp_unit", RMALAB_HINT_DEFAULT); /* not reported at all */
    ck_assert_ptr_null(tu_row(r, "same_disp_unit")->effective);
    ck_assert_status(r, "alloc_shm", RMALAB_HINT_IMPLEMENTATION);
    ck_assert_str_eq(tu_row(r, "alloc_shm")->effective, "false");
    ck_assert_str_eq(tu_row(r, "alloc_shm")->default_value, "true");

    ck_assert_status(r, "my_key", RMALAB_HINT_IGNORED);
    ck_assert_ptr_null(tu_row(r, "my_key")->default_value);
    ck_assert_status(r, "vendor_echo", RMALAB_HINT_APPLIED);
    ck_assert_status(r, "mpich_internal", RMALAB_HINT_IMPLEMENTATION);
    ck_assert_ptr_null(tu_row(r, "mpich_internal")->requested);
    ck_assert_str_eq(tu_row(r, "mpich_internal")->effective, "7");
    rmalab_hints_report_destroy(r);
    rmalab_info_destroy(&req);
    rmalab_info_destroy(&eff);
}
END_TEST

START_TEST(test_report_list_sets)
{
    static const struct {
        const char *req, *eff;
        rmalab_hint_status st;
    } cases[] = {
        {"sum,max", "max,sum", RMALAB_HINT_APPLIED},
        {"sum, max", "max,sum", RMALAB_HINT_APPLIED},
        {"sum,max,min", "min,sum,max", RMALAB_HINT_APPLIED},
        {"sum,max", "sum", RMALAB_HINT_IGNORED},
        {"sum", "sum,max", RMALAB_HINT_IGNORED},
        {"sum,max", "sum,min", RMALAB_HINT_IGNORED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rmalab_info *req = tu_info("which_accumulate_ops", cases[i].req, NULL);
        rmalab_info *eff = tu_info("which_accumulate_ops", cases[i].eff, NULL);
        rmalab_hints_report *r = NULL;
        ck_assert_ok(rmalab_hints_report_build(RMALAB_SCOPE_WIN, req, eff, &r));
        const rmalab_hint_row *row = tu_row(r, "which_accumulate_ops");
        ck_assert_msg(row->status == cases[i].st, "requested \"%s\", effective \"%s\": %s",
                      cases[i].req, cases[i].eff, rmalab_hint_status_name(row->status));
        rmalab_hints_report_destroy(r);
        rmalab_info_destroy(&req);
        rmalab_info_destroy(&eff);
    }
}
END_TEST

START_TEST(test_report_defaults)
{
    rmalab_hints_report *r = NULL;
    ck_assert_ok(rmalab_hints_report_build(RMALAB_SCOPE_COMM, NULL, NULL, &r));
    ck_assert_int_eq(r->count, NCOMM);
    for (int i = 0; i < r->count; i++) {
        ck_assert_str_eq(r->rows[i].key, comm_keys[i]);
        ck_assert_int_eq(r->rows[i].status, RMALAB_HINT_DEFAULT);
        ck_assert_ptr_null(r->rows[i].requested);
        ck_assert_ptr_null(r->rows[i].effective);
    }
    rmalab_hints_report_destroy(r);
    rmalab_hints_report_destroy(NULL);

    /* Reported values equal to the default are "default"; others, not
     * requested, are the implementation's. */
    rmalab_info *eff = tu_info("mpi_assert_no_any_tag", "false", "enable_multi_nic_striping",
                               "true", "vci", "-1", "sender_vci", "3", NULL);
    ck_assert_ok(rmalab_hints_report_build(RMALAB_SCOPE_COMM, NULL, eff, &r));
    ck_assert_int_eq(r->count, NCOMM);
    ck_assert_status(r, "mpi_assert_no_any_tag", RMALAB_HINT_DEFAULT);
    ck_assert_status(r, "enable_multi_nic_striping", RMALAB_HINT_DEFAULT);
    ck_assert_status(r, "vci", RMALAB_HINT_DEFAULT);
    ck_assert_status(r, "sender_vci", RMALAB_HINT_IMPLEMENTATION);
    rmalab_hints_report_destroy(r);
    rmalab_info_destroy(&eff);

    /* The window default spelled as -1 is still the default. */
    eff = tu_info("accumulate_max_bytes", "-1", "accumulate_ordering", "waw,war,raw,rar", NULL);
    ck_assert_ok(rmalab_hints_report_build(RMALAB_SCOPE_WIN, NULL, eff, &r));
    ck_assert_status(r, "accumulate_max_bytes", RMALAB_HINT_DEFAULT);
    ck_assert_status(r, "accumulate_ordering", RMALAB_HINT_DEFAULT);
    rmalab_hints_report_destroy(r);
    rmalab_info_destroy(&eff);
}
END_TEST

START_TEST(test_report_unreliable)
{
    rmalab_info *req = tu_info("perf_preference", "lat", NULL);
    rmalab_info *eff = tu_info("perf_preference", "\x01\x7f", NULL);
    rmalab_hints_report *r = NULL;
    ck_assert_ok(rmalab_hints_report_build(RMALAB_SCOPE_WIN, req, eff, &r));
    ck_assert_status(r, "perf_preference", RMALAB_HINT_IGNORED);
    ck_assert_contains(tu_row(r, "perf_preference")->note, "unrelated text");
    rmalab_hints_report_destroy(r);
    ck_assert_ok(rmalab_hints_report_build(RMALAB_SCOPE_WIN, NULL, eff, &r));
    ck_assert_status(r, "perf_preference", RMALAB_HINT_IMPLEMENTATION);
    ck_assert_contains(tu_row(r, "perf_preference")->note, "unrelated text");
    rmalab_hints_report_destroy(r);
    rmalab_info_destroy(&req);
    rmalab_info_destroy(&eff);
}
END_TEST

Suite *hints_suite(void)
{
    Suite *s = suite_create("hints");
    TCase *tc = tcase_create("catalogue");
    tcase_add_test(tc, test_catalogue_complete);
    tcase_add_test(tc, test_catalogue_definitions);
    tcase_add_test(tc, test_names);
    suite_add_tcase(s, tc);

    tc = tcase_create("normalize");
    tcase_add_loop_test(tc, test_normalize, 0, (int)(sizeof norm_cases / sizeof norm_cases[0]));
    tcase_add_test(tc, test_normalize_messages);
    tcase_add_test(tc, test_normalize_list_message);
    suite_add_tcase(s, tc);

    tc = tcase_create("validate");
    tcase_add_test(tc, test_validate_drops_invalid);
    tcase_add_test(tc, test_validate_unknown_passthrough);
    tcase_add_test(tc, test_validate_rmalab_own);
    tcase_add_test(tc, test_validate_suggestions);
    tcase_add_test(tc, test_validate_null);
    tcase_add_test(tc, test_validate_out_of_memory);
    suite_add_tcase(s, tc);

    tc = tcase_create("report");
    tcase_add_test(tc, test_report_statuses);
    tcase_add_test(tc, test_report_list_sets);
    tcase_add_test(tc, test_report_defaults);
    tcase_add_test(tc, test_report_unreliable);
    suite_add_tcase(s, tc);
    return s;
}
