/* Datatypes as bytes (dtype.h). The bytes one instance touches are found
 * by MPI itself: MPI_Unpack of a signature's worth of 0xFF bytes into a
 * zeroed copy of its true extent marks exactly the bytes the type places,
 * whatever its constructors (vector, indexed, struct, subarray, darray,
 * resized...). Its element: the named types at the leaves of its
 * constructors (MPI_Type_get_contents). Kept in a table per handle: the
 * program's MPI_Type_commit (or MPI_Type_dup of a committed type) enters
 * it, its MPI_Type_free takes it out. MPI is asked about no other handle
 * than those and the predefined ones: MPICH aborts, asserts or crashes on
 * a bogus, freed or uncommitted one, whatever the error handler. */
#include "dtype.h"
#include "where.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The other predefined datatypes: valid without a commit. The pair types
 * come first, then the other groups of MPI's predefined reduction ops
 * (MPI-4.1 §6.9.2): floating point, complex, logical, integer, and those
 * that take none. */
#define NPAIRS 9
static const MPI_Datatype others[] = {
    MPI_2INT, MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT,
    MPI_2REAL, MPI_2DOUBLE_PRECISION, MPI_2INTEGER,
    /* floating point: from NPAIRS */
    MPI_LONG_DOUBLE, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_REAL4, MPI_REAL8, MPI_REAL16,
    /* complex: from FIRST_COMPLEX */
    MPI_C_COMPLEX, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX,
    MPI_CXX_FLOAT_COMPLEX, MPI_CXX_DOUBLE_COMPLEX, MPI_CXX_LONG_DOUBLE_COMPLEX, MPI_COMPLEX,
    MPI_DOUBLE_COMPLEX, MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32,
    /* logical: from FIRST_LOGICAL */
    MPI_C_BOOL, MPI_CXX_BOOL, MPI_LOGICAL,
    /* integer (Fortran's, and long long int, which is C's): from FIRST_INTEGER */
    MPI_LONG_LONG_INT, MPI_INTEGER, MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8,
    /* no reduction op: from FIRST_NONE */
    MPI_WCHAR, MPI_PACKED, MPI_CHARACTER,
};
#define FIRST_COMPLEX (NPAIRS + 6)
#define FIRST_LOGICAL (FIRST_COMPLEX + 12)
#define FIRST_INTEGER (FIRST_LOGICAL + 3)
#define FIRST_NONE (FIRST_INTEGER + 6)

static int other_of(MPI_Datatype t)
{
    for (int i = 0; t != MPI_DATATYPE_NULL && i < (int)(sizeof others / sizeof *others); i++)
        if (others[i] == t)
            return i;
    return -1;
}

#define BIT(op) (1u << (op))
unsigned run_elem_ops(MPI_Datatype elem, bool *pair)
{
    static const unsigned arith = BIT(RMALAB_OP_SUM) | BIT(RMALAB_OP_PROD),
                          order = BIT(RMALAB_OP_MAX) | BIT(RMALAB_OP_MIN),
                          logic = BIT(RMALAB_OP_LAND) | BIT(RMALAB_OP_LOR) | BIT(RMALAB_OP_LXOR),
                          bits = BIT(RMALAB_OP_BAND) | BIT(RMALAB_OP_BOR) | BIT(RMALAB_OP_BXOR);
    int i = other_of(elem);
    *pair = i >= 0 && i < NPAIRS;
    return i < 0 || i >= FIRST_NONE ? 0
         : *pair ? BIT(RMALAB_OP_MAXLOC) | BIT(RMALAB_OP_MINLOC)
         : i < FIRST_COMPLEX ? arith | order
         : i < FIRST_LOGICAL ? arith
         : i < FIRST_INTEGER ? logic
         : arith | order | bits | (i == FIRST_INTEGER ? logic : 0);
}

