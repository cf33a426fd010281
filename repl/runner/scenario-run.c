/* One run of `rmalab test` (scenario-run.h, docs/testing.md). A scenario
 * runs in a session (session.h) as the REPL's does: mpiexec starts the
 * ranks in serving mode, and each gets FILE (the scenario's path) over the
 * control channel. While it runs, rmalab.test's events (a case starts, a
 * case ends with its verdict) come back as frames, and the ranks' output
 * and results as the sink's events, which this file's renderer turns into
 * the run's result (tap.c writes it as TAP). The runner stops a run early
 * when the ranks are deadlocked (the REPL's hint holds for 3 s) and at the
 * file's timeout; either way it first asks every rank for its state, as
 * :status does. A rank whose connection closes before it finished has
 * died: mpiexec's report says how. When every rank is done, a last chunk
 * reads rl.debug.stats() for leaks. */
#include "scenario-run.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../wire/channel.h"
#include "../front/hints.h"
#include "../front/session.h"
#include "../front/status.h"

typedef struct {
    session s;
    run_result *res;
    int file_id, leak_id;
    int ndone, leak_done;
    double start;
} run_ctx;

char *run_file_tail(FILE *f, size_t tail)
{
    if (!f)
        return NULL;
    fflush(f);
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (size < 0)
        return NULL;
    long from = size > (long)tail ? size - (long)tail : 0;
    char *p = calloc(1, (size_t)(size - from) + 1);
    if (p && (fseek(f, from, SEEK_SET) || fread(p, 1, (size_t)(size - from), f) == 0))
        p[0] = '\0';
    return p;
}

/* ------------------------------------------------------------------------ */
/* The run's renderer: the sink's events and rmalab.test's become the run's
 * result, which tap.c writes                                               */

static void on_event(run_rank *rr, const chan_msg *m)
{
    char kind[16];
    chan_field(m, 1, kind, sizeof kind);
    if (strcmp(kind, "case") == 0) {
        chan_field(m, 2, rr->current, sizeof rr->current);
        return;
    }
    if (strcmp(kind, "abort") == 0) { /* comm:abort, just before MPI_Abort */
        char code[16];
        chan_field(m, 2, code, sizeof code);
        snprintf(rr->crash, sizeof rr->crash, "it called MPI_Abort with code %s", code);
        rr->aborted = 1;
        return;
    }
    if (strcmp(kind, "end") != 0 || m->nfields < 5)
        return;
    if (rr->ncases == rr->cap) {
        int cap = rr->cap ? 2 * rr->cap : 16;
        run_case *c = realloc(rr->cases, (size_t)cap * sizeof *c);
        if (!c)
            return;
        rr->cases = c;
        rr->cap = cap;
    }
    run_case *c = &rr->cases[rr->ncases++];
    c->name = strndup(m->field[2], m->len[2]);
    c->verdict = strndup(m->field[3], m->len[3]);
    c->detail = strndup(m->field[4], m->len[4]);
    rr->current[0] = '\0';
}

static void on_frame(session *s, int r, const chan_msg *m)
{
    run_ctx *x = s->h.ud;
    if (m->type == CHAN_EVENT)
        on_event(&x->res->r[r], m);
}

/* The file's end (its DONE) and the leak check's, per rank. */
static void on_result(run_ctx *x, const sink_event *e)
{
    run_rank *rr = &x->res->r[e->rank];
    if (e->id == x->file_id && !rr->done) {
        rr->done = 1;
        x->ndone++;
        if ((rr->failed = e->kind == EV_ERROR))
            rr->error = strndup(e->text, e->len);
    } else if (e->id == x->leak_id) {
        char buf[128];
        snprintf(buf, sizeof buf, "%.*s", (int)(e->len < 127 ? e->len : 127), e->text);
        rr->leaks_known = e->kind == EV_RESULT &&
                          sscanf(buf, "%ld %ld %ld %ld %ld", &rr->leaks[0], &rr->leaks[1],
                                 &rr->leaks[2], &rr->leaks[3], &rr->leaks[4]) == 5;
        x->leak_done++;
    }
}

static void render_run(void *ud, const sink_event *e)
{
    run_ctx *x = ud;
    if (e->kind == EV_OUTPUT && e->id == x->file_id)
        strbuf_put_max(&x->res->r[e->rank].out, e->text, e->len, 64 * 1024);
    else if (e->kind == EV_RESULT || e->kind == EV_ERROR)
        on_result(x, e);
}

/* ------------------------------------------------------------------------ */
/* States, hangs and deaths                                                 */

/* Ask every rank for its state and wait up to `seconds` for the answers. */
static int states_fresh(session *s)
{
    return session_states_fresh(s);
}

static void take_states(run_ctx *x, double seconds)
{
    session_poll_states(&x->s);
    session_wait_until(&x->s, states_fresh, seconds);
}

