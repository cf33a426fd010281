/* types.c: MPI datatypes and reduction ops as the core's. */
#ifndef RMALAB_CPROG_TYPES_H
#define RMALAB_CPROG_TYPES_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

#include <rmalab/win.h>

#include "dtype.h"

/* An RMA operation's sides: the origin, the result (get, get_accumulate)
 * and the target, each `count` instances of `type` (used: the operation
 * has that side). */
enum { RUN_ORIGIN, RUN_RESULT, RUN_TARGET, RUN_SIDES };
typedef struct {
    int count;
    MPI_Datatype type;
    bool used;
} run_side;

/* The sides as the core takes them: `t` holds the datatypes and counts,
 * each side's spans, the element type and count (rmalab_typed_op: its
 * kind, target, disp, op and buffers are the caller's to fill). `plain`:
 * every side is one run from its base, so that the core's (type, count)
 * calls carry it; else rmalab_win_typed. `bytes`: what each side moves.
 * `elem`: the predefined type of the target's elements when it is none of
 * the core's (a pair type, MPI_LONG_DOUBLE, a complex...), which MPI is
 * handed as it is; else MPI_DATATYPE_NULL. */
typedef struct {
    bool plain;
    MPI_Datatype elem;
    rmalab_typed_op t;
    size_t bytes;
    rmalab_span one[RUN_SIDES];
    rmalab_span *own[RUN_SIDES];
} run_layout;

/* The layout of the used sides, any datatypes (dtype.c), with the checks
 * MPI makes between them: as many bytes each, the same predefined type,
 * and for an accumulate (acc) one predefined type throughout. Else
 * RMALAB_ERR_TYPE or _ARG with a message (rmalab_errmsg). run_layout_free
 * releases it, whatever the status. */
int run_layout_of(const run_side *in, bool acc, run_layout *L);
void run_layout_free(run_layout *L);
/* The ops MPI defines on the elements: MPI_MAXLOC and MPI_MINLOC on pair
 * types only, and on pair types only those; on the others that are none
 * of the core's, their group's (run_elem_ops); MPI_REPLACE and MPI_NO_OP
 * on any. Else RMALAB_ERR_OP with a message. */
int run_op_fits(rmalab_op op, const run_layout *L);
/* An assertion of MPI_MODE_* bits as the core's RMALAB_MODE_* bits (which
 * calls take which, the core checks); a bit that is no MPI_MODE_* is
 * RMALAB_ERR_ARG. */
int run_mode_of(int mpi_assert, int *out);
/* MPI_SUM ... MPI_LXOR, MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP;
 * others RMALAB_ERR_OP. */
int run_op_of(MPI_Op op, rmalab_op *out);

#endif
