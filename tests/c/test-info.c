/* The "info" suite: the semantics of rmalab info objects (core/src/info.c)
 * against the MPI standard's chapter "The Info Object" and MPICH 4.0.2 --
 * order, overriding, the length limits and their error classes, the get
 * family's truncation rules, the typed readers, the status names and
 * messages, and a stress of many keys with deletes. None of it calls
 * MPI_Init: the suite runs in test-core-nompi to prove that the info object
 * works without MPI. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include <rmalab/debug.h>

/* ------------------------------------------------------------------------ */
/* Life cycle, order and overriding                                         */

START_TEST(test_create_destroy)
{
    rmalab_info *info = NULL;
    ck_assert_ok(rmalab_info_create(&info));
    ck_assert_ptr_nonnull(info);
    ck_assert_int_eq(tu_nkeys(info), 0);
    rmalab_info_destroy(&info);
    ck_assert_ptr_null(info); /* the caller's handle is cleared */
    rmalab_info_destroy(&info); /* a NULL handle */
    rmalab_info_destroy(NULL);
    ck_assert_rc(rmalab_info_create(NULL), RMALAB_ERR_ARG);
}
END_TEST

START_TEST(test_null_arguments)
{
    rmalab_info *info = tu_info(NULL), *copy = NULL;
    int n = 0;
    ck_assert_rc(rmalab_info_set(NULL, "k", "v"), RMALAB_ERR_INFO);
    ck_assert_rc(rmalab_info_set(info, NULL, "v"), RMALAB_ERR_INFO_KEY);
    ck_assert_rc(rmalab_info_set(info, "k", NULL), RMALAB_ERR_INFO_VALUE);
    ck_assert_rc(rmalab_info_delete(NULL, "k"), RMALAB_ERR_INFO);
    ck_assert_rc(rmalab_info_delete(info, NULL), RMALAB_ERR_INFO_KEY);
    ck_assert_rc(rmalab_info_dup(NULL, &copy), RMALAB_ERR_INFO);
    ck_assert_rc(rmalab_info_get_nkeys(NULL, &n), RMALAB_ERR_INFO);
    ck_assert_ptr_null(rmalab_info_lookup(NULL, "k", 1, NULL));
    ck_assert_int_eq(tu_nkeys(info), 0);
    rmalab_info_destroy(&info);
}
END_TEST

START_TEST(test_insertion_order)
{
    rmalab_info *info = tu_info("zeta", "1", "alpha", "2", "mid", "3", NULL);
    ck_assert_int_eq(tu_nkeys(info), 3);
    ck_assert_str_eq(tu_nthkey(info, 0), "zeta");
    ck_assert_str_eq(tu_nthkey(info, 1), "alpha");
    ck_assert_str_eq(tu_nthkey(info, 2), "mid");
    rmalab_info_destroy(&info);
}
END_TEST

START_TEST(test_override_keeps_position)
{
    rmalab_info *info = tu_info("a", "1", "b", "2", "c", "3", NULL);
    ck_assert_ok(rmalab_info_set(info, "a", "changed"));
    ck_assert_ok(rmalab_info_set(info, "b", ""));
    ck_assert_int_eq(tu_nkeys(info), 3);
    ck_assert_str_eq(tu_nthkey(info, 0), "a");
    ck_assert_str_eq(tu_nthkey(info, 1), "b");
    ck_assert_str_eq(tu_nthkey(info, 2), "c");
    ck_assert_str_eq(tu_get(info, "a"), "changed");
    ck_assert_str_eq(tu_get(info, "b"), "");
    ck_assert_str_eq(tu_get(info, "c"), "3");
    rmalab_info_destroy(&info);
}
END_TEST

START_TEST(test_dup)
{
    rmalab_info *info = tu_info("k1", "v1", "gone", "x", "k2", "v2", "k3", "v3", NULL);
    rmalab_info *copy = NULL;
    ck_assert_ok(rmalab_info_delete(info, "gone")); /* a dead entry to skip */
    ck_assert_ok(rmalab_info_dup(info, &copy));
    ck_assert_ptr_nonnull(copy);
    ck_assert_ptr_ne(copy, info);
    ck_assert_int_eq(tu_nkeys(copy), 3);
    ck_assert_str_eq(tu_nthkey(copy, 0), "k1");
    ck_assert_str_eq(tu_nthkey(copy, 1), "k2");
    ck_assert_str_eq(tu_nthkey(copy, 2), "k3");
    ck_assert_str_eq(tu_get(copy, "k1"), "v1");
    ck_assert_str_eq(tu_get(copy, "k2"), "v2");
    ck_assert_str_eq(tu_get(copy, "k3"), "v3");
    ck_assert_ptr_null(tu_get(copy, "gone"));

    /* The two are independent. */
    ck_assert_ok(rmalab_info_set(copy, "k1", "new"));
    ck_assert_ok(rmalab_info_set(copy, "k4", "v4"));
    ck_assert_ok(rmalab_info_delete(copy, "k2"));
    ck_assert_int_eq(tu_nkeys(info), 3);
    ck_assert_str_eq(tu_get(info, "k1"), "v1");
    ck_assert_str_eq(tu_get(info, "k2"), "v2");
    ck_assert_ptr_null(tu_get(info, "k4"));

    rmalab_info *empty = tu_info(NULL), *empty_copy = NULL;
    ck_assert_ok(rmalab_info_dup(empty, &empty_copy));
    ck_assert_int_eq(tu_nkeys(empty_copy), 0);
    rmalab_info_destroy(&empty_copy);
    rmalab_info_destroy(&empty);
    rmalab_info_destroy(&copy);
    rmalab_info_destroy(&info);
}
END_TEST

