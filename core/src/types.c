/* Types, ops, flavours and assertions: the names users give, what MPI
 * calls them, and which combinations MPI defines; and the reductions' max
 * and min of floats, IEEE 754-2019's. Tables and those two ops: calls
 * nothing above error.c. */
#include "win-private.h"
#include "error-private.h"
#include "types.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static const char *const mode_names[] = {"nocheck", "nostore", "noput", "noprecede",
                                         "nosucceed"};

static const char *const type_names[RMALAB_NTYPES] = {
    [RMALAB_INT8] = "int8",   [RMALAB_UINT8] = "uint8",   [RMALAB_INT16] = "int16",
    [RMALAB_UINT16] = "uint16", [RMALAB_INT32] = "int32", [RMALAB_UINT32] = "uint32",
    [RMALAB_INT64] = "int64", [RMALAB_UINT64] = "uint64", [RMALAB_FLOAT] = "float",
    [RMALAB_DOUBLE] = "double", [RMALAB_BYTE] = "byte",
};

static const char *const op_names[RMALAB_NOPS] = {
    [RMALAB_OP_SUM] = "sum",   [RMALAB_OP_PROD] = "prod",       [RMALAB_OP_MAX] = "max",
    [RMALAB_OP_MIN] = "min",   [RMALAB_OP_BAND] = "band",       [RMALAB_OP_BOR] = "bor",
    [RMALAB_OP_BXOR] = "bxor", [RMALAB_OP_LAND] = "land",       [RMALAB_OP_LOR] = "lor",
    [RMALAB_OP_LXOR] = "lxor", [RMALAB_OP_REPLACE] = "replace", [RMALAB_OP_NO_OP] = "no_op",
    [RMALAB_OP_MAXLOC] = "maxloc", [RMALAB_OP_MINLOC] = "minloc",
};

const char *rmalab_type_name(rmalab_type type)
{
    return (unsigned)type < RMALAB_NTYPES ? type_names[type] : NULL;
}

const signed char rmalab__type_bytes[RMALAB_NTYPES] = {
    [RMALAB_INT8] = 1,  [RMALAB_UINT8] = 1,  [RMALAB_INT16] = 2, [RMALAB_UINT16] = 2,
    [RMALAB_INT32] = 4, [RMALAB_UINT32] = 4, [RMALAB_INT64] = 8, [RMALAB_UINT64] = 8,
    [RMALAB_FLOAT] = 4, [RMALAB_DOUBLE] = 8, [RMALAB_BYTE] = 1,
};

int rmalab_type_size(rmalab_type type)
{
    return (unsigned)type < RMALAB_NTYPES ? rmalab__type_bytes[type] : -1;
}

int rmalab_type_from_name(const char *name, rmalab_type *out)
{
    for (int i = 0; name && i < RMALAB_NTYPES; i++)
        if (strcmp(name, type_names[i]) == 0) {
            *out = (rmalab_type)i;
            return RMALAB_OK;
        }
    return rmalab__err_fail(RMALAB_ERR_TYPE,
                            "unknown type \"%s\"; use int8, uint8, int16, uint16, int32, uint32, "
                            "int64, uint64, float, double or byte",
                            name ? name : "(null)");
}

const char *rmalab_op_name(rmalab_op op)
{
    return (unsigned)op < RMALAB_NOPS ? op_names[op] : NULL;
}

/* maxloc and minloc take pair types, which no name gives. */
int rmalab_op_from_name(const char *name, rmalab_op *out)
{
    for (int i = 0; name && i <= RMALAB_OP_NO_OP; i++)
        if (strcmp(name, op_names[i]) == 0) {
            *out = (rmalab_op)i;
            return RMALAB_OK;
        }
    return rmalab__err_fail(
        RMALAB_ERR_OP,
        "unknown op \"%s\"; use sum, prod, max, min, band, bor, bxor, land, lor, "
        "lxor, replace or no_op",
        name ? name : "(null)");
}

const char *rmalab_flavor_call(rmalab_flavor flavor)
{
    static const char *const names[] = {
        [RMALAB_FLAVOR_CREATE] = "win_create", [RMALAB_FLAVOR_ALLOCATE] = "win_allocate",
        [RMALAB_FLAVOR_SHARED] = "win_allocate_shared",
        [RMALAB_FLAVOR_DYNAMIC] = "win_create_dynamic",
    };
    return (unsigned)flavor < sizeof names / sizeof names[0] ? names[flavor] : "?";
}

const char *rmalab_flavor_name(rmalab_flavor flavor)
{
    static const char *const names[] = {
        [RMALAB_FLAVOR_CREATE] = "create", [RMALAB_FLAVOR_ALLOCATE] = "allocate",
        [RMALAB_FLAVOR_SHARED] = "allocate_shared", [RMALAB_FLAVOR_DYNAMIC] = "dynamic",
    };
    return (unsigned)flavor < sizeof names / sizeof names[0] ? names[flavor] : "?";
}

