/* A rank of the REPL (rank.h, docs/repl.md): the executor (this process's
 * main thread, which owns MPI and the Lua state) runs the commands of a
 * queue in order; a control thread reads the channel, queues commands, and
 * answers STATUS and INTERRUPT at once, also while the executor is blocked
 * inside MPI. An idle executor sleeps on a condition variable and pokes
 * MPI's progress between naps, so that a rank idle at the prompt does not
 * stall its peers' epochs. */
#include "rank.h"

#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <lua.h>
#include <rmalab/rmalab.h>

#include "../wire/addr.h"
#include "../wire/clock.h"
#include "../wire/channel.h"
#include "../wire/state.h"
#include "../wire/trace-dump.h"
#include "exec.h"
#include "stuck.h"

typedef struct item {
    int type;
    char *id, *text;
    size_t len;
    char label[128];
    char name[32]; /* a RUN's chunk name ("cell" under the Jupyter kernel), or "" */
    struct item *next;
} item;

typedef struct {
    int fd, rank, size;
    exec *x;
    pthread_mutex_t send_lock, qlock;
    pthread_cond_t qcond;
    item *head, *tail;
    atomic_int running;  /* the executor runs a chunk */
    atomic_int gone;     /* the front end closed the channel */
    atomic_int ended;    /* rank_serve is past the Lua state's close and MPI's end */
    atomic_llong alert;  /* until when (ms, clock_now) an idle executor pokes
                            often: a rank is busy (the front end polls the states) */
    atomic_llong hurry;  /* until when (µs) it pokes at once: another rank's
                            passive-target call needs this one's progress */
    double *hurried;     /* executor only: when this rank last asked each
                            rank to hurry (world ranks) */
    char label[128];     /* under qlock */
    char run_id[32];     /* under qlock */
    char test_case[128]; /* under qlock: the rmalab.test case that runs */
    char failed[160];    /* under qlock: "call CLASS object id" of the call
                            that failed the last command, or "" */
    double since;        /* under qlock */
} rank_t;

/* Seconds from the channel's close to this process's end, at most. */
#define GONE_DEADLINE 4.0

static int send_frame(rank_t *r, int type, int n, const char *const *f, const size_t *l)
{
    pthread_mutex_lock(&r->send_lock);
    int rc = chan_send(r->fd, type, n, f, l);
    pthread_mutex_unlock(&r->send_lock);
    return rc;
}

static int hello(rank_t *r, const char *token)
{
    char rank[16], size[16], pid[16], host[256] = "?", lib[MPI_MAX_LIBRARY_VERSION_STRING];
    char banner[256];
    int len = 0;
    snprintf(rank, sizeof rank, "%d", r->rank);
    snprintf(size, sizeof size, "%d", r->size);
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    gethostname(host, sizeof host - 1);
    MPI_Get_library_version(lib, &len);
    char *nl = strchr(lib, '\n');
    if (nl)
        *nl = '\0';
    char dev[32] = "";
    const char *d = strstr(lib, "ch4:");
    if (!d)
        MPI_Get_library_version(lib, &len), d = strstr(lib, "ch4:");
    if (d)
        sscanf(d, "%31[a-z0-9:]", dev);
    char ver[64] = "";
    sscanf(lib, "MPICH Version: %63s", ver);
    snprintf(banner, sizeof banner, "MPICH %s%s%s, %s", ver[0] ? ver : "?", dev[0] ? ", " : "",
             dev, LUA_VERSION);
    const char *f[] = {token, rank, size, host, pid, banner};
    return send_frame(r, CHAN_HELLO, 6, f, NULL);
}

/* ------------------------------------------------------------------------ */
/* The control thread                                                       */

static void enqueue(rank_t *r, int type, const chan_msg *m)
{
    item *it = calloc(1, sizeof *it);
    if (!it)
        return;
    it->type = type;
    if (m && m->nfields > 0) {
        it->id = strndup(m->field[0], m->len[0]);
        if (m->nfields > 1) {
            it->text = malloc(m->len[1] + 1);
            if (it->text) {
                memcpy(it->text, m->field[1], m->len[1]);
                it->text[m->len[1]] = '\0';
                it->len = m->len[1];
            }
        }
        if (m->nfields > 2)
            chan_field(m, 2, it->label, sizeof it->label);
        if (m->nfields > 3)
            chan_field(m, 3, it->name, sizeof it->name);
    }
    pthread_mutex_lock(&r->qlock);
    if (r->tail)
        r->tail->next = it;
    else
        r->head = it;
    r->tail = it;
    pthread_cond_signal(&r->qcond);
    pthread_mutex_unlock(&r->qlock);
}

