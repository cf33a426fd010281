/* The sides of an RMA operation (shape.h): contiguous, a target vector
 * whose datatype is made here, or the caller's own datatypes with their
 * spans. Calls layout.c (overlaps) and the event layer (observe.h). */
#include "shape.h"

#include "error-private.h"
#include "layout.h"
#include "observe.h"
#include "types.h"

/* The vector agrees with the count, and its datatype is made. */
static int vector_open(rmalab__shape *s, const char *what)
{
    const rmalab_vector *v = s->vec;
    if (v->count < 0 || v->blocklen < 1 || v->stride < v->blocklen)
        return rmalab__err_fail(RMALAB_ERR_ARG,
                                "%s: a vector needs count >= 0, blocklen >= 1 and stride >= "
                                "blocklen (got count %d, blocklen %d, stride %d)",
                                what, v->count, v->blocklen, v->stride);
    if ((int64_t)v->count * v->blocklen != s->count)
        return rmalab__err_fail(
            RMALAB_ERR_ARG,
            "%s: the vector holds %lld elements (%d blocks of %d) and the origin "
            "%d; the origin side is contiguous and must hold as many",
            what, (long long)v->count * v->blocklen, v->count, v->blocklen, s->count);
    int64_t span = v->count ? (int64_t)(v->count - 1) * v->stride + v->blocklen : 0;
    if (span > INT32_MAX / 16)
        return rmalab__err_fail(RMALAB_ERR_RMA_RANGE,
                                "%s: the vector spans %lld elements, more than any window holds",
                                what, (long long)span);
    s->reach = (int)span;
    if (!v->count)
        return RMALAB_OK;
    int e = MPI_Type_vector(v->count, v->blocklen, v->stride, s->dt, &s->tdt);
    if (e == MPI_SUCCESS && (e = MPI_Type_commit(&s->tdt)) != MPI_SUCCESS)
        MPI_Type_free(&s->tdt);
    if (e != MPI_SUCCESS) {
        s->tdt = s->dt;
        return rmalab__err_mpi(e, "MPI_Type_vector");
    }
    s->made = true;
    s->tcount = 1;
    return RMALAB_OK;
}

/* The caller's datatypes as they are; the footprint: bytes from disp. */
static int typed_open(rmalab__shape *s, const char *what)
{
    const rmalab_typed_op *t = s->ty;
    s->odt = t->otype, s->rdt = t->rtype, s->tdt = t->ttype;
    s->ocount = t->ocount, s->rcount = t->rcount, s->tcount = t->tcount;
    s->reach_type = RMALAB_BYTE;
    if (!t->ntspans)
        return RMALAB_OK;
    const rmalab_span *first = &t->tspans[0], *last = &t->tspans[t->ntspans - 1];
    s->lead = first->off < 0 ? -first->off : 0;
    if (last->off + last->len > INT32_MAX || s->lead > INT32_MAX)
        return rmalab__err_fail(RMALAB_ERR_RMA_RANGE,
                                "%s: the target datatype spans %ld bytes, more than any "
                                "window holds",
                                what, (long)(last->off + last->len + s->lead));
    s->reach = last->off + last->len > 0 ? (int)(last->off + last->len) : 0;
    return RMALAB_OK;
}

int rmalab__shape_lead(rmalab_win *w, const rmalab__shape *s, const char *what, int target,
                       MPI_Aint disp)
{
    MPI_Aint unit = rmalab_win_disp_unit_of(w, target), at;
    if (!s->lead || unit <= 0) /* a bad target: the operation's own checks say so */
        return RMALAB_OK;
    if (w->flavor == RMALAB_FLAVOR_DYNAMIC) /* disp is an address */
        return rmalab__layout_check_range(w, what, target, disp - s->lead, RMALAB_BYTE,
                                          (int)s->lead);
    if (disp >= 0 && !__builtin_mul_overflow(disp, unit, &at) && at >= s->lead)
        return RMALAB_OK;
    return rmalab__err_fail(RMALAB_ERR_RMA_RANGE,
                            "%s to rank %d: the target datatype starts %ld bytes before "
                            "displacement %ld (x disp_unit %ld), before the start of rank %d's "
                            "window",
                            what, target, (long)s->lead, (long)disp, (long)unit, target);
}

