/* The "win" suite: windows of the four flavours (core/src/win.c) -- creation
 * options and the properties they give, argument checks, user memory and its
 * alignment, hint diagnostics, dynamic attachment, local reads and writes,
 * and the ring that guards against MPICH 4.0.2 + UCX rounding window bases
 * down to 16 bytes. Runs on any number of ranks from two. Window calls are
 * collective, so the tests use the soft checks of testutil.h: every rank
 * makes every collective call and a test fails at its end. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* The flavours as the ring and the property tests see them: create with
 * core-allocated memory and with user memory are told apart. */
enum { F_CREATE, F_CREATE_USER, F_ALLOCATE, F_SHARED, F_DYNAMIC, NFLAVOURS };

static const char *const fl_names[NFLAVOURS] = {
    "create", "create(user memory)", "allocate", "allocate_shared", "dynamic",
};

static const rmalab_flavor fl_flavor[NFLAVOURS] = {
    RMALAB_FLAVOR_CREATE, RMALAB_FLAVOR_CREATE, RMALAB_FLAVOR_ALLOCATE, RMALAB_FLAVOR_SHARED,
    RMALAB_FLAVOR_DYNAMIC,
};

static const int fl_mpi_flavor[NFLAVOURS] = {
    MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_ALLOCATE,
    MPI_WIN_FLAVOR_SHARED, MPI_WIN_FLAVOR_DYNAMIC,
};

static int make_win(int fl, const rmalab_win_opts *o, rmalab_win **w, rmalab_diags *d)
{
    switch (fl) {
    case F_CREATE:
    case F_CREATE_USER: return rmalab_win_create(o, w, d);
    case F_ALLOCATE: return rmalab_win_allocate(o, w, d);
    case F_SHARED: return rmalab_win_allocate_shared(o, w, d);
    default: return rmalab_win_create_dynamic(o, w, d);
    }
}

static MPI_Aint round16(MPI_Aint n)
{
    return (n + 15) / 16 * 16;
}

/* ------------------------------------------------------------------------ */
/* Creation and properties                                                  */

static const MPI_Aint prop_sizes[] = {24, 40, 8, 56};
static const int prop_units[] = {4, 8, 1, 2};

/* Loop index: flavour * 2 + variant. Variant 0: comm NULL, no name.
 * Variant 1: a duplicate of a communicator that numbers the ranks
 * backwards, freed right after creation, and a name. Every rank gives its
 * own size and disp_unit. */
