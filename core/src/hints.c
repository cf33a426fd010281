/* The hint catalogue: every known window and communicator hint, its type,
 * default and use, and the names of the catalogue's enums. Normalisation
 * of values is in hints-value.c, validation in hints-validate.c, the report
 * of what was asked against what is in effect and the agreement check
 * across ranks in hints-report.c.
 *
 * The catalogue records for MPICH 4.0.2 (measured here with MPI_Win_get_info
 * and MPI_Comm_get_info): the keys it reports, their defaults, and which
 * window keys a set_info after creation changes. Six window keys are
 * creation-only and silently ignored later: which_accumulate_ops,
 * accumulate_noncontig_dtype, accumulate_max_bytes, disable_shm_accumulate,
 * coll_attach, perf_preference. */
#include "private.h"
#include "hints-private.h"

#include <limits.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* The catalogue                                                            */

static const char *const ordering_values[] = {"rar", "raw", "war", "waw", "none", NULL};
static const char *const accops_values[] = {"same_op", "same_op_no_op", NULL};
static const char *const ops_values[] = {"cswap", "max",    "min",    "sum",     "prod",
                                         "land",  "band",   "lor",    "bor",     "lxor",
                                         "bxor",  "minloc", "maxloc", "replace", "no_op",
                                         NULL};
static const char *const perf_values[] = {"none", "lat", "mr", NULL};
static const char *const pscw_values[] = {"native", "rma", NULL};
static const char *const check_values[] = {
#define CHECK_VALUE(suffix, name) name,
    RMALAB_CHECK_MODE_MAP(CHECK_VALUE)
#undef CHECK_VALUE
    NULL};

#define W RMALAB_SCOPE_WIN
#define C RMALAB_SCOPE_COMM
#define BOOL RMALAB_HINT_BOOL
#define INT RMALAB_HINT_INT
#define LIST RMALAB_HINT_LIST
#define ENUM RMALAB_HINT_ENUM
#define STR RMALAB_HINT_STRING

