/* races-sync.c: the race checker's face to the rest of the core. Its part
 * of each call, which observe.c calls when the window is checked
 * (w->races), takes the checker's own state, never the window; its life
 * with a window (open, close, free) is the one place that sees both.
 * Private to the core, never installed. */
#ifndef RMALAB_RACES_SYNC_H
#define RMALAB_RACES_SYNC_H

#include "private.h"
#include "races-found.h"

struct rmalab__races;
/* The events of observe.h, which sync.c fills (win-private.h names them too). */
typedef struct rmalab__sync_event rmalab__sync_event;
typedef struct rmalab__op_event rmalab__op_event;

/* What a synchronisation hands on ahead of its MPI call (post's clock,
 * complete's records), and what it releases and acquires once it ended. */
int rmalab__races_sync_ahead(struct rmalab__races *R, const rmalab__sync_event *ev);
int rmalab__races_sync(struct rmalab__races *R, const rmalab__sync_event *ev);
/* The record of an operation issued; *id: its number. */
int rmalab__races_sync_op(struct rmalab__races *R, const rmalab__op_event *ev, uint32_t *id);
/* A local access (win:read, win:write): its record (*id its number), then
 * its check against the log and the report of what races. */
int rmalab__races_sync_local(struct rmalab__races *R, const rmalab__op_event *ev, uint32_t *id);
int rmalab__races_sync_local_check(struct rmalab__races *R, const rmalab__op_event *ev);
/* A direct load or store of another rank's memory: its record, sent to
 * that rank; *id its number. */
int rmalab__races_sync_direct(struct rmalab__races *R, const rmalab__op_event *ev, uint32_t *id);

/* The races found since the last time (*list: valid until the checker's
 * next call), which this empties. */
int rmalab__races_sync_found(struct rmalab__races *R, const struct rmalab__races_found **list);

/* Does this rank ask for the window to be checked (its hint rmalab_check,
 * else RMALAB_CHECK)? Local. */
bool rmalab__races_sync_wanted(const rmalab_win *w);
/* The mode asked for (its hint, else RMALAB_CHECK), which ranks agree on at
 * creation (win.c). */
rmalab_check_mode rmalab__races_sync_asked(const rmalab_win *w);
/* Creation (collective): check the window if any rank asks. */
int rmalab__races_sync_open(rmalab_win *w);
/* Freeing (collective, before MPI_Win_free): the last check. */
int rmalab__races_sync_close(struct rmalab__races *R);
/* Release the checker's state (no MPI but freeing its communicator). */
void rmalab__races_sync_free(rmalab_win *w);

#endif
