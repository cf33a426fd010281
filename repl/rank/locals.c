/* Persistent top-level locals (locals.h): a small Lua tokenizer that finds
 * the `local` statements at the top level of a chunk and turns them into
 * assignments to the session's environment. It understands just enough
 * Lua to know the block depth: strings, long brackets, comments, names and
 * the keywords that open and close blocks. */
#include "locals.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../wire/strbuf.h"

typedef struct {
    const char *s;
    size_t n, i;         /* source, length, position */
    size_t tok, toklen;  /* the current token */
    int kind;            /* 'n' name, 's' string, 'x' other, 0 end */
} lexer;

/* The level of a long bracket at s[i] ("[[", "[==["), or -1. */
static int long_bracket(const lexer *L, size_t i)
{
    if (i >= L->n || L->s[i] != '[')
        return -1;
    size_t j = i + 1;
    while (j < L->n && L->s[j] == '=')
        j++;
    return j < L->n && L->s[j] == '[' ? (int)(j - i - 1) : -1;
}

/* Skip a long bracket of `level` opening at i; returns the end. */
static size_t skip_long(const lexer *L, size_t i, int level)
{
    for (i += (size_t)level + 2; i < L->n; i++) {
        if (L->s[i] != ']')
            continue;
        size_t j = i + 1;
        while (j < L->n && L->s[j] == '=')
            j++;
        if (j < L->n && L->s[j] == ']' && (int)(j - i - 1) == level)
            return j + 1;
    }
    return L->n;
}

static void skip_space_and_comments(lexer *L)
{
    while (L->i < L->n) {
        char c = L->s[L->i];
        if (isspace((unsigned char)c)) {
            L->i++;
        } else if (c == '-' && L->i + 1 < L->n && L->s[L->i + 1] == '-') {
            int lv = long_bracket(L, L->i + 2);
            if (lv >= 0) {
                L->i = skip_long(L, L->i + 2, lv);
            } else {
                while (L->i < L->n && L->s[L->i] != '\n')
                    L->i++;
            }
        } else {
            return;
        }
    }
}

static void next(lexer *L)
{
    skip_space_and_comments(L);
    L->tok = L->i;
    if (L->i >= L->n) {
        L->kind = 0;
        L->toklen = 0;
        return;
    }
    char c = L->s[L->i];
    int lv;
    if (isalpha((unsigned char)c) || c == '_') {
        while (L->i < L->n && (isalnum((unsigned char)L->s[L->i]) || L->s[L->i] == '_'))
            L->i++;
        L->kind = 'n';
    } else if (isdigit((unsigned char)c)) {
        while (L->i < L->n && (isalnum((unsigned char)L->s[L->i]) || L->s[L->i] == '.' ||
                               ((L->s[L->i] == '+' || L->s[L->i] == '-') &&
                                strchr("eEpP", L->s[L->i - 1]))))
            L->i++;
        L->kind = 'x';
    } else if (c == '"' || c == '\'') {
        for (L->i++; L->i < L->n && L->s[L->i] != c && L->s[L->i] != '\n'; L->i++)
            if (L->s[L->i] == '\\' && L->i + 1 < L->n)
                L->i++;
        if (L->i < L->n)
            L->i++;
        L->kind = 's';
    } else if ((lv = long_bracket(L, L->i)) >= 0) {
        L->i = skip_long(L, L->i, lv);
        L->kind = 's';
    } else {
        L->i++;
        L->kind = 'x';
    }
    L->toklen = L->i - L->tok;
}

static int is(const lexer *L, const char *word)
{
    size_t n = strlen(word);
    return L->kind && L->toklen == n && memcmp(L->s + L->tok, word, n) == 0;
}

typedef struct {
    lexer L;
    strbuf out, names;
    size_t copied; /* source bytes already in out */
    int nnames;
} rewriter;

static void copy_to(rewriter *r, size_t pos)
{
    if (pos > r->copied)
        strbuf_put(&r->out, r->L.s + r->copied, pos - r->copied);
    r->copied = pos;
}

/* Replace source [from, to) by spaces (keeps the line numbers). */
static void blank(rewriter *r, size_t from, size_t to)
{
    copy_to(r, from);
    for (size_t k = from; k < to; k++)
        strbuf_put(&r->out, r->L.s[k] == '\n' ? "\n" : " ", 1);
    r->copied = to;
}

static void add_name(rewriter *r, size_t at, size_t n)
{
    strbuf_put(&r->names, r->L.s + at, n);
    strbuf_put(&r->names, "", 1); /* the NUL that ends the name */
    r->nnames++;
}

/* At `local` (the current token) at the top level. Returns 1 when it
 * consumed the `function` of a `local function`, whose body the caller
 * must count as a block. */
static int rewrite_local(rewriter *r)
{
    lexer *L = &r->L;
    size_t kw = L->tok, kwend = L->i;
    next(L);
    if (is(L, "function")) {
        blank(r, kw, kwend);
        next(L);
        if (L->kind == 'n')
            add_name(r, L->tok, L->toklen);
        return 1;
    }
    /* NAME [<attrib>] {, NAME [<attrib>]} */
    size_t names_at[64], names_len[64], attr_from[64], attr_to[64];
    int n = 0, nattr = 0;
    while (L->kind == 'n' && n < 64) {
        names_at[n] = L->tok;
        names_len[n++] = L->toklen;
        next(L);
        if (is(L, "<")) {
            size_t from = L->tok;
            next(L);
            if (is(L, "close"))
                return 0; /* a to-be-closed variable stays local */
            next(L);
            attr_from[nattr] = from;
            attr_to[nattr++] = L->i;
            next(L);
        }
        if (!is(L, ","))
            break;
        next(L);
    }
    if (n == 0 || n == 64)
        return 0; /* not a declaration we understand: leave it to Lua */
    blank(r, kw, kwend);
    for (int k = 0; k < nattr; k++)
        blank(r, attr_from[k], attr_to[k]);
    for (int k = 0; k < n; k++)
        add_name(r, names_at[k], names_len[k]);
    if (!is(L, "=")) { /* `local x`: x = nil */
        copy_to(r, names_at[n - 1] + names_len[n - 1]);
        strbuf_put(&r->out, " = nil", 6);
    }
    return 0;
}

char *locals_rewrite(const char *src, size_t len, size_t *outlen, char **names, int *nnames)
{
    rewriter r = {.L = {.s = src, .n = len}};
    int depth = 0, pending_do = 0;
    next(&r.L);
    while (r.L.kind) {
        lexer *L = &r.L;
        if (L->kind != 'n') {
            next(L);
            continue;
        }
        if (depth == 0 && is(L, "local")) {
            depth += rewrite_local(&r);
            continue; /* rewrite_local stopped on an unconsumed token */
        }
        if (is(L, "function") || is(L, "repeat") || is(L, "if"))
            depth++;
        else if (is(L, "while") || is(L, "for"))
            depth++, pending_do++;
        else if (is(L, "do"))
            pending_do > 0 ? pending_do-- : depth++;
        else if ((is(L, "end") || is(L, "until")) && depth > 0)
            depth--;
        next(L);
    }
    copy_to(&r, len);
    strbuf_put(&r.out, "", 0);
    if (r.out.fail || r.names.fail || !r.out.p) {
        free(r.out.p);
        free(r.names.p);
        return NULL;
    }
    *outlen = r.out.len;
    *names = r.names.p;
    *nnames = r.nnames;
    return r.out.p;
}