const char *rmalab_check_mode_name(rmalab_check_mode mode)
{
    static const char *const names[] = {
#define RMALAB__CHECK_NAME(suffix, name) name,
        RMALAB_CHECK_MODE_MAP(RMALAB__CHECK_NAME)
#undef RMALAB__CHECK_NAME
    };
    return (unsigned)mode < sizeof names / sizeof names[0] ? names[mode] : "?";
}

int rmalab_mode_from_name(const char *name, int *out)
{
    for (int i = 0; name && i < 5; i++)
        if (strcmp(name, mode_names[i]) == 0) {
            *out = 1 << i;
            return RMALAB_OK;
        }
    return rmalab__err_fail(RMALAB_ERR_ARG,
                            "unknown assertion \"%s\"; use nocheck, nostore, noput, noprecede or "
                            "nosucceed",
                            name ? name : "(null)");
}

MPI_Datatype rmalab__type_mpi(rmalab_type t)
{
    switch (t) {
    case RMALAB_INT8: return MPI_INT8_T;
    case RMALAB_UINT8: return MPI_UINT8_T;
    case RMALAB_INT16: return MPI_INT16_T;
    case RMALAB_UINT16: return MPI_UINT16_T;
    case RMALAB_INT32: return MPI_INT32_T;
    case RMALAB_UINT32: return MPI_UINT32_T;
    case RMALAB_INT64: return MPI_INT64_T;
    case RMALAB_UINT64: return MPI_UINT64_T;
    case RMALAB_FLOAT: return MPI_FLOAT;
    case RMALAB_DOUBLE: return MPI_DOUBLE;
    default: return MPI_BYTE;
    }
}

MPI_Op rmalab__type_mpi_op(rmalab_op op)
{
    static const MPI_Op ops[RMALAB_NOPS] = {MPI_SUM,  MPI_PROD, MPI_MAX,  MPI_MIN,
                                           MPI_BAND, MPI_BOR,  MPI_BXOR, MPI_LAND,
                                           MPI_LOR,  MPI_LXOR, MPI_REPLACE, MPI_NO_OP,
                                           MPI_MAXLOC, MPI_MINLOC};
    return ops[op];
}

/* IEEE 754-2019's maximum and minimum: a NaN on either side gives NaN,
 * always the same quiet NaN, and +0 is above -0. MPI's MPI_MAX and MPI_MIN
 * compare with > and <, so a NaN's fate depended on the order in which the
 * ranks were combined, which differs between ranks: the same allreduce gave
 * NaN on some ranks and a number on others. */
double rmalab__type_fmax(double a, double b)
{
    if (isnan(a) || isnan(b))
        return NAN;
    if (a == b)
        return signbit(a) ? b : a;
    return a > b ? a : b;
}

double rmalab__type_fmin(double a, double b)
{
    if (isnan(a) || isnan(b))
        return NAN;
    if (a == b)
        return signbit(a) ? a : b;
    return a < b ? a : b;
}

/* The MPI ops of the two, on MPI_FLOAT and MPI_DOUBLE (the only types the
 * reductions give them). */
static void ieee_op(void *in, void *inout, int len, MPI_Datatype dt,
                    double (*f)(double, double))
{
    for (int i = 0; i < len; i++) {
        if (dt == MPI_FLOAT)
            ((float *)inout)[i] = (float)f(((float *)in)[i], ((float *)inout)[i]);
        else
            ((double *)inout)[i] = f(((double *)in)[i], ((double *)inout)[i]);
    }
}

static void ieee_max(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    ieee_op(in, inout, *len, *dt, rmalab__type_fmax);
}

static void ieee_min(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    ieee_op(in, inout, *len, *dt, rmalab__type_fmin);
}

/* Made once, when first needed, and left to MPI_Finalize. */
static MPI_Op ieee_ops[2] = {MPI_OP_NULL, MPI_OP_NULL};
static pthread_once_t ieee_once = PTHREAD_ONCE_INIT;

static void ieee_make(void)
{
    if (MPI_Op_create(ieee_max, 1, &ieee_ops[0]) != MPI_SUCCESS ||
        MPI_Op_create(ieee_min, 1, &ieee_ops[1]) != MPI_SUCCESS)
        ieee_ops[0] = ieee_ops[1] = MPI_OP_NULL;
}

MPI_Op rmalab__type_reduce_op(rmalab_op op, rmalab_type type)
{
    if ((type == RMALAB_FLOAT || type == RMALAB_DOUBLE) &&
        (op == RMALAB_OP_MAX || op == RMALAB_OP_MIN)) {
        pthread_once(&ieee_once, ieee_make);
        if (ieee_ops[0] != MPI_OP_NULL) /* MPI_Op_create: no reason to fail */
            return ieee_ops[op == RMALAB_OP_MIN];
    }
    return rmalab__type_mpi_op(op);
}

