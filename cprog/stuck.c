/* The notice of a rank stuck in one call, as script mode's (repl/rank/
 * stuck.c) but at the C program's line: what the core says this process
 * is blocked in (rmalab_blocked_get), and the window's own description.
 * The same thread keeps the state file that a watcher of the whole job
 * (rmalab test, rmalab run) reads, when RMALAB_STATE_DIR names a folder. */
#include "stuck.h"

#include "report.h"
#include "where.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rmalab/rmalab.h>

#define LOOK_MS 250

static _Atomic(const void *) at_pc;
static _Atomic(const char *) at_call;
static pthread_t thread;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static int running, stop, my_rank;
static double after;
static const char *state_dir;
static int watched; /* the last state file was written: its watcher says it */

void run_stuck_at(const void *pc, const char *call)
{
    atomic_store_explicit(&at_pc, pc, memory_order_relaxed);
    atomic_store_explicit(&at_call, call, memory_order_relaxed);
}

typedef struct {
    uint64_t id;
    char text[640];
} win_find;

static void describe_one(rmalab_win *w, void *ud)
{
    win_find *f = ud;
    if (!f->text[0] && rmalab_win_id(w) == f->id)
        rmalab_win_describe(w, f->text, sizeof f->text);
}

/* The call and what it waits for: the window's description ("blocked 3.2
 * s in complete(); access epoch to {1}: ..."), else the ranks. */
static void waits_for(const rmalab_blocked *b, char *buf, size_t size)
{
    win_find f = {.id = b->id};
    if (strcmp(b->object, "win") == 0)
        rmalab_win_each(describe_one, &f);
    if (f.text[0]) {
        snprintf(buf, size, "%s", f.text);
        return;
    }
    size_t off = (size_t)snprintf(buf, size, "blocked %.0f s in %s()", b->seconds, b->call);
    if (b->n_members > 0 && off < size)
        off += (size_t)snprintf(buf + off, size - off, "; it waits for rank%s",
                                b->n_members > 1 ? "s" : "");
    for (int i = 0; i < b->n_members && i < RMALAB_STATE_MAX_RANKS && off < size; i++)
        off += (size_t)snprintf(buf + off, size - off, "%s %d", i ? "," : "", b->members[i]);
}

static void notice(const rmalab_blocked *b)
{
    const void *pc = atomic_load_explicit(&at_pc, memory_order_relaxed);
    const char *call = atomic_load_explicit(&at_call, memory_order_relaxed);
    char what[800], text[1000];
    waits_for(b, what, sizeof what);
    snprintf(text, sizeof text, "rank %d: %s; a deadlock? Ctrl-C ends the job", my_rank, what);
    if (pc)
        run_note(pc, call, text);
}

/* DIR/RANK, replaced whole (a rename), so that a reader never sees half:
 *   state=blocked|running|idle
 *   seconds=3.2                (blocked: in the call)
 *   at=MPI_Put prog.c:18       (blocked: the call, at the program's line)
 * then the core's lines of the call and the windows (rmalab_state_text):
 * the STATE text of a REPL rank (docs/repl.md), read by the same parser. */
static void state_file(const char *state, const rmalab_blocked *b)
{
    if (!state_dir)
        return;
    const void *pc = atomic_load_explicit(&at_pc, memory_order_relaxed);
    const char *call = atomic_load_explicit(&at_call, memory_order_relaxed);
    char tmp[4200], path[4200], head[1200], core[8192];
    int k = snprintf(head, sizeof head, "state=%s\nseconds=%.1f", state, b ? b->seconds : 0.0);
    if (b && pc && call && k > 0 && (size_t)k < sizeof head)
        snprintf(head + k, sizeof head - (size_t)k, "\nat=%s %s", call, run_where(pc));
    size_t n = rmalab_state_text(b, core, sizeof core);
    snprintf(tmp, sizeof tmp, "%s/.%d.new", state_dir, my_rank);
    snprintf(path, sizeof path, "%s/%d", state_dir, my_rank);
    FILE *f = fopen(tmp, "w");
    if (f)
        fprintf(f, "%s%s\n", head, n < sizeof core ? core : "");
    watched = f && fclose(f) == 0 && rename(tmp, path) == 0;
}

static void *watch(void *arg)
{
    double noticed = -1; /* when the call last noticed began */
    pthread_mutex_lock(&lock);
    while (!stop) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_nsec += LOOK_MS * 1000000L;
        t.tv_sec += t.tv_nsec / 1000000000L;
        t.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&wake, &lock, &t);
        if (stop)
            break;
        pthread_mutex_unlock(&lock);
        rmalab_blocked b;
        int blocked = rmalab_blocked_get(&b);
        state_file(blocked ? "blocked" : "running", blocked ? &b : NULL);
        if (blocked && after > 0 && b.seconds >= after && !watched) {
            struct timespec m;
            clock_gettime(CLOCK_MONOTONIC, &m);
            double began = (double)m.tv_sec + 1e-9 * (double)m.tv_nsec - b.seconds;
            if (noticed < 0 || fabs(began - noticed) > 0.5) { /* a call not noticed yet */
                notice(&b);
                noticed = began;
            }
        }
        pthread_mutex_lock(&lock);
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

void run_stuck_start(int rank)
{
    const char *env = getenv("RMALAB_STUCK");
    after = env && *env ? strtod(env, NULL) : 10.0;
    my_rank = rank;
    state_dir = getenv("RMALAB_STATE_DIR");
    if (state_dir && !*state_dir)
        state_dir = NULL;
    state_file("running", NULL);
    if ((after > 0 || state_dir) && pthread_create(&thread, NULL, watch, NULL) == 0) {
        rmalab_blocked_watch(); /* calls read the clock as they start */
        running = 1;
    }
}

void run_stuck_stop(void)
{
    if (running) {
        pthread_mutex_lock(&lock);
        stop = 1;
        pthread_cond_signal(&wake);
        pthread_mutex_unlock(&lock);
        pthread_join(thread, NULL);
        running = 0;
    }
    state_file("idle", NULL);
}
