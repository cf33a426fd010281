/* sync-kinds.c: the synchronisation kinds, one row each.
 * Private to the core, never installed. */
#ifndef RMALAB_SYNC_KINDS_H
#define RMALAB_SYNC_KINDS_H

#include "private.h"

/* sync-kinds.c: the table of rmalab/sync.h, indexed by rmalab_sync_id, and
 * the row of a trace kind (NULL: no synchronisation call). */
extern const rmalab_sync_kind rmalab__kind_rows[];
const rmalab_sync_kind *rmalab__kind_of_trace(int trace);
/* The call that opens access epoch `a`, or with `a` RMALAB_ACCESS_NONE
 * exposure epoch `x`; RMALAB_SYNC_NKINDS when both are none. */
int rmalab__kind_opener(rmalab_access a, rmalab_exposure x);
/* Which call completes an operation issued in access epoch `a` to
 * `target`, read from the row of the call that ends the epoch: "the next
 * fence()", "complete()", "unlock(2) or flush(2)", "unlock_all() or
 * flush(2)". */
void rmalab__kind_completer(rmalab_access a, int target, char *buf, size_t size);

#endif