START_TEST(test_properties)
{
    int fl = _i / 2, variant = _i % 2;
    int wrank = tu_rank(), n = tu_size();
    rmalab_comm *c = NULL;
    MPI_Comm rev = MPI_COMM_NULL;
    rmalab_info *hints = tu_info("accumulate_ops", "same_op", NULL), *eff = NULL;
    rmalab_diags diags;
    rmalab_win *w = NULL;
    unsigned char *user = NULL;
    int rank = variant ? n - 1 - wrank : wrank; /* rank in the window */
    /* Dynamic windows address bytes: disp_unit is 1 (test_dynamic_disp_unit). */
    rmalab_win_opts o = {.size = prop_sizes[rank % 4],
                         .disp_unit = fl == F_DYNAMIC ? 1 : prop_units[rank % 4],
                         .info = hints, .name = variant ? "props-window" : NULL};
    tu_begin();
    rmalab_diags_init(&diags);
    if (fl == F_CREATE_USER) {
        user = aligned_alloc(64, 64);
        ck_assert_ptr_nonnull(user);
        memset(user, 0x5A, 64);
        o.base = user;
    }
    if (variant) {
        rmalab_comm *wrapped = NULL;
        MPI_Comm_split(MPI_COMM_WORLD, 0, n - wrank, &rev); /* collective */
        EXPECT_OK(rmalab_comm_wrap(rev, &wrapped));
        EXPECT_OK(rmalab_comm_dup(wrapped, NULL, &c, NULL)); /* collective */
        rmalab_comm_free(&wrapped);
        o.comm = c;
    }
    int rc = make_win(fl, &o, &w, &diags); /* collective */
    if (variant) {
        /* The window keeps its own communicator. */
        EXPECT_OK(rmalab_comm_free(&c));
        MPI_Comm_free(&rev);
    }
    EXPECT(rc == RMALAB_OK, "%s: %s", fl_names[fl], rmalab_errmsg());
    EXPECT_INT_EQ(diags.count, 0);

    if (w) {
        MPI_Aint want = fl == F_DYNAMIC ? 0 : prop_sizes[rank % 4];
        EXPECT_INT_EQ(rmalab_win_size(w), want);
        if (fl != F_DYNAMIC) /* dynamic windows: see test_dynamic_disp_unit */
            EXPECT_INT_EQ(rmalab_win_disp_unit(w), prop_units[rank % 4]);
        EXPECT_INT_EQ(rmalab_win_flavor(w), fl_flavor[fl]);
        EXPECT_INT_EQ(rmalab_win_rank(w), rank);
        EXPECT_INT_EQ(rmalab_win_group_size(w), n);
        EXPECT_STR_EQ(rmalab_win_get_name(w), variant ? "props-window" : "");
        for (int q = 0; q < n; q++) {
            EXPECT_INT_EQ(rmalab_win_size_of(w, q), fl == F_DYNAMIC ? 0 : prop_sizes[q % 4]);
            if (fl != F_DYNAMIC)
                EXPECT_INT_EQ(rmalab_win_disp_unit_of(w, q), prop_units[q % 4]);
            EXPECT_INT_EQ(rmalab_win_world_ranks(w)[q], variant ? n - 1 - q : q);
        }
        EXPECT_INT_EQ(rmalab_win_size_of(w, -1), -1);
        EXPECT_INT_EQ(rmalab_win_size_of(w, n), -1);
        EXPECT_INT_EQ(rmalab_win_disp_unit_of(w, n), -1);

        /* What MPI says about the window. */
        MPI_Win mw = rmalab_win_mpi(w);
        int flag = 0, *pflavor = NULL, *pmodel = NULL, len = 0;
        void *pbase = NULL;
        char mname[MPI_MAX_OBJECT_NAME] = "";
        MPI_Win_get_attr(mw, MPI_WIN_CREATE_FLAVOR, &pflavor, &flag);
        EXPECT(flag && *pflavor == fl_mpi_flavor[fl], "%s: MPI flavour %d", fl_names[fl],
               flag ? *pflavor : -1);
        MPI_Win_get_attr(mw, MPI_WIN_MODEL, &pmodel, &flag);
        EXPECT(flag && *pmodel == rmalab_win_model(w), "model %d, MPI says %d",
               rmalab_win_model(w), flag ? *pmodel : -1);
        EXPECT(rmalab_win_model(w) == MPI_WIN_UNIFIED || rmalab_win_model(w) == MPI_WIN_SEPARATE,
               "model %d", rmalab_win_model(w));
        MPI_Win_get_name(mw, mname, &len);
        EXPECT_STR_EQ(mname, variant ? "props-window" : "");
        if (fl != F_DYNAMIC) {
            unsigned char *base = rmalab_win_base(w);
            MPI_Win_get_attr(mw, MPI_WIN_BASE, &pbase, &flag);
            EXPECT(flag && pbase == (void *)base, "MPI_WIN_BASE %p, base %p", pbase,
                   (void *)base);
            EXPECT((uintptr_t)base % 16 == 0, "%s: base %p is not 16-byte aligned",
                   fl_names[fl], (void *)base);
            if (fl == F_CREATE)
                EXPECT((uintptr_t)base % 64 == 0, "core memory %p is not 64-byte aligned",
                       (void *)base);
            if (fl == F_CREATE_USER) {
                EXPECT(base == user, "user memory %p, base %p", (void *)user, (void *)base);
                EXPECT(base[0] == 0x5A, "user memory changed: %#x", base[0]); /* not zeroed */
            } else {
                int nonzero = 0;
                for (MPI_Aint i = 0; i < round16(want); i++)
                    nonzero += base[i] != 0;
                EXPECT(nonzero == 0, "%s: %d bytes of fresh memory are not zero", fl_names[fl],
                       nonzero);
            }
        } else {
            EXPECT(rmalab_win_base(w) == NULL || rmalab_win_base(w) == MPI_BOTTOM,
                   "dynamic base %p", rmalab_win_base(w));
        }
        EXPECT_OK(rmalab_win_get_info(w, &eff));
        EXPECT_STR_EQ(tu_get(eff, "accumulate_ops"), "same_op");
        EXPECT_STR_EQ(tu_get(eff, "rmalab_pscw"), "native");
    }

    /* The window works through its own communicator, in its own numbering:
     * everyone writes its window rank into window rank 0 at 4 x its rank. */
    if (fl != F_DYNAMIC && variant) {
        int32_t mine = 1000 + rank;
        int32_t got[8] = {0};
        int du0 = prop_units[0];
        EXPECT_OK(rmalab_win_fence(w, RMALAB_MODE_NOPRECEDE));
        if (4 * (rank + 1) <= prop_sizes[0] && (4 * rank) % du0 == 0)
            EXPECT_OK(rmalab_win_put(w, 0, 4 * rank / du0, RMALAB_INT32, 1, &mine));
        EXPECT_OK(rmalab_win_fence(w, RMALAB_MODE_NOSUCCEED));
        if (rank == 0) {
            EXPECT_OK(rmalab_win_read(w, 0, RMALAB_INT32, 6, got));
            for (int q = 0; q < n && 4 * (q + 1) <= prop_sizes[0]; q++)
                EXPECT_INT_EQ(got[q], 1000 + q);
        }
    }

    EXPECT_OK(rmalab_win_free(&w)); /* collective */
    EXPECT(w == NULL, "free left the pointer set");
    rmalab_info_destroy(&eff);
    rmalab_info_destroy(&hints);
    rmalab_diags_clear(&diags);
    free(user);
    tu_end();
}
END_TEST

