/* Hint values in canonical form: booleans and integers in the standard's
 * spelling, enum values and list elements checked against the catalogue
 * row, lists trimmed and joined by ",". Calls info-typed.c's parsers. */
#include "private.h"
#include "error-private.h"
#include "info-private.h"
#include "info-typed.h"

#include <stdio.h>
#include <string.h>

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

static int append(char *buf, size_t *off, const char *s, size_t n)
{
    if (*off + n > RMALAB_MAX_INFO_VAL)
        return rmalab__err_fail(RMALAB_ERR_INFO_VALUE, "normalised value is too long");
    memcpy(buf + *off, s, n);
    *off += n;
    buf[*off] = '\0';
    return RMALAB_OK;
}

static int normalize_bool(const rmalab_hint_def *def, const char *value, size_t vlen, char *buf)
{
    bool b;
    if (rmalab_parse_bool(value, vlen, &b))
        return rmalab__err_fail(RMALAB_ERR_INFO_VALUE,
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
    rmalab__info_typed_trim(&t, &m);
    if (def->unlimited && strlen(def->unlimited) == m && memcmp(t, def->unlimited, m) == 0) {
        strcpy(buf, def->unlimited);
        return RMALAB_OK;
    }
    if (rmalab_parse_int(value, vlen, &v))
        return rmalab__err_fail(RMALAB_ERR_INFO_VALUE, "%s is an integer%s%s%s: \"%.*s\" is not",
                                def->key, def->unlimited ? " or \"" : "",
                                def->unlimited ? def->unlimited : "", def->unlimited ? "\"" : "",
                                (int)vlen, value);
    if (def->unlimited && v == -1) {
        strcpy(buf, def->unlimited);
        return RMALAB_OK;
    }
    if (v < def->min || v > def->max)
        return rmalab__err_fail(RMALAB_ERR_INFO_VALUE, "%s must lie in %d..%d: %d does not",
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
    rmalab__info_typed_trim(&t, &m);
    if (!in_values(def->values, t, m)) {
        values_text(def->values, allowed, sizeof allowed);
        return rmalab__err_fail(RMALAB_ERR_INFO_VALUE, "%s must be one of %s: \"%.*s\" is not",
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
        return rmalab__err_fail(RMALAB_ERR_INFO_VALUE, "%s: \"%s\" is not one of %s", def->key,
                                items[i], allowed);
    }
    if (def->sole && count > 1 && strcmp(items[i], def->sole) == 0)
        return rmalab__err_fail(RMALAB_ERR_INFO_VALUE, "%s: \"%s\" must stand alone in the list",
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
        return rmalab__err_fail(RMALAB_ERR_INFO_VALUE, "%s is a comma-separated list: %s", def->key,
                                why);
    }
    if (count == 0)
        rc = rmalab__err_fail(RMALAB_ERR_INFO_VALUE, "%s: the list is empty", def->key);
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
    return rmalab__err_fail(RMALAB_ERR_ARG, "unknown hint type");
}
