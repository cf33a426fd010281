/* Private to the core: the calls of races-pairs.c, the races the
 * checker's model finds, as it returns them (two records a race). The
 * checker's files alone include it. Never installed. */
#ifndef RMALAB_RACES_PAIRS_H
#define RMALAB_RACES_PAIRS_H

#include "races-private.h"

/* The race of a and b (b: the access being checked) joins `found` as two
 * records, a then b, unless the list holds the same race already. */
int rmalab__races_pairs_add(struct rmalab__rlist *found, const rmalab__racc *a,
                            const rmalab__racc *b);

#endif
