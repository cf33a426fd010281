/* The process's state as text (rmalab/win.h, rmalab_state_text): the
 * blocked call's lines and one line per live window, in the form a REPL
 * rank's STATE carries them (docs/repl.md) and rmalab run's interceptor
 * hands to its runner (docs/c.md). One writer, so that one parser (the
 * REPL's, repl/wire/state.c) reads both. Public calls only. */
#include "private.h"

#include <stdarg.h>
#include <stdio.h>

typedef struct {
    char *buf;
    size_t size, len; /* len: the whole text's, even past size */
} text_t;

static void add(text_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(text_t *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = t->len < t->size ? t->size - t->len : 0;
    int k = vsnprintf(room ? t->buf + t->len : NULL, room, fmt, ap);
    va_end(ap);
    if (k > 0)
        t->len += (size_t)k;
}

static void ranks_list(text_t *t, const char *key, const int *v, int n)
{
    add(t, " %s=", key);
    for (int i = 0; i < n && i < RMALAB_STATE_MAX_RANKS; i++)
        add(t, "%s%d", i ? "," : "", v[i]);
    if (!n)
        add(t, "-");
}

/* One line per live window (rmalab_win_each holds the registry). */
static void describe_win(rmalab_win *w, void *ud)
{
    text_t *t = ud;
    rmalab_epoch_state s;
    char d[512];
    rmalab_win_state(w, &s);
    rmalab_win_describe(w, d, sizeof d);
    const char *name = rmalab_win_get_name(w);
    add(t, "\nwin=%llu name=%s engine=%s access=%s", (unsigned long long)rmalab_win_id(w),
        name && *name ? name : "-", s.engine, rmalab_access_name(s.access));
    ranks_list(t, "access_ranks", s.access_ranks, s.n_access);
    add(t, " lock_modes=");
    for (int i = 0; s.access == RMALAB_ACCESS_LOCK && i < s.n_access && i < RMALAB_STATE_MAX_RANKS;
         i++)
        add(t, "%s%c", i ? "," : "", s.lock_exclusive[i] ? 'x' : 's');
    if (s.access != RMALAB_ACCESS_LOCK || !s.n_access)
        add(t, "-");
    if (s.lock_waiting == RMALAB_LOCK_WAIT_ALL)
        add(t, " lock_wait=all:s");
    else if (s.lock_waiting >= 0)
        add(t, " lock_wait=%d:%c", s.lock_waiting, s.lock_waiting_exclusive ? 'x' : 's');
    else
        add(t, " lock_wait=-");
    ranks_list(t, "posted", s.posted, s.access == RMALAB_ACCESS_START ? s.n_access : 0);
    add(t, " exposure=%s", rmalab_exposure_name(s.exposure));
    ranks_list(t, "exposure_ranks", s.exposure_ranks, s.n_exposure);
    ranks_list(t, "arrived", s.arrived, s.exposure == RMALAB_EXPOSURE_POST ? s.n_exposure : 0);
    add(t, " size=%d blocked=%s describe=%s", rmalab_win_group_size(w),
        s.blocked_in ? s.blocked_in : "-", d);
}

size_t rmalab_state_text(const rmalab_blocked *b, char *buf, size_t size)
{
    text_t t = {.buf = buf, .size = size};
    if (size)
        buf[0] = '\0';
    if (b) {
        add(&t, "\ncall=%s\ncollective=%d\ninterruptible=%d\nobject=%s %llu", b->call,
            b->collective, b->interruptible, b->object, (unsigned long long)b->id);
        /* a collective's members; a start's or a wait's group (the native
         * engine's start has no epoch yet to show it); a message's peer */
        if (b->n_members > 0 && b->n_members <= RMALAB_STATE_MAX_RANKS) {
            add(&t, "\nmembers=");
            for (int i = 0; i < b->n_members; i++)
                add(&t, "%s%d", i ? "," : "", b->members[i]);
        }
    }
    rmalab_win_each(describe_win, &t);
    return t.len;
}
