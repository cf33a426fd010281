/* The `:status` lines (status.h): each rank's state in words, with the
 * ranks its blocked call waits for (waits.c); beyond 8 ranks, ranks in the
 * same state fold into one line (fold.c). */
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold.h"
#include "waits.h"

void rstate_status_line(const rstate *all, int n, int me, int timings, char *buf, size_t size)
{
    const rstate *r = &all[me];
    if (!r->valid) {
        snprintf(buf, size, "no answer");
        return;
    }
    if (strcmp(r->state, "idle") == 0 && r->failed[0]) {
        snprintf(buf, size, "idle; its last command's %s() failed (%s)", r->failed,
                 r->failed_class);
        return;
    }
    if (strcmp(r->state, "idle") == 0) {
        snprintf(buf, size, "idle");
        return;
    }
    if (strcmp(r->state, "running") == 0) {
        if (timings)
            snprintf(buf, size, "running %s for %.1f s", r->label, r->seconds);
        else
            snprintf(buf, size, "running %s", r->label);
        return;
    }
    const rstate_win *w = waits_blocked_win(r);
    const char *d = w ? strstr(w->describe, "(); ") : NULL;
    size_t off = timings ? (size_t)snprintf(buf, size, "blocked %.1f s in %s()", r->seconds, r->call)
                         : (size_t)snprintf(buf, size, "blocked in %s()", r->call);
    if (d && off < size)
        off += (size_t)snprintf(buf + off, size - off, "; %s", d + 4);
    rankset miss;
    char call[40];
    snprintf(call, sizeof call, "%s()", r->call);
    if (off < size &&
        (r->collective ? waits_collective_missing(all, n, me, &miss)
                       : w && waits_partners(all, n, me, w, &miss, call, sizeof call))) {
        char set[256];
        rankset_text(&miss, set, sizeof set);
        int one = rankset_count(&miss) == 1;
        off += (size_t)snprintf(buf + off, size - off, "; rank%s %s %s not called %s",
                                one ? "" : "s", set, one ? "has" : "have", call);
    }
    const char *pcall;
    int peer = off < size && !w ? waits_message_peer(r, n, &pcall) : -1;
    if (peer >= 0) {
        const rstate *p = &all[peer];
        bool waiting = p->valid && strcmp(p->state, "blocked") == 0 && strcmp(p->call, pcall) == 0;
        off += (size_t)snprintf(buf + off, size - off, " with rank %d", peer);
        if (!waiting && off < size)
            off += (size_t)snprintf(buf + off, size - off, "; rank %d has not called %s()", peer,
                                    pcall);
    }
    if (off < size && r->interruptible)
        snprintf(buf + off, size - off, " (can be interrupted: :interrupt %d)", me);
    else if (off < size)
        snprintf(buf + off, size - off, " (inside MPI: cannot be interrupted)");
}

int rstate_any_running(const rstate *all, int n)
{
    for (int r = 0; r < n; r++)
        if (strcmp(all[r].state, "running") == 0)
            return 1;
    return 0;
}

/* One line per rank, up to 8 ranks; beyond that, ranks in the same state
 * (the line without its durations) fold into one line, as STAT and DDT
 * group stacks: "ranks 0,2-7: blocked 3.1 s in wait(); ...". */
char *rstate_status_text(const rstate *all, int n, const rankset *target, int timings)
{
    enum { LINE = 1200 };
    char line[LINE], set[512];
    size_t cap = (size_t)n * LINE + 1, off = 0;
    int fold = rankset_count(target) > 8;
    unsigned char *done = calloc((size_t)n, 1);
    char *text = calloc(1, cap), *lines = calloc((size_t)n, LINE);
    const char **keys = calloc((size_t)n, sizeof *keys);
    if (!text || !done || !lines || !keys) {
        free(text);
        text = NULL;
        goto out;
    }
    for (int r = 0; r < n; r++) /* the lines without durations are the keys */
        if (target->in[r]) {
            rstate_status_line(all, n, r, 0, lines + (size_t)r * LINE, LINE);
            keys[r] = lines + (size_t)r * LINE;
        }
    for (int r = 0; r < n; r++) {
        if (!keys[r] || done[r])
            continue;
        rankset g = {.n = n};
        if (fold)
            g = fold_group(keys, n, r, done);
        g.in[r] = done[r] = 1;
        rstate_status_line(all, n, r, timings, line, sizeof line);
        rankset_text(&g, set, sizeof set);
        off += (size_t)snprintf(text + off, cap - off, "rank%s %s: %s\n",
                                rankset_count(&g) > 1 ? "s" : "", set, line);
    }
out:
    free(keys);
    free(lines);
    free(done);
    return text;
}