int run_type_of(MPI_Datatype t, rmalab_type *out)
{
    for (size_t i = 0; i < sizeof predefined / sizeof *predefined; i++)
        if (predefined[i].mpi == t) {
            *out = predefined[i].type;
            return RMALAB_OK;
        }
    return RMALAB_ERR_TYPE;
}

#define MAX_REACH ((MPI_Aint)1 << 30)

typedef struct {
    MPI_Datatype t;
    bool described; /* d read (else only committed so far) */
    run_dtype d;
    rmalab_span *spans; /* owned */
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry *table;
static int ntable, captable;

/* The last types freed, and where: a handle used after its free says so,
 * until a commit hands it out again (MPICH reuses handles). */
#define FREED 64
static struct {
    MPI_Datatype t;
    const void *pc;
} freed[FREED];
static unsigned nfreed;

/* A constructed datatype's contents (MPI_Type_get_contents), for the
 * walks below: nd is 0 when they could not be had. */
typedef struct {
    int ni, na, nd, comb;
    int *is;
    MPI_Aint *as;
    MPI_Datatype *ds;
} contents;

static bool envelope_of(MPI_Datatype t, contents *c)
{
    *c = (contents){0};
    return PMPI_Type_get_envelope(t, &c->ni, &c->na, &c->nd, &c->comb) == MPI_SUCCESS;
}

static bool contents_of(MPI_Datatype t, contents *c)
{
    c->is = malloc(sizeof(int) * (size_t)(c->ni + 1));
    c->as = malloc(sizeof(MPI_Aint) * (size_t)(c->na + 1));
    c->ds = malloc(sizeof(MPI_Datatype) * (size_t)(c->nd + 1));
    if (c->is && c->as && c->ds &&
        PMPI_Type_get_contents(t, c->ni, c->na, c->nd, c->is, c->as, c->ds) == MPI_SUCCESS)
        return true;
    c->nd = 0;
    return false;
}

/* The handles MPI handed back in c (the derived ones), and c's arrays. */
static void contents_free(contents *c)
{
    for (int i = 0; i < c->nd; i++) {
        int x, y, z, comb;
        if (PMPI_Type_get_envelope(c->ds[i], &x, &y, &z, &comb) == MPI_SUCCESS &&
            comb != MPI_COMBINER_NAMED)
            PMPI_Type_free(&c->ds[i]);
    }
    free(c->is), free(c->as), free(c->ds);
}

/* MPI_LB and MPI_UB (gone from MPI-3.0, kept by MPICH): a struct's markers
 * of its bounds, which hold no data, so they are no element of it and no
 * entry of its signature. */
static bool bound_marker(MPI_Datatype t)
{
#ifdef MPI_LB
    return t == MPI_LB || t == MPI_UB;
#else
    (void)t;
    return false;
#endif
}

/* The elements under t: *type when all are one type of the core's, else
 * *mixed. Depth-limited; the handles MPI hands back are freed. */
static void leaves(MPI_Datatype t, run_dtype *d, bool *seen, bool *mixed, int depth)
{
    contents c;
    if (*mixed || depth > 16 || !envelope_of(t, &c)) {
        *mixed = true;
        return;
    }
    if (c.comb == MPI_COMBINER_NAMED && bound_marker(t))
        return;
    if (c.comb == MPI_COMBINER_NAMED) {
        rmalab_type one = RMALAB_BYTE;
        int other = other_of(t);
        MPI_Datatype elem = other >= 0 ? t : MPI_DATATYPE_NULL;
        if ((run_type_of(t, &one) != RMALAB_OK && elem == MPI_DATATYPE_NULL) ||
            (*seen && (one != d->type || elem != d->elem)))
            *mixed = true;
        d->type = one, d->elem = elem, *seen = true;
        return;
    }
    if (!contents_of(t, &c))
        *mixed = true;
    for (int i = 0; i < c.nd; i++)
        leaves(c.ds[i], d, seen, mixed, depth + 1);
    contents_free(&c);
}

/* ------------------------------------------------------------------------ */
/* Type signatures: the sequence of basic types, in runs.                   */

typedef struct {
    run_sig r[RUN_SIG];
    int n;
    bool lost; /* longer than RUN_SIG runs, or holds a type that matches any */
} sig_t;

static void sig_add(sig_t *g, int64_t key, int64_t n)
{
    if (n <= 0 || g->lost)
        return;
    if (g->n && g->r[g->n - 1].key == key)
        g->r[g->n - 1].n += n;
    else if (g->n == RUN_SIG)
        g->lost = true;
    else
        g->r[g->n++] = (run_sig){key, n};
}

/* times copies of `in` appended to g. */
static void sig_repeat(sig_t *g, const sig_t *in, int64_t times)
{
    g->lost = g->lost || in->lost;
    if (in->n == 1)
        sig_add(g, in->r[0].key, in->r[0].n * times);
    for (int64_t k = 0; in->n > 1 && k < times && !g->lost; k++)
        for (int i = 0; i < in->n; i++)
            sig_add(g, in->r[i].key, in->r[i].n);
}

static void sig_of(MPI_Datatype t, sig_t *g, int depth);

/* A struct's blocks: blocklength[i] copies of types[i] each. */
static void sig_struct(const int *is, const MPI_Datatype *ds, sig_t *g, int depth)
{
    for (int i = 0; i < is[0] && !g->lost; i++) {
        sig_t one = {.n = 0};
        sig_of(ds[i], &one, depth + 1);
        sig_repeat(g, &one, is[1 + i]);
    }
}

/* Any other constructor has one inner type, repeated as its size says. */
static void sig_inner(MPI_Datatype t, MPI_Datatype inner, sig_t *g, int depth)
{
    int outer_size, inner_size;
    sig_t one = {.n = 0};
    sig_of(inner, &one, depth + 1);
    if (PMPI_Type_size(t, &outer_size) != MPI_SUCCESS ||
        PMPI_Type_size(inner, &inner_size) != MPI_SUCCESS || inner_size <= 0 ||
        outer_size % inner_size) {
        g->lost = true;
        return;
    }
    sig_repeat(g, &one, outer_size / inner_size);
}

static void sig_of(MPI_Datatype t, sig_t *g, int depth)
{
    contents c;
    if (g->lost || depth > 16 || !envelope_of(t, &c)) {
        g->lost = true;
        return;
    }
    int pair = other_of(t);
    if (c.comb == MPI_COMBINER_NAMED && pair >= 0 && pair < NPAIRS) {
        static const MPI_Datatype parts[NPAIRS][2] = {
            {MPI_INT, MPI_INT}, {MPI_FLOAT, MPI_INT}, {MPI_DOUBLE, MPI_INT}, {MPI_LONG, MPI_INT},
            {MPI_SHORT, MPI_INT}, {MPI_LONG_DOUBLE, MPI_INT}, {MPI_REAL, MPI_REAL},
            {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION}, {MPI_INTEGER, MPI_INTEGER},
        };
        sig_of(parts[pair][0], g, depth + 1); /* a pair is its two parts, as a struct of them */
        sig_of(parts[pair][1], g, depth + 1);
        return;
    }
    if (c.comb == MPI_COMBINER_NAMED && bound_marker(t))
        return;
    if (c.comb == MPI_COMBINER_NAMED) {
        rmalab_type core;
        bool known = run_type_of(t, &core) == RMALAB_OK;
        g->lost = g->lost || t == MPI_PACKED || (known && core == RMALAB_BYTE);
        sig_add(g, known ? (int64_t)core : (int64_t)t + RMALAB_BYTE + 1, 1);
        return;
    }
    if (!contents_of(t, &c))
        g->lost = true;
    else if (c.comb == MPI_COMBINER_STRUCT || c.comb == MPI_COMBINER_STRUCT_INTEGER)
        sig_struct(c.is, c.ds, g, depth);
    else if (c.nd == 1)
        sig_inner(t, c.ds[0], g, depth);
    else
        g->lost = true;
    contents_free(&c);
}

const char *run_sig_name(int64_t key, char *buf, size_t len)
{
    if (key <= RMALAB_BYTE)
        return rmalab_type_name((rmalab_type)key);
    int n = 0;
    if (PMPI_Type_get_name((MPI_Datatype)(key - RMALAB_BYTE - 1), buf, &n) != MPI_SUCCESS || !n)
        snprintf(buf, len, "a predefined type");
    return buf;
}

/* The bytes of mask (from lb) that MPI_Unpack marked, as spans. */
static int spans_of(const unsigned char *mask, MPI_Aint len, MPI_Aint lb, entry *e)
{
    int n = 0, cap = 0;
    for (MPI_Aint i = 0; i < len;) {
        if (!mask[i]) {
            i++;
            continue;
        }
        MPI_Aint j = i;
        while (j < len && mask[j])
            j++;
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            rmalab_span *g = realloc(e->spans, sizeof *g * (size_t)cap);
            if (!g)
                return rmalab_set_error(RMALAB_ERR_NO_MEM, "out of memory for a datatype");
            e->spans = g;
        }
        e->spans[n++] = (rmalab_span){lb + i, j - i};
        i = j;
    }
    e->d.n = n;
    return RMALAB_OK;
}