/* STATE (docs/repl.md, wire/state.c): whether the executor runs, what the
 * core says it is blocked in, the call that failed its last command, and
 * every window. */
static void answer_status(rank_t *r, const chan_msg *m)
{
    state_core c;
    strbuf t = {0};
    state_look(&c);
    pthread_mutex_lock(&r->qlock);
    /* A command still in the queue counts: it is about to run. */
    int queued = r->head != NULL && (r->head->type == CHAN_RUN || r->head->type == CHAN_FILE);
    int running = atomic_load(&r->running);
    state_self me = {.running = running, .queued = queued,
                     .seconds = running ? clock_now() - r->since : 0,
                     .label = running ? r->label : queued ? r->head->label : NULL,
                     .id = running ? r->run_id : NULL,
                     .test_case = r->test_case, .failed = r->failed};
    state_write(&t, &c, &me);
    pthread_mutex_unlock(&r->qlock);
    const char *f[] = {m->nfields ? m->field[0] : "", strbuf_text(&t)};
    size_t l[] = {m->nfields ? m->len[0] : 0, t.len};
    send_frame(r, CHAN_STATE, 2, f, l);
    strbuf_free(&t);
}

/* INTERRUPT: a call blocked in the core's own loop (rmalab_interrupt) ends
 * with ERR_INTERRUPTED, which ends the chunk; Lua stops at its next
 * instruction. A call inside MPI would take the hook only when MPI
 * returns, and end the rest of the chunk then, however long after: it is
 * left alone. The answer (INTERRUPT back) says which: "interrupted",
 * "idle", or "inside" and the call. */
static void interrupt_chunk(rank_t *r)
{
    rmalab_blocked b;
    const char *what[2] = {"interrupted", ""};
    if (!atomic_load(&r->running))
        what[0] = "idle";
    else if (!rmalab_interrupt() && rmalab_blocked_get(&b) && !b.interruptible)
        what[0] = "inside", what[1] = b.call;
    else
        exec_interrupt(r->x);
    send_frame(r, CHAN_INTERRUPT, 2, what, NULL);
}

/* A STATUS poll means some rank runs a command, which may be an epoch with
 * this one as its target: an idle executor pokes MPI often for the next
 * second (woken now, if it napped the long way). */
static void stay_alert(rank_t *r)
{
    atomic_store(&r->alert, (long long)(clock_now() * 1000) + 1000);
    pthread_mutex_lock(&r->qlock);
    pthread_cond_signal(&r->qcond);
    pthread_mutex_unlock(&r->qlock);
}

/* Passive-target calls on this rank need their targets' progress (the
 * core's hook, on the executor): ask the front end to hurry them, each at
 * most every HURRY_EVERY s; they then poll at once for HURRY_FOR s, which
 * outlasts the next request of a loop of such calls. Not while a chunk has
 * turned it off (the REPL helpers' hurry(false), exec.c). */
#define HURRY_EVERY 0.05
#define HURRY_FOR 0.25

static void need_progress(const int *ranks, int n, void *arg)
{
    rank_t *r = arg;
    char num[64][12];
    const char *f[64];
    int k = 0;
    double t = clock_now();
    if (!exec_hurries(r->x)) /* turned off, for a test that compares */
        return;
    for (int i = 0; i < n && i < 64; i++) {
        int q = ranks[i];
        if (q < 0 || q >= r->size || q == r->rank || t - r->hurried[q] < HURRY_EVERY)
            continue;
        r->hurried[q] = t;
        snprintf(num[k], sizeof num[k], "%d", q);
        f[k] = num[k];
        k++;
    }
    if (k)
        send_frame(r, CHAN_HURRY, k, f, NULL);
}

/* Another rank needs this one's progress: the core's sleeping waits nap
 * briefly, and an idle executor pokes MPI at once and then every
 * HURRY_POLL_NS, for HURRY_FOR s. */
#define HURRY_POLL_NS 50000L

