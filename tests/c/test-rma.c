/* The "rma" suite: typed RMA operations and their results (core/src/rma.c)
 * and the origin-side checks they share (rmalab__sync_check_op in sync.c): ranges
 * against every target's own size and disp_unit, ranks, counts and types;
 * put and get of every type; accumulate and get_accumulate for every op and
 * type, checked against a reference computed here; fetch_and_op and
 * compare_and_swap; and when results may be read. Runs on any number of
 * ranks from two: rank r works on its right neighbour r + 1 and checks what
 * its left neighbour r - 1 did to it. Every test makes all its collective
 * calls before asserting (soft checks), and the teardown frees the window. */
#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include <rmalab/debug.h>

static rmalab_win *W;
static int rank, nranks, right, left;

static void setup(void)
{
    rank = tu_rank();
    nranks = tu_size();
    right = (rank + 1) % nranks;
    left = (rank + nranks - 1) % nranks;
    W = NULL;
    tu_begin();
}

static void teardown(void)
{
    tu_win_discard(&W);
}

static uint64_t ops_in_epoch(void)
{
    rmalab_epoch_state s;
    rmalab_win_state(W, &s);
    return s.ops_in_epoch;
}

/* ------------------------------------------------------------------------ */
/* Ranges, ranks, counts, types                                             */

/* Rank q's window: 16, 24 or 32 bytes, disp_unit 1, 4 or 8. */
static MPI_Aint qsize(int q)
{
    return 16 + 8 * (q % 3);
}

static int qunit(int q)
{
    static const int u[] = {1, 4, 8};
    return u[q % 3];
}

