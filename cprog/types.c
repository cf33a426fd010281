/* Datatypes: a predefined type is a row of a table; a derived type is read
 * with MPI_Type_get_envelope and _get_contents, and kept when it is a
 * contiguous run (of a run...) of one predefined type, or at the target a
 * vector of one. */
#include "types.h"

#include <rmalab/error.h>

static const struct {
    MPI_Datatype mpi;
    rmalab_type type;
} predefined[] = {
    {MPI_INT, RMALAB_INT32}, {MPI_UNSIGNED, RMALAB_UINT32},
    {MPI_INT32_T, RMALAB_INT32}, {MPI_UINT32_T, RMALAB_UINT32},
    {MPI_DOUBLE, RMALAB_DOUBLE}, {MPI_FLOAT, RMALAB_FLOAT},
    {MPI_LONG, RMALAB_INT64}, {MPI_UNSIGNED_LONG, RMALAB_UINT64},
    {MPI_LONG_LONG, RMALAB_INT64}, {MPI_UNSIGNED_LONG_LONG, RMALAB_UINT64},
    {MPI_INT64_T, RMALAB_INT64}, {MPI_UINT64_T, RMALAB_UINT64},
    {MPI_AINT, RMALAB_INT64}, {MPI_OFFSET, RMALAB_INT64}, {MPI_COUNT, RMALAB_INT64},
    {MPI_SHORT, RMALAB_INT16}, {MPI_UNSIGNED_SHORT, RMALAB_UINT16},
    {MPI_INT16_T, RMALAB_INT16}, {MPI_UINT16_T, RMALAB_UINT16},
    {MPI_CHAR, RMALAB_INT8}, {MPI_SIGNED_CHAR, RMALAB_INT8}, {MPI_INT8_T, RMALAB_INT8},
    {MPI_UNSIGNED_CHAR, RMALAB_UINT8}, {MPI_UINT8_T, RMALAB_UINT8},
    {MPI_BYTE, RMALAB_BYTE},
};

static const struct {
    MPI_Op mpi;
    rmalab_op op;
} ops[] = {
    {MPI_SUM, RMALAB_OP_SUM}, {MPI_PROD, RMALAB_OP_PROD}, {MPI_MAX, RMALAB_OP_MAX},
    {MPI_MIN, RMALAB_OP_MIN}, {MPI_BAND, RMALAB_OP_BAND}, {MPI_BOR, RMALAB_OP_BOR},
    {MPI_BXOR, RMALAB_OP_BXOR}, {MPI_LAND, RMALAB_OP_LAND}, {MPI_LOR, RMALAB_OP_LOR},
    {MPI_LXOR, RMALAB_OP_LXOR}, {MPI_REPLACE, RMALAB_OP_REPLACE},
    {MPI_NO_OP, RMALAB_OP_NO_OP},
};

int run_type_of(MPI_Datatype t, rmalab_type *out)
{
    for (size_t i = 0; i < sizeof predefined / sizeof *predefined; i++)
        if (predefined[i].mpi == t) {
            *out = predefined[i].type;
            return RMALAB_OK;
        }
    return RMALAB_ERR_TYPE;
}

int run_op_of(MPI_Op op, rmalab_op *out)
{
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (ops[i].mpi == op) {
            *out = ops[i].op;
            return RMALAB_OK;
        }
    return rmalab_set_error(RMALAB_ERR_OP, "rmalab run checks the predefined reduction ops "
                                           "(MPI_SUM ... MPI_REPLACE, MPI_NO_OP) only");
}

/* t as n elements of one predefined type; *vec set (when vec is given) for
 * a vector. Depth-limited: a contiguous of a contiguous... */
