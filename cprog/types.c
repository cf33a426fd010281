/* An operation's sides as the core takes them (their datatypes read by
 * dtype.c), MPI's rules between them; reduction ops and assertions as the
 * core's. */
#include "types.h"

#include <stdio.h>
#include <stdlib.h>

#include <rmalab/error.h>

static const struct {
    MPI_Op mpi;
    rmalab_op op;
} ops[] = {
    {MPI_SUM, RMALAB_OP_SUM}, {MPI_PROD, RMALAB_OP_PROD}, {MPI_MAX, RMALAB_OP_MAX},
    {MPI_MIN, RMALAB_OP_MIN}, {MPI_BAND, RMALAB_OP_BAND}, {MPI_BOR, RMALAB_OP_BOR},
    {MPI_BXOR, RMALAB_OP_BXOR}, {MPI_LAND, RMALAB_OP_LAND}, {MPI_LOR, RMALAB_OP_LOR},
    {MPI_LXOR, RMALAB_OP_LXOR}, {MPI_REPLACE, RMALAB_OP_REPLACE},
    {MPI_NO_OP, RMALAB_OP_NO_OP}, {MPI_MAXLOC, RMALAB_OP_MAXLOC},
    {MPI_MINLOC, RMALAB_OP_MINLOC},
};

int run_op_of(MPI_Op op, rmalab_op *out)
{
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (ops[i].mpi == op) {
            *out = ops[i].op;
            return RMALAB_OK;
        }
    if (op == MPI_OP_NULL)
        return rmalab_set_error(RMALAB_ERR_OP, "the op is MPI_OP_NULL");
    return rmalab_set_error(RMALAB_ERR_OP, "rmalab run checks the predefined reduction ops "
                                           "(MPI_SUM ... MPI_MINLOC, MPI_REPLACE, MPI_NO_OP) only");
}

static const char *const side_names[RUN_SIDES] = {"origin", "result", "target"};

/* Each side used: its datatype, and the bytes it moves (*bytes). */
static int sides_of(const run_side *in, run_dtype *d, int64_t *bytes)
{
    for (int i = 0; i < RUN_SIDES; i++) {
        if (!in[i].used)
            continue;
        if (in[i].count < 0)
            return rmalab_set_error(RMALAB_ERR_ARG, "the %s count %d is negative",
                                    side_names[i], in[i].count);
        if (in[i].type == MPI_DATATYPE_NULL)
            return rmalab_set_error(RMALAB_ERR_TYPE, "the %s datatype is MPI_DATATYPE_NULL",
                                    side_names[i]);
        if (run_dtype_of(in[i].type, &d[i])) {
            char why[256];
            snprintf(why, sizeof why, "%s", rmalab_errmsg());
            return rmalab_set_error(RMALAB_ERR_TYPE, "the %s datatype: %s", side_names[i], why);
        }
        bytes[i] = (int64_t)in[i].count * d[i].size;
        if (bytes[i] > 0x7fffffff)
            return rmalab_set_error(RMALAB_ERR_ARG, "the %s moves %lld bytes; rmalab run "
                                    "checks up to 2 GiB", side_names[i], (long long)bytes[i]);
    }
    return RMALAB_OK;
}

/* Every element of both sides is the same pair type (MPI_2INT...). */
static bool same_pairs(const run_dtype *a, const run_dtype *b)
{
    return a->pair != MPI_DATATYPE_NULL && a->pair == b->pair;
}

/* MPI's rules between the sides: as many bytes each (an empty side has an
 * empty signature, which matches any: MPICH's test badrma), the same
 * predefined type (MPI_BYTE matches any), and for an accumulate every
 * element of every side one predefined type of the core's, or one pair
 * type. */
