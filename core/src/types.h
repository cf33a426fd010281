/* types.c: type, op, flavour and assertion tables; op/type rules.
 * Private to the core, never installed. */
#ifndef RMALAB_TYPES_H
#define RMALAB_TYPES_H

#include "private.h"

/* The bytes of an element of each type, by rmalab_type (rmalab_type_size
 * gives them checked): read inline by the typed messages (p2p.c), where
 * the call was 14 instructions of a buffer's ping-pong round trip. */
extern const signed char rmalab__type_bytes[RMALAB_NTYPES];
MPI_Datatype rmalab__type_mpi(rmalab_type t);
MPI_Op rmalab__type_mpi_op(rmalab_op op);
/* IEEE 754-2019's maximum and minimum (NaN propagates, +0 above -0). */
double rmalab__type_fmax(double a, double b);
double rmalab__type_fmin(double a, double b);
/* A reduction's op: rmalab__type_mpi_op's, except max and min on float and
 * double, which are IEEE 754-2019's (ops of ours, commutative). */
MPI_Op rmalab__type_reduce_op(rmalab_op op, rmalab_type type);
/* RMALAB_MODE_* to MPI_MODE_* */
int rmalab__type_mpi_mode(int assert_);
/* `call` ("fence") accepts the assertions `allowed` and no others. */
int rmalab__type_check_assert(const char *call, int assert_, int allowed);
/* The type is known and the count not negative. */
int rmalab__type_check_count(const char *what, rmalab_type type, int count);
/* The op/type pairs MPI defines for accumulate (and rmalab accepts). */
int rmalab__type_check_op(const char *what, rmalab_op op, rmalab_type type, bool fetching);
/* The op suits the type of a reduction of a typed buffer as MPI's predefined
 * reductions say (ERR_OP for no reduction, ERR_TYPE for a bad pair). */
int rmalab__type_check_reduce(const char *call, rmalab_type type, rmalab_op op);

#endif
