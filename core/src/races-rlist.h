/* Private to the core: the calls of races-rlist.c, the checker's lists of
 * records (struct rmalab__rlist, races-private.h). The checker's files
 * alone include it. Never installed. */
#ifndef RMALAB_RACES_RLIST_H
#define RMALAB_RACES_RLIST_H

#include "races-private.h"

/* Room for one more record at the end (NULL: out of memory). */
rmalab__racc *rmalab__races_rlist_push(struct rmalab__rlist *l);
void rmalab__races_rlist_free(struct rmalab__rlist *l);
/* Join the list's last record, just pushed, to the one before it when they
 * are one access (adjacent bytes, same site and interval); returns the
 * record that holds it. */
rmalab__racc *rmalab__races_rlist_merge_last(struct rmalab__rlist *l);

#endif