/* Which bytes one instance of t touches (e->d's size, lb and extent set). */
static int flatten(MPI_Datatype t, entry *e)
{
    MPI_Aint tlb, textent;
    int psize, pos = 0;
    if (PMPI_Type_get_true_extent(t, &tlb, &textent) != MPI_SUCCESS ||
        PMPI_Pack_size(1, t, MPI_COMM_SELF, &psize) != MPI_SUCCESS)
        return rmalab_set_error(RMALAB_ERR_TYPE, "the datatype is not a valid one");
    if (textent > MAX_REACH)
        return rmalab_set_error(RMALAB_ERR_TYPE, "rmalab run checks datatypes that reach up to "
                                "1 GiB; this one reaches %ld bytes", (long)textent);
    unsigned char *mask = calloc(1, (size_t)textent + 1), *ones = malloc((size_t)psize + 1);
    int rc = mask && ones ? RMALAB_OK
                          : rmalab_set_error(RMALAB_ERR_NO_MEM, "out of memory for a datatype");
    if (!rc) {
        memset(ones, 0xff, (size_t)psize);
        if (PMPI_Unpack(ones, psize, &pos, mask - tlb, 1, t, MPI_COMM_SELF) != MPI_SUCCESS)
            rc = rmalab_set_error(RMALAB_ERR_TYPE, "the datatype is not committed "
                                  "(MPI_Type_commit)");
    }
    if (!rc)
        rc = spans_of(mask, textent, tlb, e);
    free(mask), free(ones);
    return rc;
}

