/* rmalab cc's GCC plugin (rmalab-gcc.so): what gcc's -fsanitize=thread
 * put before each load and store made cheap, so that an instrumented loop
 * costs about what a plain one does (docs/c-internals.md, "The plugin").
 *
 * One GIMPLE pass, right after gcc's "tsan" pass, which in gcc 12 runs
 * before the loop optimisations (lim2, then tsan1, then the loop pipeline
 * with the vectoriser), over the __tsan_readN / writeN / read_range /
 * write_range calls that tsan put in (atomics, function entry and exit and
 * __tsan_init stay as they are):
 *
 * 1. The whole loop's accesses at once. In an innermost loop that calls
 *    nothing but these (a loop with other calls may change what is
 *    watched, or leave early), with one exit that every iteration passes
 *    and an iteration count that gcc's niter analysis knows at the loop's
 *    entry, an access that every iteration makes (its block dominates the
 *    exit) at an address {base, +, step} with step = plus or minus its
 *    size touches every byte of [lo, lo + (count) * size): its call leaves
 *    the loop, and one __tsan_read_range / write_range of that range, with
 *    the access's own location (so its FILE:LINE), goes before the loop.
 *    Nothing else is hoisted: an access with another stride, a loop with
 *    an early exit, a conditional access keep their own calls, as a range
 *    would claim bytes the loop may not touch. A loop left with no call is
 *    vectorised as a plain one.
 * 2. The calls left, gated: each runs only while the runtime's published
 *    ranges (the first member of rmalab_access__hooks, access-hooks.h) are
 *    not NULL, as the runtime's own first test does; under plain mpiexec the
 *    call never happens. In a loop that calls nothing but these, the load of
 *    the pointer is made once, before the outermost such loop: only an MPI
 *    call changes what is watched (and a thread that makes one while
 *    another's loop runs races that loop's accesses anyway).
 *
 * The ranges before a loop are gated the same way, the count computed
 * only when the call is made. */
/* gcc's own order: each header needs those before it. */
#include "gcc-plugin.h"
#include "plugin-version.h"
#include "backend.h"
#include "tree.h"
#include "gimple.h"
#include "cfghooks.h"
#include "tree-pass.h"
#include "ssa.h"
#include "fold-const.h"
#include "gimple-iterator.h"
#include "gimplify-me.h"
#include "gimplify.h"
#include "cfgloop.h"
#include "tree-cfg.h"
#include "tree-into-ssa.h"
#include "tree-ssa-loop-niter.h"
#include "tree-ssa-loop.h"
#include "tree-scalar-evolution.h"
#include "tree-chrec.h"
#include "stringpool.h"
#include "context.h"
#include "diagnostic-core.h"

int plugin_is_GPL_compatible;

/* ------------------------------------------------------------------------ */
/* The calls                                                                */

/* A tsan load or store call: its size (0: a range, the size is its second
 * argument) and kind; false for any other statement. */
static bool tsan_access(gimple *g, int *size, bool *write)
{
    if (!is_gimple_call(g) || !gimple_call_builtin_p(g, BUILT_IN_NORMAL))
        return false;
    switch (DECL_FUNCTION_CODE(gimple_call_fndecl(g))) {
#define RW(n)                                                                           \
    case BUILT_IN_TSAN_READ##n:                                                         \
    case BUILT_IN_TSAN_VOLATILE_READ##n:                                                \
        *size = n, *write = false;                                                      \
        return true;                                                                    \
    case BUILT_IN_TSAN_WRITE##n:                                                        \
    case BUILT_IN_TSAN_VOLATILE_WRITE##n:                                               \
        *size = n, *write = true;                                                       \
        return true;
        RW(1) RW(2) RW(4) RW(8) RW(16)
#undef RW
    case BUILT_IN_TSAN_READ_RANGE:
        *size = 0, *write = false;
        return true;
    case BUILT_IN_TSAN_WRITE_RANGE:
        *size = 0, *write = true;
        return true;
    default:
        return false;
    }
}

static bool is_tsan_access(gimple *g)
{
    int size;
    bool write;
    return tsan_access(g, &size, &write);
}

/* The loop calls nothing but tsan's loads and stores (and has no asm):
 * what is watched cannot change while it runs, and it cannot be left but
 * through its exits. Its inner loops are part of its body. */
