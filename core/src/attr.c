/* Attribute caching on windows: keyvals, and the per-window list of
 * attributes that win.c embeds in every window.
 *
 * A keyval is reference counted: one reference for the user, dropped by
 * rmalab_keyval_free, and one per attribute that uses it, dropped when the
 * attribute goes. The last release runs the keyval's free_fn and frees it,
 * so a keyval the user has freed keeps working for the attributes still set
 * (but cannot start new ones). A window's attributes form a doubly linked
 * list in order of first setting. Every path that runs a delete callback
 * first unlinks the attribute and holds a reference on its keyval, so a
 * callback may delete other attributes of the same window, or free its own
 * keyval, without pulling anything from under the caller.
 *
 * The predefined keyvals (MPI_WIN_BASE and friends) are static objects that
 * are never counted. Their values, like MPI's, point into storage that lives
 * as long as the window: one hidden node of the window's list, owned by the
 * private keyval `values_kv`, created on the first read and freed with the
 * other attributes when the window goes. It has no callback and no reference
 * count, and lookups never match it. */
#include "win-private.h"
#include "alloc.h"
#include "error-private.h"
#include "attr.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct rmalab_keyval {
    rmalab_copy_attr_fn copy;    /* NULL: the null copy function */
    rmalab_delete_attr_fn del;   /* NULL: the null delete function */
    void *extra;
    rmalab_keyval_free_fn free_fn;
    atomic_int refs;             /* the user's, plus one per attribute */
    atomic_bool user_freed;
    int id;                      /* for messages: "keyval 3" */
    const char *predefined;      /* "WIN_BASE"... for the predefined ones */
};

static atomic_int next_id = 1;

/* What the predefined attributes point to, one block per window. */
struct win_values {
    MPI_Aint size;
    int disp_unit;
    int flavor;
    int model;
};

#define PREDEFINED(name) {.refs = 1, .id = 0, .predefined = name}

static struct rmalab_keyval predef[] = {
    PREDEFINED("WIN_BASE"),
    PREDEFINED("WIN_SIZE"),
    PREDEFINED("WIN_DISP_UNIT"),
    PREDEFINED("WIN_CREATE_FLAVOR"),
    PREDEFINED("WIN_MODEL"),
};
/* Owns the hidden struct win_values node; never seen outside this file. */
static struct rmalab_keyval values_kv = PREDEFINED("(window values)");

rmalab_keyval *const RMALAB_WIN_BASE = &predef[0];
rmalab_keyval *const RMALAB_WIN_SIZE = &predef[1];
rmalab_keyval *const RMALAB_WIN_DISP_UNIT = &predef[2];
rmalab_keyval *const RMALAB_WIN_CREATE_FLAVOR = &predef[3];
rmalab_keyval *const RMALAB_WIN_MODEL = &predef[4];

/* ------------------------------------------------------------------------ */
/* Predefined callbacks                                                     */

int rmalab_win_null_copy_fn(rmalab_win *oldwin, rmalab_keyval *kv, void *extra_state,
                            void *attr_in, void **attr_out, int *flag)
{
    *flag = 0;
    return RMALAB_OK;
}

int rmalab_win_dup_fn(rmalab_win *oldwin, rmalab_keyval *kv, void *extra_state,
                      void *attr_in, void **attr_out, int *flag)
{
    *attr_out = attr_in;
    *flag = 1;
    return RMALAB_OK;
}

