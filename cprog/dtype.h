/* dtype.c: a datatype as the bytes one instance of it touches and the
 * element it is made of, read once per MPI_Datatype and kept until the
 * program's MPI_Type_free. */
#ifndef RMALAB_CPROG_DTYPE_H
#define RMALAB_CPROG_DTYPE_H

#include <mpi.h>
#include <stdbool.h>

#include <rmalab/win.h>

/* One instance of a datatype. `size` bytes of signature; `type` the
 * predefined element every basic part of it is, when `one` (a type of the
 * core's table: types.c), else RMALAB_BYTE (they mix types, or one is
 * none of the core's: a pair type, long double...). The bytes it touches
 * from its buffer: n spans ascending and merged; n = 0 (spans NULL) when
 * they are [lb, lb + size) in the order of its signature and its extent is
 * size, so that count instances are one run too (a predefined type, a
 * contiguous run of one): then it is "dense". `elem`: the predefined type
 * every basic part of it is when that is none of the core's (a pair type
 * such as MPI_2INT, MPI_LONG_DOUBLE, a complex type...), else
 * MPI_DATATYPE_NULL: MPI is handed such operations with the program's
 * datatypes. */
/* A run of a type signature: n elements of one basic type in a row. `key`
 * names the type: the core's rmalab_type for those of its table (MPI_INT
 * and MPI_INT32_T are one), else the MPI handle's value. */
typedef struct {
    int64_t key, n;
} run_sig;

/* `sig`: one instance's type signature, nsig runs (at most RUN_SIG, the
 * neighbours merged); nsig 0 when it is not known (longer, or it holds
 * MPI_BYTE or MPI_PACKED, which match any type): then only its size is
 * checked. */
#define RUN_SIG 32
typedef struct {
    rmalab_type type;
    bool one;
    MPI_Datatype elem;
    MPI_Aint size, lb, extent;
    int n;
    const rmalab_span *spans;
    int nsig;
    run_sig sig[RUN_SIG];
} run_dtype;

/* The reduction ops that MPI defines on elem (a run_dtype's), as bits
 * 1 << rmalab_op; MPI_REPLACE and MPI_NO_OP take any type. *pair: it is
 * a pair type (MPI_MAXLOC, MPI_MINLOC). */
unsigned run_elem_ops(MPI_Datatype elem, bool *pair);
/* The name of a signature's key, for reports. */
const char *run_sig_name(int64_t key, char *buf, size_t len);

/* A predefined type of the core's table (fetch_and_op, compare_and_swap);
 * others RMALAB_ERR_TYPE, with no message. */
int run_type_of(MPI_Datatype t, rmalab_type *out);
/* t's description; RMALAB_ERR_TYPE with a message (rmalab_errmsg) for
 * MPI_DATATYPE_NULL, a handle that is neither predefined nor committed by
 * the program (bogus, freed, uncommitted: MPI is not asked about it), or
 * a type that reaches more than 1 GiB. The spans stay valid until
 * MPI_Type_free of t. */
int run_dtype_of(MPI_Datatype t, run_dtype *out);
/* Whether t is predefined or committed by the program (not freed since). */
bool run_dtype_known(MPI_Datatype t);
/* The program committed t (MPI_Type_commit, or MPI_Type_dup of a known
 * type): it is a datatype to describe at its first use. */
void run_dtype_commit(MPI_Datatype t);
/* count instances as spans from the buffer: *out one span or a new array
 * (free() it when it is not `one`), *n of them; none when count is 0. */
int run_dtype_spans(const run_dtype *d, int count, rmalab_span *one, rmalab_span **out, int *n);
/* The program's MPI_Type_free of t at pc: its description goes, and a
 * later use of t says where it was freed (until a commit reuses it). */
void run_dtype_forget(MPI_Datatype t, const void *pc);

#endif