static bool calls_nothing(class loop *loop)
{
    basic_block *body = get_loop_body(loop);
    bool ok = true;
    for (unsigned i = 0; ok && i < loop->num_nodes; i++)
        for (gimple_stmt_iterator gsi = gsi_start_bb(body[i]); ok && !gsi_end_p(gsi);
             gsi_next(&gsi)) {
            gimple *g = gsi_stmt(gsi);
            if (gimple_code(g) == GIMPLE_ASM)
                ok = false;
            else if (is_gimple_call(g) && !is_tsan_access(g) && !gimple_call_internal_p(g))
                ok = false;
        }
    free(body);
    return ok;
}

/* The variable the runtime publishes its ranges in: rmalab_access__hooks,
 * whose first member is the pointer (NULL while nothing is watched). Read
 * as a pointer of its own; hidden, as the runtime is linked into each
 * program and library that calls it. */
static tree decl; /* a root of gcc's garbage collector (plugin_init) */

static tree gate_decl(void)
{
    if (decl)
        return decl;
    decl = build_decl(UNKNOWN_LOCATION, VAR_DECL, get_identifier("rmalab_access__hooks"),
                      ptr_type_node);
    TREE_PUBLIC(decl) = 1;
    DECL_EXTERNAL(decl) = 1;
    DECL_VISIBILITY(decl) = VISIBILITY_HIDDEN;
    DECL_VISIBILITY_SPECIFIED(decl) = 1;
    DECL_ARTIFICIAL(decl) = 1;
    return decl;
}

/* A new SSA name that holds the published ranges, loaded at gsi. */
static tree load_gate(gimple_stmt_iterator *gsi, location_t loc)
{
    tree g = make_ssa_name(ptr_type_node);
    gassign *ld = gimple_build_assign(g, gate_decl());
    gimple_set_location(ld, loc);
    gsi_insert_before(gsi, ld, GSI_SAME_STMT);
    return g;
}

/* Splits the block of first (and what follows it up to last, both in one
 * block) off into a block of their own, entered only when gate (a
 * pointer) is not NULL. */
static void gate_region(gimple *first, gimple *last, tree gate)
{
    gimple_stmt_iterator gsi = gsi_for_stmt(first);
    gcond *c = gimple_build_cond(NE_EXPR, gate, null_pointer_node, NULL_TREE, NULL_TREE);
    gimple_set_location(c, gimple_location(first));
    gsi_insert_before(&gsi, c, GSI_SAME_STMT);
    basic_block bb = gimple_bb(c);
    edge in = split_block(bb, c);
    basic_block body = in->dest;
    edge out = split_block(body, last);
    in->flags = (in->flags & ~EDGE_FALLTHRU) | EDGE_TRUE_VALUE;
    in->probability = profile_probability::very_unlikely();
    edge skip = make_edge(bb, out->dest, EDGE_FALSE_VALUE);
    skip->probability = in->probability.invert();
    body->count = bb->count.apply_probability(in->probability);
}

/* ------------------------------------------------------------------------ */
/* 1. Whole loops                                                           */

/* A range to report before a loop: its call's kind and location, and
 * the bytes as trees valid in the loop's preheader. */
struct hoisted {
    class loop *loop;
    bool write;
    location_t loc;
    tree lo, bytes;
};

/* Whether t uses no SSA name defined inside loop (and no chrec). */
static tree defined_inside(tree *t, int *walk, void *data)
{
    class loop *loop = (class loop *)data;
    if (TREE_CODE(*t) == POLYNOMIAL_CHREC || TREE_CODE(*t) == COND_EXPR)
        return *t;
    if (TREE_CODE(*t) == SSA_NAME) {
        basic_block bb = gimple_bb(SSA_NAME_DEF_STMT(*t));
        if (bb && flow_bb_inside_loop_p(loop, bb))
            return *t;
    }
    if (TYPE_P(*t))
        *walk = 0;
    return NULL_TREE;
}

static bool before_loop(class loop *loop, tree t)
{
    return t && !chrec_contains_undetermined(t) &&
           !walk_tree(&t, defined_inside, loop, NULL);
}

/* The loop's latch executions, if every iteration passes its one exit's
 * test and the count is known at its entry; NULL_TREE else. */
static tree loop_count(class loop *loop, edge *exit)
{
    if (loop->inner || !calls_nothing(loop) || !(*exit = single_exit(loop)))
        return NULL_TREE;
    if (!dominated_by_p(CDI_DOMINATORS, loop->latch, (*exit)->src))
        return NULL_TREE;
    tree n = number_of_latch_executions(loop);
    if (!before_loop(loop, n))
        return NULL_TREE;
    return fold_convert(sizetype, n);
}

/* The access g of size bytes at addr, made once in each of the loop's
 * n + 1 iterations: its range, if its address steps by its size. */
