/* The "info-mpi" suite: conversion between rmalab info objects and MPI_Info
 * (core/src/info-mpi.c) against MPICH 4.0.2's quirks -- 255-character keys
 * that MPI_Info_get_nthkey cuts to 254, values of the full 1024 characters,
 * a fresh MPI_Info per conversion, and the caller's error handlers left as
 * they were. Needs MPI_Init; every rank runs the same local tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

/* Every pair of `mi` equals the pair at the same position in `info`. */
static void assert_same_pairs(MPI_Info mi, rmalab_info *info)
{
    int n = -1;
    ck_assert_int_eq(MPI_Info_get_nkeys(mi, &n), MPI_SUCCESS);
    ck_assert_int_eq(n, tu_nkeys(info));
    for (int i = 0; i < n; i++) {
        const char *k, *v;
        size_t vl;
        ck_assert_ok(rmalab_info_nth(info, i, &k, NULL, &v, &vl));
        int len = -1, flag = 0;
        ck_assert_int_eq(MPI_Info_get_valuelen(mi, k, &len, &flag), MPI_SUCCESS);
        ck_assert_msg(flag, "MPI_Info lacks key %d (%.40s...)", i, k);
        ck_assert_int_eq(len, (int)vl);
        char *buf = malloc(vl + 1);
        ck_assert_ptr_nonnull(buf);
        ck_assert_int_eq(MPI_Info_get(mi, k, len, buf, &flag), MPI_SUCCESS);
        ck_assert_str_eq(buf, v);
        free(buf);
    }
}

START_TEST(test_roundtrip)
{
    rmalab_info *info = tu_info("zeta", "1", "alpha", "two words", "empty", "", "mid", "3", NULL);
    rmalab_info *back = NULL;
    MPI_Info mi = MPI_INFO_NULL;
    ck_assert_ok(rmalab_info_to_mpi(info, &mi));
    ck_assert(mi != MPI_INFO_NULL);
    assert_same_pairs(mi, info);
    ck_assert_ok(rmalab_info_from_mpi(mi, &back));
    ck_assert_int_eq(tu_nkeys(back), 4);
    ck_assert_str_eq(tu_nthkey(back, 0), "zeta");
    ck_assert_str_eq(tu_nthkey(back, 1), "alpha");
    ck_assert_str_eq(tu_nthkey(back, 2), "empty");
    ck_assert_str_eq(tu_nthkey(back, 3), "mid");
    ck_assert_str_eq(tu_get(back, "alpha"), "two words");
    ck_assert_str_eq(tu_get(back, "empty"), "");
    MPI_Info_free(&mi);
    rmalab_info_destroy(&back);
    rmalab_info_destroy(&info);
}
END_TEST

START_TEST(test_roundtrip_empty_and_null)
{
    rmalab_info *info = tu_info(NULL), *back = NULL;
    MPI_Info mi = MPI_INFO_NULL;
    int n = -1;
    ck_assert_ok(rmalab_info_to_mpi(info, &mi));
    ck_assert(mi != MPI_INFO_NULL);
    MPI_Info_get_nkeys(mi, &n);
    ck_assert_int_eq(n, 0);
    MPI_Info_free(&mi);

    ck_assert_ok(rmalab_info_from_mpi(MPI_INFO_NULL, &back));
    ck_assert_ptr_nonnull(back);
    ck_assert_int_eq(tu_nkeys(back), 0);
    rmalab_info_destroy(&back);

    mi = MPI_INFO_NULL;
    ck_assert_rc(rmalab_info_to_mpi(NULL, &mi), RMALAB_ERR_INFO);
    ck_assert(mi == MPI_INFO_NULL);
    rmalab_info_destroy(&info);
}
END_TEST

/* A 255-character key whose last character tells it apart. */
static char *long_key(char *buf, char fill, char last)
{
    tu_fill(buf, fill, RMALAB_MAX_INFO_KEY);
    buf[RMALAB_MAX_INFO_KEY - 1] = last;
    return buf;
}