int rmalab__type_mpi_mode(int assert_)
{
    return (assert_ & RMALAB_MODE_NOCHECK ? MPI_MODE_NOCHECK : 0) |
           (assert_ & RMALAB_MODE_NOSTORE ? MPI_MODE_NOSTORE : 0) |
           (assert_ & RMALAB_MODE_NOPUT ? MPI_MODE_NOPUT : 0) |
           (assert_ & RMALAB_MODE_NOPRECEDE ? MPI_MODE_NOPRECEDE : 0) |
           (assert_ & RMALAB_MODE_NOSUCCEED ? MPI_MODE_NOSUCCEED : 0);
}

int rmalab__type_check_assert(const char *call, int assert_, int allowed)
{
    if ((assert_ & ~allowed) == 0)
        return RMALAB_OK;
    char ok[128] = "";
    size_t off = 0;
    int bad = 0;
    for (int i = 0; i < 5; i++) {
        if ((assert_ & ~allowed) & (1 << i) && !bad)
            bad = i + 1;
        if (allowed & (1 << i))
            off += (size_t)snprintf(ok + off, sizeof ok - off, "%s%s", off ? ", " : "",
                                    mode_names[i]);
    }
    return rmalab__err_fail(RMALAB_ERR_ARG,
                            "%s: the assertion \"%s\" does not apply to %s; it "
                            "takes %s",
                            call, bad ? mode_names[bad - 1] : "?", call, off ? ok : "none");
}

int rmalab__type_check_count(const char *what, rmalab_type type, int count)
{
    if ((unsigned)type >= RMALAB_NTYPES)
        return rmalab__err_fail(RMALAB_ERR_TYPE, "%s: unknown type", what);
    if (count < 0)
        return rmalab__err_fail(RMALAB_ERR_ARG, "%s: count %d is negative", what, count);
    return RMALAB_OK;
}

static bool is_float(rmalab_type t)
{
    return t == RMALAB_FLOAT || t == RMALAB_DOUBLE;
}

/* Is `op` defined on `type`, as for MPI_Reduce? */
static bool op_defined(rmalab_op op, rmalab_type type)
{
    switch (op) {
    case RMALAB_OP_SUM: case RMALAB_OP_PROD: case RMALAB_OP_MAX: case RMALAB_OP_MIN:
        return type != RMALAB_BYTE;
    case RMALAB_OP_BAND: case RMALAB_OP_BOR: case RMALAB_OP_BXOR:
        return !is_float(type);
    case RMALAB_OP_LAND: case RMALAB_OP_LOR: case RMALAB_OP_LXOR:
        return !is_float(type) && type != RMALAB_BYTE;
    default:
        return true;
    }
}

int rmalab__type_check_op(const char *what, rmalab_op op, rmalab_type type, bool fetching)
{
    if ((unsigned)op >= RMALAB_NOPS)
        return rmalab__err_fail(RMALAB_ERR_OP, "%s: unknown op", what);
    if (op == RMALAB_OP_NO_OP && !fetching)
        return rmalab__err_fail(RMALAB_ERR_OP,
                                "%s: no_op only makes sense for operations that fetch "
                                "(get_accumulate, fetch_and_op)",
                                what);
    if (op == RMALAB_OP_MAXLOC || op == RMALAB_OP_MINLOC)
        return rmalab__err_fail(RMALAB_ERR_OP, "%s: %s takes pair types (MPI_2INT...), which "
                                "only a typed operation carries (rmalab_win_typed)", what,
                                rmalab_op_name(op));
    if (!op_defined(op, type))
        return rmalab__err_fail(RMALAB_ERR_OP, "%s: the op \"%s\" is not defined on %s values",
                                what, rmalab_op_name(op), rmalab_type_name(type));
    bool is_unsigned = type == RMALAB_UINT8 || type == RMALAB_UINT16 || type == RMALAB_UINT32 ||
                       type == RMALAB_UINT64;
    if (is_unsigned && (op == RMALAB_OP_MAX || op == RMALAB_OP_MIN))
        return rmalab__err_fail(RMALAB_ERR_OP,
                                "%s: MPICH 4.0.2 computes \"%s\" on unsigned types as if they were "
                                "signed (max(254, 3) on uint8 gives 3), so rmalab refuses it; use "
                                "the signed type of the next size up",
                                what, rmalab_op_name(op));
    return RMALAB_OK;
}

int rmalab__type_check_reduce(const char *call, rmalab_type type, rmalab_op op)
{
    bool flt = type == RMALAB_FLOAT || type == RMALAB_DOUBLE;
    if ((unsigned)op > RMALAB_OP_LXOR)
        return rmalab__err_fail(RMALAB_ERR_OP, "%s: %s is not a reduction; use sum, prod, max, "
                                               "min, band, bor, bxor, land, lor or lxor",
                                call, rmalab_op_name(op) ? rmalab_op_name(op) : "this op");
    if ((flt && op >= RMALAB_OP_BAND) || (type == RMALAB_BYTE && op < RMALAB_OP_BAND))
        return rmalab__err_fail(RMALAB_ERR_TYPE, "%s: MPI defines %s on %s types, and the buffer "
                                                 "holds %s", call, rmalab_op_name(op),
                                op >= RMALAB_OP_BAND ? "integer" : "number",
                                rmalab_type_name(type));
    return RMALAB_OK;
}