static bool whole_range(class loop *loop, tree n, tree addr, int size, tree *lo, tree *bytes)
{
    tree ev = analyze_scalar_evolution(loop, addr);
    ev = instantiate_scev(loop_preheader_edge(loop), loop, ev);
    if (!ev || TREE_CODE(ev) != POLYNOMIAL_CHREC || CHREC_VARIABLE(ev) != (unsigned)loop->num)
        return false;
    tree base = CHREC_LEFT(ev), step = CHREC_RIGHT(ev);
    if (TREE_CODE(step) != INTEGER_CST || !before_loop(loop, base))
        return false;
    tree s = fold_convert(ssizetype, step);
    if (!tree_fits_shwi_p(s))
        return false;
    HOST_WIDE_INT by = tree_to_shwi(s);
    if (by != size && by != -size)
        return false;
    tree count = fold_build2(PLUS_EXPR, sizetype, n, size_one_node);
    *bytes = fold_build2(MULT_EXPR, sizetype, count, size_int(size));
    /* Downwards: the last iteration's address is the lowest. */
    *lo = by > 0 ? base
                 : fold_build_pointer_plus(base, fold_build2(MULT_EXPR, sizetype, n,
                                                             fold_convert(sizetype, step)));
    return true;
}

/* The loop's accesses that a range before it can stand for: each goes
 * from the loop to out. */
static void hoist_loop(class loop *loop, vec<hoisted> *out)
{
    edge exit;
    tree n = loop_count(loop, &exit);
    if (!n)
        return;
    basic_block *body = get_loop_body(loop);
    for (unsigned i = 0; i < loop->num_nodes; i++) {
        if (!dominated_by_p(CDI_DOMINATORS, exit->src, body[i]))
            continue;
        for (gimple_stmt_iterator gsi = gsi_start_bb(body[i]); !gsi_end_p(gsi);) {
            gimple *g = gsi_stmt(gsi);
            int size;
            bool write;
            tree lo, bytes;
            if (!tsan_access(g, &size, &write) || size == 0 ||
                !whole_range(loop, n, gimple_call_arg(g, 0), size, &lo, &bytes)) {
                gsi_next(&gsi);
                continue;
            }
            out->safe_push({loop, write, gimple_location(g), lo, bytes});
            unlink_stmt_vdef(g);
            gsi_remove(&gsi, true);
            release_defs(g);
        }
    }
    free(body);
}

/* Before the loop, gated: the call of each range in the loop's order. */
static void emit_ranges(class loop *loop, const vec<hoisted> &all, unsigned from, unsigned to)
{
    basic_block bb = split_edge(loop_preheader_edge(loop));
    gimple_seq seq = NULL;
    gimple *first = NULL, *last = NULL;
    for (unsigned i = from; i < to; i++) {
        const hoisted &h = all[i];
        tree fn = builtin_decl_implicit(h.write ? BUILT_IN_TSAN_WRITE_RANGE
                                                : BUILT_IN_TSAN_READ_RANGE);
        tree size_type = TREE_VALUE(TREE_CHAIN(TYPE_ARG_TYPES(TREE_TYPE(fn))));
        gimple_seq part = NULL, more = NULL; /* force_gimple_operand sets its seq */
        tree lo = force_gimple_operand(fold_convert(ptr_type_node, unshare_expr(h.lo)), &part,
                                       true, NULL_TREE);
        tree n = force_gimple_operand(fold_convert(size_type, unshare_expr(h.bytes)), &more,
                                      true, NULL_TREE);
        gimple_seq_add_seq(&part, more);
        gcall *call = gimple_build_call(fn, 2, lo, n);
        gimple_set_location(call, h.loc);
        gimple_seq_add_stmt(&part, call);
        for (gimple_stmt_iterator p = gsi_start(part); !gsi_end_p(p); gsi_next(&p))
            if (!gimple_has_location(gsi_stmt(p)))
                gimple_set_location(gsi_stmt(p), h.loc);
        if (!first)
            first = gimple_seq_first_stmt(part);
        last = call;
        gimple_seq_add_seq(&seq, part);
    }
    gimple_stmt_iterator gsi = gsi_after_labels(bb);
    gsi_insert_seq_before(&gsi, seq, GSI_SAME_STMT);
    gsi = gsi_for_stmt(first);
    gate_region(first, last, load_gate(&gsi, all[from].loc));
}

/* ------------------------------------------------------------------------ */
/* 2. The calls left                                                        */

/* The outermost loop around bb that calls nothing but tsan's accesses
 * (NULL: none), from each loop's verdict in quiet[loop->num]. */