START_TEST(test_roundtrip_255_key)
{
    char k1[RMALAB_MAX_INFO_KEY + 1], k2[RMALAB_MAX_INFO_KEY + 1];
    char k254[RMALAB_MAX_INFO_KEY + 1];
    rmalab_info *info = tu_info("before", "b", NULL), *back = NULL;
    MPI_Info mi = MPI_INFO_NULL;
    long_key(k1, 'k', 'Z');
    long_key(k2, 'j', '~');
    tu_fill(k254, 'm', RMALAB_MAX_INFO_KEY - 1);
    ck_assert_ok(rmalab_info_set(info, k1, "first long"));
    ck_assert_ok(rmalab_info_set(info, k254, "254"));
    ck_assert_ok(rmalab_info_set(info, k2, "second long"));
    ck_assert_ok(rmalab_info_set(info, "after", "a"));

    ck_assert_ok(rmalab_info_to_mpi(info, &mi));
    assert_same_pairs(mi, info);
    ck_assert_ok(rmalab_info_from_mpi(mi, &back));
    ck_assert_int_eq(tu_nkeys(back), 5);
    ck_assert_str_eq(tu_nthkey(back, 0), "before");
    ck_assert_str_eq(tu_nthkey(back, 1), k1);
    ck_assert_uint_eq(strlen(tu_nthkey(back, 1)), 255);
    ck_assert_str_eq(tu_nthkey(back, 2), k254);
    ck_assert_str_eq(tu_nthkey(back, 3), k2);
    ck_assert_str_eq(tu_nthkey(back, 4), "after");
    ck_assert_pstr_eq(tu_get(back, k1), "first long");
    ck_assert_pstr_eq(tu_get(back, k2), "second long");
    ck_assert_pstr_eq(tu_get(back, k254), "254");
    MPI_Info_free(&mi);
    rmalab_info_destroy(&back);
    rmalab_info_destroy(&info);
}
END_TEST

/* Regression (fixed: core/src/info-mpi.c, add_truncated): when an MPI_Info
 * holds both a 255-character key and its own 254-character prefix as a key,
 * MPICH's nthkey returns the prefix for the long key, recover_long_key sees
 * that the prefix exists and keeps it, and from_mpi reads the prefix twice:
 * the long key is lost (1 key instead of 2). */
START_TEST(test_roundtrip_255_key_and_prefix)
{
    char k255[RMALAB_MAX_INFO_KEY + 1], k254[RMALAB_MAX_INFO_KEY + 1];
    rmalab_info *info = tu_info(NULL), *back = NULL;
    MPI_Info mi = MPI_INFO_NULL;
    long_key(k255, 'p', 'Z');
    memcpy(k254, k255, RMALAB_MAX_INFO_KEY - 1);
    k254[RMALAB_MAX_INFO_KEY - 1] = '\0';
    ck_assert_ok(rmalab_info_set(info, k255, "long"));
    ck_assert_ok(rmalab_info_set(info, k254, "prefix"));
    ck_assert_ok(rmalab_info_to_mpi(info, &mi));
    assert_same_pairs(mi, info);
    ck_assert_ok(rmalab_info_from_mpi(mi, &back));
    ck_assert_int_eq(tu_nkeys(back), 2);
    ck_assert_pstr_eq(tu_get(back, k255), "long");
    ck_assert_pstr_eq(tu_get(back, k254), "prefix");
    /* Both keys come back; MPICH shows them as the same 254 characters, so
     * their relative order cannot be read back (documented in info.h). */
    MPI_Info_free(&mi);
    rmalab_info_destroy(&back);
    rmalab_info_destroy(&info);
}
END_TEST

START_TEST(test_roundtrip_long_values)
{
    static char v1024[RMALAB_MAX_INFO_VAL + 1], v1023[RMALAB_MAX_INFO_VAL + 1];
    rmalab_info *info = tu_info(NULL), *back = NULL;
    MPI_Info mi = MPI_INFO_NULL;
    for (int i = 0; i < RMALAB_MAX_INFO_VAL; i++)
        v1024[i] = (char)('!' + i % 90); /* printable, and every position differs */
    v1024[RMALAB_MAX_INFO_VAL] = '\0';
    memcpy(v1023, v1024 + 1, RMALAB_MAX_INFO_VAL);
    ck_assert_ok(rmalab_info_set(info, "v1024", v1024));
    ck_assert_ok(rmalab_info_set(info, "v1023", v1023));
    ck_assert_ok(rmalab_info_to_mpi(info, &mi));
    assert_same_pairs(mi, info);
    ck_assert_ok(rmalab_info_from_mpi(mi, &back));
    ck_assert_int_eq(tu_nkeys(back), 2);
    ck_assert_uint_eq(strlen(tu_get(back, "v1024")), 1024);
    ck_assert_str_eq(tu_get(back, "v1024"), v1024);
    ck_assert_str_eq(tu_get(back, "v1023"), v1023);
    MPI_Info_free(&mi);
    rmalab_info_destroy(&back);
    rmalab_info_destroy(&info);
}
END_TEST