static void hurry(rank_t *r)
{
    rmalab_wait_hurry(HURRY_FOR);
    atomic_store(&r->hurry, (long long)((clock_now() + HURRY_FOR) * 1e6));
    pthread_mutex_lock(&r->qlock);
    pthread_cond_signal(&r->qcond);
    pthread_mutex_unlock(&r->qlock);
}

static void *control(void *arg)
{
    rank_t *r = arg;
    chan_conn c = {.fd = r->fd};
    chan_msg m;
    for (;;) {
        long got = chan_fill(&c);
        if (got <= 0 && !(got < 0 && errno == EINTR))
            break;
        int k;
        while ((k = chan_next(&c, &m)) == 1) {
            if (m.type == CHAN_RUN || m.type == CHAN_FILE || m.type == CHAN_COMPLETE)
                enqueue(r, m.type, &m);
            else if (m.type == CHAN_QUIT)
                enqueue(r, CHAN_QUIT, NULL);
            else if (m.type == CHAN_STATUS)
                answer_status(r, &m), stay_alert(r);
            else if (m.type == CHAN_HURRY)
                hurry(r);
            else if (m.type == CHAN_INTERRUPT)
                interrupt_chunk(r);
        }
        if (k < 0)
            break;
    }
    chan_buf_free(&c.in);
    /* The front end is gone (it quit, or was killed, even with SIGKILL):
     * no one will ever send QUIT or read a result, and mpiexec may be gone
     * too, so this rank must end by itself, within GONE_DEADLINE s whatever
     * the executor does. Idle, it drops its queue and leaves the clean way
     * (rank_serve shortens the module's wait for the other ranks); running
     * Lua, the chunk is interrupted; blocked inside MPI, or in a loop that
     * catches the interrupt, or in the exit path, it never gets here in
     * time: the process ends here. */
    double deadline = clock_now() + GONE_DEADLINE;
    atomic_store(&r->gone, 1);
    enqueue(r, CHAN_QUIT, NULL);
    if (atomic_load(&r->running))
        exec_interrupt(r->x);
    while (!atomic_load(&r->ended) && clock_now() < deadline)
        nanosleep(&(struct timespec){0, 20000000}, NULL);
    if (!atomic_load(&r->ended))
        _exit(1);
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* The executor                                                             */

typedef struct {
    rank_t *r;
    const char *id;
} out_ctx;

static void send_out(void *ud, const char *s, size_t n)
{
    out_ctx *o = ud;
    const char *f[] = {o->id, s};
    size_t l[] = {strlen(o->id), n};
    send_frame(o->r, CHAN_OUT, 2, f, l);
}

/* rmalab.test's events, while a scenario runs (FILE): to the front end,
 * and the current case into this rank's STATE. */
static void send_event(void *ud, const char *kind, const char *name, const char *verdict,
                       const char *detail)
{
    out_ctx *o = ud;
    if (strcmp(kind, "case") == 0 || strcmp(kind, "end") == 0) {
        pthread_mutex_lock(&o->r->qlock);
        snprintf(o->r->test_case, sizeof o->r->test_case, "%s",
                 strcmp(kind, "case") ? "" : name);
        pthread_mutex_unlock(&o->r->qlock);
    }
    const char *f[] = {o->id, kind, name, verdict, detail};
    send_frame(o->r, CHAN_EVENT, 5, f, NULL);
}

/* Is the core's failure `msg` the one in the error text (which the Lua
 * binding may have prefixed, "win:free: ...")? */
static int is_message_of(const char *err, const char *msg)
{
    char head[48];
    snprintf(head, sizeof head, "%s", msg);
    return head[0] && strstr(err, head) != NULL;
}

/* RUN a chunk, or FILE: a scenario of `rmalab test`. */
static void run(rank_t *r, item *it)
{
    static const char *const status[] = {"ok", "error", "interrupted"};
    char cls[64], *result = NULL;
    out_ctx o = {r, it->id ? it->id : ""};
    pthread_mutex_lock(&r->qlock);
    snprintf(r->label, sizeof r->label, "%s", it->label);
    snprintf(r->run_id, sizeof r->run_id, "%s", o.id);
    r->since = clock_now();
    atomic_store(&r->running, 1);
    pthread_mutex_unlock(&r->qlock);
    const char *body = it->text ? it->text : "";
    int st = it->type == CHAN_FILE
                 ? exec_file(r->x, body, send_out, send_event, &o, &result, cls, sizeof cls)
                 : exec_chunk(r->x, it->name[0] ? it->name : "stdin", body, it->len, send_out,
                              send_event, &o, &result, cls, sizeof cls);
    rmalab_failure fl;
    pthread_mutex_lock(&r->qlock);
    r->failed[0] = '\0';
    /* the core's last failure, if it is this command's error */
    if (st != EXEC_OK && rmalab_last_failure(&fl) && result && is_message_of(result, fl.message))
        snprintf(r->failed, sizeof r->failed, "%s %s %s %llu", fl.call, rmalab_err_name(fl.code),
                 fl.object, (unsigned long long)fl.id);
    atomic_store(&r->running, 0);
    pthread_mutex_unlock(&r->qlock);
    char finder[16] = ""; /* a race's finder (err.finder): the front end shows its report once */
    if (st != EXEC_OK && exec_error_finder(r->x) >= 0)
        snprintf(finder, sizeof finder, "%d", exec_error_finder(r->x));
    const char *f[] = {o.id, status[st], result ? result : "", cls, finder};
    send_frame(r, CHAN_DONE, 5, f, NULL);
    free(result);
}

static void complete(rank_t *r, item *it)
{
    char **names = NULL;
    int n = 0;
    exec_complete(r->x, it->text ? it->text : "", &names, &n);
    const char *f[CHAN_MAX_FIELDS];
    int k = 0;
    f[k++] = it->id ? it->id : "";
    for (int i = 0; i < n && k < CHAN_MAX_FIELDS; i++)
        f[k++] = names[i];
    send_frame(r, CHAN_MATCHES, k, f, NULL);
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* The next command; while there is none, sleep and poke MPI's progress:
 * every 50 µs while another rank's passive-target calls need this one
 * (hurry), every 2 ms for the first 100 ms after a command, then every 20
 * ms for a second, and while any rank is busy (stay_alert); else, the whole session
 * idle at the prompt, once a second (32 ranks took 4% of one core at 20 ms,
 * 0.6% at 250 ms): no epoch can then need this rank, since a command that
 * opens or ends one makes the front end poll the states. */
static item *next_item(rank_t *r, MPI_Comm poke)
{
    double idle_since = clock_now();
    pthread_mutex_lock(&r->qlock);
    while (!r->head) {
        double t = clock_now(), idle = t - idle_since;
        int alert = (long long)(t * 1000) < atomic_load(&r->alert);
        long ns = idle < 0.1 ? 2000000L : idle < 1 || alert ? 20000000L : 999999999L;
        if ((long long)(t * 1e6) < atomic_load(&r->hurry))
            ns = HURRY_POLL_NS;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += ns;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        if (pthread_cond_timedwait(&r->qcond, &r->qlock, &until) == ETIMEDOUT) {
            int flag;
            pthread_mutex_unlock(&r->qlock);
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, poke, &flag, MPI_STATUS_IGNORE);
            pthread_mutex_lock(&r->qlock);
        }
    }
    item *it = r->head;
    r->head = it->next;
    if (!r->head)
        r->tail = NULL;
    pthread_mutex_unlock(&r->qlock);
    return it;
}

static void free_item(item *it)
{
    free(it->id);
    free(it->text);
    free(it);
}

static void serve(rank_t *r, MPI_Comm poke)
{
    for (;;) {
        item *it = next_item(r, poke);
        int type = it->type;
        if (type == CHAN_RUN || type == CHAN_FILE)
            run(r, it);
        else if (type == CHAN_COMPLETE)
            complete(r, it);
        free_item(it);
        if (type == CHAN_QUIT || atomic_load(&r->gone))
            break; /* the front end is gone: what is queued has no reader */
    }
}

/* hydra hands each rank its PMI socket as PMI_FD, not close-on-exec: a
 * child the rank starts (os.execute, io.popen) holds it too. mpiexec ends
 * the job when that socket closes; when the child closed it last, that
 * came before this rank's connection had closed, which a dying process
 * does last, and the front end saw a rank the cleanup killed close first
 * (2 runs in 400 of tests/runner/crash*.lua beside two busy loops; a
 * kernel trace showed the child's exit set the cleanup off). The socket
 * stays this process's own. */
static void pmi_fd_own(void)
{
    const char *v = getenv("PMI_FD");
    int fd = v ? atoi(v) : -1, fl = fd > 2 ? fcntl(fd, F_GETFD) : -1;
    if (fl >= 0)
        fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
}

/* The end of rank_serve, after QUIT or the front end's going: MPI's end
 * (exec_free), BYE, and the control thread joined. The exit status. */
static int leave(rank_t *r, pthread_t t)
{
    int gone = atomic_load(&r->gone);
    /* Every rank got QUIT at once; on a loaded machine (more ranks than
     * cores) reaching the exit together can take longer than the module's
     * default 5 s, after which it would leave without MPI_Finalize. */
    setenv("RMALAB_EXIT_TIMEOUT", "30", 0);
    /* Without a front end, a rank that waits for the others at exit must
     * not outlive the control thread's deadline: 2 s, then it leaves
     * without MPI_Finalize (the module's exit path). */
    if (gone)
        setenv("RMALAB_EXIT_TIMEOUT", "2", 1);
    exec_free(r->x); /* frees what can be freed, finalises MPI */
    atomic_store(&r->ended, 1);
    if (!gone)
        send_frame(r, CHAN_BYE, 0, NULL, NULL);
    shutdown(r->fd, SHUT_RDWR);
    pthread_join(t, NULL);
    close(r->fd);
    free(r->hurried);
    for (item *it = r->head, *n; it; it = n) {
        n = it->next;
        free_item(it);
    }
    return gone ? 1 : 0;
}

int rank_serve(const char *connect, const char *token)
{
    rank_t r = {.fd = -1};
    if (!connect || !token) {
        fprintf(stderr, "rmalab --serve: RMALAB_CONNECT and RMALAB_TOKEN must be set (the "
                        "front end, rmalab -n N, sets them)\n");
        return 2;
    }
    pmi_fd_own();
    if (!(r.x = exec_new(1))) /* loads the module, which starts MPI */
        return 1;
    /* A rank that waits for a person sleeps while it is blocked (every rank
     * of the job alike: docs/core.md), unless RMALAB_WAIT says otherwise. */
    if (!getenv("RMALAB_WAIT"))
        rmalab_wait_set_mode(RMALAB_WAIT_SLEEP);
    rmalab_blocked_watch(); /* :status reads how long a call has blocked */
    MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &r.size);
    /* Collective, so before the greeting: once a rank has greeted, it
     * takes commands at once instead of waiting here for slower ranks. */
    MPI_Comm poke;
    MPI_Comm_dup(MPI_COMM_WORLD, &poke);
    if ((r.fd = addr_connect(connect)) < 0) {
        fprintf(stderr, "rmalab: rank %d cannot reach the front end at %s\n", r.rank, connect);
        setenv("RMALAB_EXIT_TIMEOUT", "2", 1); /* no one to wait for long */
        exec_free(r.x);
        return 1;
    }
    if (!(r.hurried = calloc((size_t)r.size, sizeof *r.hurried))) {
        close(r.fd);
        exec_free(r.x);
        return 1;
    }
    for (int q = 0; q < r.size; q++)
        r.hurried[q] = -1;
    pthread_mutex_init(&r.send_lock, NULL);
    pthread_mutex_init(&r.qlock, NULL);
    pthread_cond_init(&r.qcond, NULL);
    pthread_t t;
    if (hello(&r, token) || pthread_create(&t, NULL, control, &r)) {
        close(r.fd);
        free(r.hurried);
        exec_free(r.x);
        return 1;
    }
    rmalab_set_progress_hook(need_progress, &r);
    serve(&r, poke);
    rmalab_set_progress_hook(NULL, NULL);
    MPI_Comm_free(&poke);
    return leave(&r, t);
}

int rank_script(const char *file, const char *code, int argc, char **argv)
{
    exec *x = exec_new(0);
    if (!x)
        return 1;
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    stuck *watch = stuck_start(rank, size, file);
    int rc = exec_script(x, file, code, argc, argv, rank);
    /* rmalab --trace FILE: every rank has run the script; the dump is
     * collective, and rank 0 says where it went. Not on a rank whose
     * script failed: the others may be in another collective, which the
     * dump's would meet (an allreduce met its communicator's dup, and
     * failed with MPI's "Message truncated"); that rank ends the job. */
    const char *trace = getenv("RMALAB_TRACE_FILE");
    if (trace && *trace && !rc)
        rc |= exec_script(x, NULL, trace_dump_chunk, 0, NULL, rank);
    stuck_stop(watch);
    exec_free(x);
    return rc;
}
