/* What a C program's ranks are blocked in, across the job (hang.h): the
 * interceptor's state files, the REPL's parser and deadlock hints. */
#include "hang.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../front/hints.h"

int hang_open(hang_t *h, int n)
{
    memset(h, 0, sizeof *h);
    const char *tmp = getenv("TMPDIR");
    snprintf(h->dir, sizeof h->dir, "%s/rmalab-states-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    h->n = n;
    h->st = calloc((size_t)n, sizeof *h->st);
    if (!h->st || !mkdtemp(h->dir)) {
        fprintf(stderr, "rmalab: a folder for the ranks' states (%s): %s\n", h->dir,
                strerror(errno));
        free(h->st);
        h->st = NULL;
        return -1;
    }
    return 0;
}

void hang_close(hang_t *h)
{
    DIR *d = h->st ? opendir(h->dir) : NULL;
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[4400];
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", h->dir, e->d_name);
            unlink(path);
        }
    }
    if (d) {
        closedir(d);
        rmdir(h->dir);
    }
    free(h->st);
    h->st = NULL;
}

static void read_rank(hang_t *h, int r)
{
    char path[4400], text[32768];
    snprintf(path, sizeof path, "%s/%d", h->dir, r);
    FILE *f = fopen(path, "r");
    if (!f)
        return; /* not started yet: the last state read stays */
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    if (len)
        rstate_parse(text, len, &h->st[r]);
}

double hang_look(hang_t *h, double now)
{
    if (!h->st)
        return -1;
    for (int r = 0; r < h->n; r++)
        read_rank(h, r);
    char hint[4096];
    deadlock_hint(h->st, h->n, 0, hint, sizeof hint);
    if (!hint[0] || strcmp(hint, h->sig) != 0) {
        snprintf(h->sig, sizeof h->sig, "%s", hint);
        h->since = now;
    }
    return h->sig[0] ? now - h->since : -1;
}

/* The window's description after its "blocked N s in call(); ", or "". */
static const char *described(const rstate *s)
{
    for (int i = 0; i < s->nwins; i++)
        if (strcmp(s->wins[i].blocked, "-") != 0 && s->wins[i].blocked[0]) {
            const char *d = s->wins[i].describe, *semi = strstr(d, "; ");
            return strncmp(d, "blocked ", 8) == 0 ? (semi ? semi + 2 : "") : d;
        }
    return "";
}

int hang_note(const hang_t *h, int r, char *buf, size_t size)
{
    const rstate *s = &h->st[r];
    if (!s->valid || strcmp(s->state, "blocked") != 0) {
        snprintf(buf, size, "rank %d %s", r,
                 !s->valid                        ? "has not reached MPI_Init yet"
                 : strcmp(s->state, "idle") == 0 ? "has ended (MPI_Finalize)"
                                                  : "is running, in no blocking MPI call");
        return 0;
    }
    char call[64] = "", site[300] = "", wait[1800];
    sscanf(s->at, "%63s %299[^\n]", call, site);
    if (!deadlock_rank_wait(h->st, h->n, r, wait, sizeof wait))
        snprintf(wait, sizeof wait, "blocked in %s()", s->call);
    const char *more = described(s);
    char text[2600];
    snprintf(text, sizeof text, "rank %d is %s (%.1f s)%s%s", r, wait, s->seconds,
             more[0] ? "; " : "", more);
    rmalab_text_in_c(text, wait, sizeof wait); /* MPI's names of the calls */
    snprintf(buf, size, "%s%snote: %s%s%s", site, site[0] ? ": " : "", call, call[0] ? ": " : "",
             wait);
    return 1;
}

void hang_rings(const hang_t *h, char *buf, size_t size)
{
    size_t off = 0;
    char rings[4096];
    rings[0] = '\0';
    for (const char *p = h->sig; *p && off < sizeof rings;) {
        size_t k = strcspn(p, "\n");
        if (strncmp(p, "hint: deadlock: ", 16) == 0)
            off += (size_t)snprintf(rings + off, sizeof rings - off, "%.*s\n", (int)(k - 6),
                                    p + 6);
        p += k + (p[k] == '\n');
    }
    rmalab_text_in_c(rings, buf, size);
}
