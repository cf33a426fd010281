/* types.c: type, op, flavour and assertion tables; op/type rules.
 * Private to the core, never installed. */
#ifndef RMALAB_TYPES_H
#define RMALAB_TYPES_H

#include "private.h"

MPI_Datatype rmalab__type_mpi(rmalab_type t);
MPI_Op rmalab__type_mpi_op(rmalab_op op);
/* RMALAB_MODE_* to MPI_MODE_* */
int rmalab__type_mpi_mode(int assert_);
/* `call` ("fence") accepts the assertions `allowed` and no others. */
int rmalab__type_check_assert(const char *call, int assert_, int allowed);
/* The type is known and the count not negative. */
int rmalab__type_check_count(const char *what, rmalab_type type, int count);
/* The op/type pairs MPI defines for accumulate (and rmalab accepts). */
int rmalab__type_check_op(const char *what, rmalab_op op, rmalab_type type, bool fetching);

#endif