/* Whether t places its elements one after the other, in the order of its
 * signature: a named type, or a contiguous run or duplicate of one. (A
 * transpose may touch every byte of its extent, in another order.) */
static bool in_order(MPI_Datatype t, int depth)
{
    int ni, na, nd, comb, count = 0;
    MPI_Datatype inner;
    if (depth > 16 || PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS)
        return false;
    if (comb == MPI_COMBINER_NAMED)
        return true;
    if ((comb != MPI_COMBINER_CONTIGUOUS && comb != MPI_COMBINER_DUP) || ni > 1 || nd != 1 ||
        PMPI_Type_get_contents(t, ni, na, nd, &count, NULL, &inner) != MPI_SUCCESS)
        return false;
    bool ordered = in_order(inner, depth + 1);
    int x, y, z, c;
    if (PMPI_Type_get_envelope(inner, &x, &y, &z, &c) == MPI_SUCCESS && c != MPI_COMBINER_NAMED)
        PMPI_Type_free(&inner);
    return ordered;
}

/* t read afresh into e. */
static int describe(MPI_Datatype t, entry *e)
{
    int size, rc;
    *e = (entry){.t = t, .described = true};
    if (PMPI_Type_size(t, &size) != MPI_SUCCESS ||
        PMPI_Type_get_extent(t, &e->d.lb, &e->d.extent) != MPI_SUCCESS)
        return rmalab_set_error(RMALAB_ERR_TYPE, "the datatype is not a valid one");
    e->d.size = size;
    bool seen = false, mixed = false;
    leaves(t, &e->d, &seen, &mixed, 0);
    e->d.one = seen && !mixed && e->d.elem == MPI_DATATYPE_NULL;
    if (!e->d.one)
        e->d.type = RMALAB_BYTE;
    if (mixed)
        e->d.elem = MPI_DATATYPE_NULL;
    sig_t g = {.n = 0};
    sig_of(t, &g, 0);
    if (!g.lost) {
        memcpy(e->d.sig, g.r, sizeof g.r[0] * (size_t)g.n);
        e->d.nsig = g.n;
    }
    if ((rc = flatten(t, e)))
        return rc;
    if (e->d.n == 1 && e->spans[0].off == e->d.lb && e->spans[0].len == size &&
        e->d.extent == size && in_order(t, 0)) {
        free(e->spans);
        e->spans = NULL;
        e->d.n = 0; /* dense */
    } else if (e->d.n == 0 && size) {
        e->d.n = -1; /* cannot be: MPI placed none of its bytes */
    }
    e->d.spans = e->spans;
    return e->d.n < 0 ? rmalab_set_error(RMALAB_ERR_TYPE, "the datatype places no bytes") : 0;
}

