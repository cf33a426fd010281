/* Scenario headers (scenario.h). A header line is `--`, spaces, a known
 * key, `:` and its value; other comment lines are prose and are skipped,
 * so "-- Exchanges on 2 ranks: ..." is not a header line. */
#include "scenario.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad(scenario *s, int line, const char *what, const char *v)
{
    snprintf(s->err, sizeof s->err, "line %d: %s (got \"%.60s\")", line, what, v);
    return -1;
}

static int parse_counts(scenario *s, int line, const char *v)
{
    s->ncounts = 0;
    s->counts_given = 1;
    for (const char *p = v; *p;) {
        char *end;
        long k = strtol(p, &end, 10);
        if (end == p || k < 1 || k > 64 || s->ncounts == SC_MAX_COUNTS)
            return bad(s, line, "ranks: takes up to 8 rank counts from 1 to 64", v);
        s->counts[s->ncounts++] = (int)k;
        for (p = end; *p == ' ' || *p == '\t' || *p == ','; p++)
            ;
    }
    return s->ncounts ? 0 : bad(s, line, "ranks: takes at least one rank count", v);
}

static int parse_engines(scenario *s, int line, const char *v)
{
    s->nengines = 0;
    for (const char *p = v; *p;) {
        size_t n = strcspn(p, " \t,");
        if (n == 0 || n >= sizeof s->engines[0] || s->nengines == SC_MAX_ENGINES)
            return bad(s, line, "engines: takes up to 4 engine names", v);
        for (size_t i = 0; i < n; i++)
            if (!islower((unsigned char)p[i]))
                return bad(s, line, "engines: names are lowercase words (native, rma)", v);
        snprintf(s->engines[s->nengines++], sizeof s->engines[0], "%.*s", (int)n, p);
        for (p += n; *p == ' ' || *p == '\t' || *p == ','; p++)
            ;
    }
    return s->nengines ? 0 : bad(s, line, "engines: takes at least one engine", v);
}

static int parse_env(scenario *s, int line, const char *v)
{
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || s->nenv == SC_MAX_ENV || strlen(v) >= sizeof s->env[0])
        return bad(s, line, "env: takes KEY=VALUE (up to 16 of them)", v);
    for (const char *p = v; p < eq; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return bad(s, line, "env: the key is a variable name", v);
    snprintf(s->env[s->nenv++], sizeof s->env[0], "%s", v);
    return 0;
}

static int header_line(scenario *s, int line, const char *text)
{
    char key[16], value[300];
    if (sscanf(text, "-- %15[a-z]: %299[^\n]", key, value) != 2)
        return 0;
    size_t n = strlen(value);
    while (n && isspace((unsigned char)value[n - 1]))
        value[--n] = '\0';
    if (strcmp(key, "ranks") == 0)
        return parse_counts(s, line, value);
    if (strcmp(key, "engines") == 0)
        return parse_engines(s, line, value);
    if (strcmp(key, "env") == 0)
        return parse_env(s, line, value);
    if (strcmp(key, "timeout") == 0) {
        char *end;
        s->timeout = strtod(value, &end);
        if (end == value || *end || !(s->timeout > 0 && s->timeout <= 86400))
            return bad(s, line, "timeout: takes seconds, more than 0", value);
    }
    return 0;
}

int scenario_parse(const char *text, size_t len, scenario *s)
{
    memset(s, 0, sizeof *s);
    s->counts[0] = 2;
    s->ncounts = 1;
    s->timeout = 60;
    size_t i = 0;
    for (int line = 1; line <= 10 && i < len; line++) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
        char buf[400];
        snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf - 1 ? n : sizeof buf - 1),
                 text + i);
        if (header_line(s, line, buf))
            return -1;
        i += n + 1;
    }
    return 0;
}