/* A rejected call that returns a result leaves *out alone. */
#define EXPECT_REJECTED(call, code, phrase)                                    \
    do {                                                                       \
        r = NULL;                                                              \
        EXPECT_ERR(call, code, phrase);                                        \
        EXPECT(r == NULL, "%s: a rejected call returned a result", #call);     \
        rmalab_result_release(r);                                              \
    } while (0)

#define EXPECT_ACCEPTED(call)                                                  \
    do {                                                                       \
        r = NULL;                                                              \
        EXPECT_OK(call);                                                       \
        rmalab_result_release(r); /* before completion: the window keeps one */ \
        accepted++;                                                            \
    } while (0)

START_TEST(test_ranges)
{
    rmalab_win_opts o = {.size = qsize(rank), .disp_unit = qunit(rank)};
    unsigned char ff[64], mine[64], zeros[64] = {0};
    const unsigned char ab[2] = {'A', 'B'};
    rmalab_result *r = NULL, *back = NULL;
    const void *d = NULL;
    uint64_t accepted = 0;
    char msg[512];
    memset(ff, 0xFF, sizeof ff);
    EXPECT_OK(rmalab_win_allocate(&o, &W, NULL));

    /* 1. Against every target's own size and disp_unit (gets only). */
    EXPECT_OK(rmalab_win_fence(W, 0));
    for (int t = 0; t < nranks; t++) {
        MPI_Aint ts = qsize(t), tu = qunit(t), last1 = (ts - 1) / tu, last8 = (ts - 8) / tu;
        EXPECT_ACCEPTED(rmalab_win_get(W, t, last1, RMALAB_INT8, 1, &r));
        EXPECT_ACCEPTED(rmalab_win_get(W, t, 0, RMALAB_BYTE, (int)ts, &r));
        EXPECT_ACCEPTED(rmalab_win_get(W, t, ts / tu, RMALAB_INT8, 0, &r)); /* empty, at the end */
        EXPECT_ACCEPTED(rmalab_win_get(W, t, last8, RMALAB_INT64, 1, &r));
        snprintf(msg, sizeof msg,
                 "get to rank %d: displacement %ld (x disp_unit %ld = byte %ld) with 1 x int8 "
                 "reaches past the end of rank %d's window of %ld bytes; valid displacements "
                 "are 0 to %ld",
                 t, (long)(ts / tu), (long)tu, (long)(ts / tu * tu), t, (long)ts, (long)last1);
        EXPECT_REJECTED(rmalab_win_get(W, t, ts / tu, RMALAB_INT8, 1, &r), RMALAB_ERR_RMA_RANGE,
                        msg);
        snprintf(msg, sizeof msg, "valid displacements are 0 to %ld", (long)last8);
        EXPECT_REJECTED(rmalab_win_get(W, t, last8 + 1, RMALAB_INT64, 1, &r),
                        RMALAB_ERR_RMA_RANGE, msg);
        snprintf(msg, sizeof msg,
                 "get to rank %d: %d x byte (%ld bytes) do not fit in rank %d's window of %ld "
                 "bytes",
                 t, (int)ts + 1, (long)ts + 1, t, (long)ts);
        EXPECT_REJECTED(rmalab_win_get(W, t, 0, RMALAB_BYTE, (int)ts + 1, &r),
                        RMALAB_ERR_RMA_RANGE, msg);
        EXPECT_REJECTED(rmalab_win_get(W, t, -1, RMALAB_BYTE, 1, &r), RMALAB_ERR_RMA_RANGE,
                        "displacement -1");
        if (tu == 1) /* larger units: see test_huge_displacement */
            EXPECT_REJECTED(rmalab_win_get(W, t, INTPTR_MAX, RMALAB_INT8, 1, &r),
                            RMALAB_ERR_RMA_RANGE, "reaches past the end");
        /* Every operation checks. */
        EXPECT_REJECTED(rmalab_win_put(W, t, ts / tu, RMALAB_BYTE, 1, ff), RMALAB_ERR_RMA_RANGE,
                        "put to rank");
        EXPECT_REJECTED(rmalab_win_accumulate(W, t, last8 + 1, RMALAB_INT64, 1, ff,
                                              RMALAB_OP_SUM),
                        RMALAB_ERR_RMA_RANGE, "accumulate to rank");
        EXPECT_REJECTED(rmalab_win_get_accumulate(W, t, 0, RMALAB_INT32, (int)ts / 4 + 1, ff,
                                                  RMALAB_OP_SUM, &r),
                        RMALAB_ERR_RMA_RANGE, "get_accumulate to rank");
        EXPECT_REJECTED(rmalab_win_fetch_and_op(W, t, last8 + 1, RMALAB_INT64, ff,
                                                RMALAB_OP_SUM, &r),
                        RMALAB_ERR_RMA_RANGE, "fetch_and_op to rank");
        EXPECT_REJECTED(rmalab_win_compare_and_swap(W, t, -2, RMALAB_INT64, ff, ff, &r),
                        RMALAB_ERR_RMA_RANGE, "compare_and_swap to rank");
    }
    snprintf(msg, sizeof msg, "put to rank -1: the window's group has ranks 0 to %d", nranks - 1);
    EXPECT_REJECTED(rmalab_win_put(W, -1, 0, RMALAB_BYTE, 1, ff), RMALAB_ERR_RANK, msg);
    snprintf(msg, sizeof msg, "get to rank %d: the window's group has ranks 0 to %d", nranks,
             nranks - 1);
    EXPECT_REJECTED(rmalab_win_get(W, nranks, 0, RMALAB_BYTE, 1, &r), RMALAB_ERR_RANK, msg);
    EXPECT_REJECTED(rmalab_win_fetch_and_op(W, nranks, 0, RMALAB_INT64, ff, RMALAB_OP_SUM, &r),
                    RMALAB_ERR_RANK, "fetch_and_op to rank");
    EXPECT_REJECTED(rmalab_win_compare_and_swap(W, -5, 0, RMALAB_INT64, ff, ff, &r),
                    RMALAB_ERR_RANK, "compare_and_swap to rank -5");
    EXPECT_REJECTED(rmalab_win_put(W, right, 0, RMALAB_BYTE, -1, ff), RMALAB_ERR_ARG,
                    "put: count -1 is negative");
    EXPECT_REJECTED(rmalab_win_get(W, right, 0, RMALAB_NTYPES, 1, &r), RMALAB_ERR_TYPE,
                    "get: unknown type");
    EXPECT_INT_EQ(ops_in_epoch(), accepted); /* rejected calls are not counted */
    EXPECT_OK(rmalab_win_fence(W, 0));

    /* 2. Rejected puts leave the target alone. */
    EXPECT_REJECTED(rmalab_win_put(W, right, 0, RMALAB_BYTE, (int)qsize(right) + 1, ff),
                    RMALAB_ERR_RMA_RANGE, "do not fit");
    EXPECT_REJECTED(rmalab_win_put(W, right, -1, RMALAB_BYTE, 2, ff), RMALAB_ERR_RMA_RANGE,
                    "displacement -1");
    EXPECT_REJECTED(rmalab_win_put(W, right, 1, RMALAB_INT64, (int)qsize(right) / 8, ff),
                    RMALAB_ERR_RMA_RANGE, "reaches past the end");
    EXPECT_OK(rmalab_win_put(W, right, 0, RMALAB_BYTE, 2, ab));
    EXPECT_OK(rmalab_win_fence(W, 0));
    EXPECT_OK(rmalab_win_get(W, right, 0, RMALAB_BYTE, (int)qsize(right), &back));
    EXPECT_OK(rmalab_win_fence(W, RMALAB_MODE_NOSUCCEED));

    EXPECT_OK(rmalab_win_read(W, 0, RMALAB_BYTE, (int)qsize(rank), mine));
    EXPECT(mine[0] == 'A' && mine[1] == 'B', "the valid put did not arrive");
    EXPECT(memcmp(mine + 2, zeros, (size_t)qsize(rank) - 2) == 0,
           "a rejected put changed this rank's window");
    if (rmalab_result_data(back, &d, NULL, NULL) == RMALAB_OK) {
        EXPECT(memcmp(d, ab, 2) == 0, "get: the valid put is missing on rank %d", right);
        EXPECT(memcmp((const unsigned char *)d + 2, zeros, (size_t)qsize(right) - 2) == 0,
               "get: a rejected put changed rank %d's window", right);
    } else {
        EXPECT(0, "get not ready after fence: %s", rmalab_errmsg());
    }
    rmalab_result_release(back);
    tu_end();
}
END_TEST

/* Regression: a displacement so large that disp x disp_unit overflows is
 * ERR_RMA_RANGE, with no overflow in the check or in the message (UBSan in
 * ./do asan) and no wrapped byte offset in the text. */
START_TEST(test_huge_displacement)
{
    rmalab_win_opts o = {.size = 32, .disp_unit = 4};
    rmalab_result *r = NULL;
    EXPECT_OK(rmalab_win_allocate(&o, &W, NULL));
    EXPECT_OK(rmalab_win_fence(W, 0));
    static const MPI_Aint huge[] = {(MPI_Aint)1 << 62, INTPTR_MAX, INTPTR_MAX / 4 + 1};
    for (int i = 0; i < 3; i++) {
        EXPECT_REJECTED(rmalab_win_get(W, right, huge[i], RMALAB_INT8, 1, &r),
                        RMALAB_ERR_RMA_RANGE, "reaches past the end");
        EXPECT(!strstr(rmalab_errmsg(), "= byte 0)") && !strstr(rmalab_errmsg(), "= byte -"),
               "wrapped byte offset: %s", rmalab_errmsg());
    }
    EXPECT_OK(rmalab_win_fence(W, RMALAB_MODE_NOSUCCEED));
    tu_end();
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Put and get of every type                                                */

#define SLOT 32

/* Three values of type t, the last one naming `src`; returns their size. */
static size_t type_values(rmalab_type t, int src, void *out)
{
    switch (t) {
#define V(T, a, b) do { T v_[3] = {(a), (b), (T)(src + 1)}; memcpy(out, v_, sizeof v_); return sizeof v_; } while (0)
    case RMALAB_INT8: V(int8_t, INT8_MIN, INT8_MAX);
    case RMALAB_UINT8: V(uint8_t, 0, UINT8_MAX);
    case RMALAB_INT16: V(int16_t, INT16_MIN, INT16_MAX);
    case RMALAB_UINT16: V(uint16_t, 0x8001, UINT16_MAX);
    case RMALAB_INT32: V(int32_t, INT32_MIN, INT32_MAX);
    case RMALAB_UINT32: V(uint32_t, 0x80000001u, UINT32_MAX);
    case RMALAB_INT64: V(int64_t, INT64_MIN, INT64_MAX);
    case RMALAB_UINT64: V(uint64_t, (uint64_t)1 << 63, UINT64_MAX);
    case RMALAB_FLOAT: V(float, -1.5f, FLT_MAX);
    case RMALAB_DOUBLE: V(double, -DBL_MIN, 1e300);
    default: V(unsigned char, 0x00, 0xFF);
#undef V
    }
    return 0;
}

START_TEST(test_put_get_types)
{
    rmalab_win_opts o = {.size = RMALAB_NTYPES * SLOT};
    rmalab_result *res[RMALAB_NTYPES] = {NULL};
    unsigned char src[RMALAB_NTYPES][SLOT], want[SLOT], got[SLOT];
    EXPECT_OK(rmalab_win_allocate(&o, &W, NULL));
    EXPECT_OK(rmalab_win_fence(W, RMALAB_MODE_NOPRECEDE));
    for (int t = 0; t < RMALAB_NTYPES; t++) {
        type_values((rmalab_type)t, rank, src[t]);
        EXPECT_OK(rmalab_win_put(W, right, t * SLOT, (rmalab_type)t, 3, src[t]));
    }
    EXPECT_OK(rmalab_win_fence(W, 0));
    for (int t = 0; t < RMALAB_NTYPES; t++)
        EXPECT_OK(rmalab_win_get(W, right, t * SLOT, (rmalab_type)t, 3, &res[t]));
    EXPECT_OK(rmalab_win_fence(W, RMALAB_MODE_NOSUCCEED));
    for (int t = 0; t < RMALAB_NTYPES; t++) {
        const char *name = rmalab_type_name((rmalab_type)t);
        size_t n = type_values((rmalab_type)t, left, want);
        EXPECT_INT_EQ(n, 3 * (size_t)rmalab_type_size((rmalab_type)t));
        EXPECT_OK(rmalab_win_read(W, t * SLOT, (rmalab_type)t, 3, got));
        EXPECT(memcmp(got, want, n) == 0, "%s: the put from rank %d differs", name, left);
        const void *d = NULL;
        rmalab_type type = RMALAB_NTYPES;
        int count = -1;
        if (rmalab_result_data(res[t], &d, &type, &count) == RMALAB_OK) {
            EXPECT(memcmp(d, src[t], n) == 0, "%s: get differs from what was put", name);
            EXPECT_INT_EQ(type, t);
            EXPECT_INT_EQ(count, 3);
            EXPECT((uintptr_t)d % 16 == 0, "result data at %p", d);
        } else {
            EXPECT(0, "%s: %s", name, rmalab_errmsg());
        }
        rmalab_result_release(res[t]);
    }
    tu_end();
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Accumulate: every op on every type                                       */

/* Which pairs MPI defines (MPI-4.0 5.9.2, 12.3.4). */
static bool is_unsigned(rmalab_type t)
{
    return t == RMALAB_UINT8 || t == RMALAB_UINT16 || t == RMALAB_UINT32 || t == RMALAB_UINT64;
}

/* MPICH 4.0.2 computes max and min on unsigned types as if signed, so the
 * core refuses them (test_unsigned_max_min). */
static bool pair_valid(rmalab_op op, rmalab_type t, bool fetching)
{
    bool fl = t == RMALAB_FLOAT || t == RMALAB_DOUBLE, byte = t == RMALAB_BYTE;
    switch (op) {
    case RMALAB_OP_MAX: case RMALAB_OP_MIN:
        return !byte && !is_unsigned(t);
    case RMALAB_OP_SUM: case RMALAB_OP_PROD:
        return !byte;
    case RMALAB_OP_BAND: case RMALAB_OP_BOR: case RMALAB_OP_BXOR:
        return !fl;
    case RMALAB_OP_LAND: case RMALAB_OP_LOR: case RMALAB_OP_LXOR:
        return !fl && !byte;
    case RMALAB_OP_REPLACE:
        return true;
    case RMALAB_OP_MAXLOC: case RMALAB_OP_MINLOC:
        return false; /* pair types, which only a typed operation carries */
    default:
        return fetching;
    }
}

static bool is_loc(int op)
{
    return op == RMALAB_OP_MAXLOC || op == RMALAB_OP_MINLOC;
}

#define ARITH_CASES(T)                                                         \
    case RMALAB_OP_SUM: z[i] = (T)(x[i] + y[i]); break;                        \
    case RMALAB_OP_PROD: z[i] = (T)(x[i] * y[i]); break;                       \
    case RMALAB_OP_MAX: z[i] = x[i] > y[i] ? x[i] : y[i]; break;               \
    case RMALAB_OP_MIN: z[i] = x[i] < y[i] ? x[i] : y[i]; break;               \
    case RMALAB_OP_REPLACE: z[i] = y[i]; break;                                \
    case RMALAB_OP_NO_OP: z[i] = x[i]; break;
#define BIT_CASES(T)                                                           \
    case RMALAB_OP_BAND: z[i] = (T)(x[i] & y[i]); break;                       \
    case RMALAB_OP_BOR: z[i] = (T)(x[i] | y[i]); break;                        \
    case RMALAB_OP_BXOR: z[i] = (T)(x[i] ^ y[i]); break;                       \
    case RMALAB_OP_LAND: z[i] = (T)(x[i] && y[i]); break;                      \
    case RMALAB_OP_LOR: z[i] = (T)(x[i] || y[i]); break;                       \
    case RMALAB_OP_LXOR: z[i] = (T)(!x[i] != !y[i]); break;
#define REF(T, CASES)                                                          \
    do {                                                                       \
        const T *x = a, *y = b;                                                \
        T *z = out;                                                            \
        for (int i = 0; i < n; i++)                                            \
            switch (op) { CASES default: break; }                              \
    } while (0)

/* out = a op b, element by element, as MPI defines the op. */
static void reference(rmalab_op op, rmalab_type t, const void *a, const void *b, void *out,
                      int n)
{
    switch (t) {
    case RMALAB_INT8: REF(int8_t, ARITH_CASES(int8_t) BIT_CASES(int8_t)); break;
    case RMALAB_UINT8: REF(uint8_t, ARITH_CASES(uint8_t) BIT_CASES(uint8_t)); break;
    case RMALAB_INT16: REF(int16_t, ARITH_CASES(int16_t) BIT_CASES(int16_t)); break;
    case RMALAB_UINT16: REF(uint16_t, ARITH_CASES(uint16_t) BIT_CASES(uint16_t)); break;
    case RMALAB_INT32: REF(int32_t, ARITH_CASES(int32_t) BIT_CASES(int32_t)); break;
    case RMALAB_UINT32: REF(uint32_t, ARITH_CASES(uint32_t) BIT_CASES(uint32_t)); break;
    case RMALAB_INT64: REF(int64_t, ARITH_CASES(int64_t) BIT_CASES(int64_t)); break;
    case RMALAB_UINT64: REF(uint64_t, ARITH_CASES(uint64_t) BIT_CASES(uint64_t)); break;
    case RMALAB_FLOAT: REF(float, ARITH_CASES(float)); break;
    case RMALAB_DOUBLE: REF(double, ARITH_CASES(double)); break;
    default: REF(uint8_t, ARITH_CASES(uint8_t) BIT_CASES(uint8_t)); break;
    }
}

/* Two values of type t: which 0 for the target, 1 for the origin. Every
 * result stays exact (floats are dyadic; integers wrap as in C). */
static void acc_values(rmalab_type t, int which, void *out)
{
    /* Unsigned targets stay below the sign bit: see test_unsigned_max_min. */
    static const int64_t iv[2][2] = {{6, -2}, {5, 3}}, uv[2][2] = {{6, 126}, {5, 3}};
    static const double fv[2][2] = {{1.5, -2.0}, {2.25, 0.5}};
    static const unsigned char bv[2][2] = {{0x6C, 0xF0}, {0x35, 0x0F}};
    for (int i = 0; i < 2; i++) {
        switch (t) {
        case RMALAB_INT8: ((int8_t *)out)[i] = (int8_t)iv[which][i]; break;
        case RMALAB_UINT8: ((uint8_t *)out)[i] = (uint8_t)uv[which][i]; break;
        case RMALAB_INT16: ((int16_t *)out)[i] = (int16_t)iv[which][i]; break;
        case RMALAB_UINT16: ((uint16_t *)out)[i] = (uint16_t)uv[which][i]; break;
        case RMALAB_INT32: ((int32_t *)out)[i] = (int32_t)iv[which][i]; break;
        case RMALAB_UINT32: ((uint32_t *)out)[i] = (uint32_t)uv[which][i]; break;
        case RMALAB_INT64: ((int64_t *)out)[i] = iv[which][i]; break;
        case RMALAB_UINT64: ((uint64_t *)out)[i] = (uint64_t)uv[which][i]; break;
        case RMALAB_FLOAT: ((float *)out)[i] = (float)fv[which][i]; break;
        case RMALAB_DOUBLE: ((double *)out)[i] = fv[which][i]; break;
        default: ((unsigned char *)out)[i] = bv[which][i]; break;
        }
    }
}

#define ASLOT 16
#define ASLOT_AT(op, t) ((MPI_Aint)((op) * RMALAB_NTYPES + (t)) * ASLOT)

/* Bytes in hex, in one of two static buffers. */
static const char *hex(const void *p, size_t n, int which)
{
    static char buf[2][64];
    size_t off = 0;
    buf[which][0] = '\0';
    for (size_t i = 0; i < n && off + 3 < sizeof buf[which]; i++)
        off += (size_t)snprintf(buf[which] + off, sizeof buf[which] - off, "%02x",
                                ((const unsigned char *)p)[i]);
    return buf[which];
}

static const char *pair_name(int op, int t)
{
    static char buf[64];
    snprintf(buf, sizeof buf, "%s on %s", rmalab_op_name((rmalab_op)op),
             rmalab_type_name((rmalab_type)t));
    return buf;
}

/* Two epochs. 1: accumulate every pair into the right neighbour (invalid
 * pairs are ERR_OP). 2: get_accumulate every pair, then fetch_and_op on the
 * first element (ordered after it: same origin, location and type). After
 * each, every rank checks its own window and the fetched values against the
 * reference. */
START_TEST(test_accumulate_matrix)
{
    rmalab_win_opts o = {.size = RMALAB_NOPS * RMALAB_NTYPES * ASLOT};
    static rmalab_result *ga[RMALAB_NOPS][RMALAB_NTYPES], *fo[RMALAB_NOPS][RMALAB_NTYPES];
    /* Origin buffers are MPI's until the epoch completes: one per call. */
    static unsigned char ob[2][RMALAB_NOPS][RMALAB_NTYPES][ASLOT];
    unsigned char a[ASLOT], b[ASLOT], v1[ASLOT], v2[ASLOT], v3[ASLOT], got[ASLOT];
    char msg[256];
    int checked = 0;
    memset(ga, 0, sizeof ga);
    memset(fo, 0, sizeof fo);
    EXPECT_OK(rmalab_win_allocate(&o, &W, NULL));
    for (int op = 0; op < RMALAB_NOPS; op++)
        for (int t = 0; t < RMALAB_NTYPES; t++) {
            acc_values((rmalab_type)t, 0, a);
            EXPECT_OK(rmalab_win_write(W, ASLOT_AT(op, t), (rmalab_type)t, 2, a));
        }

    EXPECT_OK(rmalab_win_fence(W, 0));
    for (int op = 0; op < RMALAB_NOPS; op++)
        for (int t = 0; t < RMALAB_NTYPES; t++) {
            acc_values((rmalab_type)t, 1, ob[0][op][t]);
            int rc = rmalab_win_accumulate(W, right, ASLOT_AT(op, t), (rmalab_type)t, 2,
                                           ob[0][op][t], (rmalab_op)op);
            if (pair_valid((rmalab_op)op, (rmalab_type)t, false)) {
                EXPECT(rc == RMALAB_OK, "accumulate %s: %s", pair_name(op, t), rmalab_errmsg());
            } else {
                if (op == RMALAB_OP_NO_OP)
                    snprintf(msg, sizeof msg, "accumulate: no_op only makes sense for "
                                              "operations that fetch");
                else if (is_loc(op))
                    snprintf(msg, sizeof msg, "accumulate: %s takes pair types",
                             rmalab_op_name((rmalab_op)op));
                else if (is_unsigned((rmalab_type)t))
                    snprintf(msg, sizeof msg, "accumulate: MPICH 4.0.2 computes \"%s\" on "
                                              "unsigned types as if they were signed",
                             rmalab_op_name((rmalab_op)op));
                else
                    snprintf(msg, sizeof msg,
                             "accumulate: the op \"%s\" is not defined on %s values",
                             rmalab_op_name((rmalab_op)op), rmalab_type_name((rmalab_type)t));
                EXPECT(rc == RMALAB_ERR_OP && strstr(rmalab_errmsg(), msg),
                       "accumulate %s: %s (%s)", pair_name(op, t), rmalab_err_name(rc),
                       rmalab_errmsg());
            }
        }
    EXPECT_OK(rmalab_win_fence(W, 0));
    for (int op = 0; op < RMALAB_NOPS; op++)
        for (int t = 0; t < RMALAB_NTYPES; t++) {
            size_t sz = 2 * (size_t)rmalab_type_size((rmalab_type)t);
            acc_values((rmalab_type)t, 0, a);
            acc_values((rmalab_type)t, 1, b);
            if (pair_valid((rmalab_op)op, (rmalab_type)t, false))
                reference((rmalab_op)op, (rmalab_type)t, a, b, v1, 2);
            else
                memcpy(v1, a, sz);
            EXPECT_OK(rmalab_win_read(W, ASLOT_AT(op, t), (rmalab_type)t, 2, got));
            EXPECT(memcmp(got, v1, sz) == 0, "accumulate %s: %s, expected %s", pair_name(op, t),
                   hex(got, sz, 0), hex(v1, sz, 1));
            checked++;
        }
    /* The neighbours must not fetch-and-update this window while it is read. */
    EXPECT_OK(rmalab_win_fence(W, 0));

    for (int op = 0; op < RMALAB_NOPS; op++)
        for (int t = 0; t < RMALAB_NTYPES; t++) {
            acc_values((rmalab_type)t, 1, ob[1][op][t]);
            int rc = rmalab_win_get_accumulate(W, right, ASLOT_AT(op, t), (rmalab_type)t, 2,
                                               ob[1][op][t], (rmalab_op)op, &ga[op][t]);
            int rc2 = rmalab_win_fetch_and_op(W, right, ASLOT_AT(op, t), (rmalab_type)t,
                                              ob[1][op][t], (rmalab_op)op, &fo[op][t]);
            if (pair_valid((rmalab_op)op, (rmalab_type)t, true)) {
                EXPECT(rc == RMALAB_OK, "get_accumulate %s: %s", pair_name(op, t),
                       rmalab_errmsg());
                EXPECT(rc2 == RMALAB_OK, "fetch_and_op %s: %s", pair_name(op, t),
                       rmalab_errmsg());
            } else {
                if (is_loc(op))
                    snprintf(msg, sizeof msg, "fetch_and_op: %s takes pair types",
                             rmalab_op_name((rmalab_op)op));
                else if (is_unsigned((rmalab_type)t) && op != RMALAB_OP_NO_OP)
                    snprintf(msg, sizeof msg, "fetch_and_op: MPICH 4.0.2 computes \"%s\" on "
                                              "unsigned types as if they were signed",
                             rmalab_op_name((rmalab_op)op));
                else
                    snprintf(msg, sizeof msg, "fetch_and_op: the op \"%s\" is not defined on %s",
                             rmalab_op_name((rmalab_op)op), rmalab_type_name((rmalab_type)t));
                EXPECT(rc == RMALAB_ERR_OP, "get_accumulate %s: %s", pair_name(op, t),
                       rmalab_err_name(rc));
                EXPECT(rc2 == RMALAB_ERR_OP && strstr(rmalab_errmsg(), msg),
                       "fetch_and_op %s: %s (%s)", pair_name(op, t), rmalab_err_name(rc2),
                       rmalab_errmsg());
                EXPECT(ga[op][t] == NULL && fo[op][t] == NULL, "%s: a result of a rejected call",
                       pair_name(op, t));
            }
        }
    EXPECT_OK(rmalab_win_fence(W, RMALAB_MODE_NOSUCCEED));
    for (int op = 0; op < RMALAB_NOPS; op++)
        for (int t = 0; t < RMALAB_NTYPES; t++) {
            rmalab_type ty = (rmalab_type)t;
            size_t es = (size_t)rmalab_type_size(ty), sz = 2 * es;
            acc_values(ty, 0, a);
            acc_values(ty, 1, b);
            if (pair_valid((rmalab_op)op, ty, false))
                reference((rmalab_op)op, ty, a, b, v1, 2);
            else
                memcpy(v1, a, sz);
            if (!pair_valid((rmalab_op)op, ty, true)) {
                memcpy(v3, v1, sz);
            } else {
                const void *d = NULL;
                reference((rmalab_op)op, ty, v1, b, v2, 2);      /* after get_accumulate */
                memcpy(v3, v2, sz);
                reference((rmalab_op)op, ty, v2, b, v3, 1);      /* after fetch_and_op */
                if (rmalab_result_data(ga[op][t], &d, NULL, NULL) == RMALAB_OK)
                    EXPECT(memcmp(d, v1, sz) == 0, "get_accumulate %s fetched the wrong value",
                           pair_name(op, t));
                else
                    EXPECT(0, "get_accumulate %s: %s", pair_name(op, t), rmalab_errmsg());
                if (rmalab_result_data(fo[op][t], &d, NULL, NULL) == RMALAB_OK)
                    EXPECT(memcmp(d, v2, es) == 0, "fetch_and_op %s fetched the wrong value",
                           pair_name(op, t));
                else
                    EXPECT(0, "fetch_and_op %s: %s", pair_name(op, t), rmalab_errmsg());
            }
            EXPECT_OK(rmalab_win_read(W, ASLOT_AT(op, t), ty, 2, got));
            EXPECT(memcmp(got, v3, sz) == 0, "get_accumulate/fetch_and_op %s: %s, expected %s",
                   pair_name(op, t), hex(got, sz, 0), hex(v3, sz, 1));
            rmalab_result_release(ga[op][t]);
            rmalab_result_release(fo[op][t]);
        }
    EXPECT_INT_EQ(checked, RMALAB_NOPS * RMALAB_NTYPES);
    tu_end();
}
END_TEST

/* Atomics: fetch_and_op and compare_and_swap, in order on one location. */
START_TEST(test_atomics)
{
    rmalab_win_opts o = {.size = 64};
    int64_t ten = 10, five = 5, fifteen = 15, hundred = 100, seven = 7;
    uint8_t three = 3, u200 = 200;
    unsigned char zero = 0, xab = 0xAB;
    int16_t m1 = -1, s1 = -300;
    double dv = 1.0;
    float fv = 1.0f;
    rmalab_result *r[8] = {NULL}, *rj = NULL;
    EXPECT_OK(rmalab_win_allocate(&o, &W, NULL));
    EXPECT_OK(rmalab_win_write(W, 0, RMALAB_INT64, 1, &ten));
    EXPECT_OK(rmalab_win_write(W, 8, RMALAB_UINT8, 1, &three));
    EXPECT_OK(rmalab_win_write(W, 10, RMALAB_INT16, 1, &m1));
    EXPECT_OK(rmalab_win_fence(W, 0));
    EXPECT_OK(rmalab_win_fetch_and_op(W, right, 0, RMALAB_INT64, &five, RMALAB_OP_SUM, &r[0]));
    EXPECT_OK(rmalab_win_compare_and_swap(W, right, 0, RMALAB_INT64, &fifteen, &hundred, &r[1]));
    EXPECT_OK(rmalab_win_compare_and_swap(W, right, 0, RMALAB_INT64, &fifteen, &seven, &r[2]));
    EXPECT_OK(rmalab_win_fetch_and_op(W, right, 0, RMALAB_INT64, &five, RMALAB_OP_NO_OP, &r[3]));
    EXPECT_OK(rmalab_win_compare_and_swap(W, right, 8, RMALAB_UINT8, &three, &u200, &r[4]));
    EXPECT_OK(rmalab_win_compare_and_swap(W, right, 16, RMALAB_BYTE, &zero, &xab, &r[5]));
    EXPECT_OK(rmalab_win_compare_and_swap(W, right, 10, RMALAB_INT16, &m1, &s1, &r[6]));
    /* What MPI does not define. */
    EXPECT_ERR(rmalab_win_compare_and_swap(W, right, 24, RMALAB_DOUBLE, &dv, &dv, &rj),
               RMALAB_ERR_TYPE,
               "compare_and_swap: MPI defines it on integer and byte types, not on double");
    EXPECT_ERR(rmalab_win_compare_and_swap(W, right, 24, RMALAB_FLOAT, &fv, &fv, &rj),
               RMALAB_ERR_TYPE, "not on float");
    EXPECT_ERR(rmalab_win_fetch_and_op(W, right, 24, RMALAB_DOUBLE, &dv, RMALAB_OP_BAND, &rj),
               RMALAB_ERR_OP, "fetch_and_op: the op \"band\" is not defined on double values");
    EXPECT_ERR(rmalab_win_accumulate(W, right, 24, RMALAB_DOUBLE, 1, &dv, RMALAB_OP_BOR),
               RMALAB_ERR_OP, "\"bor\" is not defined on double");
    EXPECT_ERR(rmalab_win_accumulate(W, right, 24, RMALAB_INT64, 1, &ten, RMALAB_OP_NO_OP),
               RMALAB_ERR_OP, "accumulate: no_op only makes sense for operations that fetch");
    EXPECT_ERR(rmalab_win_accumulate(W, right, 24, RMALAB_INT64, 1, &ten, RMALAB_NOPS),
               RMALAB_ERR_OP, "accumulate: unknown op");
    EXPECT_ERR(rmalab_win_get_accumulate(W, right, 24, RMALAB_BYTE, 1, &zero, RMALAB_OP_SUM, &rj),
               RMALAB_ERR_OP, "get_accumulate: the op \"sum\" is not defined on byte values");
    EXPECT_ERR(rmalab_win_fetch_and_op(W, right, 24, RMALAB_FLOAT, &fv, RMALAB_OP_LAND, &rj),
               RMALAB_ERR_OP, "\"land\" is not defined on float");
    EXPECT(rj == NULL, "a rejected call returned a result");
    EXPECT_INT_EQ(ops_in_epoch(), 7);
    EXPECT_OK(rmalab_win_fence(W, RMALAB_MODE_NOSUCCEED));

    static const int64_t want64[4] = {10, 15, 100, 100};
    for (int i = 0; i < 4; i++) {
        const void *d = NULL;
        if (rmalab_result_data(r[i], &d, NULL, NULL) == RMALAB_OK)
            EXPECT(*(const int64_t *)d == want64[i], "atomic %d fetched %lld, expected %lld", i,
                   (long long)*(const int64_t *)d, (long long)want64[i]);
        else
            EXPECT(0, "atomic %d: %s", i, rmalab_errmsg());
    }
    const void *d = NULL;
    if (rmalab_result_data(r[4], &d, NULL, NULL) == RMALAB_OK)
        EXPECT_INT_EQ(*(const uint8_t *)d, 3);
    if (rmalab_result_data(r[5], &d, NULL, NULL) == RMALAB_OK)
        EXPECT_INT_EQ(*(const unsigned char *)d, 0);
    if (rmalab_result_data(r[6], &d, NULL, NULL) == RMALAB_OK)
        EXPECT_INT_EQ(*(const int16_t *)d, -1);
    int64_t got64 = 0;
    uint8_t got8 = 0;
    unsigned char gotb = 0;
    int16_t got16 = 0;
    EXPECT_OK(rmalab_win_read(W, 0, RMALAB_INT64, 1, &got64));
    EXPECT_OK(rmalab_win_read(W, 8, RMALAB_UINT8, 1, &got8));
    EXPECT_OK(rmalab_win_read(W, 16, RMALAB_BYTE, 1, &gotb));
    EXPECT_OK(rmalab_win_read(W, 10, RMALAB_INT16, 1, &got16));
    EXPECT_INT_EQ(got64, 100);
    EXPECT_INT_EQ(got8, 200);
    EXPECT_INT_EQ(gotb, 0xAB);
    EXPECT_INT_EQ(got16, -300);
    for (int i = 0; i < 8; i++)
        rmalab_result_release(r[i]);
    tu_end();
}
END_TEST

/* Regression: MPICH 4.0.2 computes MPI_MAX and MPI_MIN on unsigned integer
 * types as if they were signed (pmodels/mpich#6083, fixed in 4.1): max(254,
 * 3) on uint8 is 3, also in MPI_Allreduce. The core refuses these pairs with
 * ERR_OP naming the defect, and the target memory stays as it was. */
START_TEST(test_unsigned_max_min)
{
    rmalab_win_opts o = {.size = 64};
    static const rmalab_type ut[4] = {RMALAB_UINT8, RMALAB_UINT16, RMALAB_UINT32, RMALAB_UINT64};
    unsigned char high[4][8], three[4][8];
    EXPECT_OK(rmalab_win_allocate(&o, &W, NULL));
    for (int i = 0; i < 4; i++) {
        int sz = rmalab_type_size(ut[i]);
        memset(high[i], 0, 8);
        memset(high[i], 0xFF, (size_t)sz);
        high[i][0] = 0xFE; /* the largest value but one */
        memset(three[i], 0, 8);
        three[i][0] = 3;
        EXPECT_OK(rmalab_win_write(W, 16 * i, ut[i], 1, high[i]));     /* max target */
        EXPECT_OK(rmalab_win_write(W, 16 * i + 8, ut[i], 1, three[i])); /* min target */
    }
    EXPECT_OK(rmalab_win_fence(W, 0));
    for (int i = 0; i < 4; i++) {
        rmalab_result *r = NULL;
        EXPECT_REJECTED(rmalab_win_accumulate(W, right, 16 * i, ut[i], 1, three[i], RMALAB_OP_MAX),
                        RMALAB_ERR_OP, "computes \"max\" on unsigned types as if they were signed");
        EXPECT_REJECTED(rmalab_win_accumulate(W, right, 16 * i + 8, ut[i], 1, high[i],
                                              RMALAB_OP_MIN),
                        RMALAB_ERR_OP, "computes \"min\" on unsigned types");
        EXPECT_REJECTED(rmalab_win_fetch_and_op(W, right, 16 * i, ut[i], three[i], RMALAB_OP_MAX,
                                                &r),
                        RMALAB_ERR_OP, "as if they were signed");
        EXPECT(r == NULL, "no result for a refused call");
    }
    EXPECT_OK(rmalab_win_fence(W, RMALAB_MODE_NOSUCCEED));
    for (int i = 0; i < 4; i++) {
        unsigned char got[8] = {0};
        size_t sz = (size_t)rmalab_type_size(ut[i]);
        EXPECT_OK(rmalab_win_read(W, 16 * i, ut[i], 1, got));
        EXPECT(memcmp(got, high[i], sz) == 0, "max on %s: %s, expected %s",
               rmalab_type_name(ut[i]), hex(got, sz, 0), hex(high[i], sz, 1));
        EXPECT_OK(rmalab_win_read(W, 16 * i + 8, ut[i], 1, got));
        EXPECT(memcmp(got, three[i], sz) == 0, "min on %s: %s, expected %s",
               rmalab_type_name(ut[i]), hex(got, sz, 0), hex(three[i], sz, 1));
    }
    tu_end();
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Results                                                                  */

/* `r` is not ready, and reading it names the call that will complete it. */
#define EXPECT_PENDING(r, completer)                                           \
    do {                                                                       \
        const void *pd_ = NULL;                                                \
        char pm_[256];                                                         \
        EXPECT(!rmalab_result_ready(r), "%s is ready too early", #r);          \
        snprintf(pm_, sizeof pm_, "has not arrived yet: an RMA result may only be read " \
                                  "once the epoch that carries it has completed, here at %s", \
                 completer);                                                   \
        EXPECT_ERR(rmalab_result_data(r, &pd_, NULL, NULL), RMALAB_ERR_RMA_SYNC, pm_); \
        EXPECT(pd_ == NULL, "data of a pending result");                       \
    } while (0)

/* `r` is ready and holds the int32 value `v`. */
#define EXPECT_READY(r, v)                                                     \
    do {                                                                       \
        const void *rd_ = NULL;                                                \
        EXPECT(rmalab_result_ready(r), "%s is not ready", #r);                 \
        if (rmalab_result_data(r, &rd_, NULL, NULL) == RMALAB_OK)              \
            EXPECT(*(const int32_t *)rd_ == (v), "%s holds %d, expected %d", #r, \
                   *(const int32_t *)rd_, (int)(v));                           \
        else                                                                   \
            EXPECT(0, "%s: %s", #r, rmalab_errmsg());                          \
    } while (0)

START_TEST(test_results)
{
    rmalab_win_opts o = {.size = 64, .disp_unit = 4};
    int32_t mine[16];
    rmalab_result *r1 = NULL, *r2 = NULL, *r3 = NULL, *r4 = NULL, *r5 = NULL, *r6 = NULL,
                  *r7 = NULL, *r8 = NULL, *r9 = NULL, *r10 = NULL;
    char completer[96];
    int lo = rank < right ? rank : right, hi = rank < right ? right : rank;
    for (int i = 0; i < 16; i++)
        mine[i] = 1000 * rank + i;
    EXPECT_OK(rmalab_win_allocate(&o, &W, NULL));
    EXPECT_OK(rmalab_win_write(W, 0, RMALAB_INT32, 16, mine));
#define VAL(q, i) (1000 * (q) + (i))

    /* Fence */
    EXPECT_OK(rmalab_win_fence(W, 0));
    EXPECT_OK(rmalab_win_get(W, right, 1, RMALAB_INT32, 1, &r1));
    EXPECT_OK(rmalab_win_get(W, right, 2, RMALAB_INT32, 4, &r2));
    EXPECT_PENDING(r1, "the next fence()");
    rmalab_result_release(r2); /* before completion: MPI still writes into it (ASan) */
    EXPECT_OK(rmalab_win_fence(W, RMALAB_MODE_NOSUCCEED));
    EXPECT_READY(r1, VAL(right, 1));
    rmalab_result_release(r1);

    /* PSCW */
    EXPECT_OK(rmalab_win_post(W, &left, 1, 0));
    EXPECT_OK(rmalab_win_start(W, &right, 1, 0));
    EXPECT_OK(rmalab_win_get(W, right, 3, RMALAB_INT32, 1, &r3));
    EXPECT_PENDING(r3, "complete()");
    EXPECT_OK(rmalab_win_complete(W));
    EXPECT_READY(r3, VAL(right, 3));
    EXPECT_OK(rmalab_win_wait(W));

    /* lock: flush completes what was issued before it, unlock the rest. */
    EXPECT_OK(rmalab_win_lock(W, right, false, 0));
    EXPECT_OK(rmalab_win_get(W, right, 4, RMALAB_INT32, 1, &r4));
    snprintf(completer, sizeof completer, "unlock(%d) or flush(%d)", right, right);
    EXPECT_PENDING(r4, completer);
    EXPECT_OK(rmalab_win_flush(W, right));
    EXPECT_READY(r4, VAL(right, 4));
    EXPECT_OK(rmalab_win_get(W, right, 5, RMALAB_INT32, 1, &r5));
    EXPECT_PENDING(r5, completer);
    EXPECT_OK(rmalab_win_unlock(W, right));
    EXPECT_READY(r5, VAL(right, 5));

    /* lock_all: flush(target) completes that target's results only. */
    EXPECT_OK(rmalab_win_lock_all(W, 0));
    EXPECT_OK(rmalab_win_get(W, right, 6, RMALAB_INT32, 1, &r6));
    EXPECT_OK(rmalab_win_get(W, rank, 7, RMALAB_INT32, 1, &r7));
    EXPECT_OK(rmalab_win_get(W, right, 8, RMALAB_INT32, 1, &r8));
    snprintf(completer, sizeof completer, "unlock_all() or flush(%d)", right);
    EXPECT_PENDING(r6, completer);
    EXPECT_OK(rmalab_win_flush(W, right));
    EXPECT_READY(r6, VAL(right, 6));
    EXPECT_PENDING(r7, "unlock_all() or flush(");
    EXPECT_OK(rmalab_win_flush_all(W));
    EXPECT_READY(r7, VAL(rank, 7));
    rmalab_result_release(r8);
    r8 = NULL;
    EXPECT_OK(rmalab_win_get(W, right, 9, RMALAB_INT32, 1, &r8));
    rmalab_result_release(r8); /* released while pending, completed by unlock_all */
    EXPECT_OK(rmalab_win_unlock_all(W));

    /* Two locks: unlocking one completes only its results. */
    EXPECT_OK(rmalab_win_lock(W, lo, false, 0));
    EXPECT_OK(rmalab_win_lock(W, hi, false, 0));
    EXPECT_OK(rmalab_win_get(W, rank, 10, RMALAB_INT32, 1, &r9));
    EXPECT_OK(rmalab_win_get(W, right, 11, RMALAB_INT32, 1, &r10));
    EXPECT_OK(rmalab_win_unlock(W, right));
    EXPECT_READY(r10, VAL(right, 11));
    snprintf(completer, sizeof completer, "unlock(%d) or flush(%d)", rank, rank);
    EXPECT_PENDING(r9, completer);
    EXPECT_OK(rmalab_win_unlock(W, rank));
    EXPECT_READY(r9, VAL(rank, 10));
    MPI_Barrier(MPI_COMM_WORLD);

    /* A ready result outlives its window. */
    EXPECT_OK(rmalab_win_free(&W)); /* collective */
    EXPECT_READY(r3, VAL(right, 3));
    const void *d = NULL;
    EXPECT_ERR(rmalab_result_data(NULL, &d, NULL, NULL), RMALAB_ERR_ARG, "result is NULL");
    EXPECT(!rmalab_result_ready(NULL), "NULL is ready");
    rmalab_result_release(NULL);
    rmalab_result *rs[] = {r3, r4, r5, r6, r7, r9, r10};
    for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++)
        rmalab_result_release(rs[i]);
#undef VAL
    tu_end();
}
END_TEST

/* Origin data is staged until its operation completes, and the arena must
 * empty once every target with data in it has been flushed. A lock_all
 * epoch that lasts the whole program with a flush(target) after each
 * operation (MPI-3's usual style) kept every put's data until unlock_all:
 * 16 MB for 1,000,000 puts of 8 bytes (found by bench/stress). */
START_TEST(test_staging_flushed)
{
    rmalab_win_opts o = {.size = 64, .disp_unit = 8};
    int64_t v;
    long first = 0;
    EXPECT_OK(rmalab_win_allocate(&o, &W, NULL));
    EXPECT_OK(rmalab_win_lock_all(W, 0));
    for (int i = 0; i < 4000; i++) { /* 64 kB staged without the reset */
        v = 1000 * rank + i;
        EXPECT_OK(rmalab_win_put(W, right, 0, RMALAB_INT64, 1, &v));
        EXPECT_OK(rmalab_win_accumulate(W, rank, 1, RMALAB_INT64, 1, &v, RMALAB_OP_SUM));
        EXPECT_OK(rmalab_win_flush(W, right)); /* keeps the data staged for this rank */
        EXPECT_OK(rmalab_win_flush(W, rank));
        if (i == 0)
            first = rmalab_debug_live_allocs();
    }
    EXPECT(rmalab_debug_live_allocs() == first,
           "the core holds %ld more allocations after 4000 flushed operations",
           rmalab_debug_live_allocs() - first);
    EXPECT_OK(rmalab_win_unlock_all(W));
    MPI_Barrier(MPI_COMM_WORLD);
    int64_t got[2] = {0, 0};
    EXPECT_OK(rmalab_win_read(W, 0, RMALAB_INT64, 2, got));
    EXPECT(got[0] == 1000 * left + 3999, "the last put from the left holds %lld",
           (long long)got[0]);
    EXPECT(got[1] == 4000LL * 1000 * rank + 3999LL * 4000 / 2, "the sum holds %lld",
           (long long)got[1]);
    tu_end();
}
END_TEST

/* Operations on caller memory (issue 27): nothing is copied, a ticket says
 * when the memory is free again, and a vector shapes the target: a column
 * of a 4x4 matrix of int64 on the right neighbour, put, got back,
 * accumulated into; the footprint is range-checked whole. */
START_TEST(test_caller_memory)
{
    rmalab_win_opts o = {.size = 16 * 8, .disp_unit = 8};
    rmalab_vector col = {4, 1, 4};
    int64_t src[4], back[4] = {0}, sum[4] = {0}, all[16];
    uint64_t t_put = 0, t_get = 0;
    for (int i = 0; i < 4; i++)
        src[i] = 100 * rank + i;
    EXPECT_OK(rmalab_win_allocate(&o, &W, NULL));
    EXPECT_OK(rmalab_win_lock(W, right, false, 0));
    EXPECT_OK(rmalab_win_put_mem(W, right, 1, RMALAB_INT64, 4, src, &col, &t_put));
    EXPECT(t_put != 0 && !rmalab_win_done(W, right, t_put), "a put in flight is not done");
    char by[96];
    rmalab_win_completer(W, right, by, sizeof by);
    EXPECT_CONTAINS(by, "unlock(");
    EXPECT_OK(rmalab_win_flush(W, right));
    EXPECT(rmalab_win_done(W, right, t_put), "flush completes the put");
    EXPECT_OK(rmalab_win_get_mem(W, right, 1, RMALAB_INT64, 4, back, &col, &t_get));
    EXPECT_OK(rmalab_win_accumulate_mem(W, right, 1, RMALAB_INT64, 4, src, RMALAB_OP_SUM,
                                        &col, NULL));
    EXPECT_OK(rmalab_win_get_accumulate_mem(W, right, 0, RMALAB_INT64, 4, src, sum,
                                            RMALAB_OP_NO_OP, NULL, NULL));
    EXPECT_ERR(rmalab_win_put_mem(W, right, 4, RMALAB_INT64, 4, src, &col, NULL),
               RMALAB_ERR_RMA_RANGE, "put to rank");
    EXPECT_ERR(rmalab_win_put_mem(W, right, 0, RMALAB_INT64, 3, src, &col, NULL), RMALAB_ERR_ARG,
               "the vector holds 4 elements");
    rmalab_vector bad = {2, 3, 2};
    EXPECT_ERR(rmalab_win_get_mem(W, right, 0, RMALAB_INT64, 6, back, &bad, NULL),
               RMALAB_ERR_ARG, "stride >= blocklen");
    EXPECT_ERR(rmalab_win_put_mem(W, right, 0, RMALAB_INT64, 1, NULL, NULL, NULL),
               RMALAB_ERR_ARG, "origin buffer is NULL");
    EXPECT_OK(rmalab_win_unlock(W, right));
    EXPECT(rmalab_win_done(W, right, t_get), "unlock completes the get");
    for (int i = 0; i < 4; i++)
        EXPECT(back[i] == src[i], "get with the vector: element %d is %lld", i,
               (long long)back[i]);
    EXPECT(sum[1] == 2 * src[0] && sum[0] == 0, "get_accumulate saw the sum: %lld %lld",
           (long long)sum[0], (long long)sum[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_OK(rmalab_win_read(W, 0, RMALAB_INT64, 16, all));
    for (int i = 0; i < 16; i++) {
        int64_t want = i % 4 == 1 ? 2 * (100 * left + i / 4) : 0;
        EXPECT(all[i] == want, "element %d holds %lld, not %lld", i, (long long)all[i],
               (long long)want);
    }
    MPI_Aint size;
    int unit;
    void *base;
    EXPECT_ERR(rmalab_win_shared_query(W, right, &size, &unit, &base), RMALAB_ERR_WIN,
               "only win_allocate_shared");
    tu_end();
}
END_TEST

/* fetch_and_op and compare_and_swap on caller memory: in flight until the
 * call that completes them, as the other _mem calls; rmalab_win_direct
 * checks its rank and range, and costs nothing on a window neither
 * checked nor recorded. */
START_TEST(test_caller_memory_atomics)
{
    rmalab_win_opts o = {.size = 16, .disp_unit = 8};
    int64_t one = 1, got = -1, cmp = 1, val = 7, old = -1;
    uint64_t t1 = 0, t2 = 0;
    EXPECT_OK(rmalab_win_allocate(&o, &W, NULL));
    EXPECT_OK(rmalab_win_lock(W, right, false, 0));
    EXPECT_OK(rmalab_win_fetch_and_op_mem(W, right, 0, RMALAB_INT64, &one, &got, RMALAB_OP_SUM,
                                          &t1));
    EXPECT(t1 != 0 && !rmalab_win_done(W, right, t1), "a fetch_and_op in flight is not done");
    EXPECT_OK(rmalab_win_flush(W, right));
    EXPECT(rmalab_win_done(W, right, t1) && got == 0, "flush completes it: fetched %lld",
           (long long)got);
    EXPECT_OK(rmalab_win_compare_and_swap_mem(W, right, 0, RMALAB_INT64, &cmp, &val, &old, &t2));
    EXPECT_ERR(rmalab_win_compare_and_swap_mem(W, right, 0, RMALAB_INT64, NULL, &val, &old, NULL),
               RMALAB_ERR_ARG, "compare buffer is NULL");
    EXPECT_ERR(rmalab_win_fetch_and_op_mem(W, right, 0, RMALAB_INT64, &one, NULL, RMALAB_OP_SUM,
                                           NULL),
               RMALAB_ERR_ARG, "result buffer is NULL");
    EXPECT_OK(rmalab_win_unlock(W, right));
    EXPECT(rmalab_win_done(W, right, t2) && old == 1, "unlock completes it: fetched %lld",
           (long long)old);
    EXPECT_OK(rmalab_win_direct(W, rank, 0, RMALAB_INT64, 1, false)); /* unchecked: nothing */
    rmalab_win_free(&W);
    rmalab_info *info;
    EXPECT_OK(rmalab_info_create(&info));
    EXPECT_OK(rmalab_info_set(info, "rmalab_check", "races:quiet"));
    o.info = info;
    EXPECT_OK(rmalab_win_allocate(&o, &W, NULL));
    rmalab_info_destroy(&info);
    EXPECT_ERR(rmalab_win_direct(W, nranks, 0, RMALAB_INT64, 1, true), RMALAB_ERR_RANK,
               "direct store of rank");
    EXPECT_ERR(rmalab_win_direct(W, rank, 12, RMALAB_INT64, 1, false), RMALAB_ERR_RMA_RANGE,
               "outside rank");
    EXPECT_OK(rmalab_win_direct(W, rank, 8, RMALAB_INT64, 1, true));
    tu_end();
}
END_TEST

/* A request-based operation's ticket: its window's flush_local completes
 * it (rmalab_win_done) while its request is still to be waited for, as the
 * C interceptor's watch of its buffers needs. */
START_TEST(test_request_ticket)
{
    rmalab_win_opts o = {.size = 64, .disp_unit = 8};
    int64_t v = rank;
    rmalab_request *q = NULL;
    EXPECT_OK(rmalab_win_allocate(&o, &W, NULL));
    EXPECT_OK(rmalab_win_lock_all(W, 0));
    EXPECT_OK(rmalab_win_rput(W, right, 0, RMALAB_INT64, 1, &v, NULL, &q));
    uint64_t t = rmalab_request_ticket(q);
    EXPECT(t != 0 && !rmalab_win_done(W, right, t), "an rput in flight: ticket %llu",
           (unsigned long long)t);
    EXPECT_OK(rmalab_win_flush_local(W, right));
    EXPECT(rmalab_win_done(W, right, t) && !rmalab_request_done(q),
           "flush_local completes the operation; the request is still to be waited for");
    EXPECT_OK(rmalab_request_wait(q, NULL, NULL, NULL));
    EXPECT(rmalab_request_ticket(q) == t && rmalab_request_ticket(NULL) == 0, "tickets");
    rmalab_request_destroy(&q);
    EXPECT_OK(rmalab_win_unlock_all(W));
    tu_end();
}
END_TEST

/* rmalab_win_get_fresh: a get into memory just allocated for it, to this
 * rank (where no overlap check is made) and to the right, lands as
 * rmalab_win_get_mem's would, with its ticket; a bad rank or range is
 * still refused before MPI sees it. */
START_TEST(test_get_fresh)
{
    rmalab_win_opts o = {.size = 64, .disp_unit = 8};
    EXPECT_OK(rmalab_win_allocate(&o, &W, NULL));
    int64_t *mem = rmalab_win_base(W);
    for (int i = 0; i < 8; i++)
        mem[i] = 100 * rank + i;
    MPI_Barrier(MPI_COMM_WORLD);
    int64_t *own = malloc(2 * sizeof *own), *other = malloc(sizeof *other);
    uint64_t t1 = 0, t2 = 0, t3 = 7;
    EXPECT_OK(rmalab_win_lock_all(W, 0));
    EXPECT_OK(rmalab_win_get_fresh(W, rank, 3, RMALAB_INT64, 2, own, &t1));
    EXPECT_OK(rmalab_win_get_fresh(W, right, 5, RMALAB_INT64, 1, other, &t2));
    EXPECT_ERR(rmalab_win_get_fresh(W, nranks, 0, RMALAB_INT64, 1, other, &t3), RMALAB_ERR_RANK,
               "rank");
    EXPECT_ERR(rmalab_win_get_fresh(W, rank, 7, RMALAB_INT64, 2, own, &t3), RMALAB_ERR_RMA_RANGE,
               "window");
    EXPECT(t1 && t2 && !t3, "tickets %llu %llu, none for a refusal (%llu)",
           (unsigned long long)t1, (unsigned long long)t2, (unsigned long long)t3);
    EXPECT_OK(rmalab_win_unlock_all(W));
    EXPECT(rmalab_win_done(W, rank, t1) && rmalab_win_done(W, right, t2), "completed");
    EXPECT(own[0] == 100 * rank + 3 && own[1] == 100 * rank + 4 && *other == 100 * right + 5,
           "the gets landed: %lld %lld %lld", (long long)own[0], (long long)own[1],
           (long long)*other);
    free(own);
    free(other);
    MPI_Barrier(MPI_COMM_WORLD);
    tu_end();
}
END_TEST

/* rmalab_request_destroy of an RMA request in flight: MPI lets any request
 * be freed, but MPICH 4.0.2's MPI_Request_free refuses an RMA one ("The
 * supplied request was invalid") and ended the job. Now it is completed
 * locally, and the epoch still completes the put at its target. */
START_TEST(test_request_destroy_in_flight)
{
    rmalab_win_opts o = {.size = 64, .disp_unit = 8};
    int64_t v = 40 + rank, got = -1;
    rmalab_request *q = NULL;
    EXPECT_OK(rmalab_win_allocate(&o, &W, NULL));
    EXPECT_OK(rmalab_win_lock_all(W, 0));
    EXPECT_OK(rmalab_win_rput(W, right, 0, RMALAB_INT64, 1, &v, NULL, &q));
    rmalab_request_destroy(&q);
    EXPECT(q == NULL, "the request is gone");
    EXPECT_OK(rmalab_win_unlock_all(W));
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_OK(rmalab_win_lock(W, rank, false, 0));
    EXPECT_OK(rmalab_win_get_mem(W, rank, 0, RMALAB_INT64, 1, &got, NULL, NULL));
    EXPECT_OK(rmalab_win_unlock(W, rank));
    EXPECT(got == 40 + left, "the put landed: %lld", (long long)got);
    tu_end();
}
END_TEST

/* Caller memory that overlaps the target's bytes in this process (its own
 * window, here): MPI forbids it, and MPICH 4.0.2 aborted the job for a
 * put, get, rput or rget to this very rank. Refused before MPI sees it, not
 * counted; the window stays usable. */
START_TEST(test_overlap_self)
{
    rmalab_win_opts o = {.size = 64, .disp_unit = 8};
    EXPECT_OK(rmalab_win_allocate(&o, &W, NULL));
    int64_t *mem = rmalab_win_base(W), one = 1, got = 0;
    uint64_t t = 0;
    rmalab_vector col = {.count = 2, .blocklen = 1, .stride = 4};
    rmalab_request *q = NULL;
    for (int i = 0; i < 8; i++)
        mem[i] = 10 + i;
    EXPECT_OK(rmalab_win_lock_all(W, 0));
    EXPECT_ERR(rmalab_win_put_mem(W, rank, 1, RMALAB_INT64, 2, mem, NULL, NULL), RMALAB_ERR_ARG,
               "its origin buffer overlaps the bytes it reaches in rank");
    EXPECT_ERR(rmalab_win_get_mem(W, rank, 0, RMALAB_INT64, 2, mem + 1, NULL, NULL),
               RMALAB_ERR_ARG, "its result buffer overlaps");
    EXPECT_ERR(rmalab_win_rget(W, rank, 0, RMALAB_INT64, 2, mem, NULL, &q), RMALAB_ERR_ARG,
               "which are this process's own memory");
    EXPECT_ERR(rmalab_win_rput(W, rank, 0, RMALAB_INT64, 2, mem + 4, &col, &q), RMALAB_ERR_ARG,
               "2 blocks of 1 x int64");
    EXPECT_ERR(rmalab_win_accumulate_mem(W, rank, 0, RMALAB_INT64, 1, mem, RMALAB_OP_SUM, NULL,
                                         NULL),
               RMALAB_ERR_ARG, "its origin buffer");
    EXPECT_ERR(rmalab_win_get_accumulate_mem(W, rank, 2, RMALAB_INT64, 1, &one, mem + 2,
                                             RMALAB_OP_SUM, NULL, NULL),
               RMALAB_ERR_ARG, "its result buffer");
    EXPECT_ERR(rmalab_win_fetch_and_op_mem(W, rank, 3, RMALAB_INT64, &one, mem + 3, RMALAB_OP_SUM,
                                           NULL),
               RMALAB_ERR_ARG, "its result buffer");
    EXPECT_ERR(rmalab_win_compare_and_swap_mem(W, rank, 0, RMALAB_INT64, mem, &one, &got, &t),
               RMALAB_ERR_ARG, "its compare buffer");
    EXPECT(q == NULL && t == 0 && ops_in_epoch() == 0, "nothing was issued");
    /* between a vector's blocks, beside the target, a copying put: allowed */
    EXPECT_OK(rmalab_win_put_mem(W, rank, 0, RMALAB_INT64, 2, mem + 1, &col, NULL));
    EXPECT_OK(rmalab_win_put_mem(W, rank, 5, RMALAB_INT64, 1, mem + 7, NULL, NULL));
    EXPECT_OK(rmalab_win_put(W, rank, 3, RMALAB_INT64, 1, mem + 3)); /* staged */
    EXPECT_OK(rmalab_win_unlock_all(W));
    EXPECT(mem[0] == 11 && mem[4] == 12 && mem[5] == 17 && mem[3] == 13,
           "the allowed puts landed: %lld %lld %lld", (long long)mem[0], (long long)mem[4],
           (long long)mem[5]);
    /* a dynamic window: the displacement is the attached memory's address */
    rmalab_win_free(&W);
    rmalab_win_opts dyn = {0};
    MPI_Aint at = 0;
    EXPECT_OK(rmalab_win_create_dynamic(&dyn, &W, NULL));
    EXPECT_OK(rmalab_win_attach(W, 32, &at));
    EXPECT_OK(rmalab_win_lock_all(W, 0));
    EXPECT_ERR(rmalab_win_get_mem(W, rank, at + 8, RMALAB_INT64, 2, (int64_t *)at, NULL, NULL),
               RMALAB_ERR_ARG, "its result buffer overlaps");
    EXPECT_OK(rmalab_win_get_mem(W, rank, at + 16, RMALAB_INT64, 2, (int64_t *)at, NULL, NULL));
    EXPECT_OK(rmalab_win_unlock_all(W));
    tu_end();
}
END_TEST

Suite *rma_suite(void)
{
    Suite *s = suite_create("rma");
    TCase *tc = tcase_create("checks");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_ranges);
    suite_add_tcase(s, tc);

    tc = tcase_create("operations");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_put_get_types);
    tcase_add_test(tc, test_accumulate_matrix);
    tcase_add_test(tc, test_atomics);
    tcase_add_test(tc, test_caller_memory);
    tcase_add_test(tc, test_caller_memory_atomics);
    tcase_add_test(tc, test_overlap_self);
    tcase_add_test(tc, test_get_fresh);
    tcase_add_test(tc, test_request_ticket);
    tcase_add_test(tc, test_request_destroy_in_flight);
    suite_add_tcase(s, tc);

    tc = tcase_create("results");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_results);
    suite_add_tcase(s, tc);

    /* Regressions of defects these suites found, now fixed or refused. */
    tc = tcase_create("regressions");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_unsigned_max_min);
    tcase_add_test(tc, test_huge_displacement);
    tcase_add_test(tc, test_staging_flushed);
    suite_add_tcase(s, tc);
    return s;
}
