/* Text renderers of the sink (render.h): a pipe's output, and the
 * transcript. A pipe prints each command's folded block once all its ranks
 * finished it, in the order the commands were given (the session hands
 * them over in that order when its sink is ordered), so a session piped
 * from a file prints the same text every run; no "still running" lines.
 * The transcript takes the same text, and :status without durations. */
#include "render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transcript.h"

void render_pipe(void *ud, const sink_event *e)
{
    (void)ud;
    char *t;
    switch (e->kind) {
    case EV_DONE:
    case EV_NEVER:
        if ((t = sink_text(e, 0))) {
            fputs(t, stdout);
            free(t);
        }
        break;
    case EV_HINT: fputs(e->text, stdout); break;
    case EV_NOTE: fputs(e->text, stdout); break;
    case EV_MESSAGE: fputs(e->text, stderr); break;
    default: return;
    }
    fflush(stdout);
}

void render_transcript(void *ud, const sink_event *e)
{
    transcript *ts = ud;
    char *t;
    switch (e->kind) {
    case EV_DONE:
    case EV_NEVER:
        if ((t = sink_text(e, 1))) {
            ts_output(ts, e->id, t);
            free(t);
        }
        break;
    case EV_HINT: /* the one the session ends on: as a pipe prints it */
        if (e->status)
            ts_note(ts, e->text);
        break;
    case EV_NOTE: ts_note(ts, e->text); break;
    default: break;
    }
}
