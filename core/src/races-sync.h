/* races-sync.c: the race checker's part of each call, which observe.c
 * calls when the window is checked (w->races), and its life with a window.
 * Private to the core, never installed. */
#ifndef RMALAB_RACES_SYNC_H
#define RMALAB_RACES_SYNC_H

#include "win-private.h"

/* What a synchronisation hands on ahead of its MPI call (post's clock,
 * complete's records), and what it releases and acquires once it ended. */
int rmalab__races_sync_ahead(rmalab_win *w, const rmalab__sync_event *ev);
int rmalab__races_sync(rmalab_win *w, const rmalab__sync_event *ev);
/* The record of an operation issued; *id: its number. */
int rmalab__races_sync_op(rmalab_win *w, const rmalab__op_event *ev, uint32_t *id);
/* A local access (win:read, win:write): its record (*id its number), then
 * its check against the log and the report of what races. */
int rmalab__races_sync_local(rmalab_win *w, const rmalab__op_event *ev, uint32_t *id);
int rmalab__races_sync_local_check(rmalab_win *w, const rmalab__op_event *ev);
/* A direct load or store of another rank's memory: its record, sent to
 * that rank; *id its number. */
int rmalab__races_sync_direct(rmalab_win *w, const rmalab__op_event *ev, uint32_t *id);
/* Does this rank ask for the window to be checked (its hint rmalab_check,
 * else RMALAB_CHECK)? Local. */
bool rmalab__races_sync_wanted(const rmalab_win *w);
/* Creation (collective): check the window if any rank asks. */
int rmalab__races_sync_open(rmalab_win *w);
/* Freeing (collective, before MPI_Win_free): the last check. */
int rmalab__races_sync_close(rmalab_win *w);
/* Release the checker's state (no MPI but freeing its communicator). */
void rmalab__races_sync_free(rmalab_win *w);

#endif