START_TEST(test_roundtrip_many)
{
    rmalab_info *info = tu_info(NULL), *back = NULL;
    MPI_Info mi = MPI_INFO_NULL;
    char k[32], v[32];
    for (int i = 0; i < 600; i++) {
        snprintf(k, sizeof k, "k%03d", (i * 37) % 600); /* not sorted */
        snprintf(v, sizeof v, "%d", i);
        ck_assert_ok(rmalab_info_set(info, k, v));
    }
    for (int i = 0; i < 600; i += 3) {
        snprintf(k, sizeof k, "k%03d", i);
        ck_assert_ok(rmalab_info_delete(info, k));
    }
    ck_assert_ok(rmalab_info_to_mpi(info, &mi));
    ck_assert_ok(rmalab_info_from_mpi(mi, &back));
    ck_assert_int_eq(tu_nkeys(back), 400);
    for (int i = 0; i < 400; i++) {
        const char *want = tu_nthkey(info, i);
        snprintf(k, sizeof k, "%s", want);
        ck_assert_str_eq(tu_nthkey(back, i), k);
        ck_assert_str_eq(tu_get(back, k), tu_get(info, k));
    }
    MPI_Info_free(&mi);
    rmalab_info_destroy(&back);
    rmalab_info_destroy(&info);
}
END_TEST

START_TEST(test_to_mpi_is_fresh)
{
    rmalab_info *info = tu_info("a", "1", "b", "2", NULL);
    MPI_Info m1 = MPI_INFO_NULL, m2 = MPI_INFO_NULL;
    char buf[16];
    int flag = 0, n = -1;
    ck_assert_ok(rmalab_info_to_mpi(info, &m1));
    ck_assert_ok(rmalab_info_to_mpi(info, &m2));
    ck_assert(m1 != MPI_INFO_NULL && m2 != MPI_INFO_NULL);
    ck_assert(m1 != m2);

    /* Mutating one MPI_Info changes neither ours nor the other. */
    MPI_Info_set(m1, "a", "changed");
    MPI_Info_set(m1, "c", "3");
    MPI_Info_delete(m1, "b");
    ck_assert_int_eq(tu_nkeys(info), 2);
    ck_assert_str_eq(tu_get(info, "a"), "1");
    ck_assert_str_eq(tu_get(info, "b"), "2");
    ck_assert_ptr_null(tu_get(info, "c"));
    MPI_Info_get_nkeys(m2, &n);
    ck_assert_int_eq(n, 2);
    MPI_Info_get(m2, "a", (int)sizeof buf - 1, buf, &flag);
    ck_assert_int_eq(flag, 1);
    ck_assert_str_eq(buf, "1");

    /* And freeing it leaves ours usable. */
    MPI_Info_free(&m1);
    MPI_Info_free(&m2);
    ck_assert_str_eq(tu_get(info, "a"), "1");
    ck_assert_ok(rmalab_info_to_mpi(info, &m1));
    assert_same_pairs(m1, info);
    MPI_Info_free(&m1);

    /* from_mpi does not alias the MPI_Info either. */
    rmalab_info *back = NULL;
    ck_assert_ok(rmalab_info_to_mpi(info, &m1));
    ck_assert_ok(rmalab_info_from_mpi(m1, &back));
    MPI_Info_set(m1, "a", "later");
    MPI_Info_free(&m1);
    ck_assert_str_eq(tu_get(back, "a"), "1");
    rmalab_info_destroy(&back);
    rmalab_info_destroy(&info);
}
END_TEST