/* A named type of the core's: dense, its own element, no table. */
static bool named(MPI_Datatype t, run_dtype *out)
{
    rmalab_type type;
    if (run_type_of(t, &type) != RMALAB_OK)
        return false;
    MPI_Aint size = rmalab_type_size(type);
    *out = (run_dtype){type, true, MPI_DATATYPE_NULL, size, 0, size, 0, NULL, 0, {{0, 0}}};
    if (type != RMALAB_BYTE) /* MPI_BYTE matches any type: no signature */
        out->sig[0] = (run_sig){type, 1}, out->nsig = 1;
    return true;
}

/* Why t has no entry: freed, or never committed. */
static int unknown(MPI_Datatype t)
{
    for (int i = 0; i < FREED; i++)
        if (freed[i].t == t && t != MPI_DATATYPE_NULL)
            return rmalab_set_error(RMALAB_ERR_TYPE, "this datatype was freed by MPI_Type_free "
                                    "at %s (and no type made since with its handle was "
                                    "committed)", run_where(freed[i].pc));
    return rmalab_set_error(RMALAB_ERR_TYPE, "it is neither predefined nor committed "
                            "(MPI_Type_commit): not a datatype MPI can use");
}

/* t's slot in the table, a new one (undescribed) if `add`, else -1. */
static int slot_of(MPI_Datatype t, bool add)
{
    for (int i = 0; i < ntable; i++)
        if (table[i].t == t)
            return i;
    if (!add)
        return -1;
    if (ntable == captable) {
        entry *g = realloc(table, sizeof *g * (size_t)(2 * captable + 8));
        if (!g)
            return -1;
        table = g, captable = 2 * captable + 8;
    }
    table[ntable] = (entry){.t = t};
    return ntable++;
}

/* The table's entry for t, described now if it is not yet; -1 (with the
 * error set) when t is neither predefined nor committed, or unreadable. */