int rmalab__shape_typed_check(const rmalab_typed_op *t, const char *what)
{
    if (!t)
        return rmalab__err_fail(RMALAB_ERR_ARG, "%s: the operation is NULL", what);
    if (t->kind < RMALAB_TRACE_PUT || t->kind > RMALAB_TRACE_GET_ACCUMULATE)
        return rmalab__err_fail(RMALAB_ERR_ARG, "%s: kind %d is no put, get, accumulate or "
                                "get_accumulate", what, t->kind);
    return RMALAB_OK;
}

int rmalab__shape_open(rmalab__shape *s, const char *what)
{
    s->dt = s->odt = s->rdt = s->tdt = rmalab__type_mpi(s->type);
    s->ocount = s->rcount = s->tcount = s->reach = s->count;
    s->reach_type = s->type;
    s->lead = 0;
    s->made = false;
    return s->ty ? typed_open(s, what) : s->vec ? vector_open(s, what) : RMALAB_OK;
}

void rmalab__shape_close(rmalab__shape *s)
{
    if (s->made)
        MPI_Type_free(&s->tdt);
    s->made = false;
}

bool rmalab__shape_plain(const rmalab__shape *s)
{
    return !s->vec && !s->ty;
}

int rmalab__shape_overlap(rmalab_win *w, const rmalab__shape *s, const char *what, int target,
                          MPI_Aint disp, const void *const mem[3])
{
    static const char *const role[3] = {"origin", "compare", "result"};
    const rmalab_typed_op *t = s->ty;
    size_t n = (size_t)s->count * (size_t)rmalab_type_size(s->type);
    int rc = RMALAB_OK;
    for (int i = 0; i < 3 && !rc; i++)
        if (!t && mem[i]) /* most operations use one or two */
            rc = rmalab__layout_overlap(w, what, target, disp, s->type, s->reach, s->vec, mem[i],
                                        n, role[i]);
        else if (t && i != 1) /* no compare; an origin at MPI_BOTTOM has address spans */
            rc = rmalab__layout_overlap_spans(w, what, target, disp, t->tspans, t->ntspans,
                                              mem[i], i ? t->rspans : t->ospans,
                                              i ? t->nrspans : t->nospans, role[i]);
    return rc;
}

/* The spans of a typed target, each one event in bytes. */
static int typed_end(rmalab_win *w, const rmalab__shape *s, const rmalab__op_event *ev,
                     MPI_Aint unit)
{
    rmalab__op_event block = *ev;
    int size = rmalab_type_size(s->type), rc = RMALAB_OK;
    block.in_bytes = true;
    for (int i = 0; i < s->ty->ntspans && !rc; i++) {
        const rmalab_span *sp = &s->ty->tspans[i];
        bool whole = sp->len % size == 0;
        block.type = whole ? s->type : RMALAB_BYTE;
        block.count = (int)(whole ? sp->len / size : sp->len);
        block.disp = ev->disp * unit + sp->off;
        block.more = i + 1 < s->ty->ntspans;
        rc = rmalab__observe_op_end(w, &block, rc);
    }
    return rc;
}

int rmalab__shape_end(rmalab_win *w, const rmalab__shape *s, const rmalab__op_event *ev, int rc)
{
    const rmalab_vector *v = s->vec;
    if (rc || rmalab__shape_plain(s) || !(w->races || w->trace))
        return rmalab__observe_op_end(w, ev, rc);
    MPI_Aint unit = rmalab_win_disp_unit_of(w, ev->target);
    if (unit <= 0)
        return rmalab__observe_op_end(w, ev, rc);
    if (s->ty)
        return typed_end(w, s, ev, w->flavor == RMALAB_FLAVOR_DYNAMIC ? 1 : unit);
    MPI_Aint step = (MPI_Aint)v->stride * rmalab_type_size(s->type);
    rmalab__op_event block = *ev;
    block.count = v->blocklen;
    block.in_bytes = step % unit != 0;
    for (int i = 0; i < v->count && !rc; i++) {
        block.disp = block.in_bytes ? ev->disp * unit + i * step : ev->disp + i * (step / unit);
        block.more = i + 1 < v->count;
        rc = rmalab__observe_op_end(w, &block, rc);
    }
    return rc;
}