START_TEST(test_error_handlers_restored)
{
    rmalab_info *info = tu_info("k", "v", NULL), *back = NULL;
    MPI_Info mi = MPI_INFO_NULL;
    MPI_Errhandler eh;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    ck_assert_ok(rmalab_info_to_mpi(info, &mi));
    ck_assert_ok(rmalab_info_from_mpi(mi, &back));
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    ck_assert(eh == MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&eh);
    MPI_Comm_get_errhandler(MPI_COMM_SELF, &eh);
    ck_assert(eh == MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&eh);

    /* A caller's MPI_ERRORS_RETURN is kept as well. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rmalab_info_destroy(&back);
    ck_assert_ok(rmalab_info_from_mpi(mi, &back));
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    ck_assert(eh == MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Info_free(&mi);
    rmalab_info_destroy(&back);
    rmalab_info_destroy(&info);
}
END_TEST

START_TEST(test_info_env)
{
    rmalab_info *env = NULL;
    int n = -1, size = 0, level = -1;
    char cwd[RMALAB_MAX_INFO_VAL + 1], procs[16];
    ck_assert_ok(rmalab_info_env(&env));
    ck_assert_ptr_nonnull(env);
    /* Every pair of MPI_INFO_ENV is there, as MPI gives it. */
    ck_assert_int_eq(MPI_Info_get_nkeys(MPI_INFO_ENV, &n), MPI_SUCCESS);
    ck_assert_int_ge(tu_nkeys(env), n);
    for (int i = 0; i < n; i++) {
        char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        MPI_Info_get_nthkey(MPI_INFO_ENV, i, key);
        MPI_Info_get(MPI_INFO_ENV, key, MPI_MAX_INFO_VAL, val, &flag);
        ck_assert_int_eq(flag, 1);
        ck_assert_pstr_eq(tu_get(env, key), val);
    }
    /* MPICH 4.0.2 reports nothing, and rmalab completes the standard keys
     * the process can tell about itself. Only standard keys appear. */
    static const char *const std_keys[] = {"command", "argv",  "maxprocs", "soft", "host",
                                           "arch",    "wdir",  "file",     "thread_level"};
    for (int i = 0; i < tu_nkeys(env); i++) {
        const char *k = tu_nthkey(env, i);
        int flag = 0, len;
        MPI_Info_get_valuelen(MPI_INFO_ENV, k, &len, &flag);
        int known = flag;
        for (size_t j = 0; j < sizeof std_keys / sizeof std_keys[0]; j++)
            known |= strcmp(k, std_keys[j]) == 0;
        ck_assert_msg(known, "MPI_INFO_ENV has no key %s", k);
    }
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    snprintf(procs, sizeof procs, "%d", size);
    MPI_Query_thread(&level);
    ck_assert_int_eq(level, MPI_THREAD_SINGLE); /* MPI_Init */
    ck_assert_pstr_eq(tu_get(env, "maxprocs"), procs);
    ck_assert_pstr_eq(tu_get(env, "thread_level"), "MPI_THREAD_SINGLE");
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    ck_assert_pstr_eq(tu_get(env, "wdir"), cwd);
    ck_assert_ptr_nonnull(tu_get(env, "command"));
    ck_assert_contains(tu_get(env, "command"), "test-core-mpi");
    rmalab_info_destroy(&env);
    /* thread_level is the level requested, as the standard defines the
     * key, once the initialiser has said what it asked for: here a level
     * other than the one MPI provides. */
    rmalab_info_env_thread_requested(MPI_THREAD_FUNNELED);
    ck_assert_ok(rmalab_info_env(&env));
    ck_assert_pstr_eq(tu_get(env, "thread_level"), "MPI_THREAD_FUNNELED");
    rmalab_info_destroy(&env);
    rmalab_info_env_thread_requested(-1);
}
END_TEST

START_TEST(test_from_mpich_comm_info)
{
    /* An info MPICH wrote itself reads back whole. */
    MPI_Info mi = MPI_INFO_NULL;
    rmalab_info *info = NULL;
    int n = -1;
    ck_assert_int_eq(MPI_Comm_get_info(MPI_COMM_WORLD, &mi), MPI_SUCCESS);
    MPI_Info_get_nkeys(mi, &n);
    ck_assert_ok(rmalab_info_from_mpi(mi, &info));
    ck_assert_int_eq(tu_nkeys(info), n);
    ck_assert_int_gt(n, 0);
    assert_same_pairs(mi, info);
    MPI_Info_free(&mi);
    rmalab_info_destroy(&info);
}
END_TEST

Suite *info_mpi_suite(void)
{
    Suite *s = suite_create("info-mpi");
    TCase *tc = tcase_create("convert");
    tcase_add_test(tc, test_roundtrip);
    tcase_add_test(tc, test_roundtrip_empty_and_null);
    tcase_add_test(tc, test_roundtrip_255_key);
    tcase_add_test(tc, test_roundtrip_255_key_and_prefix);
    tcase_add_test(tc, test_roundtrip_long_values);
    tcase_add_test(tc, test_roundtrip_many);
    tcase_add_test(tc, test_to_mpi_is_fresh);
    tcase_add_test(tc, test_error_handlers_restored);
    suite_add_tcase(s, tc);

    tc = tcase_create("env");
    tcase_add_test(tc, test_info_env);
    tcase_add_test(tc, test_from_mpich_comm_info);
    suite_add_tcase(s, tc);
    return s;
}
