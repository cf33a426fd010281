/* The "comm" suite: communicators with hints (core/src/comm.c) and the
 * cross-rank agreement check of core/src/hints.c, against MPICH 4.0.2.
 * Needs MPI_Init and at least two ranks. Most tests are collective: every
 * rank makes the same collective calls in the same order, and does so
 * before asserting, so that a failure on one rank cannot leave the other
 * waiting in a collective. */
#include <stdlib.h>
#include <string.h>

#include <rmalab/debug.h>

#include "testutil.h"

#define NO_ANY_TAG "mpi_assert_no_any_tag"
#define NO_ANY_SOURCE "mpi_assert_no_any_source"
#define EXACT_LENGTH "mpi_assert_exact_length"
#define STRICT_ORDER "mpi_assert_strict_persistent_collective_ordering"

static int world_rank(void)
{
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

static int world_size(void)
{
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}

/* The value of `key` as MPICH reports it for `comm`, in `buf`; NULL when
 * it does not report the key. */
static const char *mpi_hint(MPI_Comm comm, const char *key, char *buf, int len)
{
    MPI_Info mi = MPI_INFO_NULL;
    int flag = 0;
    if (MPI_Comm_get_info(comm, &mi) != MPI_SUCCESS)
        return NULL;
    MPI_Info_get(mi, key, len - 1, buf, &flag);
    MPI_Info_free(&mi);
    return flag ? buf : NULL;
}

/* ------------------------------------------------------------------------ */
/* Wrapping and duplicating                                                 */

START_TEST(test_wrap)
{
    rmalab_comm *world = NULL, *none = NULL;
    int size = -1;
    ck_assert_ok(rmalab_comm_wrap(MPI_COMM_WORLD, &world));
    ck_assert(rmalab_comm_mpi(world) == MPI_COMM_WORLD);
    ck_assert_int_eq(rmalab_comm_rank(world), world_rank());
    ck_assert_int_eq(rmalab_comm_size(world), world_size());
    ck_assert_ptr_nonnull(rmalab_comm_requested(world));
    ck_assert_int_eq(tu_nkeys(rmalab_comm_requested(world)), 0);
    ck_assert_ok(rmalab_comm_free(&world));
    ck_assert_ptr_null(world);
    /* The wrapped communicator is only forgotten, not freed. */
    ck_assert_int_eq(MPI_Comm_size(MPI_COMM_WORLD, &size), MPI_SUCCESS);
    ck_assert_int_eq(size, world_size());

    ck_assert_rc(rmalab_comm_wrap(MPI_COMM_NULL, &none), RMALAB_ERR_COMM);
    ck_assert_ptr_null(none);
    ck_assert_ok(rmalab_comm_free(NULL));
    ck_assert_ok(rmalab_comm_free(&none));
    ck_assert(rmalab_comm_mpi(NULL) == MPI_COMM_NULL);
    ck_assert_int_eq(rmalab_comm_rank(NULL), -1);
    ck_assert_int_eq(rmalab_comm_size(NULL), 0);
    ck_assert_ptr_null(rmalab_comm_requested(NULL));
    ck_assert_rc(rmalab_comm_dup(NULL, NULL, &none, NULL), RMALAB_ERR_COMM);
    ck_assert_rc(rmalab_comm_set_info(NULL, NULL, NULL), RMALAB_ERR_COMM);
    double d = 1;
    ck_assert_rc(rmalab_comm_bcast_typed(NULL, &d, 1, RMALAB_DOUBLE, 0), RMALAB_ERR_COMM);
    ck_assert_rc(rmalab_comm_reduce_typed(NULL, RMALAB_REDUCE_ALL, 0, &d, 1, RMALAB_DOUBLE,
                                          RMALAB_OP_SUM),
                 RMALAB_ERR_COMM);
}
END_TEST

START_TEST(test_dup_applies_hint)
{
    rmalab_comm *world = NULL, *c = NULL;
    rmalab_info *hints = tu_info(NO_ANY_TAG, "true", NULL), *eff = NULL;
    rmalab_diags diags;
    char buf[64];
    int cmp = -1, rc_dup, rc_eff = -1;
    rmalab_diags_init(&diags);
    ck_assert_ok(rmalab_comm_wrap(MPI_COMM_WORLD, &world));
    rc_dup = rmalab_comm_dup(world, hints, &c, &diags); /* collective */
    if (rc_dup == RMALAB_OK) {
        MPI_Comm_compare(MPI_COMM_WORLD, rmalab_comm_mpi(c), &cmp);
        rc_eff = rmalab_comm_get_info(c, &eff);
    }
    ck_assert_msg(rc_dup == RMALAB_OK, "dup: %s", rmalab_errmsg());
    ck_assert_ok(rc_eff);
    ck_assert_int_eq(cmp, MPI_CONGRUENT);
    ck_assert_int_eq(diags.count, 0);
    ck_assert_int_eq(rmalab_comm_rank(c), world_rank());
    ck_assert_int_eq(rmalab_comm_size(c), world_size());
    ck_assert_pstr_eq(tu_get(eff, NO_ANY_TAG), "true");
    ck_assert_pstr_eq(tu_get(eff, NO_ANY_SOURCE), "false");
    ck_assert_pstr_eq(mpi_hint(rmalab_comm_mpi(c), NO_ANY_TAG, buf, sizeof buf), "true");
    ck_assert_pstr_eq(mpi_hint(MPI_COMM_WORLD, NO_ANY_TAG, buf, sizeof buf), "false");
    ck_assert_pstr_eq(tu_get(rmalab_comm_requested(c), NO_ANY_TAG), "true");
    ck_assert_int_eq(tu_nkeys(rmalab_comm_requested(c)), 1);

    /* Duplicates report errors instead of aborting. */
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(rmalab_comm_mpi(c), &eh);
    ck_assert(eh == MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);

    ck_assert_ok(rmalab_comm_free(&c));
    ck_assert_ptr_null(c);
    ck_assert_ok(rmalab_comm_free(&world));
    rmalab_diags_clear(&diags);
    rmalab_info_destroy(&eff);
    rmalab_info_destroy(&hints);
}
END_TEST

START_TEST(test_dup_without_hints)
{
    rmalab_comm *world = NULL, *c = NULL;
    rmalab_info *eff = NULL;
    ck_assert_ok(rmalab_comm_wrap(MPI_COMM_WORLD, &world));
    int rc = rmalab_comm_dup(world, NULL, &c, NULL);
    ck_assert_msg(rc == RMALAB_OK, "dup: %s", rmalab_errmsg());
    ck_assert_int_eq(tu_nkeys(rmalab_comm_requested(c)), 0);
    ck_assert_ok(rmalab_comm_get_info(c, &eff));
    ck_assert_pstr_eq(tu_get(eff, NO_ANY_TAG), "false");
    rmalab_info_destroy(&eff);
    ck_assert_ok(rmalab_comm_free(&c));
    ck_assert_ok(rmalab_comm_free(&world));
}
END_TEST

/* A failure a rank's caller found (its hints) fails the dup on every rank,
 * and the next dup meets. */
START_TEST(test_dup_status_one_rank)
{
    rmalab_comm *world = NULL, *c = NULL;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    ck_assert_ok(rmalab_comm_wrap(MPI_COMM_WORLD, &world));
    int st = rank == 1 ? rmalab_set_error(RMALAB_ERR_INFO_KEY, "bad key") : RMALAB_OK;
    ck_assert_int_eq(rmalab_comm_dup_status(world, NULL, &c, NULL, st), RMALAB_ERR_INFO_KEY);
    ck_assert_msg(strstr(rmalab_errmsg(), rank == 1 ? "bad key" : "another rank failed"), "%s",
                  rmalab_errmsg());
    ck_assert_ptr_null(c);
    ck_assert_ok(rmalab_comm_dup(world, NULL, &c, NULL));
    ck_assert_ok(rmalab_comm_free(&c));
    ck_assert_ok(rmalab_comm_free(&world));
}
END_TEST

START_TEST(test_dup_normalises)
{
    rmalab_comm *world = NULL, *c = NULL;
    rmalab_info *hints = tu_info(NO_ANY_TAG, " true ", EXACT_LENGTH, "\ttrue\n", NULL);
    rmalab_info *eff = NULL;
    rmalab_diags diags;
    rmalab_diags_init(&diags);
    ck_assert_ok(rmalab_comm_wrap(MPI_COMM_WORLD, &world));
    int rc = rmalab_comm_dup(world, hints, &c, &diags);
    ck_assert_msg(rc == RMALAB_OK, "dup: %s", rmalab_errmsg());
    ck_assert_ok(rmalab_comm_get_info(c, &eff));
    ck_assert_int_eq(diags.count, 0);
    /* MPICH 4.0.2 reads " true " with atoi, as false: only the canonical
     * spelling makes the hint take effect. */
    ck_assert_pstr_eq(tu_get(eff, NO_ANY_TAG), "true");
    ck_assert_pstr_eq(tu_get(eff, EXACT_LENGTH), "true");
    /* The request is remembered as the user wrote it. */
    ck_assert_pstr_eq(tu_get(rmalab_comm_requested(c), NO_ANY_TAG), " true ");
    ck_assert_ok(rmalab_comm_free(&c));
    ck_assert_ok(rmalab_comm_free(&world));
    rmalab_diags_clear(&diags);
    rmalab_info_destroy(&eff);
    rmalab_info_destroy(&hints);
}
END_TEST

START_TEST(test_dup_invalid_value)
{
    rmalab_comm *world = NULL, *c = NULL;
    rmalab_info *hints = tu_info(EXACT_LENGTH, "maybe", NO_ANY_SOURCE, "true", NULL);
    rmalab_info *eff = NULL;
    rmalab_diags diags;
    rmalab_diags_init(&diags);
    ck_assert_ok(rmalab_comm_wrap(MPI_COMM_WORLD, &world));
    int rc = rmalab_comm_dup(world, hints, &c, &diags);
    ck_assert_msg(rc == RMALAB_OK, "dup: %s", rmalab_errmsg());
    ck_assert_ok(rmalab_comm_get_info(c, &eff));
    ck_assert_int_eq(diags.count, 1);
    ck_assert_str_eq(diags.items[0].key, EXACT_LENGTH);
    ck_assert_contains(diags.items[0].message, "\"maybe\"");
    ck_assert_contains(diags.items[0].message, "not passed on");
    ck_assert_pstr_eq(tu_get(eff, EXACT_LENGTH), "false");
    ck_assert_pstr_eq(tu_get(eff, NO_ANY_SOURCE), "true"); /* the valid one still applies */
    ck_assert_ok(rmalab_comm_free(&c));
    ck_assert_ok(rmalab_comm_free(&world));
    rmalab_diags_clear(&diags);
    rmalab_info_destroy(&eff);
    rmalab_info_destroy(&hints);
}
END_TEST

START_TEST(test_dup_typo)
{
    rmalab_comm *world = NULL, *c = NULL;
    rmalab_info *hints = tu_info("mpi_assert_no_any_tags", "true", NULL), *eff = NULL;
    rmalab_diags diags;
    rmalab_diags_init(&diags);
    ck_assert_ok(rmalab_comm_wrap(MPI_COMM_WORLD, &world));
    int rc = rmalab_comm_dup(world, hints, &c, &diags);
    ck_assert_msg(rc == RMALAB_OK, "dup: %s", rmalab_errmsg());
    ck_assert_ok(rmalab_comm_get_info(c, &eff));
    ck_assert_int_eq(diags.count, 1);
    ck_assert_str_eq(diags.items[0].key, "mpi_assert_no_any_tags");
    ck_assert_contains(diags.items[0].message, "did you mean " NO_ANY_TAG "?");
    ck_assert_pstr_eq(tu_get(eff, NO_ANY_TAG), "false");
    ck_assert_ptr_null(tu_get(eff, "mpi_assert_no_any_tags"));
    ck_assert_ok(rmalab_comm_free(&c));
    ck_assert_ok(rmalab_comm_free(&world));
    rmalab_diags_clear(&diags);
    rmalab_info_destroy(&eff);
    rmalab_info_destroy(&hints);
}
END_TEST

START_TEST(test_set_info_named_keys)
{
    rmalab_comm *world = NULL, *c = NULL;
    rmalab_info *first = tu_info(NO_ANY_TAG, "true", EXACT_LENGTH, "true", NULL);
    rmalab_info *second = tu_info(NO_ANY_SOURCE, "true", EXACT_LENGTH, "false", NULL);
    rmalab_info *third = tu_info(NO_ANY_TAG, "maybe", NULL);
    rmalab_info *eff2 = NULL, *eff3 = NULL;
    rmalab_diags diags;
    int rc1, rc2 = -1, rc3 = -1;
    rmalab_diags_init(&diags);
    ck_assert_ok(rmalab_comm_wrap(MPI_COMM_WORLD, &world));
    rc1 = rmalab_comm_dup(world, first, &c, NULL);
    if (rc1 == RMALAB_OK) {
        rc2 = rmalab_comm_set_info(c, second, NULL); /* collective */
        rmalab_comm_get_info(c, &eff2);
        rc3 = rmalab_comm_set_info(c, third, &diags); /* collective */
        rmalab_comm_get_info(c, &eff3);
    }
    ck_assert_msg(rc1 == RMALAB_OK, "dup: %s", rmalab_errmsg());
    ck_assert_ok(rc2);
    ck_assert_ok(rc3);

    /* Keys the update does not name keep their values. */
    ck_assert_pstr_eq(tu_get(eff2, NO_ANY_TAG), "true");
    ck_assert_pstr_eq(tu_get(eff2, NO_ANY_SOURCE), "true");
    ck_assert_pstr_eq(tu_get(eff2, EXACT_LENGTH), "false");
    ck_assert_pstr_eq(tu_get(eff2, "mpi_assert_allow_overtaking"), "false");

    /* An invalid value is not passed on: the previous one stays. */
    ck_assert_int_eq(diags.count, 1);
    ck_assert_str_eq(diags.items[0].key, NO_ANY_TAG);
    ck_assert_pstr_eq(tu_get(eff3, NO_ANY_TAG), "true");
    ck_assert_pstr_eq(tu_get(eff3, NO_ANY_SOURCE), "true");

    /* The request merges the updates in, in first-request order. */
    rmalab_info *req = (rmalab_info *)rmalab_comm_requested(c);
    ck_assert_int_eq(tu_nkeys(req), 3);
    ck_assert_str_eq(tu_nthkey(req, 0), NO_ANY_TAG);
    ck_assert_str_eq(tu_nthkey(req, 1), EXACT_LENGTH);
    ck_assert_str_eq(tu_nthkey(req, 2), NO_ANY_SOURCE);
    ck_assert_pstr_eq(tu_get(req, NO_ANY_TAG), "maybe");
    ck_assert_pstr_eq(tu_get(req, EXACT_LENGTH), "false");
    ck_assert_pstr_eq(tu_get(req, NO_ANY_SOURCE), "true");

    ck_assert_ok(rmalab_comm_free(&c));
    ck_assert_ok(rmalab_comm_free(&world));
    rmalab_diags_clear(&diags);
    rmalab_info_destroy(&eff2);
    rmalab_info_destroy(&eff3);
    rmalab_info_destroy(&first);
    rmalab_info_destroy(&second);
    rmalab_info_destroy(&third);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* The report                                                               */

START_TEST(test_hints_report)
{
    rmalab_comm *world = NULL, *c = NULL;
    rmalab_info *hints = tu_info(NO_ANY_TAG, " true ",  /* applied */
                                 EXACT_LENGTH, "maybe", /* ignored: invalid */
                                 "sender_vci", "+0",    /* applied, as "0" */
                                 "rmalab_unknown_key", "1", NULL);
    rmalab_hints_report *r = NULL;
    rmalab_info *eff = NULL;
    int rc = -1, rc_r = -1;
    ck_assert_ok(rmalab_comm_wrap(MPI_COMM_WORLD, &world));
    rc = rmalab_comm_dup(world, hints, &c, NULL);
    if (rc == RMALAB_OK) {
        rc_r = rmalab_comm_hints(c, &r);
        rmalab_comm_get_info(c, &eff);
    }
    ck_assert_msg(rc == RMALAB_OK, "dup: %s", rmalab_errmsg());
    ck_assert_ok(rc_r);

    ck_assert_status(r, NO_ANY_TAG, RMALAB_HINT_APPLIED);
    ck_assert_str_eq(tu_row(r, NO_ANY_TAG)->requested, " true ");
    ck_assert_str_eq(tu_row(r, NO_ANY_TAG)->effective, "true");
    ck_assert_status(r, EXACT_LENGTH, RMALAB_HINT_IGNORED);
    ck_assert_contains(tu_row(r, EXACT_LENGTH)->note, "not passed on");
    ck_assert_status(r, NO_ANY_SOURCE, RMALAB_HINT_DEFAULT);
    ck_assert_str_eq(tu_row(r, NO_ANY_SOURCE)->effective, "false");
    ck_assert_status(r, "mpi_assert_memory_alloc_kinds", RMALAB_HINT_DEFAULT);
    ck_assert_status(r, "sender_vci", RMALAB_HINT_APPLIED);
    ck_assert_str_eq(tu_row(r, "sender_vci")->effective, "0");
    ck_assert_pstr_eq(tu_get(eff, "sender_vci"), "0"); /* MPICH got the canonical text */
    /* Unknown requested keys follow the catalogue; MPICH does not echo them. */
    ck_assert_int_eq(tu_row_index(r, "rmalab_unknown_key"),
                     rmalab_hints_count(RMALAB_SCOPE_COMM));
    ck_assert_status(r, "rmalab_unknown_key", RMALAB_HINT_IGNORED);
    ck_assert_contains(tu_row(r, "rmalab_unknown_key")->note, "does not report");
    rmalab_hints_report_destroy(r);
    rmalab_info_destroy(&eff);
    ck_assert_ok(rmalab_comm_free(&c));
    ck_assert_ok(rmalab_comm_free(&world));
    rmalab_info_destroy(&hints);
}
END_TEST

START_TEST(test_hints_report_implementation)
{
    /* A communicator made behind rmalab's back: the hint is in effect, but
     * nobody asked rmalab for it. */
    MPI_Info mi;
    MPI_Comm raw = MPI_COMM_NULL;
    rmalab_comm *c = NULL;
    rmalab_hints_report *r = NULL;
    int rc = -1;
    MPI_Info_create(&mi);
    MPI_Info_set(mi, NO_ANY_TAG, "true");
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, mi, &raw); /* collective */
    MPI_Info_free(&mi);
    ck_assert_ok(rmalab_comm_wrap(raw, &c));
    rc = rmalab_comm_hints(c, &r);
    ck_assert_ok(rc);
    ck_assert_status(r, NO_ANY_TAG, RMALAB_HINT_IMPLEMENTATION);
    ck_assert_ptr_null(tu_row(r, NO_ANY_TAG)->requested);
    ck_assert_str_eq(tu_row(r, NO_ANY_TAG)->effective, "true");
    ck_assert_str_eq(tu_row(r, NO_ANY_TAG)->default_value, "false");
    ck_assert_status(r, NO_ANY_SOURCE, RMALAB_HINT_DEFAULT);
    ck_assert_status(r, "vci", RMALAB_HINT_DEFAULT);
    ck_assert_int_eq(r->count, rmalab_hints_count(RMALAB_SCOPE_COMM));
    rmalab_hints_report_destroy(r);
    ck_assert_ok(rmalab_comm_free(&c)); /* wrapped: not freed */
    ck_assert_int_eq(MPI_Comm_free(&raw), MPI_SUCCESS);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Agreement across ranks                                                   */

START_TEST(test_agreement_comm_scope)
{
    int rank = world_rank(), size = world_size();
    rmalab_info *req = tu_info(STRICT_ORDER, rank == 1 ? "false" : "true",
                               NO_ANY_TAG, rank == 1 ? "true" : "false", /* need not agree */
                               NULL);
    rmalab_agreement *a = NULL;
    int rc = rmalab_hints_check_agreement(MPI_COMM_WORLD, RMALAB_SCOPE_COMM, req, &a);
    ck_assert_msg(size >= 2, "run this suite under mpiexec -n 2 or more");
    ck_assert_msg(rc == RMALAB_OK, "check_agreement: %s", rmalab_errmsg());
    ck_assert_int_eq(a->count, 1);
    ck_assert_str_eq(a->items[0].key, STRICT_ORDER);
    ck_assert_int_eq(a->items[0].nranks, size);
    ck_assert_pstr_eq(a->items[0].values[0], "true");
    ck_assert_pstr_eq(a->items[0].values[1], "false");
    for (int r = 2; r < size; r++)
        ck_assert_pstr_eq(a->items[0].values[r], "true");
    ck_assert_ptr_null(tu_disagreement(a, NO_ANY_TAG));
    rmalab_agreement_destroy(a);
    rmalab_agreement_destroy(NULL);
    rmalab_info_destroy(&req);
}
END_TEST

START_TEST(test_agreement_win_scope)
{
    int rank = world_rank(), size = world_size();
    rmalab_info *req;
    if (rank == 1)
        req = tu_info("accumulate_ops", "same_op_no_op", "which_accumulate_ops", "max, sum",
                      "same_size", " true ", "no_locks", "true",  /* need not agree */
                      "accumulate_max_bytes", "-1", "coll_attach", "true", NULL);
    else
        req = tu_info("accumulate_ops", "same_op", "which_accumulate_ops", "sum,max",
                      "same_size", "true", "no_locks", "false",
                      "accumulate_max_bytes", "unlimited", NULL);
    rmalab_agreement *a = NULL;
    int rc = rmalab_hints_check_agreement(MPI_COMM_WORLD, RMALAB_SCOPE_WIN, req, &a);
    ck_assert_msg(size >= 2, "run this suite under mpiexec -n 2 or more");
    ck_assert_msg(rc == RMALAB_OK, "check_agreement: %s", rmalab_errmsg());
    /* Same sets, spaces and spellings of unlimited agree; accumulate_ops and
     * a key set on one rank only do not. Catalogue order. */
    ck_assert_int_eq(a->count, 2);
    ck_assert_str_eq(a->items[0].key, "accumulate_ops");
    ck_assert_str_eq(a->items[1].key, "coll_attach");
    const rmalab_disagreement *d = tu_disagreement(a, "accumulate_ops");
    ck_assert_int_eq(d->nranks, size);
    ck_assert_pstr_eq(d->values[0], "same_op");
    ck_assert_pstr_eq(d->values[1], "same_op_no_op");
    d = tu_disagreement(a, "coll_attach");
    ck_assert_ptr_null(d->values[0]);
    ck_assert_pstr_eq(d->values[1], "true");
    ck_assert_ptr_null(tu_disagreement(a, "no_locks"));
    rmalab_agreement_destroy(a);
    rmalab_info_destroy(&req);
}
END_TEST

START_TEST(test_agreement_all_agree)
{
    rmalab_info *req = tu_info(STRICT_ORDER, world_rank() == 0 ? "true" : " true ", NULL);
    rmalab_agreement *a = NULL, *b = NULL;
    int rc1 = rmalab_hints_check_agreement(MPI_COMM_WORLD, RMALAB_SCOPE_COMM, req, &a);
    int rc2 = rmalab_hints_check_agreement(MPI_COMM_WORLD, RMALAB_SCOPE_WIN, NULL, &b);
    ck_assert_ok(rc1);
    ck_assert_ok(rc2);
    ck_assert_int_eq(a->count, 0);
    ck_assert_int_eq(b->count, 0);
    rmalab_agreement_destroy(a);
    rmalab_agreement_destroy(b);
    rmalab_info_destroy(&req);
}
END_TEST

START_TEST(test_comm_check_hints)
{
    int rank = world_rank();
    rmalab_comm *world = NULL, *c = NULL;
    rmalab_info *hints = tu_info(STRICT_ORDER, rank == 1 ? "true" : "false", NULL);
    rmalab_agreement *a = NULL;
    int rc = -1, rc_a = -1;
    ck_assert_ok(rmalab_comm_wrap(MPI_COMM_WORLD, &world));
    rc = rmalab_comm_dup(world, hints, &c, NULL);
    if (rc == RMALAB_OK)
        rc_a = rmalab_comm_check_hints(c, &a);
    ck_assert_msg(rc == RMALAB_OK, "dup: %s", rmalab_errmsg());
    ck_assert_ok(rc_a);
    ck_assert_int_eq(a->count, 1);
    ck_assert_str_eq(a->items[0].key, STRICT_ORDER);
    ck_assert_pstr_eq(a->items[0].values[0], "false");
    ck_assert_pstr_eq(a->items[0].values[1], "true");
    rmalab_agreement_destroy(a);
    ck_assert_rc(rmalab_comm_check_hints(NULL, &a), RMALAB_ERR_COMM);
    ck_assert_ok(rmalab_comm_free(&c));
    ck_assert_ok(rmalab_comm_free(&world));
    rmalab_info_destroy(&hints);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Freeing with requests pending                                            */

#define LONG_N 3000 /* doubles: past the eager part, its rest on the shadow */

/* A communicator split from world is freed while an irecv and an isend of
 * a long message are pending on it, and with a message stashed by probe
 * (`round` bytes): the requests complete as MPI's do, and once they are
 * done everything is gone (the communicator, its shadow, the stashed
 * message, which a later communicator with the same MPI handle must not
 * see). */
static void free_pending_round(rmalab_comm *world, int round)
{
    int me = world_rank(), peer = 1 - me;
    double out[LONG_N];
    for (int i = 0; i < LONG_N; i++)
        out[i] = i + 100.0 * me;
    rmalab_comm *s = NULL;
    rmalab_request *rq = NULL, *sq = NULL;
    rmalab_msg_status st;
    const void *p = NULL;
    size_t n = 0;
    ck_assert_ok(rmalab_comm_split(world, 0, me, &s));
    ck_assert_ok(rmalab_comm_send(s, "stashed", (size_t)round, peer, 9)); /* eager: returns */
    ck_assert_ok(rmalab_comm_probe(s, peer, 9, &st)); /* taken whole, stashed */
    ck_assert_int_eq(st.bytes, round);
    ck_assert_ok(rmalab_comm_irecv(s, peer, 3, &rq));
    ck_assert_ok(rmalab_comm_isend(s, out, sizeof out, peer, 3, &sq));
    ck_assert_ok(rmalab_comm_free(&s));
    ck_assert_ptr_null(s);
    ck_assert_ok(rmalab_request_wait(rq, &p, &n, &st));
    ck_assert_int_eq(n, sizeof out);
    ck_assert_int_eq(st.source, peer);
    const double *in = p;
    ck_assert(in[0] == 100.0 * peer && in[LONG_N - 1] == LONG_N - 1 + 100.0 * peer);
    ck_assert_ok(rmalab_request_wait(sq, NULL, NULL, NULL));
    rmalab_request_destroy(&rq);
    rmalab_request_destroy(&sq);
}

START_TEST(test_free_with_requests_pending)
{
    rmalab_comm *world = NULL;
    ck_assert_ok(rmalab_comm_wrap(MPI_COMM_WORLD, &world));
    free_pending_round(world, 4); /* the core's caches (ids, scratch) settle */
    long before = rmalab_debug_live_allocs();
    free_pending_round(world, 8);
    ck_assert_int_eq(rmalab_debug_live_allocs(), before);
    ck_assert_ok(rmalab_comm_free(&world));
}
END_TEST

Suite *comm_suite(void)
{
    Suite *s = suite_create("comm");
    TCase *tc = tcase_create("dup");
    tcase_add_test(tc, test_wrap);
    tcase_add_test(tc, test_dup_applies_hint);
    tcase_add_test(tc, test_dup_without_hints);
    tcase_add_test(tc, test_dup_status_one_rank);
    tcase_add_test(tc, test_dup_normalises);
    tcase_add_test(tc, test_dup_invalid_value);
    tcase_add_test(tc, test_dup_typo);
    tcase_add_test(tc, test_set_info_named_keys);
    suite_add_tcase(s, tc);

    tc = tcase_create("report");
    tcase_add_test(tc, test_hints_report);
    tcase_add_test(tc, test_hints_report_implementation);
    suite_add_tcase(s, tc);

    tc = tcase_create("agreement");
    tcase_add_test(tc, test_agreement_comm_scope);
    tcase_add_test(tc, test_agreement_win_scope);
    tcase_add_test(tc, test_agreement_all_agree);
    tcase_add_test(tc, test_comm_check_hints);
    suite_add_tcase(s, tc);

    tc = tcase_create("free");
    tcase_add_test(tc, test_free_with_requests_pending);
    suite_add_tcase(s, tc);
    return s;
}