START_TEST(test_nthkey_range)
{
    rmalab_info *info = tu_info(NULL);
    char key[RMALAB_MAX_INFO_KEY + 1] = "untouched";
    ck_assert_rc(rmalab_info_get_nthkey(info, 0, key), RMALAB_ERR_ARG);
    ck_assert_ok(rmalab_info_set(info, "first", "1"));
    ck_assert_ok(rmalab_info_set(info, "second", "2"));
    ck_assert_ok(rmalab_info_get_nthkey(info, 0, key));
    ck_assert_str_eq(key, "first");
    ck_assert_ok(rmalab_info_get_nthkey(info, 1, key));
    ck_assert_str_eq(key, "second");
    strcpy(key, "untouched");
    ck_assert_rc(rmalab_info_get_nthkey(info, 2, key), RMALAB_ERR_ARG);
    ck_assert_contains(rmalab_errmsg(), "2 keys");
    ck_assert_rc(rmalab_info_get_nthkey(info, -1, key), RMALAB_ERR_ARG);
    ck_assert_rc(rmalab_info_get_nthkey(info, INT_MAX, key), RMALAB_ERR_ARG);
    ck_assert_str_eq(key, "untouched");

    const char *k, *v;
    size_t kl, vl;
    ck_assert_ok(rmalab_info_nth(info, 1, &k, &kl, &v, &vl));
    ck_assert_str_eq(k, "second");
    ck_assert_uint_eq(kl, 6);
    ck_assert_str_eq(v, "2");
    ck_assert_uint_eq(vl, 1);
    ck_assert_rc(rmalab_info_nth(info, 2, &k, &kl, &v, &vl), RMALAB_ERR_ARG);
    rmalab_info_destroy(&info);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Limits and forbidden bytes                                               */

START_TEST(test_key_length_limits)
{
    char k255[RMALAB_MAX_INFO_KEY + 1], k256[RMALAB_MAX_INFO_KEY + 2];
    char back[RMALAB_MAX_INFO_KEY + 1];
    rmalab_info *info = tu_info(NULL);
    int flag = -1;
    char val[8];

    ck_assert_int_eq(RMALAB_MAX_INFO_KEY, 255);
    tu_fill(k255, 'k', 255);
    tu_fill(k256, 'k', 256);

    ck_assert_ok(rmalab_info_set(info, k255, "long"));
    ck_assert_ok(rmalab_info_get_nthkey(info, 0, back));
    ck_assert_uint_eq(strlen(back), 255);
    ck_assert_str_eq(back, k255);
    ck_assert_str_eq(tu_get(info, k255), "long");

    ck_assert_rc(rmalab_info_set(info, k256, "x"), RMALAB_ERR_INFO_KEY);
    ck_assert_contains(rmalab_errmsg(), "255");
    ck_assert_contains(rmalab_errmsg(), "256");
    ck_assert_rc(rmalab_info_set(info, "", "x"), RMALAB_ERR_INFO_KEY);
    ck_assert_contains(rmalab_errmsg(), "empty");
    ck_assert_rc(rmalab_info_set_n(info, "abc", 0, "x", 1), RMALAB_ERR_INFO_KEY);

    /* The readers and delete apply the same rules to the key. */
    ck_assert_rc(rmalab_info_get(info, k256, 7, val, &flag), RMALAB_ERR_INFO_KEY);
    ck_assert_rc(rmalab_info_get(info, "", 7, val, &flag), RMALAB_ERR_INFO_KEY);
    ck_assert_rc(rmalab_info_delete(info, k256), RMALAB_ERR_INFO_KEY);
    ck_assert_rc(rmalab_info_delete(info, ""), RMALAB_ERR_INFO_KEY);

    ck_assert_int_eq(tu_nkeys(info), 1);
    ck_assert_ok(rmalab_info_delete(info, k255));
    ck_assert_int_eq(tu_nkeys(info), 0);
    rmalab_info_destroy(&info);
}
END_TEST

START_TEST(test_value_length_limits)
{
    static char v1024[RMALAB_MAX_INFO_VAL + 1], v1025[RMALAB_MAX_INFO_VAL + 2];
    rmalab_info *info = tu_info(NULL);
    int len = -1, flag = -1;

    ck_assert_int_eq(RMALAB_MAX_INFO_VAL, 1024);
    tu_fill(v1024, 'v', 1024);
    tu_fill(v1025, 'v', 1025);
    ck_assert_ok(rmalab_info_set(info, "big", v1024));
    ck_assert_ok(rmalab_info_get_valuelen(info, "big", &len, &flag));
    ck_assert_int_eq(flag, 1);
    ck_assert_int_eq(len, 1024);
    ck_assert_str_eq(tu_get(info, "big"), v1024);

    ck_assert_rc(rmalab_info_set(info, "bigger", v1025), RMALAB_ERR_INFO_VALUE);
    ck_assert_contains(rmalab_errmsg(), "1024");
    ck_assert_rc(rmalab_info_set(info, "big", v1025), RMALAB_ERR_INFO_VALUE);
    ck_assert_str_eq(tu_get(info, "big"), v1024); /* not overridden */
    ck_assert_ptr_null(tu_get(info, "bigger"));

    ck_assert_ok(rmalab_info_set(info, "empty", ""));
    ck_assert_ok(rmalab_info_get_valuelen(info, "empty", &len, &flag));
    ck_assert_int_eq(flag, 1);
    ck_assert_int_eq(len, 0);
    ck_assert_int_eq(tu_nkeys(info), 2);
    rmalab_info_destroy(&info);
}
END_TEST

START_TEST(test_nul_bytes_rejected)
{
    rmalab_info *info = tu_info(NULL);
    ck_assert_rc(rmalab_info_set_n(info, "ab\0cd", 5, "v", 1), RMALAB_ERR_INFO_KEY);
    ck_assert_contains(rmalab_errmsg(), "NUL");
    ck_assert_rc(rmalab_info_set_n(info, "key", 3, "x\0y", 3), RMALAB_ERR_INFO_VALUE);
    ck_assert_contains(rmalab_errmsg(), "NUL");
    ck_assert_rc(rmalab_info_delete_n(info, "ab\0cd", 5), RMALAB_ERR_INFO_KEY);
    ck_assert_int_eq(tu_nkeys(info), 0);
    ck_assert_ptr_null(tu_get(info, "ab"));
    ck_assert_ptr_null(tu_get(info, "key"));

    /* Explicit lengths take a prefix of text that is not NUL-terminated. */
    ck_assert_ok(rmalab_info_set_n(info, "keyXYZ", 3, "valueXYZ", 5));
    ck_assert_str_eq(tu_get(info, "key"), "value");
    ck_assert_ok(rmalab_info_delete_n(info, "keyXYZ", 3));
    ck_assert_int_eq(tu_nkeys(info), 0);
    rmalab_info_destroy(&info);
}
END_TEST

START_TEST(test_delete_absent)
{
    rmalab_info *info = tu_info("present", "1", NULL);
    ck_assert_rc(rmalab_info_delete(info, "absent"), RMALAB_ERR_INFO_NOKEY);
    ck_assert_contains(rmalab_errmsg(), "absent");
    ck_assert_ok(rmalab_info_delete(info, "present"));
    ck_assert_rc(rmalab_info_delete(info, "present"), RMALAB_ERR_INFO_NOKEY);
    ck_assert_int_eq(tu_nkeys(info), 0);
    rmalab_info_destroy(&info);
}
END_TEST

START_TEST(test_case_sensitive)
{
    rmalab_info *info = tu_info("Key", "upper", "key", "lower", NULL);
    ck_assert_int_eq(tu_nkeys(info), 2);
    ck_assert_str_eq(tu_get(info, "Key"), "upper");
    ck_assert_str_eq(tu_get(info, "key"), "lower");
    ck_assert_ptr_null(tu_get(info, "KEY"));
    ck_assert_rc(rmalab_info_delete(info, "KEY"), RMALAB_ERR_INFO_NOKEY);
    ck_assert_ok(rmalab_info_delete(info, "key"));
    ck_assert_str_eq(tu_get(info, "Key"), "upper");
    rmalab_info_destroy(&info);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* The get family                                                           */

START_TEST(test_get_truncation)
{
    rmalab_info *info = tu_info("greeting", "hello", NULL);
    char buf[16];
    int flag = -1;

    memset(buf, '#', sizeof buf);
    ck_assert_ok(rmalab_info_get(info, "greeting", 3, buf, &flag));
    ck_assert_int_eq(flag, 1);
    ck_assert_mem_eq(buf, "hel\0#", 5); /* valuelen characters, a NUL, no more */

    memset(buf, '#', sizeof buf);
    ck_assert_ok(rmalab_info_get(info, "greeting", 5, buf, &flag));
    ck_assert_mem_eq(buf, "hello\0#", 7);

    memset(buf, '#', sizeof buf);
    ck_assert_ok(rmalab_info_get(info, "greeting", 15, buf, &flag));
    ck_assert_mem_eq(buf, "hello\0#", 7);

    memset(buf, '#', sizeof buf);
    ck_assert_ok(rmalab_info_get(info, "greeting", 0, buf, &flag));
    ck_assert_mem_eq(buf, "\0#", 2);

    memset(buf, '#', sizeof buf);
    flag = -1;
    ck_assert_ok(rmalab_info_get(info, "absent", 15, buf, &flag));
    ck_assert_int_eq(flag, 0);
    ck_assert_mem_eq(buf, "####", 4); /* untouched */

    ck_assert_rc(rmalab_info_get(info, "greeting", -1, buf, &flag), RMALAB_ERR_ARG);
    ck_assert_rc(rmalab_info_get(NULL, "greeting", 15, buf, &flag), RMALAB_ERR_INFO);
    rmalab_info_destroy(&info);
}
END_TEST

START_TEST(test_get_valuelen)
{
    rmalab_info *info = tu_info("k", "four", NULL);
    int len = -7, flag = -1;
    ck_assert_ok(rmalab_info_get_valuelen(info, "k", &len, &flag));
    ck_assert_int_eq(flag, 1);
    ck_assert_int_eq(len, 4);
    len = -7;
    ck_assert_ok(rmalab_info_get_valuelen(info, "nope", &len, &flag));
    ck_assert_int_eq(flag, 0);
    ck_assert_int_eq(len, -7);
    rmalab_info_destroy(&info);
}
END_TEST

START_TEST(test_get_string)
{
    rmalab_info *info = tu_info("greeting", "hello", "empty", "", NULL);
    char buf[16];
    int buflen, flag = -1;

    memset(buf, '#', sizeof buf);
    buflen = (int)sizeof buf;
    ck_assert_ok(rmalab_info_get_string(info, "greeting", &buflen, buf, &flag));
    ck_assert_int_eq(flag, 1);
    ck_assert_int_eq(buflen, 6);
    ck_assert_mem_eq(buf, "hello\0#", 7);

    /* Exactly the size needed. */
    memset(buf, '#', sizeof buf);
    buflen = 6;
    ck_assert_ok(rmalab_info_get_string(info, "greeting", &buflen, buf, &flag));
    ck_assert_int_eq(buflen, 6);
    ck_assert_mem_eq(buf, "hello\0#", 7);

    /* Too small: buflen - 1 characters and a NUL. */
    memset(buf, '#', sizeof buf);
    buflen = 3;
    ck_assert_ok(rmalab_info_get_string(info, "greeting", &buflen, buf, &flag));
    ck_assert_int_eq(flag, 1);
    ck_assert_int_eq(buflen, 6);
    ck_assert_mem_eq(buf, "he\0#", 4);

    memset(buf, '#', sizeof buf);
    buflen = 1;
    ck_assert_ok(rmalab_info_get_string(info, "greeting", &buflen, buf, &flag));
    ck_assert_int_eq(buflen, 6);
    ck_assert_mem_eq(buf, "\0#", 2);

    /* buflen 0 asks for the size only; value may even be NULL. */
    memset(buf, '#', sizeof buf);
    buflen = 0;
    ck_assert_ok(rmalab_info_get_string(info, "greeting", &buflen, buf, &flag));
    ck_assert_int_eq(flag, 1);
    ck_assert_int_eq(buflen, 6);
    ck_assert_mem_eq(buf, "####", 4);
    buflen = 0;
    ck_assert_ok(rmalab_info_get_string(info, "greeting", &buflen, NULL, &flag));
    ck_assert_int_eq(buflen, 6);

    buflen = (int)sizeof buf;
    ck_assert_ok(rmalab_info_get_string(info, "empty", &buflen, buf, &flag));
    ck_assert_int_eq(flag, 1);
    ck_assert_int_eq(buflen, 1);
    ck_assert_str_eq(buf, "");

    memset(buf, '#', sizeof buf);
    buflen = (int)sizeof buf;
    ck_assert_ok(rmalab_info_get_string(info, "absent", &buflen, buf, &flag));
    ck_assert_int_eq(flag, 0);
    ck_assert_int_eq(buflen, (int)sizeof buf); /* an absent key leaves buflen alone */
    ck_assert_mem_eq(buf, "####", 4);

    buflen = -1;
    ck_assert_rc(rmalab_info_get_string(info, "greeting", &buflen, buf, &flag), RMALAB_ERR_ARG);
    ck_assert_rc(rmalab_info_get_string(info, "greeting", NULL, buf, &flag), RMALAB_ERR_ARG);
    rmalab_info_destroy(&info);
}
END_TEST

START_TEST(test_lookup_zero_copy)
{
    rmalab_info *info = tu_info("k", "value", NULL);
    size_t vlen = 0;
    const char *v = rmalab_info_lookup(info, "kXX", 1, &vlen);
    ck_assert_ptr_nonnull(v);
    ck_assert_str_eq(v, "value");
    ck_assert_uint_eq(vlen, 5);
    ck_assert_ptr_null(rmalab_info_lookup(info, "kX", 2, &vlen));
    ck_assert_ptr_null(rmalab_info_lookup(info, NULL, 0, &vlen));
    rmalab_info_destroy(&info);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Typed readers                                                            */

static const struct {
    const char *text;
    int ok;
    bool value;
} bool_cases[] = {
    {"true", 1, true},   {"false", 1, false}, {" true ", 1, true}, {"\tfalse\n", 1, false},
    {"TRUE", 0, false},  {"True", 0, false},  {"yes", 0, false},   {"1", 0, false},
    {"", 0, false},      {"tru", 0, false},   {"truex", 0, false}, {"true false", 0, false},
};

START_TEST(test_get_bool)
{
    const char *text = bool_cases[_i].text;
    rmalab_info *info = tu_info("b", text, NULL);
    bool value = !bool_cases[_i].value; /* so that a missing write shows */
    int flag = -1;
    int rc = rmalab_info_get_bool(info, "b", &value, &flag);
    if (bool_cases[_i].ok) {
        ck_assert_msg(rc == RMALAB_OK, "\"%s\": %s (%s)", text, rmalab_err_name(rc),
                      rmalab_errmsg());
        ck_assert_int_eq(flag, 1);
        ck_assert_msg(value == bool_cases[_i].value, "\"%s\" read as %d", text, value);
    } else {
        ck_assert_msg(rc == RMALAB_ERR_ARG, "\"%s\" was accepted as a boolean", text);
        ck_assert_int_eq(flag, 0);
        ck_assert_contains(rmalab_errmsg(), "\"b\"");
        ck_assert_contains(rmalab_errmsg(), "boolean");
        ck_assert_msg(value == !bool_cases[_i].value, "value written on error");
    }
    rmalab_info_destroy(&info);
}
END_TEST

START_TEST(test_get_bool_absent)
{
    rmalab_info *info = tu_info("other", "garbage", NULL);
    bool value = true;
    int flag = -1;
    ck_assert_ok(rmalab_info_get_bool(info, "b", &value, &flag));
    ck_assert_int_eq(flag, 0);
    ck_assert(value == true);
    ck_assert_rc(rmalab_info_get_bool(info, "other", &value, &flag), RMALAB_ERR_ARG);
    ck_assert_contains(rmalab_errmsg(), "\"garbage\"");
    rmalab_info_destroy(&info);
}
END_TEST

static const struct {
    const char *text;
    int ok;
    int value;
} int_cases[] = {
    {"42", 1, 42},
    {"+42", 1, 42},
    {"-7", 1, -7},
    {" 12 ", 1, 12},
    {"0", 1, 0},
    {"007", 1, 7},
    {"2147483647", 1, INT_MAX},
    {"-2147483648", 1, INT_MIN},
    {"2147483648", 0, 0},
    {"-2147483649", 0, 0},
    {"99999999999999999999", 0, 0},
    {"+ 4", 0, 0},
    {"4x", 0, 0},
    {"4 2", 0, 0},
    {"", 0, 0},
    {"  ", 0, 0},
    {"+", 0, 0},
    {"-", 0, 0},
    {"0x10", 0, 0},
    {"1e3", 0, 0},
    {"--1", 0, 0},
};

START_TEST(test_get_int)
{
    const char *text = int_cases[_i].text;
    rmalab_info *info = tu_info("n", text, NULL);
    int value = 12345, flag = -1;
    int rc = rmalab_info_get_int(info, "n", &value, &flag);
    if (int_cases[_i].ok) {
        ck_assert_msg(rc == RMALAB_OK, "\"%s\": %s (%s)", text, rmalab_err_name(rc),
                      rmalab_errmsg());
        ck_assert_int_eq(flag, 1);
        ck_assert_int_eq(value, int_cases[_i].value);
    } else {
        ck_assert_msg(rc == RMALAB_ERR_ARG, "\"%s\" was accepted as the integer %d", text,
                      value);
        ck_assert_int_eq(flag, 0);
        ck_assert_int_eq(value, 12345);
        ck_assert_contains(rmalab_errmsg(), "\"n\"");
    }
    rmalab_info_destroy(&info);
}
END_TEST

START_TEST(test_get_int_absent)
{
    rmalab_info *info = tu_info(NULL);
    int value = 5, flag = -1;
    ck_assert_ok(rmalab_info_get_int(info, "n", &value, &flag));
    ck_assert_int_eq(flag, 0);
    ck_assert_int_eq(value, 5);
    ck_assert_ok(rmalab_info_set(info, "n", "2147483648"));
    ck_assert_rc(rmalab_info_get_int(info, "n", &value, &flag), RMALAB_ERR_ARG);
    ck_assert_contains(rmalab_errmsg(), "2147483647");
    rmalab_info_destroy(&info);
}
END_TEST

START_TEST(test_get_list)
{
    rmalab_info *info = tu_info("l", "a, b ,c", "one", "  solo  ", "bad", "a,,b",
                                "trailing", "a,b,", "empty", "", NULL);
    char **items = NULL;
    int count = -1, flag = -1;

    ck_assert_ok(rmalab_info_get_list(info, "l", &items, &count, &flag));
    ck_assert_int_eq(flag, 1);
    ck_assert_int_eq(count, 3);
    ck_assert_str_eq(items[0], "a");
    ck_assert_str_eq(items[1], "b");
    ck_assert_str_eq(items[2], "c");
    rmalab_list_free(items, count);

    ck_assert_ok(rmalab_info_get_list(info, "one", &items, &count, &flag));
    ck_assert_int_eq(count, 1);
    ck_assert_str_eq(items[0], "solo");
    rmalab_list_free(items, count);

    ck_assert_ok(rmalab_info_get_list(info, "empty", &items, &count, &flag));
    ck_assert_int_eq(flag, 1);
    ck_assert_int_eq(count, 0);
    rmalab_list_free(items, count);

    flag = -1;
    ck_assert_rc(rmalab_info_get_list(info, "bad", &items, &count, &flag), RMALAB_ERR_ARG);
    ck_assert_int_eq(flag, 0);
    ck_assert_contains(rmalab_errmsg(), "\"bad\"");
    ck_assert_contains(rmalab_errmsg(), "element 2 is empty");
    ck_assert_rc(rmalab_info_get_list(info, "trailing", &items, &count, &flag), RMALAB_ERR_ARG);
    ck_assert_contains(rmalab_errmsg(), "element 3 is empty");

    flag = -1;
    ck_assert_ok(rmalab_info_get_list(info, "absent", &items, &count, &flag));
    ck_assert_int_eq(flag, 0);
    rmalab_list_free(NULL, 0);
    rmalab_info_destroy(&info);
}
END_TEST

START_TEST(test_parse_raw)
{
    int v = 0;
    bool b = false;
    char **items = NULL;
    int count = 0;
    /* The parsers honour the length and need no NUL. */
    ck_assert_ok(rmalab_parse_int("123456", 3, &v));
    ck_assert_int_eq(v, 123);
    ck_assert_ok(rmalab_parse_bool("truest", 4, &b));
    ck_assert(b);
    ck_assert_rc(rmalab_parse_bool("truest", 5, &b), RMALAB_ERR_ARG);
    ck_assert_ok(rmalab_parse_list("x,y,z", 3, &items, &count));
    ck_assert_int_eq(count, 2);
    ck_assert_str_eq(items[0], "x");
    ck_assert_str_eq(items[1], "y");
    rmalab_list_free(items, count);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Status names and messages                                                */

START_TEST(test_error_names)
{
    ck_assert_str_eq(rmalab_err_name(RMALAB_OK), "SUCCESS");
    ck_assert_str_eq(rmalab_err_name(RMALAB_ERR_ARG), "ERR_ARG");
    ck_assert_str_eq(rmalab_err_name(RMALAB_ERR_INFO_KEY), "ERR_INFO_KEY");
    ck_assert_str_eq(rmalab_err_name(RMALAB_ERR_INFO_VALUE), "ERR_INFO_VALUE");
    ck_assert_str_eq(rmalab_err_name(RMALAB_ERR_INFO_NOKEY), "ERR_INFO_NOKEY");
    ck_assert_str_eq(rmalab_err_name(RMALAB_ERR_INFO), "ERR_INFO");
    ck_assert_str_eq(rmalab_err_name(RMALAB_ERR_OTHER), "ERR_OTHER");
    ck_assert_str_eq(rmalab_err_name(-1), "ERR_UNKNOWN");
    ck_assert_str_eq(rmalab_err_name(RMALAB_ERR_LASTCODE), "ERR_UNKNOWN");
    ck_assert_str_eq(rmalab_strerror(RMALAB_ERR_INFO_NOKEY), "info key not defined");
    ck_assert_str_eq(rmalab_strerror(RMALAB_ERR_INFO_KEY), "invalid info key");
    ck_assert_str_eq(rmalab_strerror(-1), "unknown error code");
    for (int c = RMALAB_OK; c < RMALAB_ERR_LASTCODE; c++) {
        const char *name = rmalab_err_name(c), *msg = rmalab_strerror(c);
        ck_assert_msg(c == RMALAB_OK || strncmp(name, "ERR_", 4) == 0, "code %d is %s", c, name);
        ck_assert_msg(msg && msg[0], "code %d has no message", c);
        for (int d = RMALAB_OK; d < c; d++)
            ck_assert_msg(strcmp(name, rmalab_err_name(d)) != 0, "%s named twice", name);
    }
}
END_TEST

START_TEST(test_error_messages)
{
    char k256[RMALAB_MAX_INFO_KEY + 2];
    static char v1025[RMALAB_MAX_INFO_VAL + 2];
    rmalab_info *info = tu_info(NULL);
    ck_assert_ptr_nonnull(rmalab_errmsg());

    ck_assert_rc(rmalab_info_set(info, tu_fill(k256, 'q', 256), "v"), RMALAB_ERR_INFO_KEY);
    ck_assert_contains(rmalab_errmsg(), "MPI_MAX_INFO_KEY (255)");
    ck_assert_rc(rmalab_info_set(info, "k", tu_fill(v1025, 'w', 1025)), RMALAB_ERR_INFO_VALUE);
    ck_assert_contains(rmalab_errmsg(), "MPI_MAX_INFO_VAL (1024)");
    ck_assert_rc(rmalab_info_delete(info, "missing_key"), RMALAB_ERR_INFO_NOKEY);
    ck_assert_contains(rmalab_errmsg(), "\"missing_key\"");
    ck_assert_contains(rmalab_errmsg(), "not set");
    /* The message stays until the next failure, success does not clear it. */
    ck_assert_ok(rmalab_info_set(info, "k", "v"));
    ck_assert_contains(rmalab_errmsg(), "\"missing_key\"");
    rmalab_info_destroy(&info);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Many keys                                                                */

#define MANY 10000

static void many_key(char *buf, int i)
{
    snprintf(buf, 32, "key-%05d", i);
}

static void many_val(char *buf, int i)
{
    snprintf(buf, 32, "value %d", i * 7);
}

START_TEST(test_many_keys)
{
    rmalab_info *info = tu_info(NULL);
    char k[32], v[32], got[64];
    int flag;

    for (int i = 0; i < MANY; i++) {
        many_key(k, i);
        many_val(v, i);
        ck_assert_ok(rmalab_info_set(info, k, v));
    }
    ck_assert_int_eq(tu_nkeys(info), MANY);
    for (int i = 0; i < MANY; i++) {
        many_key(k, i);
        many_val(v, i);
        ck_assert_str_eq(tu_nthkey(info, i), k);
        ck_assert_ptr_nonnull(tu_get(info, k));
        ck_assert_str_eq(tu_get(info, k), v);
    }
    for (int i = 1; i < MANY; i += 2) {
        many_key(k, i);
        ck_assert_ok(rmalab_info_delete(info, k));
    }
    ck_assert_int_eq(tu_nkeys(info), MANY / 2);
    for (int j = 0; j < MANY / 2; j++) {
        many_key(k, 2 * j);
        ck_assert_str_eq(tu_nthkey(info, j), k);
    }
    ck_assert_rc(rmalab_info_get_nthkey(info, MANY / 2, got), RMALAB_ERR_ARG);
    for (int i = 0; i < MANY; i++) {
        many_key(k, i);
        many_val(v, i);
        flag = -1;
        ck_assert_ok(rmalab_info_get(info, k, (int)sizeof got - 1, got, &flag));
        if (i % 2) {
            ck_assert_msg(flag == 0, "deleted %s is still found", k);
            ck_assert_rc(rmalab_info_delete(info, k), RMALAB_ERR_INFO_NOKEY);
        } else {
            ck_assert_msg(flag == 1, "%s is lost", k);
            ck_assert_str_eq(got, v);
        }
    }
    /* Deleted keys come back at the end, in the order set again. */
    many_key(k, 3);
    ck_assert_ok(rmalab_info_set(info, k, "back"));
    many_key(k, 1);
    ck_assert_ok(rmalab_info_set(info, k, "back too"));
    ck_assert_int_eq(tu_nkeys(info), MANY / 2 + 2);
    ck_assert_str_eq(tu_nthkey(info, MANY / 2), "key-00003");
    ck_assert_str_eq(tu_nthkey(info, MANY / 2 + 1), "key-00001");
    ck_assert_str_eq(tu_get(info, "key-00001"), "back too");
    ck_assert_str_eq(tu_get(info, "key-00000"), "value 0");

    /* Delete all but the last: the store compacts and lookups stay right. */
    for (int i = 0; i < MANY - 2; i += 2) {
        many_key(k, i);
        ck_assert_ok(rmalab_info_delete(info, k));
    }
    ck_assert_int_eq(tu_nkeys(info), 3);
    ck_assert_str_eq(tu_nthkey(info, 0), "key-09998");
    ck_assert_str_eq(tu_nthkey(info, 1), "key-00003");
    ck_assert_str_eq(tu_nthkey(info, 2), "key-00001");
    ck_assert_str_eq(tu_get(info, "key-09998"), "value 69986");
    ck_assert_ptr_null(tu_get(info, "key-00000"));
    rmalab_info_destroy(&info);
}
END_TEST

START_TEST(test_interleaved_delete_set)
{
    rmalab_info *info = tu_info(NULL);
    char k[32], prev[32];
    /* A sliding window of keys: each round sets one and deletes an older
     * one, so deleted slots are reused over and over. */
    for (int i = 0; i < 5000; i++) {
        many_key(k, i);
        ck_assert_ok(rmalab_info_set(info, k, k));
        if (i >= 3) {
            many_key(prev, i - 3);
            ck_assert_ok(rmalab_info_delete(info, prev));
            ck_assert_ptr_null(tu_get(info, prev));
        }
        ck_assert_str_eq(tu_get(info, k), k);
        if (i % 97 == 0) {
            int n = tu_nkeys(info);
            ck_assert_int_eq(n, i < 3 ? i + 1 : 3);
            ck_assert_str_eq(tu_nthkey(info, n - 1), k);
        }
    }
    ck_assert_int_eq(tu_nkeys(info), 3);
    ck_assert_str_eq(tu_nthkey(info, 0), "key-04997");
    ck_assert_str_eq(tu_nthkey(info, 1), "key-04998");
    ck_assert_str_eq(tu_nthkey(info, 2), "key-04999");

    /* Delete and set one key again: it moves to the end. */
    for (int round = 0; round < 100; round++) {
        ck_assert_ok(rmalab_info_delete(info, "key-04997"));
        ck_assert_ok(rmalab_info_set(info, "key-04997", "again"));
        ck_assert_int_eq(tu_nkeys(info), 3);
    }
    ck_assert_str_eq(tu_nthkey(info, 0), "key-04998");
    ck_assert_str_eq(tu_nthkey(info, 2), "key-04997");
    ck_assert_str_eq(tu_get(info, "key-04997"), "again");
    rmalab_info_destroy(&info);
}
END_TEST

/* A key of the longest length allowed. With values of the longest length
 * too, each key and value has an allocation of its own however short
 * strings are kept. */
static void long_key(char *buf, int i)
{
    memset(buf, 'k', RMALAB_MAX_INFO_KEY);
    snprintf(buf + RMALAB_MAX_INFO_KEY - 5, 6, "%05d", i);
}

/* Regression (found by tests/fuzz/fuzz-hints.c; fixed in core/src/info.c,
 * compact): squeezing out the entries deletes leave behind rebuilt the hash
 * index in a fresh allocation. When that allocation failed, nthkey returned
 * ERR_NO_MEM without setting its outputs, and hints validation, which
 * walks a request with rmalab_info_nth, read an uninitialised key pointer
 * (a SEGV in edit_distance); a delete that triggered the squeeze returned
 * ERR_NO_MEM although the key was gone. Neither allocates now. */
START_TEST(test_compaction_never_allocates)
{
    rmalab_info *info = tu_info(NULL);
    char k[RMALAB_MAX_INFO_KEY + 1], v[RMALAB_MAX_INFO_VAL + 1];
    tu_fill(v, 'v', RMALAB_MAX_INFO_VAL);
    for (int i = 0; i < 40; i++) {
        long_key(k, i);
        ck_assert_ok(rmalab_info_set(info, k, v));
    }
    long live = rmalab_debug_live_allocs();
    for (int i = 0; i < 39; i++) { /* squeezes on the way */
        long_key(k, i);
        rmalab_debug_fail_alloc(1);
        ck_assert_ok(rmalab_info_delete(info, k));
        rmalab_debug_fail_alloc(0);
        ck_assert_ptr_null(tu_get(info, k));
    }
    ck_assert_int_eq(tu_nkeys(info), 1);
    ck_assert_int_eq(rmalab_debug_live_allocs(), live - 2 * 39); /* a key and a value each */
    ck_assert_ok(rmalab_info_set(info, "a", "1"));
    ck_assert_ok(rmalab_info_set(info, "b", "2"));
    ck_assert_ok(rmalab_info_delete(info, "a")); /* one dead entry before "b" */
    const char *key = NULL, *val = NULL;
    size_t kl = 0, vl = 0;
    rmalab_debug_fail_alloc(1);
    int rc = rmalab_info_nth(info, 1, &key, &kl, &val, &vl);
    rmalab_debug_fail_alloc(0);
    ck_assert_ok(rc);
    ck_assert_str_eq(key, "b");
    ck_assert_str_eq(val, "2");
    long_key(k, 39);
    ck_assert_str_eq(tu_nthkey(info, 0), k);
    ck_assert_str_eq(tu_get(info, k), v);
    rmalab_info_destroy(&info);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Storage: short strings in the entry, long ones in buffers                */

/* Buffers a delete of `key` frees (a delete never allocates); the pair is
 * set again afterwards, at the end. */
static long buffers_of(rmalab_info *info, const char *key)
{
    size_t vlen = 0;
    char val[RMALAB_MAX_INFO_VAL + 1];
    const char *v = rmalab_info_lookup(info, key, strlen(key), &vlen);
    ck_assert_ptr_nonnull(v);
    memcpy(val, v, vlen + 1);
    long before = rmalab_debug_live_allocs();
    ck_assert_ok(rmalab_info_delete(info, key));
    long freed = before - rmalab_debug_live_allocs();
    ck_assert_ok(rmalab_info_set(info, key, val));
    return freed;
}

/* Every key length from 1 to the maximum, so that the longest key kept in
 * an entry and the shortest kept outside are both here, whatever the
 * limit: the pairs read back, keep their order through deletes and dup,
 * and keys switch from no buffer to a buffer once, at one length. */
START_TEST(test_every_key_length)
{
    rmalab_info *info = tu_info(NULL), *copy = NULL;
    char k[RMALAB_MAX_INFO_KEY + 1], v[16];
    int switches = 0;
    long prev = 0;
    for (int n = 1; n <= RMALAB_MAX_INFO_KEY; n++) {
        snprintf(v, sizeof v, "v%d", n);
        ck_assert_ok(rmalab_info_set(info, tu_fill(k, (char)('a' + n % 26), (size_t)n), v));
    }
    for (int n = 1; n <= RMALAB_MAX_INFO_KEY; n++) {
        snprintf(v, sizeof v, "v%d", n);
        tu_fill(k, (char)('a' + n % 26), (size_t)n);
        ck_assert_str_eq(tu_nthkey(info, 0), k); /* the shorter ones moved to the end */
        ck_assert_str_eq(tu_get(info, k), v);
        long b = buffers_of(info, k);
        ck_assert_int_le(b, n == 1 ? 0 : 1); /* a one-byte key is in its entry */
        switches += b != prev;
        prev = b;
    }
    ck_assert_int_eq(prev, 1); /* the longest has a buffer */
    ck_assert_int_eq(switches, 1);
    for (int n = 1; n <= RMALAB_MAX_INFO_KEY; n++) /* back in order */
        ck_assert_str_eq(tu_nthkey(info, n - 1), tu_fill(k, (char)('a' + n % 26), (size_t)n));
    for (int n = 1; n <= RMALAB_MAX_INFO_KEY; n += 2)
        ck_assert_ok(rmalab_info_delete(info, tu_fill(k, (char)('a' + n % 26), (size_t)n)));
    ck_assert_ok(rmalab_info_dup(info, &copy));
    for (int j = 0, n = 2; n <= RMALAB_MAX_INFO_KEY; j++, n += 2) {
        snprintf(v, sizeof v, "v%d", n);
        tu_fill(k, (char)('a' + n % 26), (size_t)n);
        ck_assert_str_eq(tu_nthkey(copy, j), k);
        ck_assert_str_eq(tu_get(copy, k), v);
        ck_assert_ok(rmalab_info_set(copy, k, "")); /* the original keeps its value */
        ck_assert_str_eq(tu_get(info, k), v);
    }
    rmalab_info_destroy(&copy);
    rmalab_info_destroy(&info);
}
END_TEST

/* The same for values, from empty to the maximum, set on one key. */
START_TEST(test_every_value_length)
{
    rmalab_info *info = tu_info(NULL);
    char v[RMALAB_MAX_INFO_VAL + 1];
    size_t vlen = 1;
    int switches = 0;
    long prev = 0;
    for (int n = 0; n <= RMALAB_MAX_INFO_VAL; n++) {
        ck_assert_ok(rmalab_info_set(info, "k", tu_fill(v, (char)('a' + n % 26), (size_t)n)));
        ck_assert_str_eq(rmalab_info_lookup(info, "k", 1, &vlen), v);
        ck_assert_uint_eq(vlen, (size_t)n);
        long b = buffers_of(info, "k");
        ck_assert_int_le(b, n == 0 ? 0 : 1);
        switches += b != prev;
        prev = b;
    }
    ck_assert_int_eq(prev, 1);
    ck_assert_int_eq(switches, 1);
    ck_assert_int_eq(tu_nkeys(info), 1);
    rmalab_info_destroy(&info);
}
END_TEST

/* An overwrite that fits the buffer a long value has allocates nothing; one
 * that does not may fail for memory and then changes nothing; a short value
 * frees the buffer. */
START_TEST(test_overwrite_reuses_value_buffer)
{
    rmalab_info *info = tu_info("first", "1", NULL);
    char v[RMALAB_MAX_INFO_VAL + 1];
    ck_assert_ok(rmalab_info_set(info, "k", tu_fill(v, 'a', 100)));
    long live = rmalab_debug_live_allocs();
    rmalab_debug_fail_alloc(1); /* the next allocation would fail */
    ck_assert_ok(rmalab_info_set(info, "k", tu_fill(v, 'b', 60))); /* shorter */
    ck_assert_str_eq(tu_get(info, "k"), v);
    ck_assert_ok(rmalab_info_set(info, "k", tu_fill(v, 'c', 100))); /* as long again */
    ck_assert_str_eq(tu_get(info, "k"), v);
    ck_assert_rc(rmalab_info_set(info, "k", tu_fill(v, 'd', RMALAB_MAX_INFO_VAL)),
                 RMALAB_ERR_NO_MEM); /* longer: a new buffer */
    rmalab_debug_fail_alloc(0);
    ck_assert_str_eq(tu_get(info, "k"), tu_fill(v, 'c', 100));
    ck_assert_int_eq(rmalab_debug_live_allocs(), live);

    ck_assert_ok(rmalab_info_set(info, "k", tu_fill(v, 'd', RMALAB_MAX_INFO_VAL)));
    ck_assert_int_eq(rmalab_debug_live_allocs(), live); /* one buffer for another */
    ck_assert_ok(rmalab_info_set(info, "k", "short"));
    ck_assert_int_eq(rmalab_debug_live_allocs(), live - 1);
    rmalab_debug_fail_alloc(1);
    ck_assert_ok(rmalab_info_set(info, "k", "")); /* short values never allocate */
    ck_assert_ok(rmalab_info_set(info, "k", "longer, but still short"));
    rmalab_debug_fail_alloc(0);
    ck_assert_str_eq(tu_get(info, "k"), "longer, but still short");
    ck_assert_int_eq(tu_nkeys(info), 2);
    ck_assert_str_eq(tu_nthkey(info, 1), "k");
    rmalab_info_destroy(&info);
}
END_TEST

/* Keys and values handed to set may point into the same object, short ones
 * into the entry array, which inserts grow and compaction squeezes. */
START_TEST(test_set_from_the_object_itself)
{
    char k[32], v[RMALAB_MAX_INFO_VAL + 1];
    tu_fill(v, 'L', 300);
    for (int pass = 0; pass < 2; pass++) { /* short values, then a long one */
        const char *from = pass ? "long" : "short", *want = pass ? v : "a short value";
        rmalab_info *info = tu_info("gone", "x", "short", "a short value", "long", v, NULL);
        ck_assert_ok(rmalab_info_delete(info, "gone")); /* the others move when squeezed */
        for (int i = 0; i < 200; i++) { /* the array and the index grow */
            snprintf(k, sizeof k, "copy-%d", i);
            size_t vlen;
            const char *src = rmalab_info_lookup(info, from, strlen(from), &vlen);
            ck_assert_ok(rmalab_info_set_n(info, k, strlen(k), src, vlen));
        }
        for (int i = 0; i < 200; i++) {
            snprintf(k, sizeof k, "copy-%d", i);
            ck_assert_str_eq(tu_get(info, k), want);
        }
        rmalab_info_destroy(&info);
    }

    /* A value as a new key; a value overwritten by a part of itself. */
    rmalab_info *info = tu_info("short", "a short value", "long", v, NULL);
    size_t vlen;
    ck_assert_ok(rmalab_info_set(info, rmalab_info_lookup(info, "short", 5, NULL), "k"));
    ck_assert_str_eq(tu_get(info, "a short value"), "k");
    const char *s = rmalab_info_lookup(info, "short", 5, &vlen);
    ck_assert_ok(rmalab_info_set_n(info, "short", 5, s + 2, vlen - 2));
    ck_assert_str_eq(tu_get(info, "short"), "short value");
    s = rmalab_info_lookup(info, "long", 4, &vlen);
    ck_assert_ok(rmalab_info_set_n(info, "long", 4, s + 1, vlen - 1));
    ck_assert_str_eq(tu_get(info, "long"), tu_fill(v, 'L', 299));
    s = rmalab_info_lookup(info, "long", 4, &vlen);
    ck_assert_ok(rmalab_info_set_n(info, "long", 4, s + 290, vlen - 290)); /* to short */
    ck_assert_str_eq(tu_get(info, "long"), tu_fill(v, 'L', 9));
    ck_assert_int_eq(tu_nkeys(info), 3);
    rmalab_info_destroy(&info);
}
END_TEST

/* Keys of equal length whose 32-bit FNV-1a hashes (info.c's hash_bytes) are
 * equal, found by a search: a short pair and a pair kept in buffers. The
 * index holds the same bits for both, so only the keys tell them apart. */
START_TEST(test_hash_collisions)
{
    static const char *pairs[][2] = {
        {"c001113d", "c00bd088"}, /* 0x834b79d4 */
        {"a-key-long-enough-to-need-a-buffer-of-its-own-00198eb",
         "a-key-long-enough-to-need-a-buffer-of-its-own-0052938"}, /* 0x1629cf2e */
    };
    for (int p = 0; p < 2; p++) {
        const char *a = pairs[p][0], *b = pairs[p][1];
        rmalab_info *info = tu_info(a, "A", NULL);
        ck_assert_ptr_null(tu_get(info, b));
        ck_assert_rc(rmalab_info_delete(info, b), RMALAB_ERR_INFO_NOKEY);
        ck_assert_ok(rmalab_info_set(info, b, "B"));
        ck_assert_str_eq(tu_get(info, a), "A");
        ck_assert_str_eq(tu_get(info, b), "B");
        ck_assert_ok(rmalab_info_set(info, a, "A2")); /* overwrites a, not b */
        ck_assert_str_eq(tu_get(info, b), "B");
        ck_assert_ok(rmalab_info_delete(info, a));
        ck_assert_ptr_null(tu_get(info, a));
        ck_assert_str_eq(tu_get(info, b), "B");
        ck_assert_ok(rmalab_info_set(info, a, "A3"));
        ck_assert_str_eq(tu_nthkey(info, 0), b);
        ck_assert_str_eq(tu_nthkey(info, 1), a);
        ck_assert_str_eq(tu_get(info, a), "A3");
        rmalab_info_destroy(&info);
    }
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Without MPI                                                              */

/* The suite runs before any MPI_Init; the info object must not need MPI,
 * and the conversions must refuse cleanly instead of calling into MPI. */
START_TEST(test_without_mpi)
{
    int init = 1;
    MPI_Info mi = MPI_INFO_NULL;
    rmalab_info *back = NULL, *info = tu_info("k", "v", NULL);
    MPI_Initialized(&init);
    ck_assert_msg(!init, "this suite must run without MPI_Init");
    ck_assert_rc(rmalab_info_to_mpi(info, &mi), RMALAB_ERR_OTHER);
    ck_assert_contains(rmalab_errmsg(), "initialised");
    ck_assert(mi == MPI_INFO_NULL);
    ck_assert_rc(rmalab_info_from_mpi(MPI_INFO_NULL, &back), RMALAB_ERR_OTHER);
    ck_assert_ptr_null(back);
    ck_assert_str_eq(tu_get(info, "k"), "v");
    rmalab_info_destroy(&info);
}
END_TEST

Suite *info_suite(void)
{
    Suite *s = suite_create("info");
    TCase *tc = tcase_create("object");
    tcase_add_test(tc, test_create_destroy);
    tcase_add_test(tc, test_null_arguments);
    tcase_add_test(tc, test_insertion_order);
    tcase_add_test(tc, test_override_keeps_position);
    tcase_add_test(tc, test_dup);
    tcase_add_test(tc, test_nthkey_range);
    tcase_add_test(tc, test_compaction_never_allocates);
    tcase_add_test(tc, test_without_mpi);
    suite_add_tcase(s, tc);

    tc = tcase_create("limits");
    tcase_add_test(tc, test_key_length_limits);
    tcase_add_test(tc, test_value_length_limits);
    tcase_add_test(tc, test_nul_bytes_rejected);
    tcase_add_test(tc, test_delete_absent);
    tcase_add_test(tc, test_case_sensitive);
    suite_add_tcase(s, tc);

    tc = tcase_create("get");
    tcase_add_test(tc, test_get_truncation);
    tcase_add_test(tc, test_get_valuelen);
    tcase_add_test(tc, test_get_string);
    tcase_add_test(tc, test_lookup_zero_copy);
    suite_add_tcase(s, tc);

    tc = tcase_create("typed");
    tcase_add_loop_test(tc, test_get_bool, 0, (int)(sizeof bool_cases / sizeof bool_cases[0]));
    tcase_add_test(tc, test_get_bool_absent);
    tcase_add_loop_test(tc, test_get_int, 0, (int)(sizeof int_cases / sizeof int_cases[0]));
    tcase_add_test(tc, test_get_int_absent);
    tcase_add_test(tc, test_get_list);
    tcase_add_test(tc, test_parse_raw);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_test(tc, test_error_names);
    tcase_add_test(tc, test_error_messages);
    suite_add_tcase(s, tc);

    tc = tcase_create("storage");
    tcase_add_test(tc, test_every_key_length);
    tcase_add_test(tc, test_every_value_length);
    tcase_add_test(tc, test_overwrite_reuses_value_buffer);
    tcase_add_test(tc, test_set_from_the_object_itself);
    tcase_add_test(tc, test_hash_collisions);
    suite_add_tcase(s, tc);

    tc = tcase_create("many");
    tcase_set_timeout(tc, 60); /* slow under valgrind */
    tcase_add_test(tc, test_many_keys);
    tcase_add_test(tc, test_interleaved_delete_set);
    suite_add_tcase(s, tc);
    return s;
}
