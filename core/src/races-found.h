/* Private to the core: a race that the checker found, as the event layer
 * (observe.c) hands it to the recorder (trace.c). The checker's files fill
 * it (races-report.c) and give it out (races-sync.h); a type alone, below
 * both, so that neither the checker nor the event layer includes the
 * other's header for it. Never installed. */
#ifndef RMALAB_RACES_FOUND_H
#define RMALAB_RACES_FOUND_H

#include <stdint.h>

/* The checker never calls the recorder: the event layer hands this on. */
struct rmalab__races_found {
    uint32_t seq;           /* its number in the process's list (rmalab_race.seq) */
    int target;
    int64_t lo, hi;
    int issuer[2];
    uint32_t id[2];         /* the two records' numbers */
};

#endif
