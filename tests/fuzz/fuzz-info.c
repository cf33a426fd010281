/* fuzz-info: random sequences of set, delete, dup, get and nthkey on two
 * info objects, each checked after every step against a model of its own:
 * an ordered list of (key, value) byte strings, written from the standard
 * (docs: /work/shared/spec/info-object.txt) and rmalab/info.h, not from
 * info.c.
 *
 * The rules the model keeps: insertion order; a set of an existing key
 * changes its value in place; dup copies pairs and order and is independent
 * afterwards; keys of 1 to RMALAB_MAX_INFO_KEY bytes and values of 0 to
 * RMALAB_MAX_INFO_VAL bytes, no NUL in either; an invalid key is
 * ERR_INFO_KEY, an invalid value ERR_INFO_VALUE, the delete of an absent key
 * ERR_INFO_NOKEY, nthkey out of range ERR_ARG; get truncates to valuelen and
 * leaves the buffer alone when the key is absent. A step may also run with
 * the core's nth allocation failing (rmalab_debug_fail_alloc): then it
 * either succeeds or returns ERR_NO_MEM, and a step that failed changed
 * nothing. Every input ends with nothing the core allocated left live. */
#include <limits.h>

#include <rmalab/debug.h>
#include <rmalab/rmalab.h>

#include "fuzz.h"

#define MAXK RMALAB_MAX_INFO_KEY
#define MAXV RMALAB_MAX_INFO_VAL
#define MAX_STEPS 200

/* ------------------------------------------------------------------------ */
/* The model                                                                */

typedef struct {
    char *key, *val;
    size_t klen, vlen;
} pair;

typedef struct {
    pair *p;
    int n, cap;
} model;

static void model_clear(model *m)
{
    for (int i = 0; i < m->n; i++) {
        free(m->p[i].key);
        free(m->p[i].val);
    }
    free(m->p);
    memset(m, 0, sizeof *m);
}

static char *copy(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    FUZZ_CHECK(p != NULL, "out of memory in the model");
    if (n)
        memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

static int model_find(const model *m, const char *k, size_t kl)
{
    for (int i = 0; i < m->n; i++)
        if (m->p[i].klen == kl && memcmp(m->p[i].key, k, kl) == 0)
            return i;
    return -1;
}

static void model_set(model *m, const char *k, size_t kl, const char *v, size_t vl)
{
    int i = model_find(m, k, kl);
    if (i >= 0) {
        free(m->p[i].val);
        m->p[i].val = copy(v, vl);
        m->p[i].vlen = vl;
        return;
    }
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 8;
        m->p = realloc(m->p, (size_t)m->cap * sizeof *m->p);
        FUZZ_CHECK(m->p != NULL, "out of memory in the model");
    }
    m->p[m->n++] = (pair){copy(k, kl), copy(v, vl), kl, vl};
}

static void model_delete(model *m, int i)
{
    free(m->p[i].key);
    free(m->p[i].val);
    memmove(&m->p[i], &m->p[i + 1], (size_t)(m->n - i - 1) * sizeof *m->p);
    m->n--;
}

static void model_dup(const model *from, model *to)
{
    model_clear(to);
    for (int i = 0; i < from->n; i++)
        model_set(to, from->p[i].key, from->p[i].klen, from->p[i].val, from->p[i].vlen);
}

/* The standard's and info.h's validity of a key and of a value. */
static int key_ok(const char *k, size_t kl)
{
    return kl >= 1 && kl <= MAXK && !memchr(k, '\0', kl);
}

static int val_ok(const char *v, size_t vl)
{
    return vl <= MAXV && !memchr(v, '\0', vl);
}

/* ------------------------------------------------------------------------ */
/* The object against the model                                             */

typedef struct {
    rmalab_info *info;
    model m;
} slot;

static void compare(slot *s, const char *where)
{
    int nkeys = -1;
    FUZZ_CHECK(rmalab_info_get_nkeys(s->info, &nkeys) == RMALAB_OK, "%s", where);
    FUZZ_CHECK(nkeys == s->m.n, "%s: nkeys %d, model %d", where, nkeys, s->m.n);
    for (int i = 0; i < s->m.n; i++) {
        const pair *p = &s->m.p[i];
        char key[MAXK + 1];
        int rc = rmalab_info_get_nthkey(s->info, i, key);
        FUZZ_CHECK(rc == RMALAB_OK, "%s: nthkey %d: %s", where, i, rmalab_errmsg());
        FUZZ_CHECK(strlen(key) == p->klen && memcmp(key, p->key, p->klen) == 0,
                   "%s: nthkey %d is \"%s\", model \"%s\"", where, i, key, p->key);
        int vl = -1, flag = -1;
        FUZZ_CHECK(rmalab_info_get_valuelen(s->info, p->key, &vl, &flag) == RMALAB_OK, "%s",
                   where);
        FUZZ_CHECK(flag == 1 && vl == (int)p->vlen, "%s: valuelen of \"%s\": flag %d, %d, "
                   "model %zu", where, p->key, flag, vl, p->vlen);
        char val[MAXV + 1];
        FUZZ_CHECK(rmalab_info_get(s->info, p->key, MAXV, val, &flag) == RMALAB_OK, "%s", where);
        FUZZ_CHECK(flag == 1 && strlen(val) == p->vlen && memcmp(val, p->val, p->vlen) == 0,
                   "%s: value of \"%s\" is \"%s\", model \"%s\"", where, p->key, val, p->val);
    }
    char key[MAXK + 1];
    FUZZ_CHECK(rmalab_info_get_nthkey(s->info, s->m.n, key) == RMALAB_ERR_ARG,
               "%s: nthkey one past the end", where);
}

