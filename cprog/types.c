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
            return rmalab_set_error(RMALAB_ERR_COUNT, "the %s count %d is negative",
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

/* Every element of both sides is the same predefined type, none of the
 * core's (MPI_2INT, MPI_LONG_DOUBLE...). */
static bool same_elems(const run_dtype *a, const run_dtype *b)
{
    return a->elem != MPI_DATATYPE_NULL && a->elem == b->elem;
}

/* Walks count instances of a signature, a run at a time. */
typedef struct {
    const run_dtype *d;
    int64_t left;  /* instances after this one */
    int run;       /* the run it is in */
    int64_t rest;  /* its elements not passed yet */
} sig_walk;

static void walk_start(sig_walk *w, const run_dtype *d, int count)
{
    *w = (sig_walk){d, count - 1, 0, count > 0 ? d->sig[0].n : 0};
}

static void walk_on(sig_walk *w, int64_t n)
{
    if ((w->rest -= n) > 0)
        return;
    if (++w->run == w->d->nsig) {
        if (w->left-- <= 0)
            return; /* at its end: rest 0 */
        w->run = 0;
    }
    w->rest = w->d->sig[w->run].n;
}

/* Where the two sides' sequences of basic types first differ (0-based
 * element), with each one's type there (*ka, *kb; -1 past its end); -1
 * when they match, or when it is not known: a signature longer than
 * RUN_SIG runs, or more than 2^16 runs walked before both sides came back
 * to the start of an instance at once (from there on they repeat). */
static int64_t sig_differs(const run_dtype *a, int ca, const run_dtype *b, int cb, int64_t *ka,
                           int64_t *kb)
{
    sig_walk x, y;
    if (!a->nsig || !b->nsig)
        return -1;
    walk_start(&x, a, ca), walk_start(&y, b, cb);
    int64_t at = 0;
    for (int steps = 0; steps < (1 << 16); steps++) {
        if (!x.rest || !y.rest || a->sig[x.run].key != b->sig[y.run].key) {
            if (!x.rest && !y.rest)
                return -1;
            *ka = x.rest ? a->sig[x.run].key : -1;
            *kb = y.rest ? b->sig[y.run].key : -1;
            return at;
        }
        int64_t n = x.rest < y.rest ? x.rest : y.rest;
        at += n;
        walk_on(&x, n), walk_on(&y, n);
        if (x.run == 0 && y.run == 0 && x.rest == a->sig[0].n && y.rest == b->sig[0].n &&
            x.left < ca - 1 && y.left < cb - 1)
            return -1; /* both at an instance's start: the rest repeats what matched */
    }
    return -1;
}

/* The sequences of basic types of side i and the target (MPI-4.1 §12.4:
 * their type signatures must match, not only their sizes). */
static int signatures_agree(const char *side, const run_dtype *d, int count, const run_dtype *t,
                            int tcount)
{
    int64_t ka, kb;
    int64_t at = sig_differs(d, count, t, tcount, &ka, &kb);
    if (at < 0)
        return RMALAB_OK;
    char na[MPI_MAX_OBJECT_NAME], nb[MPI_MAX_OBJECT_NAME];
    return rmalab_set_error(RMALAB_ERR_TYPE, "the type signatures of the %s and the target "
                            "differ at element %lld: %s on the %s, %s on the target (MPI "
                            "needs the same sequence of basic types on both sides, not only "
                            "as many bytes)", side, (long long)at,
                            ka < 0 ? "none" : run_sig_name(ka, na, sizeof na), side,
                            kb < 0 ? "none" : run_sig_name(kb, nb, sizeof nb));
}

/* MPI's rules between the sides: as many bytes each (an empty side has an
 * empty signature, which matches any: MPICH's test badrma), the same
 * predefined type (MPI_BYTE matches any), and for an accumulate every
 * element of every side one and the same predefined type. */
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
        int rc = empty ? RMALAB_OK
                       : signatures_agree(side_names[i], &d[i], in[i].count, t,
                                          in[RUN_TARGET].count);
        if (rc)
            return rc;
        if (acc && !empty && (!d[i].one || !t->one || d[i].type != t->type) &&
            !same_elems(&d[i], t))
            return rmalab_set_error(RMALAB_ERR_TYPE, "an accumulate needs every element of "
                                    "the %s and of the target to be one and the same "
                                    "predefined type", side_names[i]);
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
    L->elem = d[RUN_TARGET].elem;
    L->plain = L->plain && L->elem == MPI_DATATYPE_NULL; /* MPI is handed those as they are */
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
    bool loc = op == RMALAB_OP_MAXLOC || op == RMALAB_OP_MINLOC, pair = false;
    if (op == RMALAB_OP_REPLACE || op == RMALAB_OP_NO_OP)
        return RMALAB_OK;
    if (L->elem == MPI_DATATYPE_NULL)
        return !loc ? RMALAB_OK
                    : rmalab_set_error(RMALAB_ERR_OP, "MPI_MAXLOC and MPI_MINLOC take pair "
                                       "types (MPI_2INT, MPI_DOUBLE_INT...) only");
    unsigned allowed = run_elem_ops(L->elem, &pair);
    if (allowed & (1u << op))
        return RMALAB_OK;
    if (pair)
        return rmalab_set_error(RMALAB_ERR_OP, "on pair types (MPI_2INT...) an accumulate "
                                "takes MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE or MPI_NO_OP");
    char name[MPI_MAX_OBJECT_NAME];
    int n = 0;
    PMPI_Type_get_name(L->elem, name, &n);
    return rmalab_set_error(RMALAB_ERR_OP, "MPI defines no %s on %s (the predefined ops of "
                            "its group only; MPI_REPLACE and MPI_NO_OP take any type)",
                            rmalab_op_name(op), n ? name : "this type");
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