/* Only a size: disp_unit 1, no name, MPI_COMM_WORLD. */
START_TEST(test_defaults)
{
    rmalab_win *w = NULL;
    rmalab_win_opts o = {.size = 16};
    tu_begin();
    EXPECT_OK(rmalab_win_allocate(&o, &w, NULL)); /* collective */
    EXPECT_INT_EQ(rmalab_win_size(w), 16);
    EXPECT_INT_EQ(rmalab_win_disp_unit(w), 1);
    EXPECT_INT_EQ(rmalab_win_flavor(w), RMALAB_FLAVOR_ALLOCATE);
    EXPECT_INT_EQ(rmalab_win_group_size(w), tu_size());
    EXPECT_STR_EQ(rmalab_win_get_name(w), "");
    EXPECT_INT_EQ(rmalab_win_size_of(w, 1), 16);
    EXPECT_INT_EQ(rmalab_win_disp_unit_of(w, 1), 1);
    EXPECT_OK(rmalab_win_set_name(w, "renamed"));
    EXPECT_STR_EQ(rmalab_win_get_name(w), "renamed");
    char longname[200], mname[MPI_MAX_OBJECT_NAME] = "";
    int len = 0;
    MPI_Win_get_name(rmalab_win_mpi(w), mname, &len);
    EXPECT_STR_EQ(mname, "renamed");
    EXPECT_ERR(rmalab_win_set_name(w, tu_fill(longname, 'n', 150)), RMALAB_ERR_ARG,
               "names hold at most 127 characters");
    EXPECT_ERR(rmalab_win_set_name(w, NULL), RMALAB_ERR_ARG, "set_name: name is NULL");
    EXPECT_STR_EQ(rmalab_win_get_name(w), "renamed");
    EXPECT_OK(rmalab_win_free(&w));
    tu_end();
}
END_TEST

/* Regression: zero-byte windows. (1) win_create of a zero-byte window fails
 * with ERR_WIN ("MPI_WIN_BASE does not match the memory on this rank"),
 * also with no options at all (rmalab_win_create(NULL, ...), whose default
 * size is 0): MPICH 4.0.2 reports MPI_WIN_BASE = NULL for a window of size
 * 0, and core/src/win.c win_new compares it with the core or user memory it
 * passed. (2) win_allocate and win_allocate_shared of 0 bytes get base NULL
 * from MPICH and then call memset(NULL, 0, 0) (core/src/win.c, the memset
 * after MPI_Win_set_errhandler): undefined behaviour, which UBSan stops in
 * ./do asan. Expected: RMALAB_OK and a window of size 0 in every flavour,
 * that takes RMA calls of 0 bytes and rejects any other. */
START_TEST(test_zero_size)
{
    rmalab_win *w = NULL, *u = NULL, *a = NULL;
    unsigned char *mem = aligned_alloc(64, 64);
    rmalab_win_opts o = {.size = 0, .base = mem}, ao = {.size = 0};
    char b = 1;
    ck_assert_ptr_nonnull(mem);
    tu_begin();
    EXPECT_OK(rmalab_win_create(NULL, &w, NULL));
    EXPECT_OK(rmalab_win_create(&o, &u, NULL));
    EXPECT_OK(rmalab_win_allocate(&ao, &a, NULL));
    EXPECT_INT_EQ(rmalab_win_size(w), 0);
    EXPECT_INT_EQ(rmalab_win_size(u), 0);
    EXPECT_INT_EQ(rmalab_win_size_of(a, 1), 0);
    EXPECT_OK(rmalab_win_fence(a, 0));
    EXPECT_ERR(rmalab_win_put(a, 1, 0, RMALAB_BYTE, 1, &b), RMALAB_ERR_RMA_RANGE,
               "put to rank 1: 1 x byte (1 bytes) do not fit in rank 1's window of 0 bytes");
    EXPECT_OK(rmalab_win_put(a, 1, 0, RMALAB_BYTE, 0, &b));
    EXPECT_OK(rmalab_win_fence(a, RMALAB_MODE_NOSUCCEED));
    EXPECT_OK(rmalab_win_free(&w));
    EXPECT_OK(rmalab_win_free(&u));
    EXPECT_OK(rmalab_win_free(&a));
    free(mem);
    tu_end();
}
END_TEST

/* Checks that fail before any collective call: every rank fails alike. */
START_TEST(test_bad_arguments)
{
    rmalab_win *w = NULL;
    rmalab_win_opts o = {.size = 16};
    unsigned char *mem = aligned_alloc(64, 128);
    ck_assert_ptr_nonnull(mem);
    tu_begin();
    EXPECT_ERR(rmalab_win_allocate(&o, NULL, NULL), RMALAB_ERR_ARG, "out is NULL");
    o.size = -1;
    EXPECT_ERR(rmalab_win_allocate(&o, &w, NULL), RMALAB_ERR_ARG, "size -1 is negative");
    EXPECT_ERR(rmalab_win_create(&o, &w, NULL), RMALAB_ERR_ARG, "negative");
    EXPECT_ERR(rmalab_win_allocate_shared(&o, &w, NULL), RMALAB_ERR_ARG, "negative");
    o.size = 16;
    o.disp_unit = -4;
    EXPECT_ERR(rmalab_win_allocate(&o, &w, NULL), RMALAB_ERR_ARG, "disp_unit -4 is negative");
    o.disp_unit = 0;
    o.base = mem;
    EXPECT_ERR(rmalab_win_allocate(&o, &w, NULL), RMALAB_ERR_ARG,
               "only win_create takes user memory");
    EXPECT_ERR(rmalab_win_allocate_shared(&o, &w, NULL), RMALAB_ERR_ARG,
               "only win_create takes user memory");
    EXPECT_ERR(rmalab_win_create_dynamic(&o, &w, NULL), RMALAB_ERR_ARG,
               "only win_create takes user memory");
    /* Unaligned user memory, on every rank. */
    for (int off = 1; off < 16; off += 7) { /* 1 and 8 */
        o.base = mem + off;
        EXPECT_ERR(rmalab_win_create(&o, &w, NULL), RMALAB_ERR_ARG, "not 16-byte aligned");
        EXPECT_CONTAINS(rmalab_errmsg(), "aligned_alloc(16");
        EXPECT(w == NULL, "a window came back from a rejected create");
    }
    EXPECT(rmalab_win_free(NULL) == RMALAB_OK, "free(NULL)");
    EXPECT_OK(rmalab_win_free(&w));

    /* Getters on no window. */
    EXPECT(rmalab_win_base(NULL) == NULL, "base(NULL)");
    EXPECT_INT_EQ(rmalab_win_size(NULL), 0);
    EXPECT_INT_EQ(rmalab_win_rank(NULL), -1);
    EXPECT_INT_EQ(rmalab_win_group_size(NULL), 0);
    EXPECT_INT_EQ(rmalab_win_size_of(NULL, 0), -1);
    EXPECT(rmalab_win_mpi(NULL) == MPI_WIN_NULL, "mpi(NULL)");
    EXPECT(rmalab_win_world_ranks(NULL) == NULL, "world_ranks(NULL)");
    EXPECT_ERR(rmalab_win_set_name(NULL, "x"), RMALAB_ERR_WIN, "NULL or freed");
    EXPECT_ERR(rmalab_win_attach(NULL, 8, &(MPI_Aint){0}), RMALAB_ERR_WIN, "NULL or freed");
    EXPECT_ERR(rmalab_win_read(NULL, 0, RMALAB_BYTE, 1, mem), RMALAB_ERR_WIN, "NULL or freed");
    EXPECT_ERR(rmalab_win_fence(NULL, 0), RMALAB_ERR_WIN, "NULL or freed");
    EXPECT_ERR(rmalab_win_put(NULL, 0, 0, RMALAB_BYTE, 1, mem), RMALAB_ERR_WIN, "NULL or freed");
    free(mem);
    tu_end();
}
END_TEST

