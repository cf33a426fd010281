/* The "attr" suite: attribute caching on windows (core/src/attr.c) --
 * keyval lifetimes, the delete callbacks and what they may do (delete other
 * attributes, free their own keyval, fail), the order in which a window's
 * free deletes its attributes, and the predefined attributes. Needs MPI_Init;
 * windows are collective, so the fixture creates two on every rank before
 * each test and frees, in the same order, whatever the test left, even when
 * it failed (check runs checked teardowns in no-fork mode too). Tests that
 * free a window themselves free w[0] first, as the teardown does. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"


static rmalab_win *w[2];

static void setup(void)
{
    rmalab_win_opts opts = {.size = 64, .disp_unit = 1};
    for (int i = 0; i < 2; i++) {
        w[i] = NULL;
        ck_assert_ok(rmalab_win_allocate(&opts, &w[i], NULL));
    }
}

static void teardown(void)
{
    for (int i = 0; i < 2; i++)
        rmalab_win_free(&w[i]);
}

/* ------------------------------------------------------------------------ */
/* Recording callbacks                                                      */

/* What the delete callback of a keyval does, through its extra_state. */
typedef struct {
    const char *name;              /* for the log */
    int fail_code;                 /* returned with fail_msg (may be NULL) */
    const char *fail_msg;
    rmalab_keyval *delete_other;   /* delete that attribute of the same window */
    int other_rc;                  /* what that delete returned */
    rmalab_keyval **free_self;     /* free this keyval (the user's reference) */
    int free_self_rc;
    int frees;                     /* free_fn runs */
    int record;                    /* record what get_attr gives inside: */
    void *seen;
    int seen_flag;
} behave;

typedef struct {
    rmalab_win *win;
    rmalab_keyval *kv;
    void *value;
    void *extra;
} call;

static call calls[32];
static int ncalls;

static int on_delete(rmalab_win *win, rmalab_keyval *kv, void *value, void *extra)
{
    behave *b = extra;
    if (ncalls < (int)(sizeof calls / sizeof calls[0]))
        calls[ncalls] = (call){win, kv, value, extra};
    ncalls++;
    if (b->record)
        rmalab_win_get_attr(win, kv, &b->seen, &b->seen_flag);
    if (b->delete_other)
        b->other_rc = rmalab_win_delete_attr(win, b->delete_other);
    if (b->free_self)
        b->free_self_rc = rmalab_keyval_free(b->free_self);
    if (b->fail_code) {
        if (b->fail_msg)
            return rmalab_set_error(b->fail_code, "%s", b->fail_msg);
        return b->fail_code;
    }
    return RMALAB_OK;
}

static void on_free(void *extra)
{
    ((behave *)extra)->frees++;
}

static rmalab_keyval *new_kv(behave *b)
{
    rmalab_keyval *kv = NULL;
    ck_assert_ok(rmalab_keyval_create(NULL, on_delete, b, on_free, &kv));
    ck_assert_ptr_nonnull(kv);
    return kv;
}

static void reset_calls(void)
{
    ncalls = 0;
}

#define ck_assert_call(i, win_, kv_, value_, extra_)                           \
    do {                                                                       \
        ck_assert_msg(ncalls > (i), "only %d delete calls", ncalls);           \
        ck_assert_ptr_eq(calls[i].win, (win_));                                \
        ck_assert_ptr_eq(calls[i].kv, (kv_));                                  \
        ck_assert_ptr_eq(calls[i].value, (value_));                            \
        ck_assert_ptr_eq(calls[i].extra, (extra_));                            \
    } while (0)

static void *attr_of(rmalab_win *win, rmalab_keyval *kv, int *flag)
{
    void *v = (void *)&v; /* anything but NULL, to see that get_attr writes */
    ck_assert_ok(rmalab_win_get_attr(win, kv, &v, flag));
    return *flag ? v : NULL;
}

static int has_attr(rmalab_win *win, rmalab_keyval *kv)
{
    int flag = -1;
    attr_of(win, kv, &flag);
    return flag;
}

