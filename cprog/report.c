/* The report lines, their counts, and the exit status they give. Each line
 * is written with one write(2), so that the lines of ranks and threads do
 * not interleave inside a line. */
#include "report.h"

#include "where.h"

#include <ctype.h>
#include <fcntl.h>
#include <inttypes.h>
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rmalab/error.h>
#include <rmalab/races.h>

static atomic_int errors, races;
static pthread_mutex_t poll_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t printed; /* the core's race numbers up to this one are out */

static void put_line(const char *text)
{
    size_t n = strlen(text), done = 0;
    while (done < n) {
        ssize_t w = write(STDERR_FILENO, text + done, n - done);
        if (w <= 0)
            return;
        done += (size_t)w;
    }
}

/* The core's texts hold sites as where.c's keys (run_where_key). */
static void line(const char *site, const char *kind, const char *call, const char *msg)
{
    char buf[4096], text[3000], sites[4096], where[1100];
    rmalab_text_in_c(msg, text, sizeof text);
    run_expand(site, where, sizeof where);
    snprintf(buf, sizeof buf, "%s: %s: %s%s%s\n", where, kind, call ? call : "",
             call ? ": " : "", text);
    run_expand(buf, sites, sizeof sites);
    put_line(sites);
}

void run_error(const void *pc, const char *call, const char *msg)
{
    atomic_fetch_add(&errors, 1);
    line(run_where(pc), "error", call, msg);
}

void run_warning(const void *pc, const char *call, const char *msg)
{
    line(run_where(pc), "warning", call, msg);
}

void run_note(const void *pc, const char *call, const char *text)
{
    line(run_where(pc), "note", call, text);
}

void run_race(const char *site, const char *text)
{
    atomic_fetch_add(&races, 1);
    line(site, "race", NULL, text);
}

/* The core's name of a call as the C program wrote it: "get_accumulate"
 * -> "MPI_Get_accumulate"; a direct "read" or "write" is a load or store. */
static void call_name(const char *call, char *out, size_t size)
{
    if (strncmp(call, "win:", 4) == 0)
        call += 4;
    if (strcmp(call, "read") == 0 || strcmp(call, "write") == 0) {
        snprintf(out, size, "%s", call[0] == 'r' ? "load" : "store");
        return;
    }
    snprintf(out, size, "MPI_%c%s", toupper((unsigned char)call[0]), call[0] ? call + 1 : "");
}

static void print_race(const rmalab_race *r)
{
    char a[32], b[32], buf[2400];
    call_name(r->a.call, a, sizeof a);
    call_name(r->b.call, b, sizeof b);
    snprintf(buf, sizeof buf,
             "%s by rank %d (%s) and %s at %s by rank %d (%s) conflict on bytes "
             "[%" PRId64 ", %" PRId64 ") of rank %d's window%s%s\n"
             "    why: %s\n    found at %s on rank %d",
             a, r->a.rank, r->a.during, b, r->b.site, r->b.rank, r->b.during, r->lo, r->hi,
             r->target, r->window[0] ? " " : "", r->window, r->why, r->found_at, r->found_by);
    run_race(r->a.site, buf);
}

void run_races_poll(void)
{
    const rmalab_race *list;
    int n;
    uint64_t found;
    pthread_mutex_lock(&poll_lock);
    rmalab_races(&list, &n, &found);
    for (int i = 0; i < n; i++)
        if (list[i].seq > printed) {
            print_race(&list[i]);
            printed = list[i].seq;
        }
    pthread_mutex_unlock(&poll_lock);
}

bool run_found(void)
{
    return atomic_load(&errors) + atomic_load(&races) > 0;
}

/* What the core says without failing a call (checking that became
 * incomplete...): a warning of the process. Race reports do not come this
 * way: windows are checked in races:quiet and polled. */
static void warn(void *ud, const char *text)
{
    char buf[2048];
    snprintf(buf, sizeof buf, "rmalab: warning: %s\n", text);
    put_line(buf);
}

static void at_exit(void)
{
    run_races_poll();
    if (run_found()) {
        fflush(NULL);
        _exit(1);
    }
}

void run_report_start(void)
{
    rmalab_set_warnf(warn, NULL);
    atexit(at_exit);
}

/* MPICH's own line about the abort would only repeat, less clearly, the
 * error line just written: stderr goes to /dev/null first. Hydra's proxy
 * forwards what a rank wrote as it reads its pipe, and an abort kills the
 * proxy: the pause lets it read the error line first (under load it was
 * lost now and then). */
void run_fatal(void)
{
    fflush(NULL);
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0)
        dup2(null, STDERR_FILENO);
    usleep(200000);
    PMPI_Abort(MPI_COMM_WORLD, 1);
    _exit(1);
}