/* Arguments wrong on one rank: that rank takes part, so every rank's
 * creation fails (the others' message says another rank failed) and the
 * next creation meets; rmalab_win_take_part does the same for a binding's
 * own checks. Before, the others waited in the creation for good. */
START_TEST(test_bad_arguments_one_rank)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    tu_begin();
    for (int fl = 0; fl < NFLAVOURS; fl++) {
        if (fl == F_CREATE_USER)
            continue;
        rmalab_win *w = NULL;
        rmalab_win_opts o = {.size = 16, .disp_unit = rank == 1 ? -4 : 0};
        EXPECT_INT_EQ(make_win(fl, &o, &w, NULL), RMALAB_ERR_ARG);
        EXPECT_CONTAINS(rmalab_errmsg(),
                        rank == 1 ? "disp_unit -4 is negative" : "another rank failed");
        EXPECT(w == NULL, "a window came back from a failed creation");
        o.disp_unit = 0;
        int rc = rank == 1 ? rmalab_win_take_part(fl_flavor[fl], &o,
                                                  rmalab_set_error(RMALAB_ERR_INFO_KEY, "bad key"))
                           : make_win(fl, &o, &w, NULL);
        EXPECT_INT_EQ(rc, RMALAB_ERR_INFO_KEY);
        EXPECT_CONTAINS(rmalab_errmsg(), rank == 1 ? "bad key" : "another rank failed");
        EXPECT(w == NULL, "a window came back from a failed creation");
        EXPECT_OK(make_win(fl, &o, &w, NULL)); /* the next creation meets */
        EXPECT_OK(rmalab_win_free(&w));
    }
    EXPECT_INT_EQ(rmalab_win_take_part(RMALAB_FLAVOR_ALLOCATE, NULL, RMALAB_OK), RMALAB_ERR_ARG);
    tu_end();
}
END_TEST

/* 16-byte-aligned user memory that is not 64-byte aligned is accepted; the
 * core neither zeroes nor frees it, and remote puts land in it. */
START_TEST(test_user_memory)
{
    int rank = tu_rank(), n = tu_size(), right = (rank + 1) % n, left = (rank + n - 1) % n;
    unsigned char *mem = aligned_alloc(64, 128);
    rmalab_win *w = NULL;
    ck_assert_ptr_nonnull(mem);
    memset(mem, 0xEE, 128);
    rmalab_win_opts o = {.size = 32, .base = mem + 16, .disp_unit = 4};
    tu_begin();
    EXPECT_OK(rmalab_win_create(&o, &w, NULL));
    EXPECT(rmalab_win_base(w) == mem + 16, "base %p, memory %p", rmalab_win_base(w),
           (void *)(mem + 16));
    EXPECT(mem[16] == 0xEE && mem[47] == 0xEE, "the core wrote into user memory");
    uint32_t v[2] = {0x01020304u + (uint32_t)rank, 0xA0B0C0D0u};
    EXPECT_OK(rmalab_win_fence(w, 0));
    EXPECT_OK(rmalab_win_put(w, right, 7, RMALAB_UINT32, 1, v)); /* last element */
    EXPECT_OK(rmalab_win_put(w, right, 1, RMALAB_UINT32, 2, v));
    EXPECT_OK(rmalab_win_fence(w, RMALAB_MODE_NOSUCCEED));
    uint32_t got[8];
    memcpy(got, mem + 16, 32);
    EXPECT_INT_EQ(got[7], 0x01020304u + (uint32_t)left);
    EXPECT_INT_EQ(got[1], 0x01020304u + (uint32_t)left);
    EXPECT_INT_EQ(got[2], 0xA0B0C0D0u);
    EXPECT_INT_EQ(got[0], 0xEEEEEEEEu);
    EXPECT(mem[15] == 0xEE && mem[48] == 0xEE, "bytes around the window changed");
    EXPECT_OK(rmalab_win_free(&w));
    free(mem); /* still ours: the core must not have freed it (ASan) */
    tu_end();
}
END_TEST