static int sides_agree(const run_side *in, const run_dtype *d, const int64_t *bytes, bool acc)
{
    const run_dtype *t = &d[RUN_TARGET];
    for (int i = 0; i < RUN_TARGET; i++) {
        if (!in[i].used)
            continue;
        bool empty = bytes[i] == 0 || bytes[RUN_TARGET] == 0;
        if (bytes[i] != bytes[RUN_TARGET])
            return rmalab_set_error(RMALAB_ERR_TYPE, "the %s gives %lld bytes and the target "
                                    "takes %lld: they must be the same", side_names[i],
                                    (long long)bytes[i], (long long)bytes[RUN_TARGET]);
        if (d[i].one && t->one && d[i].type != t->type && d[i].type != RMALAB_BYTE &&
            t->type != RMALAB_BYTE && !empty)
            return rmalab_set_error(RMALAB_ERR_TYPE, "the %s's elements are %s and the "
                                    "target's %s: MPI needs the same predefined type on both "
                                    "sides", side_names[i], rmalab_type_name(d[i].type),
                                    rmalab_type_name(t->type));
        if (acc && !empty && (!d[i].one || !t->one || d[i].type != t->type) &&
            !same_pairs(&d[i], t))
            return rmalab_set_error(RMALAB_ERR_TYPE, "an accumulate needs every element of "
                                    "the %s and of the target to be one and the same "
                                    "predefined type (of those rmalab run checks: integers, "
                                    "float, double, MPI_BYTE, the pair types such as "
                                    "MPI_2INT)", side_names[i]);
    }
    return RMALAB_OK;
}

/* Each used side's spans (into L's own or its array), and whether each
 * side is one run from its base, in order (dtype.h). */
static int spans_of(const run_side *in, const run_dtype *d, run_layout *L)
{
    const rmalab_span **sp[RUN_SIDES] = {&L->t.ospans, &L->t.rspans, &L->t.tspans};
    int *n[RUN_SIDES] = {&L->t.nospans, &L->t.nrspans, &L->t.ntspans};
    L->plain = true;
    for (int i = 0; i < RUN_SIDES; i++) {
        if (!in[i].used)
            continue;
        rmalab_span *got;
        int rc = run_dtype_spans(&d[i], in[i].count, &L->one[i], &got, n[i]);
        if (rc)
            return rc;
        if (got != &L->one[i])
            L->own[i] = got;
        *sp[i] = got;
        L->plain = L->plain && d[i].n == 0 && d[i].lb == 0; /* in order, from the base */
    }
    return RMALAB_OK;
}

int run_layout_of(const run_side *in, bool acc, run_layout *L)
{
    *L = (run_layout){.plain = false};
    run_dtype d[RUN_SIDES];
    int64_t bytes[RUN_SIDES] = {0};
    int rc = sides_of(in, d, bytes);
    if (!rc)
        rc = sides_agree(in, d, bytes, acc);
    if (!rc)
        rc = spans_of(in, d, L);
    if (rc)
        return rc;
    L->pair = d[RUN_TARGET].pair != MPI_DATATYPE_NULL;
    L->plain = L->plain && !L->pair; /* MPI is handed the pairs themselves */
    rmalab_type e = d[RUN_TARGET].type;
    if (bytes[RUN_TARGET] % rmalab_type_size(e))
        e = RMALAB_BYTE;
    L->bytes = (size_t)bytes[RUN_TARGET];
    L->t.type = e;
    L->t.count = (int)(bytes[RUN_TARGET] / rmalab_type_size(e));
    L->t.otype = in[RUN_ORIGIN].type, L->t.ocount = in[RUN_ORIGIN].count;
    L->t.rtype = in[RUN_RESULT].type, L->t.rcount = in[RUN_RESULT].count;
    L->t.ttype = in[RUN_TARGET].type, L->t.tcount = in[RUN_TARGET].count;
    return RMALAB_OK;
}

int run_op_fits(rmalab_op op, const run_layout *L)
{
    bool loc = op == RMALAB_OP_MAXLOC || op == RMALAB_OP_MINLOC;
    if (loc && !L->pair)
        return rmalab_set_error(RMALAB_ERR_OP, "MPI_MAXLOC and MPI_MINLOC take pair types "
                                "(MPI_2INT, MPI_DOUBLE_INT...) only");
    if (L->pair && !loc && op != RMALAB_OP_REPLACE && op != RMALAB_OP_NO_OP)
        return rmalab_set_error(RMALAB_ERR_OP, "on pair types (MPI_2INT...) an accumulate "
                                "takes MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE or MPI_NO_OP");
    return RMALAB_OK;
}

void run_layout_free(run_layout *L)
{
    for (int i = 0; i < RUN_SIDES; i++) {
        free(L->own[i]);
        L->own[i] = NULL;
    }
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