int rmalab_win_null_delete_fn(rmalab_win *win, rmalab_keyval *kv, void *attr,
                              void *extra_state)
{
    return RMALAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Keyvals                                                                  */

int rmalab_keyval_create(rmalab_copy_attr_fn copy, rmalab_delete_attr_fn del,
                         void *extra_state, rmalab_keyval_free_fn free_fn,
                         rmalab_keyval **out)
{
    if (!out)
        return rmalab__err_fail(RMALAB_ERR_ARG,
                                "keyval_create needs somewhere to put the keyval (out is NULL)");
    *out = NULL;
    rmalab_keyval *kv = rmalab__mem_alloc(sizeof *kv);
    if (!kv)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory creating a keyval");
    kv->copy = copy;
    kv->del = del;
    kv->extra = extra_state;
    kv->free_fn = free_fn;
    atomic_init(&kv->refs, 1);
    atomic_init(&kv->user_freed, false);
    kv->id = atomic_fetch_add(&next_id, 1);
    kv->predefined = NULL;
    *out = kv;
    return RMALAB_OK;
}

/* Drop one reference; the last one runs free_fn and frees the keyval. */
static void keyval_release(rmalab_keyval *kv)
{
    if (kv->predefined)
        return;
    if (atomic_fetch_sub(&kv->refs, 1) == 1) {
        if (kv->free_fn)
            kv->free_fn(kv->extra);
        rmalab__mem_free(kv);
    }
}

int rmalab_keyval_free(rmalab_keyval **kv)
{
    if (!kv || !*kv)
        return rmalab__err_fail(RMALAB_ERR_KEYVAL, "keyval is NULL");
    rmalab_keyval *k = *kv;
    if (k->predefined)
        return rmalab__err_fail(RMALAB_ERR_KEYVAL,
                                "%s is predefined and cannot be freed; only keyvals made by "
                                "keyval_create can",
                                k->predefined);
    if (atomic_exchange(&k->user_freed, true))
        return rmalab__err_fail(RMALAB_ERR_KEYVAL,
                                "keyval %d was already freed; free each keyval once", k->id);
    *kv = NULL;
    keyval_release(k);
    return RMALAB_OK;
}

void *rmalab_keyval_extra(const rmalab_keyval *kv)
{
    return kv ? kv->extra : NULL;
}

/* ------------------------------------------------------------------------ */
/* Attribute lists                                                          */

static rmalab__attr *find(const rmalab__attr_list *list, const rmalab_keyval *kv)
{
    for (rmalab__attr *a = list->head; a; a = a->next)
        if (a->kv == kv)
            return a;
    return NULL;
}

static void unlink_attr(rmalab__attr_list *list, rmalab__attr *a)
{
    if (a->prev)
        a->prev->next = a->next;
    else
        list->head = a->next;
    if (a->next)
        a->next->prev = a->prev;
    else
        list->tail = a->prev;
    a->prev = a->next = NULL;
}

static rmalab__attr *append(rmalab__attr_list *list, rmalab_keyval *kv, void *value)
{
    rmalab__attr *a = rmalab__mem_alloc(sizeof *a);
    if (!a)
        return NULL;
    a->kv = kv;
    a->value = value;
    a->replacing = false;
    a->next = NULL;
    a->prev = list->tail;
    if (list->tail)
        list->tail->next = a;
    else
        list->head = a;
    list->tail = a;
    return a;
}

/* Run the delete callback of `kv` on `value`. The caller holds a reference
 * on `kv`. Returns the callback's status with its message; a code outside
 * the table becomes ERR_CALLBACK, and a failure without a message gets
 * one. */
/* Whether the delete callback running on this thread removes its value
 * whatever it returns (delete_attr, free), or keeps it on failure
 * (replacing a value). */
static _Thread_local bool delete_is_final = true;

bool rmalab_attr_delete_is_final(void)
{
    return delete_is_final;
}

static int run_delete(rmalab_win *win, rmalab_keyval *kv, void *value, bool final)
{
    if (!kv->del)
        return RMALAB_OK;
    rmalab__err_fail(RMALAB_OK, "%s", ""); /* to tell whether the callback said why */
    bool was = delete_is_final;
    delete_is_final = final;
    win->attrs.running++;
    int rc = kv->del(win, kv, value, kv->extra);
    win->attrs.running--;
    delete_is_final = was;
    if (rc == RMALAB_OK)
        return RMALAB_OK;
    if (rc < 0 || rc >= RMALAB_ERR_LASTCODE)
        return rmalab__err_fail(RMALAB_ERR_CALLBACK,
                                "the delete callback of keyval %d returned %d, which is not an "
                                "rmalab status code; return RMALAB_OK or an RMALAB_ERR_* code",
                                kv->id, rc);
    if (rmalab_errmsg()[0] == '\0')
        return rmalab__err_fail(rc,
                                "the delete callback of keyval %d returned %s without saying "
                                "why (callbacks report a reason with rmalab_set_error)",
                                kv->id, rmalab_err_name(rc));
    return rc;
}

/* Drop the reference held across a callback without losing the status `rc`
 * and its message to the free_fn the release may run. */
static int release_keeping(rmalab_keyval *kv, int rc)
{
    if (!rc) {
        keyval_release(kv);
        return RMALAB_OK;
    }
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", rmalab_errmsg());
    keyval_release(kv);
    return rmalab__err_fail(rc, "%s", msg);
}

static int check_win_kv(const rmalab_win *win, const rmalab_keyval *kv)
{
    if (!win)
        return rmalab__err_fail(RMALAB_ERR_WIN, "window is NULL or freed");
    if (!kv)
        return rmalab__err_fail(RMALAB_ERR_KEYVAL, "keyval is NULL");
    return RMALAB_OK;
}

static int read_only(const rmalab_keyval *kv)
{
    return rmalab__err_fail(RMALAB_ERR_KEYVAL,
                            "%s is predefined and read-only: the window sets it when it is "
                            "created; read it with get_attr",
                            kv->predefined);
}

/* The hidden block behind the predefined attributes of `win`, made on the
 * first read. NULL when out of memory. */
static struct win_values *win_values(rmalab_win *win)
{
    rmalab__attr_list *list = &win->attrs;
    rmalab__attr *a = find(list, &values_kv);
    if (a)
        return a->value;
    struct win_values *v = rmalab__mem_alloc(sizeof *v);
    if (!v)
        return NULL;
    static const int flavors[] = {
        [RMALAB_FLAVOR_CREATE] = MPI_WIN_FLAVOR_CREATE,
        [RMALAB_FLAVOR_ALLOCATE] = MPI_WIN_FLAVOR_ALLOCATE,
        [RMALAB_FLAVOR_SHARED] = MPI_WIN_FLAVOR_SHARED,
        [RMALAB_FLAVOR_DYNAMIC] = MPI_WIN_FLAVOR_DYNAMIC,
    };
    rmalab_flavor f = rmalab_win_flavor(win);
    v->size = rmalab_win_size(win);
    v->disp_unit = rmalab_win_disp_unit(win);
    v->flavor = (unsigned)f < sizeof flavors / sizeof flavors[0] ? flavors[f] : -1;
    v->model = rmalab_win_model(win);
    if (!append(list, &values_kv, v)) {
        rmalab__mem_free(v);
        return NULL;
    }
    return v;
}

/* ------------------------------------------------------------------------ */
/* Setting, getting and deleting                                            */

/* A new attribute takes a reference on `kv`. Replacing one stores the new
 * value first and then runs delete on the old one, so that during that
 * callback the window already holds the new value; the attribute keeps its
 * place in the list. */
/* Deleting or setting an attribute from the delete callback its own
 * replacement runs would run delete twice on the same old value. */
static int replacing(const rmalab_keyval *kv)
{
    return rmalab__err_fail(RMALAB_ERR_KEYVAL,
                            "keyval %d: this attribute is being replaced, and its delete callback "
                            "is running; that callback cannot delete or set the same attribute",
                            kv->id);
}

int rmalab_win_set_attr(rmalab_win *win, rmalab_keyval *kv, void *value)
{
    int rc = check_win_kv(win, kv);
    if (rc)
        return rc;
    if (kv->predefined)
        return read_only(kv);
    rmalab__attr_list *list = &win->attrs;
    rmalab__attr *a = find(list, kv);
    if (a && a->replacing)
        return replacing(kv);
    if (!a) {
        if (atomic_load(&kv->user_freed))
            return rmalab__err_fail(RMALAB_ERR_KEYVAL,
                                    "keyval %d was freed; it still serves the "
                                    "attributes already set, but cannot start new ones (create "
                                    "a new keyval)",
                                    kv->id);
        if (!append(list, kv, value))
            return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory setting an attribute");
        atomic_fetch_add(&kv->refs, 1);
        return RMALAB_OK;
    }
    /* "As if delete_attr were first called": delete runs on the old value
     * while it is still set, and if it fails the old value stays. */
    void *old = a->value;
    int id = kv->id;
    atomic_fetch_add(&kv->refs, 1);
    a->replacing = true; /* the callback may not delete or set `a` itself */
    rc = run_delete(win, kv, old, false);
    a->replacing = false;
    if (rc) {
        rmalab__err_prefix(rc,
                           "delete callback of keyval %d failed, so the old value stays "
                           "(replacing runs delete on it first)",
                           id);
        return release_keeping(kv, rc);
    }
    a->value = value;
    return release_keeping(kv, rc);
}

int rmalab_win_get_attr(rmalab_win *win, rmalab_keyval *kv, void **value, int *flag)
{
    int rc = check_win_kv(win, kv);
    if (rc)
        return rc;
    if (!value || !flag)
        return rmalab__err_fail(RMALAB_ERR_ARG, "get_attr needs somewhere to put the value and "
                                                "the flag (value or flag is NULL)");
    *flag = 0;
    if (kv->predefined) {
        if (kv == RMALAB_WIN_BASE) {
            *value = rmalab_win_base(win);
            *flag = 1;
            return RMALAB_OK;
        }
        struct win_values *v = win_values(win);
        if (!v)
            return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory reading %s", kv->predefined);
        if (kv == RMALAB_WIN_SIZE)
            *value = &v->size;
        else if (kv == RMALAB_WIN_DISP_UNIT)
            *value = &v->disp_unit;
        else if (kv == RMALAB_WIN_CREATE_FLAVOR)
            *value = &v->flavor;
        else if (kv == RMALAB_WIN_MODEL)
            *value = &v->model;
        else
            return rmalab__err_fail(RMALAB_ERR_KEYVAL, "invalid predefined keyval");
        *flag = 1;
        return RMALAB_OK;
    }
    rmalab__attr *a = find(&win->attrs, kv);
    if (a) {
        *value = a->value;
        *flag = 1;
    }
    return RMALAB_OK;
}

/* The attribute leaves the list before its callback runs; the keyval
 * reference it held is dropped after. */
int rmalab_win_delete_attr(rmalab_win *win, rmalab_keyval *kv)
{
    int rc = check_win_kv(win, kv);
    if (rc)
        return rc;
    if (kv->predefined)
        return read_only(kv);
    rmalab__attr_list *list = &win->attrs;
    rmalab__attr *a = find(list, kv);
    if (!a)
        return RMALAB_OK;
    if (a->replacing)
        return replacing(kv);
    void *value = a->value;
    unlink_attr(list, a);
    rmalab__mem_free(a);
    return release_keeping(kv, run_delete(win, kv, value, true));
}

int rmalab__attr_delete_all(rmalab_win *win)
{
    if (!win)
        return rmalab__err_fail(RMALAB_ERR_WIN, "window is NULL or freed");
    rmalab__attr_list *list = &win->attrs;
    char first_msg[2048] = "";
    int first = RMALAB_OK;
    while (list->tail) {
        rmalab__attr *a = list->tail;
        rmalab_keyval *kv = a->kv;
        void *value = a->value;
        unlink_attr(list, a);
        rmalab__mem_free(a);
        if (kv == &values_kv) {
            rmalab__mem_free(value);
            continue;
        }
        int rc = run_delete(win, kv, value, true);
        if (rc && !first) {
            first = rc;
            snprintf(first_msg, sizeof first_msg, "%s", rmalab_errmsg());
        }
        keyval_release(kv);
    }
    if (first)
        return rmalab__err_fail(first, "%s", first_msg);
    return RMALAB_OK;
}

void rmalab__attr_forget(rmalab_win *win)
{
    rmalab__attr_list *list = &win->attrs;
    while (list->tail) {
        rmalab__attr *a = list->tail;
        unlink_attr(list, a);
        if (a->kv == &values_kv)
            rmalab__mem_free(a->value);
        rmalab__mem_free(a);
    }
}

bool rmalab__attr_busy(const rmalab_win *win) { return win->attrs.running > 0; }