static class loop *quiet_around(basic_block bb, const vec<char> &quiet)
{
    class loop *best = NULL;
    if (quiet.is_empty())
        return NULL;
    for (class loop *l = bb->loop_father; l && loop_outer(l); l = loop_outer(l))
        if (quiet[l->num] && loop_preheader_edge(l))
            best = l;
    return best;
}

/* Each tsan access call left, in a block of its own entered only while
 * ranges are published; the pointer loaded before the outermost quiet
 * loop around it, or just before the call. */
static void gate_calls(function *fn, const vec<char> &quiet)
{
    auto_vec<gimple *> calls;
    basic_block bb;
    FOR_EACH_BB_FN(bb, fn)
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi))
        if (is_tsan_access(gsi_stmt(gsi)))
            calls.safe_push(gsi_stmt(gsi));
    auto_vec<tree> loaded;
    loaded.safe_grow_cleared(quiet.length());
    for (gimple *g : calls) {
        class loop *l = quiet_around(gimple_bb(g), quiet);
        tree gate;
        if (l && loaded[l->num]) {
            gate = loaded[l->num];
        } else if (l) {
            gimple_stmt_iterator at = gsi_after_labels(split_edge(loop_preheader_edge(l)));
            gate = loaded[l->num] = load_gate(&at, gimple_location(g));
        } else {
            gimple_stmt_iterator at = gsi_for_stmt(g);
            gate = load_gate(&at, gimple_location(g));
        }
        gate_region(g, g, gate);
    }
}

/* ------------------------------------------------------------------------ */
/* The pass                                                                 */

/* The whole loops first (dominators and SCEV on the untouched body), then
 * the gates, then the ranges before their loops. */
static unsigned run(function *fn)
{
    bool loops = optimize > 0 && number_of_loops(fn) > 1;
    auto_vec<hoisted> found;
    auto_vec<char> quiet;
    if (loops) {
        loop_optimizer_init(LOOPS_NORMAL | LOOPS_HAVE_RECORDED_EXITS);
        calculate_dominance_info(CDI_DOMINATORS);
        scev_initialize();
        quiet.safe_grow_cleared(number_of_loops(fn));
        for (auto loop : loops_list(fn, LI_FROM_INNERMOST))
            hoist_loop(loop, &found);
        scev_finalize();
        free_numbers_of_iterations_estimates(fn);
        for (auto loop : loops_list(fn, 0))
            quiet[loop->num] = calls_nothing(loop);
    }
    gate_calls(fn, quiet);
    for (unsigned i = 0, j; i < found.length(); i = j) {
        for (j = i + 1; j < found.length() && found[j].loop == found[i].loop; j++)
            ;
        emit_ranges(found[i].loop, found, i, j);
    }
    if (loops)
        loop_optimizer_finalize();
    free_dominance_info(CDI_DOMINATORS);
    mark_virtual_operands_for_renaming(fn);
    return TODO_update_ssa | TODO_cleanup_cfg;
}

static const pass_data hoist_data = {
    GIMPLE_PASS, "rmalab", OPTGROUP_NONE, TV_NONE, PROP_ssa | PROP_cfg, 0, 0, 0, 0,
};

struct hoist_pass : gimple_opt_pass {
    hoist_pass(gcc::context *ctx) : gimple_opt_pass(hoist_data, ctx)
    {
    }
    opt_pass *clone() final override
    {
        return new hoist_pass(m_ctxt);
    }
    bool gate(function *) final override
    {
        return flag_sanitize & SANITIZE_THREAD;
    }
    unsigned execute(function *fn) final override
    {
        return run(fn);
    }
};

int plugin_init(struct plugin_name_args *info, struct plugin_gcc_version *version)
{
    if (!plugin_default_version_check(version, &gcc_version)) {
        error("rmalab-gcc: built for gcc %s, loaded into gcc %s", gcc_version.basever,
              version->basever);
        return 1;
    }
    static const struct ggc_root_tab roots[] = {
        {&decl, 1, sizeof decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node}, LAST_GGC_ROOT_TAB};
    register_callback(info->base_name, PLUGIN_REGISTER_GGC_ROOTS, NULL, (void *)roots);
    static struct plugin_info about = {"0.1.0", "rmalab cc: tsan's calls hoisted and gated"};
    register_callback(info->base_name, PLUGIN_INFO, NULL, &about);
    struct register_pass_info pass = {new hoist_pass(g), "tsan", 0, PASS_POS_INSERT_AFTER};
    register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &pass);
    return 0;
}
