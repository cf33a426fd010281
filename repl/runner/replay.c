/* The replay of a transcript under `rmalab test` (scenario-run.h,
 * docs/testing.md): the typed lines of a .rlab file go to a REPL of their
 * own (rmalab -n N --record -, its input a pipe), and what it records must
 * be the file's body; a difference is shown as `diff -u`, or, with
 * --update, the file is rewritten from the replay. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../front/launch.h"
#include "../front/session.h"
#include "../front/transcript.h"
#include "scenario-run.h"

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *p = f ? run_file_tail(f, (size_t)64 << 20) : NULL;
    if (f)
        fclose(f);
    *len = p ? strlen(p) : 0;
    return p;
}

/* Run `self -n N [options] --record -` with `input` on stdin: the replayed
 * transcript, or NULL. */
static char *replay(const run_spec *s, const char *input, run_result *res)
{
    FILE *in = tmpfile(), *out = tmpfile(), *err = tmpfile();
    char nb[16], **av = calloc((size_t)s->mpiexec_argc + 8, sizeof *av);
    char *text = NULL;
    if (!in || !out || !err || !av || fputs(input, in) < 0 || fflush(in))
        goto done;
    rewind(in);
    int k = 0;
    snprintf(nb, sizeof nb, "%d", s->nranks);
    av[k++] = (char *)s->self;
    av[k++] = "-n";
    av[k++] = nb;
    for (int i = 0; i < s->mpiexec_argc; i++)
        av[k++] = s->mpiexec_argv[i];
    av[k++] = "--record";
    av[k++] = "-";
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fileno(in), 0);
        dup2(fileno(out), 1);
        dup2(fileno(err), 2);
        for (char **e = s->env; e && *e; e++)
            putenv(*e);
        execv(s->self, av);
        _exit(127);
    }
    launch_t l = {.pid = pid};
    if (pid > 0 && launch_wait(&l, s->timeout) < 0) {
        res->outcome = RUN_TIMEOUT;
        launch_kill(&l, 10);
    }
    text = run_file_tail(out, (size_t)64 << 20);
    res->errtext = run_file_tail(err, 6000);
done:
    free(av);
    FILE *files[] = {in, out, err};
    for (int i = 0; i < 3; i++)
        if (files[i])
            fclose(files[i]);
    return text;
}

/* `diff -u` of the recorded and the replayed bodies. */
static char *unified_diff(const char *path, const char *want, const char *got)
{
    char a[] = "/tmp/rmalab-want-XXXXXX", b[] = "/tmp/rmalab-got-XXXXXX";
    int fa = mkstemp(a), fb = mkstemp(b);
    strbuf text = {0};
    if (fa >= 0 && fb >= 0 && write(fa, want, strlen(want)) >= 0 &&
        write(fb, got, strlen(got)) >= 0) {
        char line[PATH_MAX * 2 + 200];
        snprintf(line, sizeof line, "diff -u --label '%s (recorded)' --label '%s (replayed)' %s %s",
                 path, path, a, b);
        FILE *p = popen(line, "r");
        if (p) {
            char buf[4096];
            size_t n;
            while ((n = fread(buf, 1, sizeof buf, p)) > 0)
                strbuf_put_max(&text, buf, n, 64 * 1024);
            pclose(p);
        }
    }
    for (int i = 0; i < 2; i++) {
        int fd = i ? fb : fa;
        if (fd >= 0) {
            close(fd);
            unlink(i ? b : a);
        }
    }
    return text.p ? strbuf_take(&text) : strdup("(the outputs differ)\n");
}

/* --update: the file's leading comments, then the replay's body. */
static void rewrite(const char *path, const char *old, const char *body)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    for (const char *p = old; p[0] == '-' && p[1] == '-';) {
        const char *nl = strchr(p, '\n');
        fwrite(p, 1, nl ? (size_t)(nl - p + 1) : strlen(p), f);
        if (!nl)
            break;
        p = nl + 1;
    }
    fputs(body, f);
    fclose(f);
}

void run_transcript(const run_spec *s, run_result *res)
{
    run_result_start(res, s);
    res->transcript = 1;
    size_t len;
    char *text = read_file(s->path, &len), *got = NULL, *got_body = NULL;
    ts_file tf = {0};
    double t0 = clock_now();
    if (!text || ts_parse(text, len, &tf)) {
        res->outcome = RUN_NOSTART;
    } else if (!(got = replay(s, tf.input, res)) || !(got_body = ts_body(got, strlen(got)))) {
        res->outcome = RUN_NOSTART;
    } else if (strcmp(got_body, tf.body) != 0) {
        if (s->update) {
            rewrite(s->path, text, got_body);
            res->updated = 1;
        } else {
            res->diff = unified_diff(s->path, tf.body, got_body);
        }
    }
    res->seconds = clock_now() - t0;
    free(text);
    free(got);
    free(got_body);
    free(tf.input);
    free(tf.body);
}
