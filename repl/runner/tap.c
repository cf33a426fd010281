/* TAP for one run (scenario-run.h, docs/testing.md). Each case is one test point,
 * its verdict combined across the ranks: it fails when any rank failed it,
 * did not finish it, or did not run it, and when only some ranks skipped
 * it (skipping must agree). One more point per run says whether the file
 * ran to its end on every rank and left nothing behind. Failures carry
 * YAML diagnostics: which ranks, and why. */
#include <stdlib.h>
#include <string.h>

#include "../front/cmdline.h"
#include "../front/fold.h"
#include "scenario-run.h"

/* A YAML scalar at `in` (indentation and any "- "): quoted on one line,
 * or a literal block. */
static void yaml_at(FILE *o, const char *in, const char *key, const char *text)
{
    size_t n = strlen(text);
    while (n && text[n - 1] == '\n')
        n--;
    if (!memchr(text, '\n', n)) {
        fprintf(o, "%s%s: \"", in, key);
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)text[i];
            if (c == '"' || c == '\\')
                fprintf(o, "\\%c", c);
            else if (c < 0x20)
                fprintf(o, "\\x%02x", c);
            else
                fputc(c, o);
        }
        fputs("\"\n", o);
        return;
    }
    fprintf(o, "%s%s: |\n", in, key);
    for (size_t i = 0; i < n;) {
        const char *nl = memchr(text + i, '\n', n - i);
        size_t k = nl ? (size_t)(nl - (text + i)) : n - i;
        fprintf(o, "%*s%.*s\n", (int)strlen(in) + 2, "", (int)k, text + i);
        i += k + 1;
    }
}

static void yaml(FILE *o, const char *key, const char *text)
{
    yaml_at(o, "  ", key, text);
}

static void set_text(const rankset *s, char *buf, size_t size)
{
    char t[256];
    rankset_text(s, t, sizeof t);
    snprintf(buf, size, "rank%s %s", rankset_count(s) == 1 ? "" : "s", t);
}

/* ------------------------------------------------------------------------ */
/* Cases                                                                    */

enum { V_PASS, V_FAIL, V_SKIP, V_RUNNING, V_MISSING, V_N };

/* Rank r's verdict on the occ-th case called `name`, and its detail. */
static int verdict(const run_rank *rr, const char *name, int occ, const char **detail)
{
    int seen = 0;
    *detail = "";
    for (int i = 0; i < rr->ncases; i++)
        if (strcmp(rr->cases[i].name, name) == 0 && ++seen == occ) {
            *detail = rr->cases[i].detail;
            const char *v = rr->cases[i].verdict;
            return strcmp(v, "pass") == 0 ? V_PASS : strcmp(v, "skip") == 0 ? V_SKIP : V_FAIL;
        }
    return seen == occ - 1 && strcmp(rr->current, name) == 0 ? V_RUNNING : V_MISSING;
}

/* Rank r died of its own: mpiexec reported it, or, when mpiexec reported
 * no rank, its connection closed first (mpiexec ends the other ranks of a
 * job when one dies: those are not reported). */
static int died(const run_result *res, int r)
{
    if (res->r[r].crash[0])
        return 1;
    for (int q = 0; q < res->spec->nranks; q++)
        if (res->r[q].crash[0])
            return 0;
    return res->r[r].gone == 1;
}

static const char *why_cut(const run_result *res, char *why, size_t size)
{
    switch (res->outcome) {
    case RUN_TIMEOUT: return "the run timed out";
    case RUN_DEADLOCK: return "the ranks deadlocked";
    case RUN_CRASH:
        for (int r = 0; r < res->spec->nranks; r++)
            if (died(res, r)) {
                snprintf(why, size, "rank %d died (%s)", r,
                         res->r[r].crash[0] ? res->r[r].crash : "its connection closed");
                return why;
            }
        return "a rank died";
    default: return "the run ended early";
    }
}