static int elements(MPI_Datatype t, rmalab_type *type, long *n, rmalab_vector *vec, int depth)
{
    if (run_type_of(t, type) == RMALAB_OK) {
        *n = 1;
        return RMALAB_OK;
    }
    int ni, na, nd, combiner;
    if (depth > 8 || PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) != MPI_SUCCESS)
        return RMALAB_ERR_TYPE;
    int is[3];
    MPI_Aint as[1];
    MPI_Datatype inner;
    bool contiguous = combiner == MPI_COMBINER_CONTIGUOUS && ni == 1 && nd == 1;
    bool vector = vec && combiner == MPI_COMBINER_VECTOR && ni == 3 && nd == 1;
    if (!contiguous && !vector)
        return RMALAB_ERR_TYPE;
    if (PMPI_Type_get_contents(t, ni, na, nd, is, as, &inner) != MPI_SUCCESS)
        return RMALAB_ERR_TYPE;
    int rc = RMALAB_ERR_TYPE;
    if (run_type_of(inner, type) == RMALAB_OK && vector) {
        *vec = (rmalab_vector){is[0], is[1], is[2]};
        *n = (long)is[0] * is[1];
        rc = is[1] >= 1 && is[2] >= is[1] ? RMALAB_OK : RMALAB_ERR_TYPE;
    } else if (contiguous && elements(inner, type, n, NULL, depth + 1) == RMALAB_OK) {
        *n *= is[0];
        rc = RMALAB_OK;
    }
    int named, x, y, z;
    if (PMPI_Type_get_envelope(inner, &x, &y, &z, &named) == MPI_SUCCESS &&
        named != MPI_COMBINER_NAMED)
        PMPI_Type_free(&inner);
    return rc;
}

static int unsupported(const char *side, MPI_Datatype t)
{
    if (t == MPI_DATATYPE_NULL)
        return rmalab_set_error(RMALAB_ERR_TYPE, "the %s datatype is MPI_DATATYPE_NULL", side);
    return rmalab_set_error(RMALAB_ERR_TYPE,
                            "rmalab run checks operations whose %s datatype is a predefined "
                            "type or a contiguous run of one (at the target also a vector of "
                            "one); this one it cannot check yet",
                            side);
}

int run_layout_of(int ocount, MPI_Datatype otype, int tcount, MPI_Datatype ttype,
                  run_layout *out)
{
    rmalab_type ot, tt;
    long on, tn;
    rmalab_vector vec = {0, 1, 1};
    if (elements(otype, &ot, &on, NULL, 0) != RMALAB_OK)
        return unsupported("origin", otype);
    vec.count = -1;
    if (elements(ttype, &tt, &tn, &vec, 0) != RMALAB_OK || (vec.count >= 0 && tcount != 1))
        return unsupported("target", ttype);
    long total = on * (long)ocount;
    /* An empty side has an empty type signature, which matches any: a
     * zero-count operation is no error whatever its types (MPICH's test
     * badrma); one side empty and not the other is a size mismatch below. */
    bool empty = total == 0 || tn * (long)tcount == 0;
    if (ot != tt && ot != RMALAB_BYTE && tt != RMALAB_BYTE && !empty)
        return rmalab_set_error(RMALAB_ERR_TYPE, "the origin's elements are %s and the "
                                "target's %s: MPI needs the same predefined type on both sides",
                                rmalab_type_name(ot), rmalab_type_name(tt));
    if (ocount < 0 || tcount < 0 || total > 0x7fffffff)
        return rmalab_set_error(RMALAB_ERR_ARG, "the count (%d at the origin, %d at the "
                                "target) is negative or too large", ocount, tcount);
    int tsize = rmalab_type_size(tt), osize = rmalab_type_size(ot);
    if (total * osize != tn * (long)tcount * tsize)
        return rmalab_set_error(RMALAB_ERR_TYPE, "the origin gives %ld bytes and the target "
                                "takes %ld: they must be the same", total * osize,
                                tn * (long)tcount * tsize);
    *out = (run_layout){.type = tt, .count = (int)(total * osize / tsize),
                        .has_vec = vec.count >= 0, .vec = vec,
                        .bytes = (size_t)(total * osize)};
    return RMALAB_OK;
}

int run_mode_of(int mpi_assert, int *out)
{
    static const int modes[][2] = {
        {MPI_MODE_NOCHECK, RMALAB_MODE_NOCHECK},     {MPI_MODE_NOSTORE, RMALAB_MODE_NOSTORE},
        {MPI_MODE_NOPUT, RMALAB_MODE_NOPUT},         {MPI_MODE_NOPRECEDE, RMALAB_MODE_NOPRECEDE},
        {MPI_MODE_NOSUCCEED, RMALAB_MODE_NOSUCCEED},
    };
    int left = mpi_assert;
    *out = 0;
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++)
        if (left & modes[i][0]) {
            *out |= modes[i][1];
            left &= ~modes[i][0];
        }
    if (left)
        return rmalab_set_error(RMALAB_ERR_ARG, "the assertion %d holds bits (%#x) that are no "
                                "MPI_MODE_NOCHECK, _NOSTORE, _NOPUT, _NOPRECEDE or _NOSUCCEED",
                                mpi_assert, (unsigned)left);
    return RMALAB_OK;
}