/* Each rank's state as :status says it, with the case it is in. */
static void diagnose(run_ctx *x)
{
    session *f = &x->s;
    take_states(x, 3);
    for (int r = 0; r < f->n; r++) {
        run_rank *rr = &x->res->r[r];
        char line[600];
        if (f->p[r].fd < 0 && !rr->done) {
            snprintf(rr->state, sizeof rr->state, "gone");
            continue;
        }
        if (rr->done)
            snprintf(line, sizeof line, "idle: the file has ended on this rank");
        else
            rstate_status_line(f->st, f->n, r, 1, line, sizeof line);
        /* whether :interrupt could end it: no one types it here */
        char *cut = strstr(line, " (inside MPI");
        if (!cut)
            cut = strstr(line, " (can be interrupted");
        if (cut)
            *cut = '\0';
        if (rr->current[0])
            snprintf(rr->state, sizeof rr->state, "%s; in case \"%s\"", line, rr->current);
        else
            snprintf(rr->state, sizeof rr->state, "%s", line);
    }
    char h[4096];
    deadlock_hint(f->st, f->n, 0, h, sizeof h);
    x->res->hints = h[0] ? strdup(h) : NULL;
}

/* The rank that calls comm:abort says so first (an "abort" event); should
 * it not reach us, MPICH's line for a rank that called MPI_Abort names its
 * rank in MPI_COMM_WORLD as "process N":
 *   Abort(3) on node 1 (rank 1 in comm 0): application called
 *   MPI_Abort(MPI_COMM_WORLD, 3) - process 1
 * mpiexec then ends the other ranks: they did not die of their own. */
static void read_aborts(run_ctx *x)
{
    const char *t = x->res->errtext;
    for (const char *p = t ? strstr(t, "Abort(") : NULL; p; p = strstr(p + 6, "Abort(")) {
        const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p);
        const char *call = strstr(p, "application called MPI_Abort");
        const char *proc = call && call < end ? strstr(call, " - process ") : NULL;
        if (!proc || proc > end)
            continue;
        int code = atoi(p + 6), r = atoi(proc + 11);
        if (r >= 0 && r < x->s.n && !x->res->r[r].crash[0]) {
            snprintf(x->res->r[r].crash, sizeof x->res->r[r].crash,
                     "it called MPI_Abort with code %d", code);
            x->res->r[r].aborted = 1;
        }
    }
}

/* mpiexec's report of a process that ended badly names its pid:
 *   =   PID 10595 RUNNING AT vm
 *   =   EXIT CODE: 11
 *   YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Segmentation fault (signal 11) */
static void read_crashes(run_ctx *x)
{
    const char *t = x->res->errtext;
    read_aborts(x);
    /* After an MPI_Abort, mpiexec's reports are of its cleanup. */
    for (int r = 0; r < x->s.n; r++)
        if (x->res->r[r].aborted)
            return;
    /* mpiexec names one process, not always the first to go: after a
     * SIGKILL it has named the rank its own cleanup killed next (1 run in
     * 12 of crash-epoch.lua). The first connection to close is the rank
     * that died; a report of another rank is then the cleanup's. */
    int first = -1;
    for (int r = 0; r < x->s.n; r++)
        if (x->res->r[r].gone == 1)
            first = r;
    for (const char *p = t ? strstr(t, "PID ") : NULL; p; p = strstr(p + 4, "PID ")) {
        int pid = atoi(p + 4), code = -1;
        const char *c = strstr(p, "EXIT CODE: ");
        if (c)
            code = atoi(c + 11);
        for (int r = 0; r < x->s.n; r++) {
            run_rank *rr = &x->res->r[r];
            /* A rank that ended its file and then failed (a sanitizer's
             * report at exit) did not die in the run: it failed after. */
            char *how = rr->done ? rr->exited : rr->crash;
            if (x->s.p[r].pid != pid || how[0] ||
                (first >= 0 && r != first && !x->res->r[first].crash[0]))
                continue;
            const char *s = strstr(p, "EXIT STRING: ");
            char name[100] = "";
            int sig = 0;
            if (s && sscanf(s + 13, "%99[^(\n](signal %d)", name, &sig) == 2) {
                size_t k = strlen(name);
                while (k && name[k - 1] == ' ')
                    name[--k] = '\0';
                snprintf(how, sizeof rr->crash, "killed by signal %d, %s", sig, name);
            } else {
                snprintf(how, sizeof rr->crash, "exited with status %d", code);
            }
        }
    }
}

/* ------------------------------------------------------------------------ */
/* A scenario                                                               */

static const char leak_chunk[] =
    "(function() collectgarbage() collectgarbage() local s = rmalab.debug.stats() "
    "return s.wins, s.infos, s.comms, s.keyvals, s.refs end)()";

static int leaks_done(session *s)
{
    run_ctx *x = s->h.ud;
    return x->leak_done >= s->n;
}