/* Ranks with the same detail share one entry. */
static void failures(FILE *o, const run_result *res, const int *v, const char **detail, int want)
{
    int n = res->spec->nranks;
    unsigned char *done = calloc((size_t)n, 1);
    const char **keys = calloc((size_t)n, sizeof *keys);
    fputs("  failures:\n", o);
    for (int r = 0; keys && r < n; r++)
        keys[r] = v[r] == want ? detail[r] : NULL;
    for (int r = 0; done && keys && r < n; r++) {
        if (!keys[r] || done[r])
            continue;
        rankset s = fold_group(keys, n, r, done);
        char set[300];
        rankset_text(&s, set, sizeof set);
        yaml_at(o, "    - ", "ranks", set);
        yaml_at(o, "      ", "why", detail[r]);
    }
    free(keys);
    free(done);
}

static void one_case(FILE *o, const run_result *res, const char *name, int occ)
{
    int n = res->spec->nranks, count[V_N] = {0};
    int *v = calloc((size_t)n, sizeof *v);
    const char **detail = calloc((size_t)n, sizeof *detail);
    rankset in[V_N];
    if (!v || !detail)
        goto out;
    for (int k = 0; k < V_N; k++)
        in[k] = (rankset){.n = n};
    for (int r = 0; r < n; r++) {
        v[r] = verdict(&res->r[r], name, occ, &detail[r]);
        count[v[r]]++;
        in[v[r]].in[r] = 1;
    }
    const char *path = res->spec->path;
    char a[300], b[300], msg[800], why[300];
    if (!count[V_FAIL] && !count[V_RUNNING] && !count[V_MISSING]) {
        if (!count[V_SKIP])
            fprintf(o, "ok - %s: %s [%s]\n", path, name, res->label);
        else if (!count[V_PASS])
            fprintf(o, "ok - %s: %s [%s] # SKIP %s\n", path, name, res->label, detail[0]);
        if (!count[V_SKIP] || !count[V_PASS])
            goto out;
    }
    fprintf(o, "not ok - %s: %s [%s]\n  ---\n", path, name, res->label);
    if (count[V_FAIL]) {
        set_text(&in[V_FAIL], a, sizeof a);
        snprintf(msg, sizeof msg, "failed on %s", a);
    } else if (count[V_RUNNING]) {
        set_text(&in[V_RUNNING], a, sizeof a);
        snprintf(msg, sizeof msg, "did not finish on %s: %s", a, why_cut(res, why, sizeof why));
    } else if (count[V_MISSING]) {
        set_text(&in[V_MISSING], a, sizeof a);
        snprintf(msg, sizeof msg, "%s did not run this case%s%s", a,
                 res->outcome == RUN_FINISHED ? "" : ": ",
                 res->outcome == RUN_FINISHED ? "" : why_cut(res, why, sizeof why));
    } else {
        set_text(&in[V_SKIP], a, sizeof a);
        set_text(&in[V_PASS], b, sizeof b);
        snprintf(msg, sizeof msg, "skipped on %s but run on %s: skipping must agree", a, b);
    }
    yaml(o, "message", msg);
    if (count[V_FAIL])
        failures(o, res, v, detail, V_FAIL);
    else if (count[V_SKIP])
        failures(o, res, v, detail, V_SKIP);
    fputs("  ...\n", o);
out:
    free(v);
    free(detail);
}

