/* rl.hints: the catalogue, and the Lua shapes of diagnostics, hint reports
 * and agreement checks shared by communicators and windows. */
#include <string.h>

#include "lrmalab.h"

static void setstr(lua_State *L, const char *field, const char *value)
{
    if (!value)
        return;
    lua_pushstring(L, value);
    lua_setfield(L, -2, field);
}

static void setbool(lua_State *L, const char *field, int value)
{
    lua_pushboolean(L, value);
    lua_setfield(L, -2, field);
}

/* rl.hints.catalog("win" | "comm") -> array of { key, type, default, doc,
 * scope, values, must_agree, after_create, rmalab } */
static int hints_catalog(lua_State *L)
{
    static const char *const scopes[] = {"win", "comm", NULL};
    rmalab_hint_scope scope = lrm_checkoption(L, 1, NULL, scopes) == 0 ? RMALAB_SCOPE_WIN
                                                                        : RMALAB_SCOPE_COMM;
    int n = rmalab_hints_count(scope);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        const rmalab_hint_def *d = rmalab_hints_at(scope, i);
        lua_createtable(L, 0, 10);
        setstr(L, "key", d->key);
        setstr(L, "scope", rmalab_hint_scope_name(d->scope));
        setstr(L, "type", rmalab_hint_type_name(d->type));
        setstr(L, "default", d->default_value);
        setstr(L, "doc", d->doc);
        setbool(L, "must_agree", d->must_agree);
        setbool(L, "after_create", d->after_create);
        setbool(L, "rmalab", d->rmalab_own);
        if (d->values) {
            lua_newtable(L);
            for (int j = 0; d->values[j]; j++) {
                lua_pushstring(L, d->values[j]);
                lua_rawseti(L, -2, j + 1);
            }
            lua_setfield(L, -2, "values");
        }
        if (d->type == RMALAB_HINT_INT) {
            lua_pushinteger(L, d->min);
            lua_setfield(L, -2, "min");
            lua_pushinteger(L, d->max);
            lua_setfield(L, -2, "max");
            setstr(L, "unlimited", d->unlimited);
        }
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* rl.hints.check("win" | "comm", info_or_table) -> array of diagnostics:
 * validation without creating anything. */
static int hints_check(lua_State *L)
{
    static const char *const scopes[] = {"win", "comm", NULL};
    rmalab_hint_scope scope = lrm_checkoption(L, 1, NULL, scopes) == 0 ? RMALAB_SCOPE_WIN
                                                                        : RMALAB_SCOPE_COMM;
    rmalab_info *info = lrm_toinfo(L, 2, 0);
    rmalab_diags d;
    rmalab_diags_init(&d);
    int rc = rmalab_hints_validate(scope, info, NULL, &d);
    if (rc) {
        rmalab_diags_clear(&d);
        return lrm_raise(L, rc, "rl.hints.check");
    }
    lrm_pushdiags(L, &d);
    return 1;
}

/* Push the diagnostics as an array of { key, message } and clear them. */
void lrm_pushdiags(lua_State *L, rmalab_diags *d)
{
    lua_createtable(L, d->count, 0);
    for (int i = 0; i < d->count; i++) {
        lua_createtable(L, 0, 2);
        setstr(L, "key", d->items[i].key);
        setstr(L, "message", d->items[i].message);
        lua_rawseti(L, -2, i + 1);
    }
    rmalab_diags_clear(d);
}

/* Push the report as an array of { key, requested, effective, default,
 * status, note } and destroy it. */
void lrm_pushreport(lua_State *L, rmalab_hints_report *r)
{
    lua_createtable(L, r->count, 0);
    for (int i = 0; i < r->count; i++) {
        const rmalab_hint_row *row = &r->rows[i];
        lua_createtable(L, 0, 6);
        setstr(L, "key", row->key);
        setstr(L, "requested", row->requested);
        setstr(L, "effective", row->effective);
        setstr(L, "default", row->default_value);
        setstr(L, "status", rmalab_hint_status_name(row->status));
        setstr(L, "note", row->note);
        lua_rawseti(L, -2, i + 1);
    }
    rmalab_hints_report_destroy(r);
}

/* Push disagreements as an array of { key, values = {[rank] = v},
 * ranks = {ranks whose value differs from rank 0's} } and destroy them.
 * Ranks are 0-based keys in `values`. */
void lrm_pushagreement(lua_State *L, rmalab_agreement *a)
{
    lua_createtable(L, a->count, 0);
    for (int i = 0; i < a->count; i++) {
        const rmalab_disagreement *d = &a->items[i];
        lua_createtable(L, 0, 3);
        setstr(L, "key", d->key);
        lua_newtable(L);
        for (int r = 0; r < d->nranks; r++) {
            lua_pushstring(L, d->values[r] ? d->values[r] : "(unset)");
            lua_rawseti(L, -2, r);
        }
        lua_setfield(L, -2, "values");
        lua_newtable(L);
        for (int r = 1, k = 0; r < d->nranks; r++) {
            const char *a0 = d->values[0], *ar = d->values[r];
            if ((a0 == NULL) != (ar == NULL) || (a0 && strcmp(a0, ar) != 0)) {
                lua_pushinteger(L, r);
                lua_rawseti(L, -2, ++k);
            }
        }
        lua_setfield(L, -2, "ranks");
        lua_rawseti(L, -2, i + 1);
    }
    rmalab_agreement_destroy(a);
}

static const luaL_Reg hints_funcs[] = {
    {"catalog", hints_catalog},
    {"check", hints_check},
    {NULL, NULL},
};

/* Leaves the rl.hints table on the stack. */
void lrm_open_hints(lua_State *L)
{
    luaL_newlib(L, hints_funcs);
}