static void leak_check(run_ctx *x)
{
    rankset all = {.n = x->s.n};
    memset(all.in, 1, (size_t)x->s.n);
    cmd *c = session_run(&x->s, &all, leak_chunk);
    x->leak_id = c ? c->id : -1;
    session_wait_until(&x->s, leaks_done, 15);
}

static int ranks_closed(session *s)
{
    return !session_ranks_open(s);
}

/* QUIT, and mpiexec's exit; a job that does not end is killed. After a
 * death mpiexec gets 3 s to end by itself: its report names the process
 * that died and how (read_crashes). Returns mpiexec's exit status after a
 * clean end, else -1. */
static int end_job(run_ctx *x, int clean)
{
    session *f = &x->s;
    f->quitting = 1;
    if (clean) {
        session_send_all(f, NULL, CHAN_QUIT, 0, NULL);
        session_wait_until(f, ranks_closed, 40);
    }
    int status = f->l.pid > 0 ? launch_wait(&f->l, clean ? 10 : 3) : -1;
    if (status < 0)
        launch_end(&f->l);
    return clean ? status : -1;
}

static int file_done(session *s)
{
    run_ctx *x = s->h.ud;
    return x->ndone >= s->n || s->dead;
}

/* Wait for the file to end on every rank, a death, a deadlock or the
 * timeout. */
static void watch(run_ctx *x, double timeout)
{
    session *f = &x->s;
    run_result *res = x->res;
    while (x->ndone < f->n) {
        session_wait_until(f, file_done, 0.1);
        if (f->dead) { /* take what the others said before mpiexec ends them */
            res->outcome = RUN_CRASH;
            session_wait_until(f, ranks_closed, 3);
            return;
        }
        if (clock_now() - x->start > timeout) {
            res->outcome = RUN_TIMEOUT;
            diagnose(x);
            return;
        }
        if (clock_now() - x->start > 1 && session_deadlock_now(f)) {
            res->outcome = RUN_DEADLOCK;
            diagnose(x);
            return;
        }
    }
}

void run_result_start(run_result *res, const run_spec *s)
{
    memset(res, 0, sizeof *res);
    res->spec = s;
    snprintf(res->label, sizeof res->label, "%d rank%s%s%s", s->nranks, s->nranks == 1 ? "" : "s",
             s->engine ? ", " : "", s->engine ? s->engine : "");
}

static int start(run_ctx *x, const run_spec *s, FILE *err)
{
    session_opts o = {.nranks = s->nranks, .mpiexec_argc = s->mpiexec_argc,
                      .mpiexec_argv = s->mpiexec_argv, .self = s->self, .launch = 1,
                      .listen_fd = -1};
    x->s.l.env = s->env;
    x->s.l.err_fd = err ? fileno(err) : -1;
    x->s.h = (session_hooks){.on_frame = on_frame, .ud = x};
    x->s.deadlock_hold = 3;
    sink_add(&x->s.out, render_run, x);
    return session_open(&x->s, &o);
}

void run_scenario(const run_spec *s, run_result *res)
{
    run_result_start(res, s);
    res->r = calloc((size_t)s->nranks, sizeof *res->r);
    run_ctx x = {.res = res};
    FILE *err = tmpfile();
    char path[PATH_MAX];
    if (!res->r || !realpath(s->path, path) || start(&x, s, err)) {
        res->outcome = RUN_NOSTART;
    } else {
        x.start = clock_now();
        cmd *c = session_file(&x.s, s->path);
        x.file_id = c ? c->id : -1;
        watch(&x, s->timeout);
        res->seconds = clock_now() - x.start;
        if (res->outcome == RUN_FINISHED)
            leak_check(&x);
        res->job_status = end_job(&x, res->outcome == RUN_FINISHED);
        for (int r = 0; r < s->nranks; r++)
            res->r[r].gone = x.s.p[r].gone;
    }
    if (x.s.l.pid > 0)
        launch_end(&x.s.l);
    res->errtext = run_file_tail(err, 6000);
    if (res->outcome == RUN_CRASH || res->outcome == RUN_FINISHED)
        read_crashes(&x); /* else the runner stopped the job itself */
    /* When the runner stopped the job, mpiexec's report of it is noise. */
    char *banner = res->errtext && (res->outcome == RUN_TIMEOUT || res->outcome == RUN_DEADLOCK)
                       ? strstr(res->errtext, "\n=====")
                       : NULL;
    if (banner)
        *banner = '\0';
    if (err)
        fclose(err);
    if (x.s.n)
        session_close(&x.s);
}

void run_result_free(run_result *res)
{
    for (int r = 0; res->r && r < res->spec->nranks; r++) {
        run_rank *rr = &res->r[r];
        for (int i = 0; i < rr->ncases; i++) {
            free(rr->cases[i].name);
            free(rr->cases[i].verdict);
            free(rr->cases[i].detail);
        }
        free(rr->cases);
        free(rr->error);
        strbuf_free(&rr->out);
    }
    free(res->r);
    free(res->hints);
    free(res->errtext);
    free(res->diff);
}