static int entry_of(MPI_Datatype t)
{
    bool other = other_of(t) >= 0;
    int i = slot_of(t, other);
    if (i < 0) {
        if (other)
            rmalab_set_error(RMALAB_ERR_NO_MEM, "out of memory for a datatype");
        else
            unknown(t);
        return -1;
    }
    if (table[i].described)
        return i;
    entry e;
    if (describe(t, &e)) {
        free(e.spans);
        return -1;
    }
    table[i] = e;
    return i;
}

int run_dtype_of(MPI_Datatype t, run_dtype *out)
{
    if (t == MPI_DATATYPE_NULL)
        return rmalab_set_error(RMALAB_ERR_TYPE, "the datatype is MPI_DATATYPE_NULL");
    if (named(t, out))
        return RMALAB_OK;
    pthread_mutex_lock(&lock);
    int i = entry_of(t);
    if (i >= 0)
        *out = table[i].d;
    pthread_mutex_unlock(&lock);
    return i >= 0 ? RMALAB_OK : RMALAB_ERR_TYPE;
}

bool run_dtype_known(MPI_Datatype t)
{
    rmalab_type type;
    if (run_type_of(t, &type) == RMALAB_OK || other_of(t) >= 0)
        return true;
    pthread_mutex_lock(&lock);
    bool known = slot_of(t, false) >= 0;
    pthread_mutex_unlock(&lock);
    return known;
}

void run_dtype_commit(MPI_Datatype t)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < FREED; i++)
        if (freed[i].t == t)
            freed[i].t = MPI_DATATYPE_NULL;
    slot_of(t, true); /* out of memory: later uses say it is not committed */
    pthread_mutex_unlock(&lock);
}

void run_dtype_forget(MPI_Datatype t, const void *pc)
{
    pthread_mutex_lock(&lock);
    int i = slot_of(t, false);
    if (i >= 0) {
        free(table[i].spans);
        table[i] = table[--ntable];
        freed[nfreed % FREED].t = t, freed[nfreed % FREED].pc = pc;
        nfreed++;
    }
    pthread_mutex_unlock(&lock);
}

static int by_off(const void *a, const void *b)
{
    const rmalab_span *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Sorted (instances may interleave: a resized type), then merged. */
static int merge(rmalab_span *s, int n)
{
    int k = 0;
    for (int i = 1; i < n; i++)
        if (s[i].off < s[i - 1].off) {
            qsort(s, (size_t)n, sizeof *s, by_off);
            break;
        }
    for (int i = 0; i < n; i++) {
        MPI_Aint end = s[i].off + s[i].len;
        if (k && s[i].off <= s[k - 1].off + s[k - 1].len) {
            if (end > s[k - 1].off + s[k - 1].len)
                s[k - 1].len = end - s[k - 1].off;
        } else {
            s[k++] = s[i];
        }
    }
    return k;
}

int run_dtype_spans(const run_dtype *d, int count, rmalab_span *one, rmalab_span **out, int *n)
{
    *out = one, *n = 0;
    if (count <= 0 || d->size == 0)
        return RMALAB_OK;
    if (d->n == 0) {
        *one = (rmalab_span){d->lb, (MPI_Aint)count * d->size};
        *n = 1;
        return RMALAB_OK;
    }
    if ((int64_t)count * d->n > (1 << 26))
        return rmalab_set_error(RMALAB_ERR_TYPE, "rmalab run checks operations of up to %d "
                                "separate blocks; this one has %lld", 1 << 26,
                                (long long)count * d->n);
    rmalab_span *s = malloc(sizeof *s * (size_t)count * (size_t)d->n);
    if (!s)
        return rmalab_set_error(RMALAB_ERR_NO_MEM, "out of memory for a datatype's blocks");
    for (int i = 0; i < count; i++)
        for (int j = 0; j < d->n; j++)
            s[(size_t)i * d->n + j] =
                (rmalab_span){d->spans[j].off + i * d->extent, d->spans[j].len};
    *n = merge(s, count * d->n);
    *out = s;
    return RMALAB_OK;
}
