/* rl.hints: the catalogue, the Lua shapes of diagnostics, hint reports and
 * agreement checks, and the four hint methods that communicators and
 * windows share (lrm_hinted_methods).
 *
 * Memory: what the core allocates for a result lives in a userdata made
 * before the core call (a box, or the diagnostics' own userdata), so a Lua
 * error while its tables are built never leaks it: __gc releases what the
 * pusher did not. */
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

/* The scope named at `arg`: "win" or "comm", as the core names them. */
static rmalab_hint_scope check_scope(lua_State *L, int arg)
{
    const char *const scopes[] = {rmalab_hint_scope_name(RMALAB_SCOPE_WIN),
                                  rmalab_hint_scope_name(RMALAB_SCOPE_COMM), NULL};
    return lrm_checkoption(L, arg, NULL, scopes) == 0 ? RMALAB_SCOPE_WIN : RMALAB_SCOPE_COMM;
}

/* rl.hints.catalog("win" | "comm") -> array of { key, type, default, doc,
 * scope, values, must_agree, after_create, rmalab } */
static int hints_catalog(lua_State *L)
{
    rmalab_hint_scope scope = check_scope(L, 1);
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
    rmalab_hint_scope scope = check_scope(L, 1);
    rmalab_info *info = lrm_toinfo(L, 2, 0);
    rmalab_diags *d = lrm_newdiags(L);
    int rc = rmalab_hints_validate(scope, info, NULL, d);
    if (rc)
        return lrm_raise(L, rc, "rl.hints.check");
    lrm_pushdiags(L, d);
    return 1;
}

/* Push the diagnostics as an array of { key, message } and clear them. */
#define LRM_BOX_T "rmalab.box"
#define LRM_DIAGS_T "rmalab.diags"

static int box_gc(lua_State *L)
{
    lrm_box *b = luaL_checkudata(L, 1, LRM_BOX_T);
    if (b->p)
        b->destroy(b->p);
    b->p = NULL;
    return 0;
}

lrm_box *lrm_newbox(lua_State *L, void (*destroy)(void *p))
{
    lrm_box *b = lua_newuserdatauv(L, sizeof *b, 0);
    b->p = NULL;
    b->destroy = destroy;
    luaL_setmetatable(L, LRM_BOX_T);
    return b;
}

static void box_clear(lrm_box *b)
{
    if (b->p)
        b->destroy(b->p);
    b->p = NULL;
}

static int diags_gc(lua_State *L)
{
    rmalab_diags_clear(luaL_checkudata(L, 1, LRM_DIAGS_T));
    return 0;
}

rmalab_diags *lrm_newdiags(lua_State *L)
{
    rmalab_diags *d = lua_newuserdatauv(L, sizeof *d, 0);
    rmalab_diags_init(d);
    luaL_setmetatable(L, LRM_DIAGS_T);
    return d;
}

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

/* Push the report in box b as an array of { key, requested, effective,
 * default, status, note } and destroy it. */
void lrm_pushreport(lua_State *L, lrm_box *b)
{
    const rmalab_hints_report *r = b->p;
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
    box_clear(b);
}

/* Push disagreements as an array of { key, values = {[rank] = v},
 * ranks = {ranks whose value differs from rank 0's} } and destroy them.
 * Ranks are 0-based keys in `values`. */
void lrm_pushagreement(lua_State *L, lrm_box *b)
{
    const rmalab_agreement *a = b->p;
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
    box_clear(b);
}

/* ------------------------------------------------------------------------ */
/* The hint methods of communicators and windows                            */

static void destroy_report(void *p)
{
    rmalab_hints_report_destroy(p);
}

static void destroy_agreement(void *p)
{
    rmalab_agreement_destroy(p);
}

static const lrm_hinted *hinted(lua_State *L)
{
    return lua_touserdata(L, lua_upvalueindex(1));
}

/* obj:set_info(hints) -> diagnostics (collective). Hints this rank cannot
 * read are its failure in the core's agreement, so that the other ranks
 * fail too instead of waiting in MPI; raised as worded here. */
static int hinted_set_info(lua_State *L)
{
    const lrm_hinted *h = hinted(L);
    void *obj = h->check(L, 1);
    rmalab_info *info = NULL;
    lrm_held held;
    held.status = RMALAB_OK; /* not an initializer: that would clear msg too */
    if (lua_isnoneornil(L, 2))
        lrm_hold(&held, lrm_argstatus(L, 2, RMALAB_ERR_ARG,
                                      "table of hints or info object expected"));
    else
        lrm_hold(&held, lrm_toinfo_status(L, 2, &info));
    rmalab_diags *d = lrm_newdiags(L);
    int rc = h->set_info(obj, info, d, held.status);
    if (held.status)
        return lrm_raise_held(L, &held);
    if (rc)
        return h->raise(L, rc, obj, "set_info");
    lrm_pushdiags(L, d);
    return 1;
}

/* obj:get_info() -> info object of the hints in effect */
static int hinted_get_info(lua_State *L)
{
    const lrm_hinted *h = hinted(L);
    void *obj = h->check(L, 1);
    int rc = h->get_info(obj, lrm_newinfo(L));
    if (rc)
        return h->raise(L, rc, obj, "get_info");
    return 1;
}

/* obj:hints() -> report of requested against effective hints */
static int hinted_hints(lua_State *L)
{
    const lrm_hinted *h = hinted(L);
    void *obj = h->check(L, 1);
    lrm_box *b = lrm_newbox(L, destroy_report);
    int rc = h->hints(obj, (rmalab_hints_report **)&b->p);
    if (rc)
        return h->raise(L, rc, obj, "hints");
    lrm_pushreport(L, b);
    return 1;
}

/* obj:check_hints() -> array of disagreements (collective) */
static int hinted_check_hints(lua_State *L)
{
    const lrm_hinted *h = hinted(L);
    void *obj = h->check(L, 1);
    lrm_box *b = lrm_newbox(L, destroy_agreement);
    int rc = h->check_hints(obj, (rmalab_agreement **)&b->p);
    if (rc)
        return h->raise(L, rc, obj, "check_hints");
    lrm_pushagreement(L, b);
    return 1;
}

void lrm_hinted_methods(lua_State *L, const lrm_hinted *h)
{
    static const luaL_Reg methods[] = {
        {"set_info", hinted_set_info},
        {"get_info", hinted_get_info},
        {"hints", hinted_hints},
        {"check_hints", hinted_check_hints},
        {NULL, NULL},
    };
    lua_pushlightuserdata(L, (void *)h);
    luaL_setfuncs(L, methods, 1);
}

static const luaL_Reg hints_funcs[] = {
    {"catalog", hints_catalog},
    {"check", hints_check},
    {NULL, NULL},
};

/* Leaves the rl.hints table on the stack. */
void lrm_open_hints(lua_State *L)
{
    if (luaL_newmetatable(L, LRM_BOX_T)) {
        lua_pushcfunction(L, box_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_pop(L, 1);
    if (luaL_newmetatable(L, LRM_DIAGS_T)) {
        lua_pushcfunction(L, diags_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_pop(L, 1);
    luaL_newlib(L, hints_funcs);
}
