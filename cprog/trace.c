/* rmalab run --trace: the windows' records, gathered at MPI_Finalize and
 * written by rank 0 (trace.h). The file is written whole under a temporary
 * name and then renamed, so that `rmalab run` finds either the complete
 * set or nothing (a program that ended before MPI_Finalize). */
#include "trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <rmalab/error.h>
#include <rmalab/trace.h>

/* The C call that makes each kind of event, for the writers' labels; NULL
 * for what no call of the program's makes (an arrival, a race). A load or
 * a store of window memory is no call either, but says what it was. */
static const char *c_call(rmalab_trace_kind k)
{
    static const char *const calls[RMALAB_TRACE_NKINDS] = {
        [RMALAB_TRACE_POST] = "MPI_Win_post", [RMALAB_TRACE_START] = "MPI_Win_start",
        [RMALAB_TRACE_COMPLETE] = "MPI_Win_complete", [RMALAB_TRACE_WAIT] = "MPI_Win_wait",
        [RMALAB_TRACE_TEST] = "MPI_Win_test", [RMALAB_TRACE_FENCE] = "MPI_Win_fence",
        [RMALAB_TRACE_LOCK] = "MPI_Win_lock", [RMALAB_TRACE_UNLOCK] = "MPI_Win_unlock",
        [RMALAB_TRACE_LOCK_ALL] = "MPI_Win_lock_all",
        [RMALAB_TRACE_UNLOCK_ALL] = "MPI_Win_unlock_all",
        [RMALAB_TRACE_FLUSH] = "MPI_Win_flush", [RMALAB_TRACE_FLUSH_ALL] = "MPI_Win_flush_all",
        [RMALAB_TRACE_FLUSH_LOCAL] = "MPI_Win_flush_local",
        [RMALAB_TRACE_FLUSH_LOCAL_ALL] = "MPI_Win_flush_local_all",
        [RMALAB_TRACE_SYNC] = "MPI_Win_sync", [RMALAB_TRACE_REQUEST_WAIT] = "MPI_Wait",
        [RMALAB_TRACE_PUT] = "MPI_Put", [RMALAB_TRACE_GET] = "MPI_Get",
        [RMALAB_TRACE_ACCUMULATE] = "MPI_Accumulate",
        [RMALAB_TRACE_GET_ACCUMULATE] = "MPI_Get_accumulate",
        [RMALAB_TRACE_FETCH_AND_OP] = "MPI_Fetch_and_op",
        [RMALAB_TRACE_COMPARE_AND_SWAP] = "MPI_Compare_and_swap",
        [RMALAB_TRACE_READ] = "load", [RMALAB_TRACE_WRITE] = "store",
    };
    return (unsigned)k < RMALAB_TRACE_NKINDS ? calls[k] : NULL;
}

/* A Lua string literal: quotes, backslashes and control bytes escaped. */
static void quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\' || c < 0x20 || c == 0x7f)
            fprintf(f, "\\%03u", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* Times as hexadecimal floats (%a): exact, and floats to Lua. */
static void write_event(FILE *f, const rmalab_trace_event *e)
{
    fprintf(f, "{t0=%a,t1=%a,rank=%d,win=%d,kind=", e->t0, e->t1, e->rank, e->win + 1);
    quoted(f, rmalab_trace_kind_name(e->kind) ? rmalab_trace_kind_name(e->kind) : "?");
    if (c_call(e->kind)) {
        fputs(",call=", f);
        quoted(f, c_call(e->kind));
    }
    fprintf(f, ",peer=%d,flag=%d,count=%d,calls=%d,disp=%" PRId64 ",bytes=%" PRId64
            ",seq=%" PRIu32, e->peer, e->flag, e->count, e->calls, e->disp, e->bytes, e->seq);
    if (e->group) {
        fputs(",group={", f);
        for (int i = 0; i < e->count; i++)
            fprintf(f, "%s%d", i ? "," : "", e->group[i]);
        fputc('}', f);
    }
    fputs("},\n", f);
}

static void write_head(FILE *f, const rmalab_trace_set *s)
{
    fprintf(f, "-- rmalab run --trace: the gathered set (cprog/trace.c)\nreturn {\n"
            "ranks=%d,uncertainty=%a,shared_clock=%s,\nrank_uncertainty={",
            s->nranks, s->max_uncertainty, s->shared_clock ? "true" : "false");
    for (int r = 0; r < s->nranks; r++)
        fprintf(f, "%s%a", r ? "," : "", s->uncertainty[r]);
    fputs("},\ndropped={", f);
    for (int r = 0; r < s->nranks; r++)
        fprintf(f, "%s%" PRIu64, r ? "," : "", s->dropped[r]);
    fputs("},\nwindows={\n", f);
    for (int i = 0; i < s->nwins; i++) {
        const rmalab_trace_window *w = &s->wins[i];
        fputs("{key=", f);
        quoted(f, w->key);
        fputs(",name=", f);
        quoted(f, w->name);
        fputs(",engine=", f);
        quoted(f, w->engine);
        fprintf(f, ",size=%d,freed=%s},\n", w->size, w->freed ? "true" : "false");
    }
    fputs("},\n", f);
}

static int write_set(const char *path, const rmalab_trace_set *s)
{
    char part[4200];
    if (snprintf(part, sizeof part, "%s.part", path) >= (int)sizeof part)
        return -1;
    FILE *f = fopen(part, "w");
    if (!f)
        return -1;
    write_head(f, s);
    fputs("events={\n", f);
    for (int i = 0; i < s->nevents; i++)
        write_event(f, &s->events[i]);
    fputs("},\nflows={\n", f);
    for (int i = 0; i < s->nflows; i++)
        fprintf(f, "{kind=\"%s\",from=%d,to=%d},\n", rmalab_flow_kind_name(s->flows[i].kind),
                s->flows[i].from + 1, s->flows[i].to + 1);
    fputs("},\n}\n", f);
    int bad = ferror(f);
    if (fclose(f) || bad || rename(part, path)) {
        remove(part);
        return -1;
    }
    return 0;
}

void run_trace_start(void)
{
    const char *path = getenv("RMALAB_RUN_TRACE");
    if (path && *path)
        rmalab_trace_default(true);
}

void run_trace_end(void)
{
    const char *path = getenv("RMALAB_RUN_TRACE");
    if (!path || !*path)
        return;
    rmalab_trace_set *set = NULL;
    int rc = rmalab_trace_gather(&set);
    if (rc)
        fprintf(stderr, "rmalab run: the trace could not be gathered: %s\n", rmalab_errmsg());
    else if (set && write_set(path, set))
        fprintf(stderr, "rmalab run: the trace: cannot write %s: %s\n", path, strerror(errno));
    rmalab_trace_set_destroy(&set);
}
