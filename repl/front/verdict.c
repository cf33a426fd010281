/* The ranks' states and the deadlock verdict of a session (session.h):
 * STATUS polls, whether every rank has answered the last one, and a hint
 * that holds long enough to end the job (hints.c reasons over the
 * states). */
#include "session.h"

#include <stdio.h>
#include <string.h>

#include "hints.h"

void session_poll_states(session *s)
{
    char id[16];
    snprintf(id, sizeof id, "%d", ++s->status_seq);
    const char *fl[] = {id};
    session_send_all(s, NULL, CHAN_STATUS, 1, fl);
    s->polled_at = session_now();
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
    double since = session_now() - s->polled_at;
    if (since > 0.25 && (answered || !after || since > 2) && !status_pending(s))
        session_poll_states(s);
    if (!answered || !after)
        return s->deadlocked;
    char h[4096];
    deadlock_hint(s->st, s->n, h, sizeof h);
    if (!h[0])
        s->hint_shown[0] = '\0';
    if (!h[0] || strcmp(h, s->hint_sig) != 0) {
        snprintf(s->hint_sig, sizeof s->hint_sig, "%s", h);
        s->hint_since = session_now();
        s->deadlocked = 0;
        return 0;
    }
    s->deadlocked = session_now() - s->hint_since >= s->deadlock_hold;
    return s->deadlocked;
}