static const rmalab_hint_def win_hints[] = {
    {
        .key = RMALAB_KEY_NO_LOCKS,
        .scope = W,
        .type = BOOL,
        .default_value = "false",
        .doc = "true promises that no passive-target lock will target this process",
        .after_create = true,
    },
    {
        .key = RMALAB_KEY_ACCUMULATE_ORDERING,
        .scope = W,
        .type = LIST,
        .values = ordering_values,
        .default_value = "rar,raw,war,waw",
        .doc = "orderings accumulates must keep: rar, raw, war, waw, or none",
        .must_agree = true,
        .after_create = true,
        .sole = "none",
    },
    {
        .key = RMALAB_KEY_ACCUMULATE_OPS,
        .scope = W,
        .type = ENUM,
        .values = accops_values,
        .default_value = "same_op_no_op",
        .doc = "same_op: concurrent accumulates to one location use the same op (no_op too if "
            "same_op_no_op)",
        .must_agree = true,
        .after_create = true,
    },
    {
        .key = "same_size",
        .scope = W,
        .type = BOOL,
        .default_value = "false",
        .doc = "true promises every rank gives the same size",
        .must_agree = true,
        .after_create = true,
    },
    {
        .key = "same_disp_unit",
        .scope = W,
        .type = BOOL,
        .default_value = "false",
        .doc = "true promises every rank gives the same disp_unit",
        .must_agree = true,
        .after_create = true,
    },
    {
        .key = "alloc_shared_noncontig",
        .scope = W,
        .type = BOOL,
        .default_value = "false",
        .doc = "allocate_shared may place each rank's memory apart (not contiguous)",
        .must_agree = true,
        .after_create = true,
    },
    {
        .key = "mpi_accumulate_granularity",
        .scope = W,
        .type = INT,
        .default_value = "0",
        .doc = "bytes accumulates may be split at (MPI-4.1); MPICH 4.0.2 does not support it",
        .must_agree = true,
        .min = 0,
        .max = INT_MAX,
    },
    {
        .key = "alloc_shm",
        .scope = W,
        .type = BOOL,
        .default_value = "true",
        .doc = "MPICH: allocate the window in shared memory",
        .must_agree = true,
        .after_create = true,
    },
    {
        .key = "which_accumulate_ops",
        .scope = W,
        .type = LIST,
        .values = ops_values,
        .default_value =
            "cswap,max,min,sum,prod,land,band,lor,bor,lxor,bxor,minloc,maxloc,replace,no_op",
        .doc = "MPICH: the only ops accumulates will use (creation only)",
        .must_agree = true,
    },
    {
        .key = "accumulate_noncontig_dtype",
        .scope = W,
        .type = BOOL,
        .default_value = "true",
        .doc = "MPICH: accumulates may use non-contiguous datatypes (creation only)",
        .must_agree = true,
    },
    {
        .key = "accumulate_max_bytes",
        .scope = W,
        .type = INT,
        .default_value = "unlimited",
        .doc = "MPICH: largest accumulate in bytes, or unlimited (creation only)",
        .must_agree = true,
        .min = 0,
        .max = INT_MAX,
        .unlimited = "unlimited",
    },
    {
        .key = "disable_shm_accumulate",
        .scope = W,
        .type = BOOL,
        .default_value = "false",
        .doc = "MPICH: do accumulates through the network even within a node (creation only)",
        .must_agree = true,
    },
    {
        .key = "coll_attach",
        .scope = W,
        .type = BOOL,
        .default_value = "false",
        .doc = "MPICH: attach and detach on dynamic windows are collective (creation only)",
        .must_agree = true,
    },
    {
        .key = "perf_preference",
        .scope = W,
        .type = LIST,
        .values = perf_values,
        .default_value = "none",
        .doc = "MPICH: lat (latency) or mr (message rate) (creation only; MPICH 4.0.2 reports "
            "garbage)",
        .report_unreliable = true,
        .sole = "none",
    },
    {
        .key = RMALAB_KEY_PSCW,
        .scope = W,
        .type = ENUM,
        .values = pscw_values,
        .default_value = "rma",
        .doc = "rmalab: the PSCW engine, rma (matched per peer over passive-target atomics) or "
            "native (MPICH's calls, which can hang a correct program: docs/pscw.md)",
        .must_agree = true,
        .rmalab_own = true,
    },
    {
        .key = RMALAB_KEY_TRACE,
        .scope = W,
        .type = BOOL,
        .default_value = "false",
        .doc = "rmalab: record this window's calls for rmalab.trace (docs/trace.md); "
            "RMALAB_TRACE=1 records every window (creation only)",
        .rmalab_own = true,
    },
    {
        .key = RMALAB_KEY_TRACE_SIZE,
        .scope = W,
        .type = INT,
        .default_value = "4096",
        .doc = "rmalab: events the window's trace keeps, the latest (creation only)",
        .rmalab_own = true,
        .min = 16,
        .max = 1 << 24,
    },
    {
        .key = RMALAB_KEY_CHECK,
        .scope = W,
        .type = ENUM,
        .values = check_values,
        .default_value = "off",
        .doc = "rmalab: find conflicting accesses by happens-before (docs/races.md): races raises "
            "ERR_RMA_CONFLICT, races:warn prints, races:quiet records; RMALAB_CHECK checks "
            "every window (creation only)",
        .rmalab_own = true,
    },
};

