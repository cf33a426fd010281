/* Info objects: an insertion-ordered array of entries with an open-addressing
 * hash index over it, laid out so that a set or a get of a short key and
 * value touches two cache lines whatever the number of keys: a slot and an
 * entry.
 *
 * Entries are appended in order; a delete frees the entry's buffers and
 * leaves it dead, so that positions held by the index stay valid. Dead
 * entries are squeezed out (and the index rebuilt in place, without
 * allocating) when they outnumber the live ones, or when nthkey needs
 * positions to be dense.
 *
 * The index is a power-of-two array of 32-bit slots kept below half full
 * and probed linearly. A slot holds an entry's position + 1 in its low 24
 * bits and the top 8 bits of the entry's key hash above them, so that a
 * probe passes over other keys without reading their entries (all but 1 in
 * 256). That bounds an object to MAX_ENTS entries, some 16 million.
 *
 * An entry is one cache line (the array is aligned to them) and holds its
 * key and value when they are short: up to KEY_INLINE and VAL_INLINE bytes.
 * A longer key or value has a buffer of its own. An overwrite copies a long
 * value into the buffer the entry has when it fits (it allocates only when
 * a value outgrows its buffer) and frees the buffer when the new value is
 * short. Sets, gets and deletes are O(1) on average. */
#include "private.h"
#include "alloc.h"
#include "error-private.h"
#include "info-private.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LINE 64       /* bytes in a cache line */
#define KEY_INLINE 31 /* the longest key kept in its entry */
#define VAL_INLINE 23 /* the longest value kept in its entry */

struct entry {
    uint32_t hash;
    uint16_t vlen;
    uint8_t klen;
    bool live;
    union {
        char in[KEY_INLINE + 1]; /* klen <= KEY_INLINE */
        char *out;               /* klen > KEY_INLINE */
    } key;
    union {
        char in[VAL_INLINE + 1]; /* vlen <= VAL_INLINE */
        struct {
            char *buf; /* vlen > VAL_INLINE: cap bytes */
            size_t cap;
        } out;
    } val;
};

_Static_assert(sizeof(struct entry) == LINE, "an entry is one cache line");
_Static_assert(RMALAB_MAX_INFO_KEY <= UINT8_MAX, "klen holds every key length");
_Static_assert(RMALAB_MAX_INFO_VAL <= UINT16_MAX, "vlen holds every value length");

struct rmalab_info {
    struct entry *ents; /* in insertion order, dead ones included; LINE-aligned */
    size_t nents, cap;  /* used and allocated entries */
    size_t nlive;
    uint32_t *slots;    /* 0 empty, SLOT_DEAD deleted, else hash tag | index + 1 */
    size_t nslots;      /* a power of two, or 0 */
    size_t nused;       /* slots that are not empty (live or dead) */
};

#define SLOT_DEAD UINT32_MAX
#define TAG 0xff000000u             /* the bits of a hash that slots keep */
#define MAX_ENTS ((size_t)0xfffffe) /* positions + 1 below the tag, never all ones */

_Static_assert(MAX_ENTS + 1 == (size_t)~TAG, "positions + 1 fill the bits below TAG");

static uint32_t slot_make(uint32_t hash, size_t index)
{
    return (hash & TAG) | (uint32_t)(index + 1);
}

static size_t slot_index(uint32_t s)
{
    return (size_t)(s & ~TAG) - 1;
}

static const char *entry_key(const struct entry *e)
{
    return e->klen <= KEY_INLINE ? e->key.in : e->key.out;
}

static const char *entry_val(const struct entry *e)
{
    return e->vlen <= VAL_INLINE ? e->val.in : e->val.out.buf;
}

static void entry_free(struct entry *e)
{
    if (e->klen > KEY_INLINE)
        rmalab__mem_free(e->key.out);
    if (e->vlen > VAL_INLINE)
        rmalab__mem_free(e->val.out.buf);
}

/* ------------------------------------------------------------------------ */
/* Strings                                                                  */