/* ------------------------------------------------------------------------ */
/* Keyvals                                                                  */

START_TEST(test_keyval_lifecycle)
{
    behave b = {.name = "b"};
    rmalab_keyval *kv = NULL, *none = NULL;
    ck_assert_rc(rmalab_keyval_create(NULL, NULL, NULL, NULL, NULL), RMALAB_ERR_ARG);
    kv = new_kv(&b);
    ck_assert_ptr_eq(rmalab_keyval_extra(kv), &b);
    ck_assert_ptr_null(rmalab_keyval_extra(NULL));
    ck_assert_ok(rmalab_keyval_free(&kv));
    ck_assert_ptr_null(kv);
    ck_assert_int_eq(b.frees, 1); /* no attribute held it */

    ck_assert_rc(rmalab_keyval_free(NULL), RMALAB_ERR_KEYVAL);
    ck_assert_rc(rmalab_keyval_free(&none), RMALAB_ERR_KEYVAL);

    rmalab_keyval *p = RMALAB_WIN_BASE;
    ck_assert_rc(rmalab_keyval_free(&p), RMALAB_ERR_KEYVAL);
    ck_assert_contains(rmalab_errmsg(), "WIN_BASE is predefined");
    ck_assert_ptr_eq(p, RMALAB_WIN_BASE);

    /* No callbacks at all: NULL means the null functions. */
    ck_assert_ok(rmalab_keyval_create(NULL, NULL, NULL, NULL, &kv));
    ck_assert_ok(rmalab_win_set_attr(w[0], kv, &b));
    ck_assert_ok(rmalab_win_delete_attr(w[0], kv));
    ck_assert_ok(rmalab_keyval_free(&kv));
}
END_TEST

START_TEST(test_predefined_functions)
{
    int in = 1, flag = -1;
    void *out = NULL;
    ck_assert_ok(RMALAB_WIN_NULL_COPY_FN(w[0], NULL, NULL, &in, &out, &flag));
    ck_assert_int_eq(flag, 0);
    ck_assert_ok(RMALAB_WIN_DUP_FN(w[0], NULL, NULL, &in, &out, &flag));
    ck_assert_int_eq(flag, 1);
    ck_assert_ptr_eq(out, &in);
    ck_assert_ok(RMALAB_WIN_NULL_DELETE_FN(w[0], NULL, &in, NULL));

    /* Keyvals made with them work like NULL ones. */
    rmalab_keyval *kv = NULL;
    ck_assert_ok(rmalab_keyval_create(RMALAB_WIN_DUP_FN, RMALAB_WIN_NULL_DELETE_FN, NULL, NULL,
                                      &kv));
    ck_assert_ok(rmalab_win_set_attr(w[0], kv, &in));
    ck_assert_ok(rmalab_win_delete_attr(w[0], kv));
    ck_assert_ok(rmalab_keyval_free(&kv));
}
END_TEST

