/* types.c: MPI datatypes and reduction ops as the core's. */
#ifndef RMALAB_CPROG_TYPES_H
#define RMALAB_CPROG_TYPES_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

#include <rmalab/win.h>

/* An RMA operation's data as the core's _mem calls take it: `count`
 * elements of `type`, contiguous at the origin; at the target contiguous
 * too, or `vec` (has_vec). `bytes` is the origin's extent. */
typedef struct {
    rmalab_type type;
    int count;
    bool has_vec;
    rmalab_vector vec;
    size_t bytes;
} run_layout;

/* The layout of (ocount, otype) at the origin and (tcount, ttype) at the
 * target: predefined types, contiguous types of them, and at the target a
 * vector of them. Anything else is RMALAB_ERR_TYPE with a message that
 * names what rmalab run cannot check yet (rmalab_errmsg). */
int run_layout_of(int ocount, MPI_Datatype otype, int tcount, MPI_Datatype ttype,
                  run_layout *out);
/* One element of a predefined type (fetch_and_op, compare_and_swap). */
int run_type_of(MPI_Datatype t, rmalab_type *out);
/* An assertion of MPI_MODE_* bits as the core's RMALAB_MODE_* bits (which
 * calls take which, the core checks); a bit that is no MPI_MODE_* is
 * RMALAB_ERR_ARG. */
int run_mode_of(int mpi_assert, int *out);
/* MPI_SUM ... MPI_REPLACE, MPI_NO_OP; others RMALAB_ERR_OP. */
int run_op_of(MPI_Op op, rmalab_op *out);

#endif