char *rmalab__info_strndup(const char *s, size_t n)
{
    char *p = rmalab__mem_alloc(n + 1);
    if (p) {
        if (n)
            memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

static uint32_t hash_bytes(const char *s, size_t n)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

static int check_key(const char *key, size_t klen)
{
    if (!key)
        return rmalab__err_fail(RMALAB_ERR_INFO_KEY, "info key is NULL");
    if (klen == 0)
        return rmalab__err_fail(RMALAB_ERR_INFO_KEY, "info keys may not be empty");
    if (klen > RMALAB_MAX_INFO_KEY)
        return rmalab__err_fail(RMALAB_ERR_INFO_KEY,
                                "info key of %zu characters is longer than MPI_MAX_INFO_KEY "
                                "(%d); use a shorter key",
                                klen, RMALAB_MAX_INFO_KEY);
    if (memchr(key, '\0', klen))
        return rmalab__err_fail(RMALAB_ERR_INFO_KEY,
                                "info key holds a NUL byte at position %zu; keys are C "
                                "strings and would be cut there",
                                (size_t)((const char *)memchr(key, '\0', klen) - key) + 1);
    return RMALAB_OK;
}

static int check_value(const char *val, size_t vlen)
{
    if (!val)
        return rmalab__err_fail(RMALAB_ERR_INFO_VALUE, "info value is NULL");
    if (vlen > RMALAB_MAX_INFO_VAL)
        return rmalab__err_fail(RMALAB_ERR_INFO_VALUE,
                                "info value of %zu characters is longer than MPI_MAX_INFO_VAL "
                                "(%d)",
                                vlen, RMALAB_MAX_INFO_VAL);
    if (memchr(val, '\0', vlen))
        return rmalab__err_fail(RMALAB_ERR_INFO_VALUE,
                                "info value holds a NUL byte at position %zu; values are C "
                                "strings and would be cut there",
                                (size_t)((const char *)memchr(val, '\0', vlen) - val) + 1);
    return RMALAB_OK;
}

#define CHECK_INFO(info)                                                                           \
    do {                                                                                           \
        if (!(info))                                                                               \
            return rmalab__err_fail(RMALAB_ERR_INFO, "info object is NULL");                       \
    } while (0)

/* ------------------------------------------------------------------------ */
/* The index                                                                */

/* Slot holding the key, or the first free slot of its probe sequence when
 * absent (*found = 0). An entry is read only when its slot's tag matches.
 * Requires nslots > nused. */
static size_t probe(const rmalab_info *info, const char *key, size_t klen, uint32_t h,
                    int *found)
{
    size_t mask = info->nslots - 1, first_dead = SIZE_MAX;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        uint32_t s = info->slots[i];
        if (s == 0) {
            *found = 0;
            return first_dead != SIZE_MAX ? first_dead : i;
        }
        if (s == SLOT_DEAD) {
            if (first_dead == SIZE_MAX)
                first_dead = i;
            continue;
        }
        if ((s & TAG) != (h & TAG))
            continue;
        const struct entry *e = &info->ents[slot_index(s)];
        if (e->klen == klen && memcmp(entry_key(e), key, klen) == 0) {
            *found = 1;
            return i;
        }
    }
}

static int find(const rmalab_info *info, const char *key, size_t klen, size_t *slot)
{
    int found = 0;
    if (info->nslots == 0)
        return 0;
    size_t i = probe(info, key, klen, hash_bytes(key, klen), &found);
    if (found && slot)
        *slot = i;
    return found;
}

static struct entry *slot_entry(const rmalab_info *info, size_t slot)
{
    return &info->ents[slot_index(info->slots[slot])];
}

/* Squeeze out dead entries and index the live ones afresh in the current
 * slots, which have room for them (nslots > 2 * nused >= 2 * nlive). */
static void reindex(rmalab_info *info)
{
    size_t j = 0, mask = info->nslots - 1;
    for (size_t i = 0; i < info->nents; i++)
        if (info->ents[i].live)
            info->ents[j++] = info->ents[i];
    info->nents = j;
    memset(info->slots, 0, info->nslots * sizeof *info->slots);
    info->nused = j;
    for (size_t i = 0; i < j; i++) {
        size_t k = info->ents[i].hash & mask;
        while (info->slots[k])
            k = (k + 1) & mask;
        info->slots[k] = slot_make(info->ents[i].hash, i);
    }
}

/* A new index with room for `want` live entries at a load below one half. */
static int rebuild(rmalab_info *info, size_t want)
{
    size_t nslots = 16;
    while (nslots < 2 * (want + 1))
        nslots <<= 1;
    uint32_t *slots = rmalab__mem_calloc(nslots, sizeof *slots);
    if (!slots)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory growing an info index");
    rmalab__mem_free(info->slots);
    info->slots = slots;
    info->nslots = nslots;
    reindex(info);
    return RMALAB_OK;
}

/* Dead entries out, so that positions are dense. Allocates nothing, so that
 * a delete or an nthkey never fails for want of memory. */
static void compact(rmalab_info *info)
{
    if (info->nents != info->nlive)
        reindex(info);
}

/* Room for one more entry: a LINE-aligned array of twice the entries. */
static int grow_ents(rmalab_info *info)
{
    if (info->nents < info->cap)
        return RMALAB_OK;
    if (info->nents == MAX_ENTS && info->nlive < info->nents) {
        compact(info); /* deleted entries make the room */
        return RMALAB_OK;
    }
    if (info->nents == MAX_ENTS)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM,
                                "an info object holds at most %zu entries (its keys, and "
                                "deleted keys not yet squeezed out)",
                                MAX_ENTS);
    size_t cap = info->cap ? 2 * info->cap : 8;
    if (cap > MAX_ENTS)
        cap = MAX_ENTS;
    void *ents = NULL;
    if (rmalab__mem_align(&ents, LINE, cap * sizeof *info->ents))
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory growing an info object");
    if (info->nents)
        memcpy(ents, info->ents, info->nents * sizeof *info->ents);
    rmalab__mem_free(info->ents);
    info->ents = ents;
    info->cap = cap;
    return RMALAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Life cycle                                                               */

int rmalab_info_create(rmalab_info **out)
{
    if (!out)
        return rmalab__err_fail(RMALAB_ERR_ARG, "rmalab_info_create: out is NULL");
    *out = rmalab__mem_calloc(1, sizeof **out);
    if (!*out)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory creating an info object");
    return RMALAB_OK;
}

void rmalab_info_destroy(rmalab_info **handle)
{
    if (!handle || !*handle)
        return;
    rmalab_info *info = *handle;
    *handle = NULL;
    for (size_t i = 0; i < info->nents; i++)
        if (info->ents[i].live)
            entry_free(&info->ents[i]);
    rmalab__mem_free(info->ents);
    rmalab__mem_free(info->slots);
    rmalab__mem_free(info);
}

int rmalab_info_dup(const rmalab_info *info, rmalab_info **out)
{
    CHECK_INFO(info);
    rmalab_info *copy;
    int rc = rmalab_info_create(&copy);
    if (rc)
        return rc;
    for (size_t i = 0; i < info->nents && rc == RMALAB_OK; i++) {
        const struct entry *e = &info->ents[i];
        if (e->live)
            rc = rmalab_info_set_n(copy, entry_key(e), e->klen, entry_val(e), e->vlen);
    }
    if (rc) {
        rmalab_info_destroy(&copy);
        return rc;
    }
    *out = copy;
    return RMALAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Set and delete                                                           */

/* The value into the entry when short, else into the entry's buffer when it
 * fits, else into a new buffer of vlen + 1 bytes rounded up to 16. `value`
 * may point into the entry or its buffer: the copy comes first, then the
 * old buffer is freed. A failure changes nothing. */
static int store_value(struct entry *e, const char *value, size_t vlen)
{
    char *old = e->vlen > VAL_INLINE ? e->val.out.buf : NULL, *dst = old;
    size_t cap = old ? e->val.out.cap : 0;
    if (vlen <= VAL_INLINE)
        dst = e->val.in;
    else if (vlen >= cap) {
        cap = (vlen + 16) & ~(size_t)15;
        if (!(dst = rmalab__mem_alloc(cap)))
            return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory storing an info value");
    }
    memmove(dst, value, vlen);
    dst[vlen] = '\0';
    if (old && dst != old)
        rmalab__mem_free(old);
    if (vlen > VAL_INLINE) {
        e->val.out.buf = dst;
        e->val.out.cap = cap;
    }
    e->vlen = (uint16_t)vlen;
    return RMALAB_OK;
}

/* A new entry after the last one, and its slot. The entry is made first, so
 * that `key` and `value` may point into the object, which growing the index
 * or the array moves; growing changes no pairs, so a failure leaves the
 * object unchanged. */
static int insert(rmalab_info *info, const char *key, size_t klen, const char *value,
                  size_t vlen)
{
    struct entry e = {.hash = hash_bytes(key, klen), .klen = (uint8_t)klen, .live = true};
    if (klen <= KEY_INLINE)
        memcpy(e.key.in, key, klen); /* NUL-terminated by the initialiser */
    else if (!(e.key.out = rmalab__info_strndup(key, klen)))
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory storing an info key");
    int rc = store_value(&e, value, vlen);
    /* Room for one more entry and a load factor below one half. */
    if (!rc && 2 * (info->nused + 1) >= info->nslots)
        rc = rebuild(info, info->nlive + 1);
    if (rc || (rc = grow_ents(info))) {
        entry_free(&e);
        return rc;
    }
    int found;
    size_t i = probe(info, entry_key(&e), klen, e.hash, &found);
    if (info->slots[i] == 0)
        info->nused++;
    info->slots[i] = slot_make(e.hash, info->nents);
    info->ents[info->nents++] = e;
    info->nlive++;
    return RMALAB_OK;
}

int rmalab_info_set_n(rmalab_info *info, const char *key, size_t klen, const char *value,
                      size_t vlen)
{
    CHECK_INFO(info);
    int rc = check_key(key, klen);
    if (rc)
        return rc;
    if ((rc = check_value(value, vlen)))
        return rc;
    size_t slot;
    if (find(info, key, klen, &slot))
        return store_value(slot_entry(info, slot), value, vlen);
    return insert(info, key, klen, value, vlen);
}

int rmalab_info_set(rmalab_info *info, const char *key, const char *value)
{
    if (!key)
        return rmalab__err_fail(RMALAB_ERR_INFO_KEY, "info key is NULL");
    if (!value)
        return rmalab__err_fail(RMALAB_ERR_INFO_VALUE, "info value is NULL");
    return rmalab_info_set_n(info, key, strlen(key), value, strlen(value));
}

int rmalab_info_delete_n(rmalab_info *info, const char *key, size_t klen)
{
    CHECK_INFO(info);
    int rc = check_key(key, klen);
    if (rc)
        return rc;
    size_t slot;
    if (!find(info, key, klen, &slot))
        return rmalab__err_fail(RMALAB_ERR_INFO_NOKEY,
                                "cannot delete info key \"%.*s\": it is not set (check with get "
                                "first)",
                                (int)klen, key);
    struct entry *e = slot_entry(info, slot);
    entry_free(e);
    e->live = false;
    info->slots[slot] = SLOT_DEAD;
    info->nlive--;
    if (info->nents - info->nlive > info->nlive + 16)
        compact(info);
    return RMALAB_OK;
}

int rmalab_info_delete(rmalab_info *info, const char *key)
{
    if (!key)
        return rmalab__err_fail(RMALAB_ERR_INFO_KEY, "info key is NULL");
    return rmalab_info_delete_n(info, key, strlen(key));
}

/* ------------------------------------------------------------------------ */
/* Readers                                                                  */

const char *rmalab_info_lookup(const rmalab_info *info, const char *key, size_t klen,
                               size_t *vlen)
{
    size_t slot;
    if (!info || !key || !find(info, key, klen, &slot))
        return NULL;
    const struct entry *e = slot_entry(info, slot);
    if (vlen)
        *vlen = e->vlen;
    return entry_val(e);
}

int rmalab__info_find(const rmalab_info *info, const char *key, const char **val, size_t *vlen)
{
    CHECK_INFO(info);
    if (!key)
        return rmalab__err_fail(RMALAB_ERR_INFO_KEY, "info key is NULL");
    size_t klen = strlen(key);
    int rc = check_key(key, klen);
    if (rc)
        return rc;
    *val = rmalab_info_lookup(info, key, klen, vlen);
    return RMALAB_OK;
}

int rmalab_info_get(const rmalab_info *info, const char *key, int valuelen, char *value,
                    int *flag)
{
    const char *v;
    size_t vlen;
    int rc = rmalab__info_find(info, key, &v, &vlen);
    if (rc)
        return rc;
    if (valuelen < 0)
        return rmalab__err_fail(RMALAB_ERR_ARG, "valuelen is negative (%d)", valuelen);
    *flag = v != NULL;
    if (v) {
        size_t n = vlen < (size_t)valuelen ? vlen : (size_t)valuelen;
        memcpy(value, v, n);
        value[n] = '\0';
    }
    return RMALAB_OK;
}

int rmalab_info_get_valuelen(const rmalab_info *info, const char *key, int *valuelen,
                             int *flag)
{
    const char *v;
    size_t vlen;
    int rc = rmalab__info_find(info, key, &v, &vlen);
    if (rc)
        return rc;
    *flag = v != NULL;
    if (v)
        *valuelen = (int)vlen;
    return RMALAB_OK;
}

int rmalab_info_get_string(const rmalab_info *info, const char *key, int *buflen, char *value,
                           int *flag)
{
    const char *v;
    size_t vlen;
    int rc = rmalab__info_find(info, key, &v, &vlen);
    if (rc)
        return rc;
    if (!buflen || *buflen < 0)
        return rmalab__err_fail(RMALAB_ERR_ARG, "buflen must point to a size of 0 or more");
    *flag = v != NULL;
    if (!v)
        return RMALAB_OK;
    if (*buflen > 0) {
        size_t n = vlen < (size_t)*buflen - 1 ? vlen : (size_t)*buflen - 1;
        memcpy(value, v, n);
        value[n] = '\0';
    }
    *buflen = (int)vlen + 1;
    return RMALAB_OK;
}

int rmalab_info_get_nkeys(const rmalab_info *info, int *nkeys)
{
    CHECK_INFO(info);
    *nkeys = (int)info->nlive;
    return RMALAB_OK;
}

int rmalab_info_nth(rmalab_info *info, int n, const char **key, size_t *klen,
                    const char **value, size_t *vlen)
{
    CHECK_INFO(info);
    if (n < 0 || (size_t)n >= info->nlive)
        return rmalab__err_fail(RMALAB_ERR_ARG,
                                "key number %d is out of range: this info has %zu keys, "
                                "numbered 0 to %zd",
                                n, info->nlive, (ssize_t)info->nlive - 1);
    compact(info);
    const struct entry *e = &info->ents[n];
    if (key)
        *key = entry_key(e);
    if (klen)
        *klen = e->klen;
    if (value)
        *value = entry_val(e);
    if (vlen)
        *vlen = e->vlen;
    return RMALAB_OK;
}

int rmalab_info_get_nthkey(rmalab_info *info, int n, char *key)
{
    const char *k;
    size_t klen;
    int rc = rmalab_info_nth(info, n, &k, &klen, NULL, NULL);
    if (rc)
        return rc;
    memcpy(key, k, klen + 1);
    return RMALAB_OK;
}
