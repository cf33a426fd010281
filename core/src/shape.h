/* shape.c: the sides of an RMA operation, as MPI is handed them and as the
 * checks see them. Private to the core, never installed. */
#ifndef RMALAB_SHAPE_H
#define RMALAB_SHAPE_H

#include "win-private.h"

/* An operation moves `count` elements of `type` on each side. Its origin
 * (and result) side is contiguous, and its target side contiguous too, or
 * the blocks of `vec`; or (`ty`) every side is the caller's own MPI
 * datatype, with the byte spans it touches (rmalab_typed_op). */
typedef struct {
    rmalab_type type;
    int count;
    const rmalab_vector *vec;
    const rmalab_typed_op *ty;
    /* Set by rmalab__shape_open: what MPI is handed for the origin, the
     * result and the target; the footprint from disp (`reach` elements of
     * `reach_type`) for the range check. */
    MPI_Datatype dt, odt, rdt, tdt;
    int ocount, rcount, tcount;
    rmalab_type reach_type;
    int reach;
    MPI_Aint lead; /* bytes a typed target reaches before disp (its spans' first off < 0) */
    bool made; /* tdt is the vector's, made here: rmalab__shape_close frees it */
} rmalab__shape;

/* A caller's typed operation (rmalab_win_typed, _typed_request) is one:
 * not NULL, of a kind that moves data; `what` names the call in errors. */
int rmalab__shape_typed_check(const rmalab_typed_op *t, const char *what);
/* The shape agrees with itself (a vector's count with the origin's), and
 * its datatypes are made; `what` names the call in errors. */
int rmalab__shape_open(rmalab__shape *s, const char *what);
/* The bytes a typed target reaches before its displacement (`lead`) lie
 * in target's window too: ERR_RMA_RANGE else. (The footprint from disp is
 * the range check's, sync.c.) */
int rmalab__shape_lead(rmalab_win *w, const rmalab__shape *s, const char *what, int target,
                       MPI_Aint disp);
void rmalab__shape_close(rmalab__shape *s);
/* The caller's memory that MPI uses in place (mem: origin, compare,
 * result; NULL: not used) must not overlap the target's bytes when those
 * are this process's memory too (layout.c). */
int rmalab__shape_overlap(rmalab_win *w, const rmalab__shape *s, const char *what, int target,
                          MPI_Aint disp, const void *const mem[3]);
/* Whether the target side is one contiguous run (an engine's plain copy
 * may move it). */
bool rmalab__shape_plain(const rmalab__shape *s);
/* The operation of event ev ended with rc: to the recorder and the race
 * checker (observe.h) as one event, or block by block (a vector's, a
 * typed target's spans): never as the bounding range, which would race
 * with what lies between the blocks. */
int rmalab__shape_end(rmalab_win *w, const rmalab__shape *s, const rmalab__op_event *ev, int rc);

#endif