/* ------------------------------------------------------------------------ */
/* Keys and values from the input                                           */

static const char *const pool[] = {"a", "b", "key", "no_locks", "accumulate_ordering",
                                   "x y", " a", "a ", "k\tt", "\xc3\xa9"};

/* A key or value into buf (size > MAXV + 1), NUL-terminated after *n bytes:
 * from the pool, the model, raw input, or one byte repeated to a length near
 * the limits. */
static void text(fuzz_in *in, const slot *s, char *buf, size_t *n, int is_key)
{
    unsigned how = fuzz_byte(in) % 5;
    size_t len = 0;
    switch (how) {
    case 0: {
        const char *p = pool[fuzz_byte(in) % (sizeof pool / sizeof *pool)];
        len = strlen(p);
        memcpy(buf, p, len);
        break;
    }
    case 1:
        if (s->m.n) {
            const pair *p = &s->m.p[fuzz_byte(in) % (unsigned)s->m.n];
            len = is_key ? p->klen : p->vlen;
            memcpy(buf, is_key ? p->key : p->val, len);
        }
        break;
    case 2: {
        const char *p = fuzz_bytes(in, 300, &len);
        memcpy(buf, p, len);
        break;
    }
    default: {
        /* Around the limit: limit - 3 .. limit + 2, or anything below 1100. */
        size_t limit = is_key ? MAXK : MAXV;
        unsigned r = fuzz_byte(in);
        len = r < 128 ? limit - 3 + r % 6 : fuzz_u16(in) % 1100;
        memset(buf, 'a' + (int)(fuzz_byte(in) % 26), len);
        break;
    }
    }
    buf[len] = '\0';
    *n = len;
}

/* ------------------------------------------------------------------------ */
/* Steps                                                                    */

typedef struct {
    slot s[2];
    long fail_at; /* > 0: the step runs with this allocation failing */
} world;

/* The status of a step that could fail only for lack of memory. */
static void expect_ok_or_nomem(int rc, const char *what, int *took)
{
    FUZZ_CHECK(rc == RMALAB_OK || rc == RMALAB_ERR_NO_MEM, "%s: %s (%s)", what,
               rmalab_err_name(rc), rmalab_errmsg());
    *took = rc == RMALAB_OK;
}

static void step_set(world *w, slot *s, fuzz_in *in, int c_strings)
{
    char k[1200], v[1200];
    size_t kl, vl;
    text(in, s, k, &kl, 1);
    text(in, s, v, &vl, 0);
    int rc;
    if (c_strings) {
        kl = strlen(k);
        vl = strlen(v);
        rc = rmalab_info_set(s->info, k, v);
    } else {
        rc = rmalab_info_set_n(s->info, k, kl, v, vl);
    }
    int kok = key_ok(k, kl), vok = val_ok(v, vl), took;
    if (!kok && !vok) /* the standard does not say which is checked first */
        FUZZ_CHECK(rc == RMALAB_ERR_INFO_KEY || rc == RMALAB_ERR_INFO_VALUE, "set: %s",
                   rmalab_err_name(rc));
    else if (!kok)
        FUZZ_CHECK(rc == RMALAB_ERR_INFO_KEY, "set of a %zu-byte key: %s", kl,
                   rmalab_err_name(rc));
    else if (!vok)
        FUZZ_CHECK(rc == RMALAB_ERR_INFO_VALUE, "set of a %zu-byte value: %s", vl,
                   rmalab_err_name(rc));
    if (kok && vok) {
        if (w->fail_at)
            expect_ok_or_nomem(rc, "set", &took);
        else
            FUZZ_CHECK(rc == RMALAB_OK, "set: %s (%s)", rmalab_err_name(rc), rmalab_errmsg());
        if (rc == RMALAB_OK)
            model_set(&s->m, k, kl, v, vl);
    }
}