START_TEST(test_null_arguments)
{
    behave b = {.name = "b"};
    rmalab_keyval *kv = new_kv(&b);
    void *v = NULL;
    int flag = 0;
    ck_assert_rc(rmalab_win_set_attr(NULL, kv, &b), RMALAB_ERR_WIN);
    ck_assert_rc(rmalab_win_get_attr(NULL, kv, &v, &flag), RMALAB_ERR_WIN);
    ck_assert_rc(rmalab_win_delete_attr(NULL, kv), RMALAB_ERR_WIN);
    ck_assert_rc(rmalab_win_set_attr(w[0], NULL, &b), RMALAB_ERR_KEYVAL);
    ck_assert_rc(rmalab_win_get_attr(w[0], NULL, &v, &flag), RMALAB_ERR_KEYVAL);
    ck_assert_rc(rmalab_win_delete_attr(w[0], NULL), RMALAB_ERR_KEYVAL);
    ck_assert_rc(rmalab_win_get_attr(w[0], kv, NULL, &flag), RMALAB_ERR_ARG);
    ck_assert_rc(rmalab_win_get_attr(w[0], kv, &v, NULL), RMALAB_ERR_ARG);
    ck_assert_ok(rmalab_keyval_free(&kv));
    ck_assert_int_eq(ncalls, 0);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Setting, getting, deleting                                               */

START_TEST(test_set_get_delete)
{
    behave b = {.name = "b"};
    int x = 1, y = 2, flag = -1;
    rmalab_keyval *kv = new_kv(&b);
    reset_calls();

    ck_assert_ptr_null(attr_of(w[0], kv, &flag));
    ck_assert_int_eq(flag, 0);
    ck_assert_ok(rmalab_win_set_attr(w[0], kv, &x));
    ck_assert_ptr_eq(attr_of(w[0], kv, &flag), &x);
    ck_assert_int_eq(flag, 1);
    ck_assert_int_eq(has_attr(w[1], kv), 0); /* per window */
    ck_assert_ok(rmalab_win_set_attr(w[1], kv, &y));
    ck_assert_int_eq(ncalls, 0);

    ck_assert_ok(rmalab_win_delete_attr(w[0], kv));
    ck_assert_int_eq(ncalls, 1);
    ck_assert_call(0, w[0], kv, &x, &b);
    ck_assert_int_eq(has_attr(w[0], kv), 0);
    ck_assert_ptr_eq(attr_of(w[1], kv, &flag), &y);

    /* Deleting what is not set: no error, no callback. */
    ck_assert_ok(rmalab_win_delete_attr(w[0], kv));
    ck_assert_int_eq(ncalls, 1);

    ck_assert_ok(rmalab_win_delete_attr(w[1], kv));
    ck_assert_int_eq(ncalls, 2);
    ck_assert_call(1, w[1], kv, &y, &b);

    /* NULL is a value like any other. */
    ck_assert_ok(rmalab_win_set_attr(w[0], kv, NULL));
    ck_assert_ptr_null(attr_of(w[0], kv, &flag));
    ck_assert_int_eq(flag, 1);
    ck_assert_ok(rmalab_win_delete_attr(w[0], kv));
    ck_assert_call(2, w[0], kv, NULL, &b);

    ck_assert_int_eq(b.frees, 0);
    ck_assert_ok(rmalab_keyval_free(&kv));
    ck_assert_int_eq(b.frees, 1);
    ck_assert_int_eq(ncalls, 3);
}
END_TEST

START_TEST(test_delete_never_set)
{
    behave b = {.name = "b"};
    rmalab_keyval *kv = new_kv(&b);
    int x = 1;
    reset_calls();
    ck_assert_ok(rmalab_win_delete_attr(w[0], kv));
    ck_assert_ok(rmalab_win_set_attr(w[1], kv, &x));
    ck_assert_ok(rmalab_win_delete_attr(w[0], kv)); /* set elsewhere only */
    ck_assert_int_eq(ncalls, 0);
    ck_assert_int_eq(has_attr(w[1], kv), 1);
    ck_assert_ok(rmalab_win_delete_attr(w[1], kv));
    ck_assert_int_eq(ncalls, 1);
    ck_assert_ok(rmalab_keyval_free(&kv));
}
END_TEST

START_TEST(test_replace)
{
    behave b = {.name = "b"};
    rmalab_keyval *kv = new_kv(&b), *held = kv;
    int x = 1, y = 2, flag;
    reset_calls();
    ck_assert_ok(rmalab_win_set_attr(w[0], kv, &x));
    ck_assert_ok(rmalab_win_set_attr(w[0], kv, &y));
    ck_assert_int_eq(ncalls, 1);
    ck_assert_call(0, w[0], kv, &x, &b);
    ck_assert_ptr_eq(attr_of(w[0], kv, &flag), &y);
    /* The same value again still runs delete on the old one. */
    ck_assert_ok(rmalab_win_set_attr(w[0], kv, &y));
    ck_assert_int_eq(ncalls, 2);
    ck_assert_call(1, w[0], kv, &y, &b);
    ck_assert_ok(rmalab_keyval_free(&kv));
    ck_assert_int_eq(b.frees, 0); /* the attribute holds it */
    rmalab_win *freed = w[0];
    ck_assert_ok(rmalab_win_free(&w[0]));
    ck_assert_int_eq(ncalls, 3);
    ck_assert_call(2, freed, held, &y, &b);
    ck_assert_int_eq(b.frees, 1);
}
END_TEST

/* Replacing is "as if delete_attr were first called": the callback sees the
 * old value still set, and when it fails the call fails and the old value
 * stays. */
START_TEST(test_replace_deletes_first)
{
    behave b = {.name = "b", .record = 1};
    rmalab_keyval *kv = new_kv(&b);
    int x = 1, y = 2, z = 3, flag;
    reset_calls();
    ck_assert_ok(rmalab_win_set_attr(w[0], kv, &x));
    ck_assert_ok(rmalab_win_set_attr(w[0], kv, &y));
    ck_assert_int_eq(b.seen_flag, 1);
    ck_assert_ptr_eq(b.seen, &x); /* not &y: delete came first */
    b.fail_code = RMALAB_ERR_OTHER;
    b.fail_msg = "kept";
    ck_assert_rc(rmalab_win_set_attr(w[0], kv, &z), RMALAB_ERR_OTHER);
    ck_assert_contains(rmalab_errmsg(), "the old value stays");
    ck_assert_ptr_eq(attr_of(w[0], kv, &flag), &y);
    ck_assert_int_eq(flag, 1);
    b.fail_code = 0;
    ck_assert_ok(rmalab_win_delete_attr(w[0], kv));
    ck_assert_ok(rmalab_keyval_free(&kv));
}
END_TEST

/* A window's free deletes its attributes most recently set first; replacing
 * one keeps its place, and reading the predefined attributes does not
 * disturb the order. */
START_TEST(test_free_order)
{
    behave b1 = {.name = "1"}, b2 = {.name = "2"}, b3 = {.name = "3"};
    rmalab_keyval *k1 = new_kv(&b1), *k2 = new_kv(&b2), *k3 = new_kv(&b3), *k2_was = k2;
    int v1 = 1, v2 = 2, v3 = 3, v1b = 4, flag;
    rmalab_win *freed = w[0];
    reset_calls();
    ck_assert_ok(rmalab_win_set_attr(w[0], k1, &v1));
    attr_of(w[0], RMALAB_WIN_SIZE, &flag);
    ck_assert_ok(rmalab_win_set_attr(w[0], k2, &v2));
    ck_assert_ok(rmalab_win_set_attr(w[0], k3, &v3));
    ck_assert_ok(rmalab_win_set_attr(w[0], k1, &v1b));
    ck_assert_int_eq(ncalls, 1);
    ck_assert_ok(rmalab_keyval_free(&k2)); /* freed while attached */
    int rc = rmalab_win_free(&w[0]);
    ck_assert_ok(rc);
    ck_assert_ptr_null(w[0]);
    ck_assert_int_eq(ncalls, 4);
    ck_assert_call(1, freed, k3, &v3, &b3);
    ck_assert_call(2, freed, k2_was, &v2, &b2);
    ck_assert_call(3, freed, k1, &v1b, &b1);
    ck_assert_int_eq(b2.frees, 1);
    ck_assert_int_eq(b1.frees, 0);
    ck_assert_ok(rmalab_keyval_free(&k1));
    ck_assert_ok(rmalab_keyval_free(&k3));
    ck_assert_int_eq(b1.frees + b2.frees + b3.frees, 3);
}
END_TEST

/* A keyval the user has freed still serves the attributes set with it, but
 * cannot start new ones; free_fn runs once, after the last one goes. */
START_TEST(test_freed_keyval_keeps_working)
{
    behave b = {.name = "b"};
    rmalab_keyval *kv = new_kv(&b), *held = kv, *again = kv;
    int x = 1, y = 2, z = 3, flag;
    reset_calls();
    ck_assert_ok(rmalab_win_set_attr(w[0], kv, &x));
    ck_assert_ok(rmalab_win_set_attr(w[1], kv, &y));
    ck_assert_ok(rmalab_keyval_free(&kv));
    ck_assert_ptr_null(kv);
    ck_assert_int_eq(b.frees, 0);

    ck_assert_ptr_eq(attr_of(w[0], held, &flag), &x);
    ck_assert_ptr_eq(rmalab_keyval_extra(held), &b);
    ck_assert_ok(rmalab_win_set_attr(w[0], held, &z)); /* replacing is fine */
    ck_assert_int_eq(ncalls, 1);
    ck_assert_call(0, w[0], held, &x, &b);
    ck_assert_ok(rmalab_win_delete_attr(w[1], held));
    ck_assert_call(1, w[1], held, &y, &b);
    ck_assert_int_eq(b.frees, 0);

    ck_assert_rc(rmalab_win_set_attr(w[1], held, &y), RMALAB_ERR_KEYVAL);
    ck_assert_contains(rmalab_errmsg(), "was freed");
    ck_assert_int_eq(has_attr(w[1], held), 0);
    ck_assert_rc(rmalab_keyval_free(&again), RMALAB_ERR_KEYVAL);
    ck_assert_contains(rmalab_errmsg(), "already freed");
    ck_assert_int_eq(ncalls, 2);
    ck_assert_int_eq(b.frees, 0);

    ck_assert_ok(rmalab_win_delete_attr(w[0], held));
    ck_assert_call(2, w[0], held, &z, &b);
    ck_assert_int_eq(b.frees, 1);
    ck_assert_int_eq(ncalls, 3);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* What callbacks may do                                                    */

START_TEST(test_callback_deletes_other)
{
    behave ba = {.name = "a"}, bb = {.name = "b"};
    rmalab_keyval *ka = new_kv(&ba), *kb = new_kv(&bb), *kb_was = kb;
    int x = 1, y = 2;
    ba.delete_other = kb;
    reset_calls();

    /* Through delete_attr. */
    ck_assert_ok(rmalab_win_set_attr(w[1], ka, &x));
    ck_assert_ok(rmalab_win_set_attr(w[1], kb, &y));
    ck_assert_ok(rmalab_win_delete_attr(w[1], ka));
    ck_assert_int_eq(ba.other_rc, RMALAB_OK);
    ck_assert_int_eq(ncalls, 2);
    ck_assert_call(0, w[1], ka, &x, &ba);
    ck_assert_call(1, w[1], kb, &y, &bb);
    ck_assert_int_eq(has_attr(w[1], ka), 0);
    ck_assert_int_eq(has_attr(w[1], kb), 0);

    /* Through the window's free: a goes first and takes b with it, so b's
     * callback runs once. */
    rmalab_win *freed = w[0];
    ck_assert_ok(rmalab_win_set_attr(w[0], kb, &y));
    ck_assert_ok(rmalab_win_set_attr(w[0], ka, &x));
    ck_assert_ok(rmalab_keyval_free(&kb)); /* b lives on in the attribute */
    ck_assert_ok(rmalab_win_free(&w[0]));
    ck_assert_int_eq(ncalls, 4);
    ck_assert_call(2, freed, ka, &x, &ba);
    ck_assert_call(3, freed, kb_was, &y, &bb);
    ck_assert_int_eq(ba.other_rc, RMALAB_OK);
    ck_assert_int_eq(bb.frees, 1);
    ck_assert_ok(rmalab_keyval_free(&ka));
    ck_assert_int_eq(ba.frees, 1);
}
END_TEST

START_TEST(test_callback_frees_own_keyval)
{
    behave b = {.name = "b"}, c = {.name = "c"};
    rmalab_keyval *kb = new_kv(&b), *kc = new_kv(&c), *kc_was = kc;
    int x = 1;
    b.free_self = &kb;
    c.free_self = &kc;
    reset_calls();

    ck_assert_ok(rmalab_win_set_attr(w[1], kb, &x));
    ck_assert_ok(rmalab_win_delete_attr(w[1], kb));
    ck_assert_int_eq(b.free_self_rc, RMALAB_OK);
    ck_assert_ptr_null(kb);
    ck_assert_int_eq(b.frees, 1);
    ck_assert_int_eq(ncalls, 1);

    rmalab_win *freed = w[0];
    ck_assert_ok(rmalab_win_set_attr(w[0], kc, &x));
    ck_assert_ok(rmalab_win_free(&w[0]));
    ck_assert_int_eq(c.free_self_rc, RMALAB_OK);
    ck_assert_ptr_null(kc);
    ck_assert_int_eq(c.frees, 1);
    ck_assert_int_eq(ncalls, 2);
    ck_assert_call(1, freed, kc_was, &x, &c);
}
END_TEST

/* A failing delete callback: the call that ran it returns its code and
 * message, and the attribute goes all the same, except when replacing: that
 * is as if delete_attr were called first, so the call fails and the old
 * value stays. */
START_TEST(test_failing_delete)
{
    behave b = {.name = "b", .fail_code = RMALAB_ERR_ARG, .fail_msg = "cannot let go of x"};
    rmalab_keyval *kv = new_kv(&b);
    int x = 1, y = 2, flag;
    reset_calls();

    ck_assert_ok(rmalab_win_set_attr(w[0], kv, &x));
    ck_assert_rc(rmalab_win_delete_attr(w[0], kv), RMALAB_ERR_ARG);
    ck_assert_contains(rmalab_errmsg(), "cannot let go of x");
    ck_assert_int_eq(has_attr(w[0], kv), 0);
    ck_assert_int_eq(ncalls, 1);

    ck_assert_ok(rmalab_win_set_attr(w[0], kv, &x));
    ck_assert_rc(rmalab_win_set_attr(w[0], kv, &y), RMALAB_ERR_ARG);
    ck_assert_contains(rmalab_errmsg(), "delete callback of keyval");
    ck_assert_contains(rmalab_errmsg(), "the old value stays");
    ck_assert_contains(rmalab_errmsg(), "cannot let go of x");
    ck_assert_ptr_eq(attr_of(w[0], kv, &flag), &x); /* replacing failed: x stays */
    ck_assert_call(1, w[0], kv, &x, &b);

    /* A code outside the table, and a code without a message. */
    b.fail_code = 1000;
    ck_assert_rc(rmalab_win_delete_attr(w[0], kv), RMALAB_ERR_CALLBACK);
    ck_assert_contains(rmalab_errmsg(), "returned 1000");
    ck_assert_int_eq(has_attr(w[0], kv), 0);
    b.fail_code = RMALAB_ERR_OTHER;
    b.fail_msg = NULL;
    ck_assert_ok(rmalab_win_set_attr(w[0], kv, &x));
    ck_assert_rc(rmalab_win_delete_attr(w[0], kv), RMALAB_ERR_OTHER);
    ck_assert_contains(rmalab_errmsg(), "without saying why");

    /* The keyval is released even though its callback failed. */
    b.fail_code = RMALAB_ERR_ARG;
    b.fail_msg = "still failing";
    ck_assert_ok(rmalab_win_set_attr(w[0], kv, &x));
    rmalab_keyval *held = kv;
    ck_assert_ok(rmalab_keyval_free(&kv));
    ck_assert_int_eq(b.frees, 0);
    ck_assert_rc(rmalab_win_delete_attr(w[0], held), RMALAB_ERR_ARG);
    ck_assert_contains(rmalab_errmsg(), "still failing");
    ck_assert_int_eq(b.frees, 1);
}
END_TEST

/* The window's free returns the first failure (the most recently set
 * attribute's), runs every other callback, and frees the window. */
START_TEST(test_failing_delete_at_free)
{
    behave bf = {.name = "f", .fail_code = RMALAB_ERR_OTHER, .fail_msg = "f failed"};
    behave bg = {.name = "g", .fail_code = RMALAB_ERR_ARG, .fail_msg = "g failed"};
    behave bh = {.name = "h"};
    rmalab_keyval *kf = new_kv(&bf), *kg = new_kv(&bg), *kh = new_kv(&bh);
    int x = 1;
    reset_calls();
    ck_assert_ok(rmalab_win_set_attr(w[0], kh, &x));
    ck_assert_ok(rmalab_win_set_attr(w[0], kf, &x));
    ck_assert_ok(rmalab_win_set_attr(w[0], kg, &x));
    int rc = rmalab_win_free(&w[0]);
    char msg[256];
    snprintf(msg, sizeof msg, "%s", rmalab_errmsg());
    ck_assert_ptr_null(w[0]);
    ck_assert_int_eq(rc, RMALAB_ERR_ARG);
    ck_assert_contains(msg, "g failed");
    ck_assert_int_eq(ncalls, 3);
    ck_assert_ptr_eq(calls[0].kv, kg);
    ck_assert_ptr_eq(calls[1].kv, kf);
    ck_assert_ptr_eq(calls[2].kv, kh);
    ck_assert_ok(rmalab_keyval_free(&kf));
    ck_assert_ok(rmalab_keyval_free(&kg));
    ck_assert_ok(rmalab_keyval_free(&kh));
    ck_assert_int_eq(bf.frees + bg.frees + bh.frees, 3);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Predefined attributes                                                    */

typedef struct {
    int rc[6], flag[6];
    void *base;
    MPI_Aint size;
    int disp_unit, flavor, model;
    void *size_ptr;
} predef_read;

static void read_predef(rmalab_win *win, predef_read *r)
{
    rmalab_keyval *kvs[] = {RMALAB_WIN_BASE, RMALAB_WIN_SIZE, RMALAB_WIN_DISP_UNIT,
                            RMALAB_WIN_CREATE_FLAVOR, RMALAB_WIN_MODEL};
    void *v[5] = {NULL};
    for (int i = 0; i < 5; i++)
        r->rc[i] = rmalab_win_get_attr(win, kvs[i], &v[i], &r->flag[i]);
    r->base = v[0];
    r->size_ptr = v[1];
    r->size = v[1] ? *(MPI_Aint *)v[1] : -1;
    r->disp_unit = v[2] ? *(int *)v[2] : -1;
    r->flavor = v[3] ? *(int *)v[3] : -1;
    r->model = v[4] ? *(int *)v[4] : -1;
}

static void assert_read_ok(const predef_read *r)
{
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(r->rc[i], RMALAB_OK);
        ck_assert_int_eq(r->flag[i], 1);
    }
}

START_TEST(test_predefined_values)
{
    /* Collective calls first, assertions after. */
    rmalab_win_opts oa = {.size = 24, .disp_unit = 4}, oc = {.size = 32, .disp_unit = 8};
    rmalab_win *wa = NULL, *wc = NULL;
    int rca = rmalab_win_allocate(&oa, &wa, NULL);
    int rcc = rmalab_win_create(&oc, &wc, NULL);
    predef_read ra = {0}, rc_ = {0}, ra2 = {0};
    void *base_a = NULL, *base_c = NULL, *mpi_model = NULL;
    int model_a = -1, mpi_flag = 0, mpi_model_val = -1;
    MPI_Aint size_after = -1;
    if (rca == RMALAB_OK && rcc == RMALAB_OK) {
        read_predef(wa, &ra);
        read_predef(wc, &rc_);
        size_after = *(MPI_Aint *)ra.size_ptr; /* still wa's after reading wc */
        read_predef(wa, &ra2);
        base_a = rmalab_win_base(wa);
        base_c = rmalab_win_base(wc);
        model_a = rmalab_win_model(wa);
        MPI_Win_get_attr(rmalab_win_mpi(wa), MPI_WIN_MODEL, &mpi_model, &mpi_flag);
        if (mpi_flag)
            mpi_model_val = *(int *)mpi_model;
    }
    int rfa = rmalab_win_free(&wa), rfc = rmalab_win_free(&wc);
    ck_assert_int_eq(rca, RMALAB_OK);
    ck_assert_int_eq(rcc, RMALAB_OK);
    ck_assert_int_eq(rfa, RMALAB_OK);
    ck_assert_int_eq(rfc, RMALAB_OK);

    assert_read_ok(&ra);
    ck_assert_ptr_nonnull(ra.base);
    ck_assert_ptr_eq(ra.base, base_a);
    ck_assert_int_eq(ra.size, 24); /* as asked, though rounded up inside */
    ck_assert_int_eq(ra.disp_unit, 4);
    ck_assert_int_eq(ra.flavor, MPI_WIN_FLAVOR_ALLOCATE);
    ck_assert_int_eq(ra.model, model_a);
    ck_assert(ra.model == MPI_WIN_UNIFIED || ra.model == MPI_WIN_SEPARATE);
    ck_assert_int_eq(ra.model, mpi_model_val);

    assert_read_ok(&rc_);
    ck_assert_ptr_eq(rc_.base, base_c);
    ck_assert_int_eq(rc_.size, 32);
    ck_assert_int_eq(rc_.disp_unit, 8);
    ck_assert_int_eq(rc_.flavor, MPI_WIN_FLAVOR_CREATE);

    /* The storage belongs to the window: stable, and not shared. */
    ck_assert_int_eq(size_after, 24);
    ck_assert_ptr_eq(ra2.size_ptr, ra.size_ptr);
    ck_assert_ptr_ne(rc_.size_ptr, ra.size_ptr);
}
END_TEST

START_TEST(test_predefined_read_only)
{
    struct {
        rmalab_keyval *kv;
        const char *name;
    } kvs[] = {
        {RMALAB_WIN_BASE, "WIN_BASE"},
        {RMALAB_WIN_SIZE, "WIN_SIZE"},
        {RMALAB_WIN_DISP_UNIT, "WIN_DISP_UNIT"},
        {RMALAB_WIN_CREATE_FLAVOR, "WIN_CREATE_FLAVOR"},
        {RMALAB_WIN_MODEL, "WIN_MODEL"},
    };
    char want[64];
    int x = 1, flag;
    for (int i = 0; i < 5; i++) {
        snprintf(want, sizeof want, "%s is predefined and read-only", kvs[i].name);
        ck_assert_rc(rmalab_win_set_attr(w[0], kvs[i].kv, &x), RMALAB_ERR_KEYVAL);
        ck_assert_contains(rmalab_errmsg(), want);
        ck_assert_rc(rmalab_win_delete_attr(w[0], kvs[i].kv), RMALAB_ERR_KEYVAL);
        ck_assert_contains(rmalab_errmsg(), want);
        ck_assert_int_eq(has_attr(w[0], kvs[i].kv), 1);
    }
    ck_assert_ptr_eq(attr_of(w[0], RMALAB_WIN_BASE, &flag), rmalab_win_base(w[0]));
    ck_assert_int_eq(*(MPI_Aint *)attr_of(w[0], RMALAB_WIN_SIZE, &flag), 64);
    ck_assert_int_eq(*(int *)attr_of(w[0], RMALAB_WIN_DISP_UNIT, &flag), 1);
}
END_TEST

Suite *attr_suite(void)
{
    Suite *s = suite_create("attr");
    TCase *tc = tcase_create("keyvals");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_keyval_lifecycle);
    tcase_add_test(tc, test_predefined_functions);
    tcase_add_test(tc, test_null_arguments);
    suite_add_tcase(s, tc);

    tc = tcase_create("attributes");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_set_get_delete);
    tcase_add_test(tc, test_delete_never_set);
    tcase_add_test(tc, test_replace);
    tcase_add_test(tc, test_replace_deletes_first);
    tcase_add_test(tc, test_free_order);
    tcase_add_test(tc, test_freed_keyval_keeps_working);
    suite_add_tcase(s, tc);

    tc = tcase_create("callbacks");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_callback_deletes_other);
    tcase_add_test(tc, test_callback_frees_own_keyval);
    tcase_add_test(tc, test_failing_delete);
    tcase_add_test(tc, test_failing_delete_at_free);
    suite_add_tcase(s, tc);

    tc = tcase_create("predefined");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_predefined_values);
    tcase_add_test(tc, test_predefined_read_only);
    suite_add_tcase(s, tc);
    return s;
}
