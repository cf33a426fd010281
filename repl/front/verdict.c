/* The ranks' states and the deadlock verdict of a session (session.h):
 * STATUS polls, whether every rank has answered the last one, and a hint
 * that holds long enough to end the job (hints.c reasons over the
 * states). */
#include "session.h"

#include <stdio.h>
#include <string.h>

#include "hints.h"
#include "status.h"
#include "waits.h"

void session_poll_states(session *s)
{
    char id[16];
    snprintf(id, sizeof id, "%d", ++s->status_seq);
    const char *fl[] = {id};
    session_send_all(s, NULL, CHAN_STATUS, 1, fl);
    s->polled_at = clock_now();
}

int session_states_fresh(const session *s)
{
    for (int r = 0; r < s->n; r++)
        if (s->p[r].fd >= 0 && s->st_seq[r] != s->status_seq)
            return 0;
    return 1;
}

static int any_busy(const session *s)
{
    for (int r = 0; r < s->n; r++)
        if (s->p[r].busy > 0)
            return 1;
    return 0;
}

static int status_pending(const session *s)
{
    for (const cmd *c = s->head; c; c = c->next)
        if (c->kind == CMD_STATUS && c->pending)
            return 1;
    return 0;
}

int session_deadlock_now(session *s)
{
    if (!any_busy(s)) {
        s->hint_sig[0] = s->hint_shown[0] = '\0'; /* the same hint may come again */
        s->deadlocked = 0;
        return 0;
    }
    /* every rank answered the last poll, and it went after the last command */
    int answered = session_states_fresh(s), after = s->status_seq > s->sent_seq;
    double since = clock_now() - s->polled_at;
    if (since > 0.25 && (answered || !after || since > 2) && !status_pending(s))
        session_poll_states(s);
    if (!answered || !after)
        return s->deadlocked;
    char h[4096];
    deadlock_hint(s->st, s->n, 1, h, sizeof h);
    if (!h[0])
        s->hint_shown[0] = '\0';
    if (!h[0] || strcmp(h, s->hint_sig) != 0) {
        snprintf(s->hint_sig, sizeof s->hint_sig, "%s", h);
        s->hint_since = clock_now();
        s->deadlocked = 0;
        return 0;
    }
    s->deadlocked = clock_now() - s->hint_since >= s->deadlock_hold;
    return s->deadlocked;
}

/* Busy ranks in the calls they were in, none running Lua, and nothing
 * they sent since: the signature session_stuck_now compares. A rank
 * that has not answered the last poll keeps the place it had. */
static void stuck_sig(const session *s, char *sig, size_t size)
{
    size_t off = (size_t)snprintf(sig, size, "%ld;", s->progress);
    for (int r = 0; r < s->n && off < size; r++)
        if (s->p[r].busy > 0)
            off += (size_t)snprintf(sig + off, size - off, "%d:%s:%s:%s:%llu;", r,
                                    s->st[r].state, s->st[r].call, s->st[r].object,
                                    s->st[r].object_id);
}

static void stuck_why(const session *s, double hold, char *why, size_t size)
{
    size_t off = (size_t)snprintf(why, size, "rmalab: the ranks have not moved for %.0f s (",
                                  hold);
    const char *sep = "";
    for (int r = 0; r < s->n && off < size; r++) {
        if (s->p[r].busy <= 0)
            continue;
        const rstate *st = &s->st[r];
        int inside = waits_is_blocked(st) && !st->interruptible;
        if (waits_is_blocked(st))
            off += (size_t)snprintf(why + off, size - off, "%srank %d in %s()%s", sep, r,
                                    st->call, inside ? " inside MPI" : "");
        else
            off += (size_t)snprintf(why + off, size - off, "%srank %d %s", sep, r,
                                    st->valid ? st->state : "without an answer");
        sep = ", ";
    }
    if (off < size)
        snprintf(why + off, size - off, "); ending the job\n");
}

int session_stuck_now(session *s, double hold, char *why, size_t size)
{
    char sig[sizeof s->stuck_sig];
    if (!any_busy(s) || (session_states_fresh(s) && rstate_any_running(s->st, s->n))) {
        s->stuck_sig[0] = '\0';
        return 0;
    }
    stuck_sig(s, sig, sizeof sig);
    if (strcmp(sig, s->stuck_sig) != 0) {
        snprintf(s->stuck_sig, sizeof s->stuck_sig, "%s", sig);
        s->stuck_since = clock_now();
        return 0;
    }
    if (clock_now() - s->stuck_since < hold)
        return 0;
    stuck_why(s, hold, why, size);
    return 1;
}