static void step_delete(world *w, slot *s, fuzz_in *in, int c_strings)
{
    char k[1200];
    size_t kl;
    text(in, s, k, &kl, 1);
    int rc;
    if (c_strings) {
        kl = strlen(k);
        rc = rmalab_info_delete(s->info, k);
    } else {
        rc = rmalab_info_delete_n(s->info, k, kl);
    }
    int i = model_find(&s->m, k, kl), took;
    if (!key_ok(k, kl)) {
        FUZZ_CHECK(rc == RMALAB_ERR_INFO_KEY, "delete of an invalid key: %s",
                   rmalab_err_name(rc));
    } else if (i < 0) {
        FUZZ_CHECK(rc == RMALAB_ERR_INFO_NOKEY, "delete of an absent key: %s",
                   rmalab_err_name(rc));
    } else {
        if (w->fail_at)
            expect_ok_or_nomem(rc, "delete", &took);
        else
            FUZZ_CHECK(rc == RMALAB_OK, "delete: %s (%s)", rmalab_err_name(rc),
                       rmalab_errmsg());
        if (rc == RMALAB_OK)
            model_delete(&s->m, i);
    }
}

static void step_dup(world *w, int from)
{
    slot *a = &w->s[from], *b = &w->s[!from];
    rmalab_info *copy = NULL;
    int rc = rmalab_info_dup(a->info, &copy), took;
    if (w->fail_at)
        expect_ok_or_nomem(rc, "dup", &took);
    else
        FUZZ_CHECK(rc == RMALAB_OK, "dup: %s (%s)", rmalab_err_name(rc), rmalab_errmsg());
    if (rc != RMALAB_OK) {
        FUZZ_CHECK(copy == NULL, "a failed dup set its output");
        return;
    }
    rmalab_info_destroy(&b->info);
    FUZZ_CHECK(b->info == NULL, "destroy did not clear the handle");
    b->info = copy;
    model_dup(&a->m, &b->m);
}

/* get, get_valuelen and get_string of one key with buffer sizes around the
 * value's length. */
static void step_get(slot *s, fuzz_in *in)
{
    char k[1200];
    size_t kl;
    text(in, s, k, &kl, 1);
    kl = strlen(k);
    int i = model_find(&s->m, k, kl);
    int valuelen = (int)(fuzz_u16(in) % (MAXV + 8)) - 2;
    char buf[MAXV + 16];
    memset(buf, '#', sizeof buf);
    int flag = -1, rc = rmalab_info_get(s->info, k, valuelen, buf, &flag);
    if (!key_ok(k, kl)) { /* either error when valuelen is wrong too */
        FUZZ_CHECK(rc == RMALAB_ERR_INFO_KEY || (valuelen < 0 && rc == RMALAB_ERR_ARG),
                   "get of an invalid key: %s", rmalab_err_name(rc));
        return;
    }
    if (valuelen < 0) {
        FUZZ_CHECK(rc == RMALAB_ERR_ARG, "get with valuelen %d: %s", valuelen,
                   rmalab_err_name(rc));
    } else {
        FUZZ_CHECK(rc == RMALAB_OK, "get: %s", rmalab_err_name(rc));
        FUZZ_CHECK(flag == (i >= 0), "get: flag %d for a key %s", flag,
                   i >= 0 ? "present" : "absent");
        if (i < 0) {
            FUZZ_CHECK(buf[0] == '#', "get of an absent key wrote the buffer");
        } else {
            size_t want = s->m.p[i].vlen < (size_t)valuelen ? s->m.p[i].vlen
                                                            : (size_t)valuelen;
            FUZZ_CHECK(memcmp(buf, s->m.p[i].val, want) == 0 && buf[want] == '\0' &&
                           buf[want + 1] == '#',
                       "get with valuelen %d: not the value cut to %zu bytes", valuelen, want);
        }
    }

    int vl = -7;
    flag = -1;
    FUZZ_CHECK(rmalab_info_get_valuelen(s->info, k, &vl, &flag) == RMALAB_OK, "get_valuelen");
    FUZZ_CHECK(flag == (i >= 0) && (i >= 0 ? vl == (int)s->m.p[i].vlen : vl == -7),
               "get_valuelen: flag %d, %d", flag, vl);

    int buflen = valuelen, bl = buflen;
    memset(buf, '#', sizeof buf);
    flag = -1;
    rc = rmalab_info_get_string(s->info, k, &bl, buf, &flag);
    if (buflen < 0) {
        FUZZ_CHECK(rc == RMALAB_ERR_ARG, "get_string with buflen %d: %s", buflen,
                   rmalab_err_name(rc));
        return;
    }
    FUZZ_CHECK(rc == RMALAB_OK, "get_string: %s", rmalab_err_name(rc));
    FUZZ_CHECK(flag == (i >= 0), "get_string: flag %d", flag);
    if (i < 0) {
        FUZZ_CHECK(bl == buflen && buf[0] == '#', "get_string of an absent key wrote");
        return;
    }
    size_t vlen = s->m.p[i].vlen;
    FUZZ_CHECK(bl == (int)vlen + 1, "get_string: buflen out %d, value of %zu bytes", bl, vlen);
    if (buflen == 0) {
        FUZZ_CHECK(buf[0] == '#', "get_string with buflen 0 wrote");
    } else {
        size_t want = vlen < (size_t)buflen - 1 ? vlen : (size_t)buflen - 1;
        FUZZ_CHECK(memcmp(buf, s->m.p[i].val, want) == 0 && buf[want] == '\0' &&
                       buf[want + 1] == '#',
                   "get_string with buflen %d: not the value cut to %zu bytes", buflen, want);
    }
}

