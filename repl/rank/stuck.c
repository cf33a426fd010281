/* Script mode's notice of a rank stuck in one call (stuck.h). The thread
 * reads what the core says this process is blocked in (rmalab_blocked_get)
 * and the window's own description, as the REPL's control thread does for
 * STATE; it calls no MPI and sleeps between looks. */
#include "stuck.h"
#include "../wire/clock.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rmalab/rmalab.h>

#define LOOK_MS 250

struct stuck {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stop, rank, size;
    double after;
    char file[512];
};

typedef struct {
    uint64_t id;
    char text[640];
} win_find;

static void describe_one(rmalab_win *w, void *ud)
{
    win_find *f = ud;
    if (f->text[0] || rmalab_win_id(w) != f->id)
        return;
    const char *name = rmalab_win_get_name(w);
    char d[512];
    rmalab_win_describe(w, d, sizeof d);
    snprintf(f->text, sizeof f->text, "window %s%s%s: %s", name && *name ? "\"" : "",
             name && *name ? name : "", name && *name ? "\"" : "", d);
}

/* "with rank 0", "with ranks {0, 1, 2}" (world ranks) */
static void with_ranks(const rmalab_blocked *b, char *buf, size_t size)
{
    size_t off = 0;
    buf[0] = '\0';
    if (b->n_members <= 0)
        return;
    off += (size_t)snprintf(buf, size, " with rank%s %s", b->n_members > 1 ? "s" : "",
                            b->n_members > 1 ? "{" : "");
    for (int i = 0; i < b->n_members && i < RMALAB_STATE_MAX_RANKS && off < size; i++)
        off += (size_t)snprintf(buf + off, size - off, "%s%d", i ? ", " : "", b->members[i]);
    if (b->n_members > 1 && off < size)
        snprintf(buf + off, size - off, "%s}", b->n_members > RMALAB_STATE_MAX_RANKS ? ", ..."
                                                                                 : "");
}

static void notice(const stuck *s, const rmalab_blocked *b)
{
    win_find f = {.id = b->id};
    if (strcmp(b->object, "win") == 0)
        rmalab_win_each(describe_one, &f);
    char what[700], advice[700], line[1500];
    if (f.text[0]) {
        snprintf(what, sizeof what, "%s", f.text);
    } else {
        char with[300];
        with_ranks(b, with, sizeof with);
        snprintf(what, sizeof what, "blocked %.0f s in %s()%s", b->seconds, b->call, with);
    }
    if (s->file[0] && s->size == 2) /* rmalab test's default */
        snprintf(advice, sizeof advice, "; a deadlock? Ctrl-C ends the job, and \"rmalab test "
                                        "%s\" names the calls that hold it", s->file);
    else if (s->file[0])
        snprintf(advice, sizeof advice, "; a deadlock? Ctrl-C ends the job, and \"rmalab test "
                                        "--ranks %d %s\" names the calls that hold it", s->size,
                 s->file);
    else
        snprintf(advice, sizeof advice, "; a deadlock? Ctrl-C ends the job");
    int n = snprintf(line, sizeof line, "rmalab: rank %d: %s%s\n", s->rank, what, advice);
    if (n > 0) /* one write: the ranks' lines do not mix */
        (void)!write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

static void *watch(void *arg)
{
    stuck *s = arg;
    double noticed = -1; /* when the call last noticed began */
    pthread_mutex_lock(&s->lock);
    while (!s->stop) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_nsec += LOOK_MS * 1000000L;
        t.tv_sec += t.tv_nsec / 1000000000L;
        t.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&s->wake, &s->lock, &t);
        if (s->stop)
            break;
        pthread_mutex_unlock(&s->lock);
        rmalab_blocked b;
        if (rmalab_blocked_get(&b) && b.seconds >= s->after) {
            double began = clock_now() - b.seconds;
            if (noticed < 0 || fabs(began - noticed) > 0.5) { /* a call not noticed yet */
                notice(s, &b);
                noticed = began;
            }
        }
        pthread_mutex_lock(&s->lock);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

stuck *stuck_start(int rank, int size, const char *file)
{
    const char *env = getenv("RMALAB_STUCK");
    double after = env && *env ? strtod(env, NULL) : 10.0;
    if (!(after > 0))
        return NULL;
    stuck *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->rank = rank;
    s->size = size;
    s->after = after;
    rmalab_blocked_watch(); /* calls read the clock as they start */
    snprintf(s->file, sizeof s->file, "%s", file ? file : "");
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->wake, NULL);
    if (pthread_create(&s->thread, NULL, watch, s)) {
        free(s);
        return NULL;
    }
    return s;
}

void stuck_stop(stuck *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    s->stop = 1;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->wake);
    free(s);
}