static const rmalab_hint_def comm_hints[] = {
    {
        .key = "mpi_assert_no_any_tag",
        .scope = C,
        .type = BOOL,
        .default_value = "false",
        .doc = "true promises MPI_ANY_TAG is never used on this communicator",
        .after_create = true,
    },
    {
        .key = "mpi_assert_no_any_source",
        .scope = C,
        .type = BOOL,
        .default_value = "false",
        .doc = "true promises MPI_ANY_SOURCE is never used on this communicator",
        .after_create = true,
    },
    {
        .key = "mpi_assert_exact_length",
        .scope = C,
        .type = BOOL,
        .default_value = "false",
        .doc = "true promises receive buffers match message lengths exactly",
        .after_create = true,
    },
    {
        .key = "mpi_assert_allow_overtaking",
        .scope = C,
        .type = BOOL,
        .default_value = "false",
        .doc = "true lets messages overtake each other (no non-overtaking order)",
        .after_create = true,
    },
    {
        .key = "mpi_assert_strict_persistent_collective_ordering",
        .scope = C,
        .type = BOOL,
        .default_value = "false",
        .doc = "true promises persistent collectives start in the same order on all ranks",
        .must_agree = true,
        .after_create = true,
    },
    {
        .key = "mpi_assert_memory_alloc_kinds",
        .scope = C,
        .type = STR,
        .doc = "the memory allocation kinds communication buffers use (MPI-4.1)",
        .after_create = true,
    },
    {
        .key = "enable_multi_nic_striping",
        .scope = C,
        .type = BOOL,
        .default_value = "true",
        .doc = "MPICH: stripe large messages over several NICs",
        .after_create = true,
    },
    {
        .key = "enable_multi_nic_hashing",
        .scope = C,
        .type = BOOL,
        .default_value = "true",
        .doc = "MPICH: spread communicators over several NICs",
        .after_create = true,
    },
    {
        .key = "multi_nic_pref_nic",
        .scope = C,
        .type = INT,
        .default_value = "-1",
        .doc = "MPICH: preferred NIC, or -1 for any",
        .after_create = true,
        .min = -1,
        .max = INT_MAX,
    },
    {
        .key = "sender_vci",
        .scope = C,
        .type = INT,
        .default_value = "-1",
        .doc = "MPICH: virtual communication interface for sends",
        .after_create = true,
        .min = -1,
        .max = INT_MAX,
    },
    {
        .key = "receiver_vci",
        .scope = C,
        .type = INT,
        .default_value = "-1",
        .doc = "MPICH: virtual communication interface for receives",
        .after_create = true,
        .min = -1,
        .max = INT_MAX,
    },
    {
        .key = "vci",
        .scope = C,
        .type = INT,
        .default_value = "-1",
        .doc = "MPICH: virtual communication interface",
        .after_create = true,
        .min = -1,
        .max = INT_MAX,
    },
};

#undef W
#undef C
#undef BOOL
#undef INT
#undef LIST
#undef ENUM
#undef STR

#define NELEMS(a) ((int)(sizeof(a) / sizeof((a)[0])))

const char *rmalab_hint_type_name(rmalab_hint_type type)
{
    static const char *const names[] = {
        [RMALAB_HINT_BOOL] = "bool", [RMALAB_HINT_INT] = "int",
        [RMALAB_HINT_LIST] = "list", [RMALAB_HINT_ENUM] = "enum",
        [RMALAB_HINT_STRING] = "string",
    };
    return (unsigned)type < sizeof names / sizeof names[0] ? names[type] : "?";
}

const char *rmalab_hint_scope_name(rmalab_hint_scope scope)
{
    static const char *const names[] = {[RMALAB_SCOPE_WIN] = "win", [RMALAB_SCOPE_COMM] = "comm"};
    return (unsigned)scope < sizeof names / sizeof names[0] ? names[scope] : "?";
}

const char *rmalab_hint_status_name(rmalab_hint_status status)
{
    static const char *const names[] = {
        [RMALAB_HINT_APPLIED] = "applied", [RMALAB_HINT_IGNORED] = "ignored",
        [RMALAB_HINT_DEFAULT] = "default", [RMALAB_HINT_IMPLEMENTATION] = "implementation",
    };
    return (unsigned)status < sizeof names / sizeof names[0] ? names[status] : "?";
}

int rmalab_hints_count(rmalab_hint_scope scope)
{
    return scope == RMALAB_SCOPE_WIN ? NELEMS(win_hints) : NELEMS(comm_hints);
}

const rmalab_hint_def *rmalab_hints_at(rmalab_hint_scope scope, int i)
{
    if (i < 0 || i >= rmalab_hints_count(scope))
        return NULL;
    return scope == RMALAB_SCOPE_WIN ? &win_hints[i] : &comm_hints[i];
}

const rmalab_hint_def *rmalab_hints_find(rmalab_hint_scope scope, const char *key)
{
    for (int i = 0; key && i < rmalab_hints_count(scope); i++) {
        const rmalab_hint_def *d = rmalab_hints_at(scope, i);
        if (strcmp(d->key, key) == 0)
            return d;
    }
    return NULL;
}

const char *rmalab__hints_lookup(const rmalab_info *info, const char *key)
{
    return info ? rmalab_info_lookup(info, key, strlen(key), NULL) : NULL;
}
