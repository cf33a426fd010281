/* The command language (cmdline.h): targets, `:` commands and rank sets. */
#include "cmdline.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static int number(const char *s, size_t len, size_t *i, long *out)
{
    size_t start = *i;
    long v = 0;
    while (*i < len && isdigit((unsigned char)s[*i]) && v <= 1000000)
        v = v * 10 + (s[(*i)++] - '0');
    *out = v;
    return *i > start;
}

int rankset_parse(const char *s, size_t len, int size, rankset *out, char *err, size_t errsize)
{
    memset(out, 0, sizeof *out);
    out->n = size < RANKSET_MAX ? size : RANKSET_MAX;
    if (len == 3 && memcmp(s, "all", 3) == 0) {
        memset(out->in, 1, (size_t)out->n);
        return 0;
    }
    size_t i = 0;
    do {
        long a, b;
        if (!number(s, len, &i, &a)) {
            snprintf(err, errsize, "bad rank set \"%.*s\": use 0, 0,2, 1-3 or all", (int)len, s);
            return -1;
        }
        b = a;
        if (i < len && s[i] == '-') {
            i++;
            if (!number(s, len, &i, &b) || b < a) {
                snprintf(err, errsize, "bad rank range in \"%.*s\"", (int)len, s);
                return -1;
            }
        }
        if (b >= out->n) {
            snprintf(err, errsize, "rank %ld is not in this job (ranks 0 to %d); nothing was sent",
                     b, size - 1);
            return -1;
        }
        for (long r = a; r <= b; r++)
            out->in[r] = 1;
    } while (i < len && s[i] == ',' && ++i);
    if (i != len) {
        snprintf(err, errsize, "bad rank set \"%.*s\": use 0, 0,2, 1-3 or all", (int)len, s);
        return -1;
    }
    return 0;
}

int rankset_count(const rankset *s)
{
    int k = 0;
    for (int r = 0; r < s->n; r++)
        k += s->in[r];
    return k;
}

void rankset_text(const rankset *s, char *buf, size_t size)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int r = 0; r < s->n && off < size; r++) {
        if (!s->in[r])
            continue;
        int e = r;
        while (e + 1 < s->n && s->in[e + 1])
            e++;
        const char *sep = off ? "," : "";
        if (e - r >= 2)
            off += (size_t)snprintf(buf + off, size - off, "%s%d-%d", sep, r, e);
        else if (e == r + 1)
            off += (size_t)snprintf(buf + off, size - off, "%s%d,%d", sep, r, e);
        else
            off += (size_t)snprintf(buf + off, size - off, "%s%d", sep, r);
        r = e;
    }
}

const char *const cmdline_commands[] = {"on",     "status",   "wait",  "interrupt", "save",
                                        "record", "trace",    "timeline", "races", "ranks",
                                        "help",   "quit",     NULL};

/* "unknown command" names them all, from the one list: ":on, ..., :help and :quit". */
static void unknown_command(cmdline *out, const char *name, size_t n)
{
    size_t off = (size_t)snprintf(out->err, sizeof out->err,
                                  "unknown command \":%.*s\"; the commands are ",
                                  (int)(n < 20 ? n : 20), name);
    for (size_t k = 0; cmdline_commands[k] && off < sizeof out->err; k++)
        off += (size_t)snprintf(out->err + off, sizeof out->err - off, "%s:%s",
                                k == 0 ? "" : cmdline_commands[k + 1] ? ", " : " and ",
                                cmdline_commands[k]);
}

static int parse_command(const char *line, size_t len, size_t i, cmdline *out)
{
    size_t start = ++i;
    while (i < len && isalpha((unsigned char)line[i]))
        i++;
    size_t n = i - start;
    for (size_t k = 0; cmdline_commands[k]; k++)
        if (n && n == strlen(cmdline_commands[k]) &&
            memcmp(line + start, cmdline_commands[k], n) == 0) {
            snprintf(out->name, sizeof out->name, "%s", cmdline_commands[k]);
            while (i < len && isspace((unsigned char)line[i]))
                i++;
            out->body = line + i;
            out->bodylen = len - i;
            while (out->bodylen && isspace((unsigned char)out->body[out->bodylen - 1]))
                out->bodylen--;
            out->kind = CMD_COMMAND;
            return 0;
        }
    size_t w = start; /* ":0 x", ":1-3 x", ":all x": a target written with ':' */
    while (w < len && !isspace((unsigned char)line[w]))
        w++;
    rankset rs;
    char ignored[8];
    int tn = (int)(w - start < 20 ? w - start : 20);
    if (w > start &&
        rankset_parse(line + start, w - start, RANKSET_MAX, &rs, ignored, sizeof ignored) == 0) {
        int k = rankset_count(&rs);
        char who[32];
        if (w - start == 3 && memcmp(line + start, "all", 3) == 0)
            snprintf(who, sizeof who, "every rank");
        else
            snprintf(who, sizeof who, "rank%s %.*s", k > 1 ? "s" : "", tn, line + start);
        snprintf(out->err, sizeof out->err,
                 "\":%.*s\" is not a command; a line for %s starts with @%.*s (as in \"@%.*s "
                 "x = 1\"), and :on %.*s sends every line there",
                 tn, line + start, who, tn, line + start, tn, line + start, tn, line + start);
        out->kind = CMD_ERROR;
        return -1;
    }
    unknown_command(out, line + start, n);
    out->kind = CMD_ERROR;
    return -1;
}

int cmdline_parse(const char *line, size_t len, int size, cmdline *out)
{
    memset(out, 0, sizeof *out);
    size_t i = 0;
    while (i < len && isspace((unsigned char)line[i]))
        i++;
    if (i == len) {
        out->kind = CMD_EMPTY;
        return 0;
    }
    if (line[i] == ':')
        return parse_command(line, len, i, out);
    if (line[i] == '@') {
        size_t start = ++i;
        while (i < len && !isspace((unsigned char)line[i]))
            i++;
        if (rankset_parse(line + start, i - start, size, &out->target, out->err,
                          sizeof out->err)) {
            out->kind = CMD_ERROR;
            return -1;
        }
        out->has_target = 1;
        while (i < len && isspace((unsigned char)line[i]))
            i++;
    }
    out->kind = i == len ? CMD_EMPTY : CMD_CHUNK;
    out->body = line + i;
    out->bodylen = len - i;
    return 0;
}