static void step_nthkey(world *w, slot *s, fuzz_in *in)
{
    static const int odd[] = {INT_MIN, -1, INT_MAX};
    unsigned r = fuzz_byte(in);
    int n = r < 16 ? odd[r % 3] : (int)(r % (unsigned)(s->m.n + 4)) - 2;
    char key[MAXK + 1];
    const char *kp = NULL, *vp = NULL;
    size_t kl = 0, vl = 0;
    int rc = r & 1 ? rmalab_info_get_nthkey(s->info, n, key)
                   : rmalab_info_nth(s->info, n, &kp, &kl, &vp, &vl);
    if (n < 0 || n >= s->m.n) {
        FUZZ_CHECK(rc == RMALAB_ERR_ARG, "nthkey %d of %d keys: %s", n, s->m.n,
                   rmalab_err_name(rc));
        return;
    }
    int took = 1;
    if (w->fail_at)
        expect_ok_or_nomem(rc, "nthkey", &took);
    else
        FUZZ_CHECK(rc == RMALAB_OK, "nthkey %d: %s", n, rmalab_err_name(rc));
    if (!took)
        return;
    const pair *p = &s->m.p[n];
    if (r & 1) {
        FUZZ_CHECK(strlen(key) == p->klen && memcmp(key, p->key, p->klen) == 0,
                   "nthkey %d: \"%s\", model \"%s\"", n, key, p->key);
    } else {
        FUZZ_CHECK(kl == p->klen && memcmp(kp, p->key, kl) == 0 && kp[kl] == '\0' &&
                       vl == p->vlen && memcmp(vp, p->val, vl) == 0 && vp[vl] == '\0',
                   "nth %d: not the model's pair", n);
        size_t lvl = 0;
        const char *lv = rmalab_info_lookup(s->info, kp, kl, &lvl);
        FUZZ_CHECK(lv == vp && lvl == vl, "lookup of nth %d's key", n);
    }
}

/* ------------------------------------------------------------------------ */
/* The run                                                                  */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    long live = rmalab_debug_live_allocs();
    world w = {0};
    for (int i = 0; i < 2; i++)
        FUZZ_CHECK(rmalab_info_create(&w.s[i].info) == RMALAB_OK, "create");
    for (int step = 0; step < MAX_STEPS && fuzz_left(&in); step++) {
        unsigned op = fuzz_byte(&in);
        slot *s = &w.s[op >> 7];
        w.fail_at = 0;
        if ((op & 0x70) == 0x70) /* one step in eight runs short of memory */
            w.fail_at = 1 + (long)(fuzz_byte(&in) % 8);
        rmalab_debug_fail_alloc(w.fail_at);
        switch (op % 10) {
        case 0:
        case 1: step_set(&w, s, &in, 0); break;
        case 2: step_set(&w, s, &in, 1); break;
        case 3: step_delete(&w, s, &in, 0); break;
        case 4: step_delete(&w, s, &in, 1); break;
        case 5: step_dup(&w, op >> 7); break;
        case 6: step_get(s, &in); break;
        case 7: step_nthkey(&w, s, &in); break;
        case 8: {
            rmalab_info_destroy(&s->info);
            model_clear(&s->m);
            int rc = rmalab_info_create(&s->info);
            if (rc != RMALAB_OK) { /* out of memory on purpose: try again */
                rmalab_debug_fail_alloc(0);
                FUZZ_CHECK(rmalab_info_create(&s->info) == RMALAB_OK, "create");
            }
            break;
        }
        default: step_get(s, &in); break;
        }
        rmalab_debug_fail_alloc(0);
        compare(&w.s[0], "info 0");
        compare(&w.s[1], "info 1");
    }
    for (int i = 0; i < 2; i++) {
        rmalab_info_destroy(&w.s[i].info);
        model_clear(&w.s[i].m);
    }
    rmalab_info_destroy(NULL);
    FUZZ_CHECK(rmalab_debug_live_allocs() == live, "the core holds %ld allocations more "
               "than before the input", rmalab_debug_live_allocs() - live);
    return 0;
}