/* Every case that any rank started, in the order ranks ran them. */
static void cases(FILE *o, const run_result *res)
{
    int n = res->spec->nranks;
    for (int r = 0; r < n; r++) {
        const run_rank *rr = &res->r[r];
        for (int i = 0; i <= rr->ncases; i++) {
            const char *name = i < rr->ncases ? rr->cases[i].name : rr->current;
            if (!name[0])
                continue;
            int occ = 1; /* the occurrence of this name on rank r */
            for (int j = 0; j < i; j++)
                occ += strcmp(rr->cases[j].name, name) == 0;
            int first = 1; /* no lower rank has it */
            for (int q = 0; q < r && first; q++) {
                const char *d;
                first = verdict(&res->r[q], name, occ, &d) == V_MISSING;
            }
            if (first)
                one_case(o, res, name, occ);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* The run as a whole                                                       */

static const char *const leak_names[] = {"window", "info", "communicator", "keyval",
                                         "registry reference"};

#define SAY(...) (off += off < size ? (size_t)snprintf(buf + off, size - off, __VA_ARGS__) : 0)

/* How the job ended, when that is a reason: its line into buf (emptied
 * first); the length written. */
static size_t outcome_reason(const run_result *res, char *buf, size_t size)
{
    size_t off = 0;
    buf[0] = '\0';
    switch (res->outcome) {
    case RUN_NOSTART: SAY("the job did not start\n"); break;
    case RUN_TIMEOUT: SAY("timed out after %.0f s\n", res->spec->timeout); break;
    case RUN_DEADLOCK: SAY("deadlocked after %.1f s\n", res->seconds); break;
    default: break;
    }
    return off;
}

/* Why the run failed, one line per reason, or "" when it did not. */
static void reasons(const run_result *res, char *buf, size_t size)
{
    size_t off = outcome_reason(res, buf, size);
    for (int r = 0; r < res->spec->nranks; r++) {
        const run_rank *rr = &res->r[r];
        if (died(res, r))
            SAY("rank %d died (%s)%s%s%s\n", r, rr->crash[0] ? rr->crash : "its connection closed",
                rr->current[0] ? " in case \"" : "", rr->current, rr->current[0] ? "\"" : "");
        if (rr->failed)
            SAY("rank %d raised an error outside any case\n", r);
        if (rr->exited[0])
            SAY("rank %d %s after the file ended (stderr shows why)\n", r, rr->exited);
        if (res->outcome == RUN_FINISHED && !rr->leaks_known)
            SAY("rank %d did not answer the leak check\n", r);
        for (int k = 0; k < 5 && rr->leaks_known; k++)
            if (rr->leaks[k])
                SAY("rank %d leaked %ld %s%s\n", r, rr->leaks[k], leak_names[k],
                    rr->leaks[k] == 1 ? "" : "s");
    }
    if (!off && res->outcome == RUN_FINISHED && res->job_status > 0)
        SAY("mpiexec exited with status %d after the file ended\n", res->job_status);
}

static void file_point(FILE *o, const run_result *res)
{
    char why[4096];
    reasons(res, why, sizeof why);
    const char *path = res->spec->path;
    if (!why[0]) {
        fprintf(o, "ok - %s [%s]: every rank ran the file to its end, nothing leaked\n", path,
                res->label);
        return;
    }
    fprintf(o, "not ok - %s [%s]: %.*s\n  ---\n", path, res->label, (int)strcspn(why, "\n"), why);
    yaml(o, "message", why);
    if (res->outcome == RUN_TIMEOUT || res->outcome == RUN_DEADLOCK) {
        fputs("  ranks:\n", o);
        for (int r = 0; r < res->spec->nranks; r++) {
            char line[800];
            snprintf(line, sizeof line, "rank %d %s", r, res->r[r].state);
            yaml_at(o, "    - ", "state", line);
        }
        if (res->hints)
            yaml(o, "hints", res->hints);
    }
    for (int r = 0; r < res->spec->nranks; r++) {
        char key[32];
        if (res->r[r].failed && res->r[r].error) {
            snprintf(key, sizeof key, "error_rank_%d", r);
            yaml(o, key, res->r[r].error);
        }
        if (res->r[r].out.len) {
            snprintf(key, sizeof key, "output_rank_%d", r);
            yaml(o, key, res->r[r].out.p);
        }
    }
    if (res->errtext && res->errtext[0])
        yaml(o, "stderr", res->errtext);
    fputs("  ...\n", o);
}

static void transcript_point(FILE *o, const run_result *res)
{
    const char *path = res->spec->path;
    if (res->updated) {
        fprintf(o, "ok - %s [%s]: rewritten from the replay (--update)\n", path, res->label);
        return;
    }
    if (res->outcome == RUN_FINISHED && !res->diff) {
        fprintf(o, "ok - %s [%s]: the replay printed the same output\n", path, res->label);
        return;
    }
    fprintf(o, "not ok - %s [%s]: %s\n  ---\n", path, res->label,
            res->outcome == RUN_TIMEOUT ? "the replay timed out"
            : res->diff                 ? "the output changed"
                                        : "the replay did not run");
    if (res->diff)
        yaml(o, "diff", res->diff);
    if (res->errtext && res->errtext[0])
        yaml(o, "stderr", res->errtext);
    fputs("  ...\n", o);
}

/* ------------------------------------------------------------------------ */
/* A C program                                                              */

/* Its error: and race: lines, with the indented lines that follow them,
 * into rep; how many of each. */
static void reports(const char *out, strbuf *rep, int *errors, int *races)
{
    int in = 0;
    *errors = *races = 0;
    for (const char *p = out ? out : ""; *p;) {
        size_t k = strcspn(p, "\n");
        int e = memmem(p, k, ": error: ", 9) != NULL, r = memmem(p, k, ": race: ", 8) != NULL;
        in = e || r || (in && p[0] == ' ');
        *errors += e;
        *races += r;
        if (in)
            strbuf_add(rep, "%.*s\n", (int)k, p);
        p += k + (p[k] == '\n');
    }
}

/* Why the program failed, one line per reason, or "" when it did not. */
static void program_reasons(const run_result *res, int errors, int races, char *buf,
                            size_t size)
{
    size_t off = outcome_reason(res, buf, size);
    if (errors)
        SAY("%d error%s%s", errors, errors == 1 ? "" : "s", races ? " and " : " reported\n");
    if (races)
        SAY("%d race%s reported\n", races, races == 1 ? "" : "s");
    const char *how = res->errtext ? strstr(res->errtext, "EXIT STRING: ") : NULL;
    if (how && res->outcome == RUN_FINISHED)
        SAY("a rank ended badly: %.*s\n", (int)strcspn(how + 13, "\n"), how + 13);
    if (res->outcome == RUN_FINISHED && res->job_status != 0)
        SAY("mpiexec exited with status %d\n", res->job_status);
#undef SAY
}

static void program_point(FILE *o, const run_result *res)
{
    strbuf rep = {0};
    int errors, races;
    char why[2048];
    reports(res->errtext, &rep, &errors, &races);
    program_reasons(res, errors, races, why, sizeof why);
    const char *path = res->spec->path;
    if (!why[0]) {
        fprintf(o, "ok - %s [%s]: the program ran to its end, no error or race\n", path,
                res->label);
    } else {
        fprintf(o, "not ok - %s [%s]: %.*s\n  ---\n", path, res->label, (int)strcspn(why, "\n"),
                why);
        yaml(o, "message", why);
        if (res->outcome == RUN_TIMEOUT || res->outcome == RUN_DEADLOCK) {
            fputs("  ranks:\n", o);
            for (int r = 0; r < res->spec->nranks; r++)
                yaml_at(o, "    - ", "state", res->r[r].state);
        }
        if (res->hints)
            yaml(o, "deadlock", res->hints);
        if (rep.len)
            yaml(o, "reports", strbuf_text(&rep));
        if (res->errtext && res->errtext[0])
            yaml(o, "output", res->errtext);
        fputs("  ...\n", o);
    }
    strbuf_free(&rep);
}

void tap_write(FILE *out, const run_result *res)
{
    if (res->program) {
        program_point(out, res);
        return;
    }
    if (res->transcript) {
        transcript_point(out, res);
        return;
    }
    cases(out, res);
    file_point(out, res);
}