/* Hints MPICH must not see: a list with an unknown op (MPICH 4.0.2 aborts on
 * "sum,foo"), the rma PSCW engine, a typo. */
START_TEST(test_hint_diagnostics)
{
    rmalab_info *hints = tu_info("which_accumulate_ops", "sum,foo", "rmalab_pscw", "fast",
                                 "no_lock", "true", "same_size", "true", NULL);
    rmalab_info *eff = NULL, *later = tu_info("which_accumulate_ops", "sum", NULL);
    rmalab_diags diags, later_diags;
    rmalab_hints_report *report = NULL;
    rmalab_epoch_state s;
    rmalab_win *w = NULL;
    rmalab_win_opts o = {.size = 16, .info = hints};
    int64_t one = 1, total = 0;
    tu_begin();
    rmalab_diags_init(&diags);
    rmalab_diags_init(&later_diags);
    EXPECT_OK(rmalab_win_allocate(&o, &w, &diags)); /* collective */
    EXPECT_INT_EQ(diags.count, 3);
    const rmalab_diag *d = tu_diag(&diags, "which_accumulate_ops");
    EXPECT(d != NULL, "no diagnostic for which_accumulate_ops");
    if (d) {
        EXPECT_CONTAINS(d->message, "\"foo\" is not one of");
        EXPECT_CONTAINS(d->message, "not passed on");
    }
    d = tu_diag(&diags, "rmalab_pscw");
    EXPECT(d != NULL, "no diagnostic for rmalab_pscw");
    if (d)
        EXPECT_CONTAINS(d->message, "must be one of native, rma");
    d = tu_diag(&diags, "no_lock");
    EXPECT(d != NULL, "no diagnostic for the typo");
    if (d)
        EXPECT_CONTAINS(d->message, "did you mean no_locks?");
    EXPECT(tu_diag(&diags, "same_size") == NULL, "same_size is valid");

    EXPECT_OK(rmalab_win_get_info(w, &eff));
    EXPECT_STR_EQ(tu_get(eff, "rmalab_pscw"), "native");
    EXPECT_STR_EQ(tu_get(eff, "same_size"), "true");
    rmalab_win_state(w, &s);
    EXPECT_STR_EQ(s.engine, "native");
    EXPECT_OK(rmalab_win_hints(w, &report));
    if (report) {
        const rmalab_hint_row *row = tu_row(report, "which_accumulate_ops");
        EXPECT(row && row->status == RMALAB_HINT_IGNORED, "which_accumulate_ops row");
        row = tu_row(report, "same_size");
        EXPECT(row && row->status == RMALAB_HINT_APPLIED, "same_size row");
    }
    /* Creation-only keys are diagnosed in set_info too (collective). */
    EXPECT_OK(rmalab_win_set_info(w, later, &later_diags));
    EXPECT_INT_EQ(later_diags.count, 1);
    if (later_diags.count)
        EXPECT_CONTAINS(later_diags.items[0].message, "read only when the window is created");

    /* The window works: every rank adds one on rank 0. */
    EXPECT_OK(rmalab_win_fence(w, 0));
    EXPECT_OK(rmalab_win_accumulate(w, 0, 0, RMALAB_INT64, 1, &one, RMALAB_OP_SUM));
    EXPECT_OK(rmalab_win_fence(w, RMALAB_MODE_NOSUCCEED));
    if (tu_rank() == 0) {
        EXPECT_OK(rmalab_win_read(w, 0, RMALAB_INT64, 1, &total));
        EXPECT_INT_EQ(total, tu_size());
    }
    EXPECT_OK(rmalab_win_free(&w));
    rmalab_hints_report_destroy(report);
    rmalab_info_destroy(&eff);
    rmalab_info_destroy(&hints);
    rmalab_info_destroy(&later);
    rmalab_diags_clear(&diags);
    rmalab_diags_clear(&later_diags);
    tu_end();
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Local memory                                                             */

START_TEST(test_local_read_write)
{
    rmalab_win *w = NULL;
    rmalab_win_opts o = {.size = 20, .disp_unit = 4};
    int32_t in[5] = {1, -2, 3, -4, 5}, out[6] = {0};
    tu_begin();
    EXPECT_OK(rmalab_win_allocate(&o, &w, NULL));
    EXPECT_OK(rmalab_win_write(w, 0, RMALAB_INT32, 5, in));
    EXPECT_OK(rmalab_win_read(w, 0, RMALAB_INT32, 5, out));
    EXPECT(memcmp(in, out, sizeof in) == 0, "read back differs");
    EXPECT_OK(rmalab_win_read(w, 4, RMALAB_INT32, 1, out));
    EXPECT_INT_EQ(out[0], 5);
    int16_t halves[2] = {0, 0};
    EXPECT_OK(rmalab_win_read(w, 3, RMALAB_INT16, 2, halves)); /* units of 4 bytes */
    EXPECT_INT_EQ(halves[0], -4);
    EXPECT_INT_EQ(halves[1], -1);
    EXPECT_OK(rmalab_win_read(w, 5, RMALAB_INT32, 0, out)); /* empty, at the end */
    EXPECT_ERR(rmalab_win_read(w, 4, RMALAB_INT32, 2, out), RMALAB_ERR_RMA_RANGE,
               "outside this rank's window of 20 bytes");
    EXPECT_ERR(rmalab_win_write(w, 5, RMALAB_INT8, 1, in), RMALAB_ERR_RMA_RANGE,
               "displacement 5 (byte 20)");
    EXPECT_ERR(rmalab_win_read(w, -1, RMALAB_INT8, 1, out), RMALAB_ERR_RMA_RANGE, "outside");
    EXPECT_ERR(rmalab_win_read(w, 0, RMALAB_INT8, -1, out), RMALAB_ERR_ARG, "negative");
    EXPECT_ERR(rmalab_win_read(w, 0, RMALAB_NTYPES, 1, out), RMALAB_ERR_TYPE, "unknown type");
    EXPECT_OK(rmalab_win_read(w, 0, RMALAB_INT32, 5, out));
    EXPECT(memcmp(in, out, sizeof in) == 0, "a rejected write changed the window");
    EXPECT_OK(rmalab_win_free(&w));
    tu_end();
}
END_TEST

/* Regression: rmalab_win_read/write (core/src/win.c local_bytes) computed
 * disp * disp_unit and off + n without guarding against overflow, unlike
 * rmalab__sync_check_op: with disp_unit 4, disp 2^62 wraps to byte 0 and is read
 * as if it were in range (ERR_RMA_RANGE expected); with disp_unit 1,
 * disp = MPI_AINT max makes off + n overflow and the read dereferences
 * base + 2^63 - 1. Signed overflow is undefined (UBSan stops ./do asan). */
START_TEST(test_local_overflow)
{
    rmalab_win *w = NULL;
    rmalab_win_opts o = {.size = 16, .disp_unit = 4};
    unsigned char out[8];
    tu_begin();
    EXPECT_OK(rmalab_win_allocate(&o, &w, NULL));
    EXPECT_ERR(rmalab_win_read(w, (MPI_Aint)1 << 62, RMALAB_INT8, 1, out), RMALAB_ERR_RMA_RANGE,
               "outside");
    EXPECT_ERR(rmalab_win_write(w, (MPI_Aint)1 << 62, RMALAB_INT8, 1, out),
               RMALAB_ERR_RMA_RANGE, "outside");
    EXPECT_OK(rmalab_win_free(&w));
    tu_end();
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Dynamic windows                                                          */

START_TEST(test_dynamic)
{
    int rank = tu_rank(), n = tu_size(), right = (rank + 1) % n, left = (rank + n - 1) % n;
    rmalab_win *w = NULL, *a = NULL;
    rmalab_win_opts o = {.size = -5}; /* ignored for dynamic windows */
    rmalab_win_opts ao = {.size = 16};
    MPI_Aint addr[2] = {0, 0}, *all = calloc((size_t)n, sizeof *all);
    int64_t v = 4200 + rank, got[2] = {0, 0};
    tu_begin();
    EXPECT_OK(rmalab_win_create_dynamic(&o, &w, NULL));
    EXPECT_OK(rmalab_win_allocate(&ao, &a, NULL));
    EXPECT_INT_EQ(rmalab_win_size(w), 0);
    EXPECT_ERR(rmalab_win_attach(a, 16, &addr[0]), RMALAB_ERR_RMA_FLAVOR,
               "only dynamic windows");
    EXPECT_ERR(rmalab_win_detach(a, 0), RMALAB_ERR_RMA_FLAVOR, "not dynamic");
    EXPECT_ERR(rmalab_win_attach(w, 0, &addr[0]), RMALAB_ERR_ARG, "must be positive");
    EXPECT_OK(rmalab_win_attach(w, 24, &addr[0]));
    EXPECT_OK(rmalab_win_attach(w, 8, &addr[1]));
    EXPECT(addr[0] % 16 == 0 && addr[1] % 16 == 0, "attached memory is not aligned");
    EXPECT_ERR(rmalab_win_detach(w, addr[0] + 1), RMALAB_ERR_RMA_ATTACH,
               "use the address attach() returned");
    /* Local access goes by address, within one region. */
    int64_t x = -7;
    EXPECT_OK(rmalab_win_write(w, addr[1], RMALAB_INT64, 1, &x));
    EXPECT_OK(rmalab_win_read(w, addr[1], RMALAB_INT64, 1, &got[0]));
    EXPECT_INT_EQ(got[0], -7);
    EXPECT_ERR(rmalab_win_read(w, addr[0] + 16, RMALAB_INT64, 2, got), RMALAB_ERR_RMA_RANGE,
               "not inside memory attached");
    EXPECT_ERR(rmalab_win_read(w, 0, RMALAB_INT8, 1, got), RMALAB_ERR_RMA_RANGE,
               "not inside memory attached");
    MPI_Allgather(&addr[0], 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);

    /* Ranks are checked, displacements cannot be. */
    EXPECT_OK(rmalab_win_fence(w, 0));
    EXPECT_ERR(rmalab_win_put(w, n, all[0], RMALAB_INT64, 1, &v), RMALAB_ERR_RANK, "ranks 0 to");
    EXPECT_OK(rmalab_win_put(w, right, all[right] + 16, RMALAB_INT64, 1, &v));
    EXPECT_OK(rmalab_win_fence(w, RMALAB_MODE_NOSUCCEED));
    EXPECT_OK(rmalab_win_read(w, addr[0] + 16, RMALAB_INT64, 1, &got[1]));
    EXPECT_INT_EQ(got[1], 4200 + left);

    EXPECT_OK(rmalab_win_detach(w, addr[1]));
    EXPECT_ERR(rmalab_win_detach(w, addr[1]), RMALAB_ERR_RMA_ATTACH, "no memory");
    EXPECT_ERR(rmalab_win_read(w, addr[1], RMALAB_INT64, 1, got), RMALAB_ERR_RMA_RANGE,
               "not inside");
    /* addr[0] stays attached: free takes it back (ASan: no leak). */
    EXPECT_OK(rmalab_win_free(&a));
    EXPECT_OK(rmalab_win_free(&w));
    free(all);
    tu_end();
}
END_TEST

/* The program's own memory (MPI_Win_attach's form, rmalab run's): at an
 * odd address, put by the neighbour in a fence epoch, lands on its bytes
 * and none beside them (MPICH rounds no attached address); overlapping
 * memory and NULL are refused; detach leaves the memory to its owner. */
START_TEST(test_dynamic_user_memory)
{
    int rank = tu_rank(), n = tu_size(), right = (rank + 1) % n, left = (rank + n - 1) % n;
    rmalab_win *w = NULL;
    unsigned char *mem = calloc(64, 1), *p = mem + 5;
    MPI_Aint mine = 0, *all = calloc((size_t)n, sizeof *all);
    int32_t v = 0x5150 + rank, got = 0;
    tu_begin();
    EXPECT_OK(rmalab_win_create_dynamic(&(rmalab_win_opts){0}, &w, NULL));
    EXPECT_ERR(rmalab_win_attach_memory(w, NULL, 8), RMALAB_ERR_ARG, "NULL");
    EXPECT_ERR(rmalab_win_attach_memory(w, p, -1), RMALAB_ERR_ARG, "zero or more");
    EXPECT_OK(rmalab_win_attach_memory(w, p, 16));
    EXPECT_ERR(rmalab_win_attach_memory(w, p + 15, 8), RMALAB_ERR_RMA_ATTACH, "overlap");
    MPI_Get_address(p, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
    EXPECT_OK(rmalab_win_fence(w, 0));
    EXPECT_OK(rmalab_win_put(w, right, all[right] + 4, RMALAB_INT32, 1, &v));
    EXPECT_ERR(rmalab_win_put(w, right, all[right] + 14, RMALAB_INT32, 1, &v),
               RMALAB_ERR_RMA_RANGE, "is not inside memory rank");
    EXPECT_OK(rmalab_win_fence(w, RMALAB_MODE_NOSUCCEED));
    memcpy(&got, p + 4, sizeof got);
    EXPECT_INT_EQ(got, 0x5150 + left);
    int stray = 0;
    for (int i = 0; i < 64; i++)
        stray += (i < 9 || i >= 13) && mem[i];
    EXPECT_INT_EQ(stray, 0);
    EXPECT_OK(rmalab_win_detach(w, mine));
    p[0] = 1; /* still the program's (ASan: not freed) */
    EXPECT_OK(rmalab_win_free(&w));
    free(all);
    free(mem);
    tu_end();
}
END_TEST

/* Regression: MPI uses 1 for dynamic windows (displacements are addresses),
 * so a disp_unit above 1 is ERR_ARG and the window reports 1. */
START_TEST(test_dynamic_disp_unit)
{
    rmalab_win *w = NULL;
    rmalab_win_opts o = {.disp_unit = 8};
    int flag = 0, *punit = NULL;
    tu_begin();
    EXPECT_INT_EQ(rmalab_win_create_dynamic(&o, &w, NULL), RMALAB_ERR_ARG);
    EXPECT(w == NULL, "no window on error");
    o.disp_unit = 0;
    EXPECT_OK(rmalab_win_create_dynamic(&o, &w, NULL)); /* collective */
    if (w) {
        MPI_Win_get_attr(rmalab_win_mpi(w), MPI_WIN_DISP_UNIT, &punit, &flag);
        EXPECT(flag && *punit == 1, "MPI's disp_unit is %d", flag ? *punit : -1);
        EXPECT_INT_EQ(rmalab_win_disp_unit(w), 1);
        EXPECT_INT_EQ(rmalab_win_disp_unit_of(w, 0), 1);
    }
    EXPECT_OK(rmalab_win_free(&w));
    tu_end();
}
END_TEST

/* ------------------------------------------------------------------------ */
/* The 16-byte ring                                                         */

/* Sizes of the ring: 8, 24 or 40 bytes on every rank, then rank r giving
 * 8, 24 or 40 by r % 3 (with disp_unit 8 and uint64 puts). */
#define NRING 4
#define GUARD 32
#define GUARD_BYTE 0xFF

static MPI_Aint ring_size(int cfg, int rank)
{
    static const MPI_Aint s[] = {8, 24, 40};
    return cfg < 3 ? s[cfg] : s[rank % 3];
}

static unsigned char pattern(int src, MPI_Aint i)
{
    return (unsigned char)(1 + (src % 3) * 64 + i); /* never 0 nor GUARD_BYTE */
}

/* Loop index: flavour * NRING + size configuration. Every rank fills its
 * right neighbour's whole window in one fence epoch, then checks every byte
 * of its own window, and that the bytes just past it (padding the core
 * allocated, or guard bytes around user memory) are untouched. */
START_TEST(test_ring)
{
    int fl = _i / NRING, cfg = _i % NRING;
    int rank = tu_rank(), n = tu_size(), right = (rank + 1) % n, left = (rank + n - 1) % n;
    MPI_Aint size = ring_size(cfg, rank), rsize = ring_size(cfg, right);
    int unit = cfg == 3 && fl != F_DYNAMIC ? 8 : 1;
    rmalab_win_opts o = {.size = size, .disp_unit = unit, .name = "ring"};
    unsigned char *user = NULL, *mine = NULL, src[64], got[64];
    MPI_Aint addr = 0, *addrs = calloc((size_t)n, sizeof *addrs);
    rmalab_win *w = NULL;
    const MPI_Aint ulen = GUARD + 64 + GUARD; /* a multiple of 64, for aligned_alloc */
    tu_begin();
    if (fl == F_CREATE_USER) {
        user = aligned_alloc(64, (size_t)ulen);
        ck_assert_ptr_nonnull(user);
        memset(user, GUARD_BYTE, (size_t)ulen);
        memset(user + GUARD, 0, (size_t)size);
        o.base = user + GUARD;
    }
    int rc = make_win(fl, &o, &w, NULL); /* collective */
    EXPECT(rc == RMALAB_OK, "%s, %ld bytes: %s", fl_names[fl], (long)size, rmalab_errmsg());
    if (fl == F_DYNAMIC)
        EXPECT_OK(rmalab_win_attach(w, size, &addr));
    MPI_Allgather(&addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
    if (fl == F_SHARED && w) {
        /* Every rank's segment starts on 16 bytes. */
        for (int q = 0; q < n; q++) {
            MPI_Aint qsize = 0;
            int qunit = 0;
            void *qbase = NULL;
            MPI_Win_shared_query(rmalab_win_mpi(w), q, &qsize, &qunit, &qbase);
            EXPECT((uintptr_t)qbase % 16 == 0, "shared segment of rank %d at %p", q, qbase);
            EXPECT(qsize >= ring_size(cfg, q), "shared segment of rank %d: %ld bytes", q,
                   (long)qsize);
        }
    }

    for (MPI_Aint i = 0; i < rsize; i++)
        src[i] = pattern(rank, i);
    MPI_Aint disp = fl == F_DYNAMIC ? addrs[right] : 0;
    EXPECT_OK(rmalab_win_fence(w, RMALAB_MODE_NOPRECEDE));
    if (unit == 8)
        EXPECT_OK(rmalab_win_put(w, right, disp, RMALAB_UINT64, (int)(rsize / 8), src));
    else
        EXPECT_OK(rmalab_win_put(w, right, disp, RMALAB_BYTE, (int)rsize, src));
    EXPECT_OK(rmalab_win_fence(w, RMALAB_MODE_NOSUCCEED));

    mine = fl == F_DYNAMIC ? (unsigned char *)addr : (unsigned char *)rmalab_win_base(w);
    if (w && mine) {
        MPI_Aint bad = -1;
        for (MPI_Aint i = 0; i < size && bad < 0; i++)
            if (mine[i] != pattern(left, i))
                bad = i;
        EXPECT(bad < 0, "%s, %ld bytes (%s): byte %ld is %#x, rank %d put %#x", fl_names[fl],
               (long)size, cfg == 3 ? "mixed sizes" : "same size", (long)bad,
               bad >= 0 ? mine[bad] : 0, left, bad >= 0 ? pattern(left, bad) : 0);
        EXPECT_OK(rmalab_win_read(w, fl == F_DYNAMIC ? addr : 0, RMALAB_BYTE, (int)size, got));
        EXPECT(memcmp(got, mine, (size_t)size) == 0, "win_read differs from the memory");
        if (fl == F_CREATE_USER) {
            int spoilt = 0;
            for (MPI_Aint i = 0; i < ulen; i++)
                if ((i < GUARD || i >= GUARD + size) && user[i] != GUARD_BYTE)
                    spoilt++;
            EXPECT(spoilt == 0, "%s, %ld bytes: %d guard bytes around the window changed",
                   fl_names[fl], (long)size, spoilt);
        } else {
            int spoilt = 0;
            for (MPI_Aint i = size; i < round16(size); i++)
                spoilt += mine[i] != 0;
            EXPECT(spoilt == 0, "%s, %ld bytes: %d padding bytes past the window changed",
                   fl_names[fl], (long)size, spoilt);
        }
    }
    if (fl == F_DYNAMIC)
        EXPECT_OK(rmalab_win_detach(w, addr));
    EXPECT_OK(rmalab_win_free(&w)); /* collective */
    free(addrs);
    free(user);
    tu_end();
}
END_TEST

Suite *win_suite(void)
{
    Suite *s = suite_create("win");
    TCase *tc = tcase_create("create");
    tcase_add_loop_test(tc, test_properties, 0, NFLAVOURS * 2);
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_bad_arguments);
    tcase_add_test(tc, test_bad_arguments_one_rank);
    tcase_add_test(tc, test_user_memory);
    tcase_add_test(tc, test_hint_diagnostics);
    suite_add_tcase(s, tc);

    tc = tcase_create("memory");
    tcase_add_test(tc, test_local_read_write);
    tcase_add_test(tc, test_dynamic);
    tcase_add_test(tc, test_dynamic_user_memory);
    suite_add_tcase(s, tc);

    tc = tcase_create("ring");
    tcase_add_loop_test(tc, test_ring, 0, NFLAVOURS * NRING);
    suite_add_tcase(s, tc);

    /* Regressions of defects found by these suites, now fixed. */
    tc = tcase_create("regressions");
    tcase_add_test(tc, test_zero_size);
    tcase_add_test(tc, test_local_overflow);
    tcase_add_test(tc, test_dynamic_disp_unit);
    suite_add_tcase(s, tc);
    return s;
}
