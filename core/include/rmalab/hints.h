/* Hints: the catalogue of known window and communicator hints, their
 * validation before MPICH sees them, the report of what was requested
 * against what is in effect, and the check that keys which must agree
 * across ranks do agree.
 *
 * Hints never change semantics and unknown hints are ignored, so validation
 * returns diagnostics rather than errors. A value that would make MPICH
 * misbehave (MPICH 4.0.2 aborts on an unknown op in which_accumulate_ops,
 * segfaults on an unknown accumulate_ordering, reads communicator booleans
 * with atoi) is never passed on: it is dropped with a diagnostic. Known
 * values are passed on in their canonical spelling.
 */
#ifndef RMALAB_HINTS_H
#define RMALAB_HINTS_H

#include <mpi.h>
#include <stdbool.h>

#include <rmalab/export.h>
#include <rmalab/info.h>

typedef enum { RMALAB_SCOPE_WIN, RMALAB_SCOPE_COMM } rmalab_hint_scope;

/* Keys of the catalogue that rmalab reads itself: each names a row of the
 * catalogue (rmalab_hints_find), which says its type, default and use. */
#define RMALAB_KEY_NO_LOCKS "no_locks"
#define RMALAB_KEY_ACCUMULATE_ORDERING "accumulate_ordering"
#define RMALAB_KEY_ACCUMULATE_OPS "accumulate_ops"
#define RMALAB_KEY_PSCW "rmalab_pscw"
#define RMALAB_KEY_TRACE "rmalab_trace"
#define RMALAB_KEY_TRACE_SIZE "rmalab_trace_size"
#define RMALAB_KEY_CHECK "rmalab_check"
/* Keys that a window's get_info reports and no one sets: what the PSCW
 * engine in force does (docs/pscw.md, docs/pscw-rma.md). */
#define RMALAB_KEY_PSCW_DEFECT "rmalab_pscw_defect"
#define RMALAB_KEY_PSCW_SYNC_PATH "rmalab_pscw_sync_path"
#define RMALAB_KEY_PSCW_DATA_PATH "rmalab_pscw_data_path"

typedef enum {
    RMALAB_HINT_BOOL,   /* "true" | "false" */
    RMALAB_HINT_INT,    /* a C int within [min, max], or the `unlimited` word */
    RMALAB_HINT_LIST,   /* comma-separated; elements from `values` when given */
    RMALAB_HINT_ENUM,   /* one of `values` */
    RMALAB_HINT_STRING, /* any text */
} rmalab_hint_type;

typedef struct rmalab_hint_def {
    const char *key;
    rmalab_hint_scope scope;
    rmalab_hint_type type;
    const char *const *values; /* NULL-terminated; enum values, list elements */
    const char *default_value; /* NULL: not set by default */
    const char *doc;           /* one line */
    bool must_agree;           /* every rank must give the same value */
    bool after_create;         /* honoured by set_info after creation */
    bool rmalab_own;           /* interpreted by rmalab, never passed to MPI */
    bool report_unreliable;    /* MPICH 4.0.2 reports garbage for this key */
    int min, max;              /* RMALAB_HINT_INT */
    const char *unlimited;     /* RMALAB_HINT_INT: word that stands for -1 */
    const char *sole;          /* RMALAB_HINT_LIST: element that must stand alone */
} rmalab_hint_def;

RMALAB_API const char *rmalab_hint_type_name(rmalab_hint_type type);
RMALAB_API const char *rmalab_hint_scope_name(rmalab_hint_scope scope);
/* Number of known hints in a scope, and the i-th in catalogue order. */
RMALAB_API int rmalab_hints_count(rmalab_hint_scope scope);
RMALAB_API const rmalab_hint_def *rmalab_hints_at(rmalab_hint_scope scope, int i);
RMALAB_API const rmalab_hint_def *rmalab_hints_find(rmalab_hint_scope scope, const char *key);

/* Diagnostics: one line each, about one key. */
typedef struct {
    char *key;
    char *message;
} rmalab_diag;

typedef struct rmalab_diags {
    int count, cap;
    rmalab_diag *items;
} rmalab_diags;

RMALAB_API void rmalab_diags_init(rmalab_diags *d);
RMALAB_API void rmalab_diags_clear(rmalab_diags *d);

/* Canonical text of `value` for a known hint: booleans and integers in the
 * standard's spelling, list elements trimmed and joined by ",". `buf` holds
 * RMALAB_MAX_INFO_VAL + 1 bytes. ERR_INFO_VALUE with a message when the value
 * is not of the hint's type; ERR_NO_MEM when a list could not be parsed for
 * lack of memory (the value may be valid). */
RMALAB_API int rmalab_hint_normalize(const rmalab_hint_def *def, const char *value,
                                     size_t vlen, char *buf);

/* Validate `requested` (may be NULL) for `scope`. *to_mpi (when not NULL)
 * receives the info to hand to MPI: known keys in canonical form, invalid
 * ones dropped, rmalab's own keys left out, unknown keys passed through.
 * Every problem becomes a diagnostic in `diags` (may be NULL). ERR_NO_MEM
 * (and no *to_mpi) when memory runs out, never a valid hint dropped. */
RMALAB_API int rmalab_hints_validate(rmalab_hint_scope scope, const rmalab_info *requested,
                                     rmalab_info **to_mpi, rmalab_diags *diags);

/* The report: for each key, what was requested, what is in effect, the
 * default and a status. */
typedef enum {
    RMALAB_HINT_APPLIED,        /* requested and in effect */
    RMALAB_HINT_IGNORED,        /* requested, but not in effect */
    RMALAB_HINT_DEFAULT,        /* not requested; the default is in effect */
    RMALAB_HINT_IMPLEMENTATION, /* not requested; reported by the implementation */
} rmalab_hint_status;

typedef struct {
    char *key;
    char *requested;           /* NULL: not requested */
    char *effective;           /* NULL: not in effect / not reported */
    const char *default_value; /* NULL: none, or unknown key */
    rmalab_hint_status status;
    char *note;                /* NULL, or why: a diagnostic or a known quirk */
} rmalab_hint_row;

typedef struct rmalab_hints_report {
    int count;
    rmalab_hint_row *rows;
} rmalab_hints_report;

RMALAB_API const char *rmalab_hint_status_name(rmalab_hint_status status);
/* Build the report from what was requested (may be NULL) and what the object
 * reports as in effect (may be NULL). Rows come in catalogue order, then
 * unknown requested keys, then unknown keys the implementation reports. */
RMALAB_API int rmalab_hints_report_build(rmalab_hint_scope scope, const rmalab_info *requested,
                                         const rmalab_info *effective,
                                         rmalab_hints_report **out);
RMALAB_API void rmalab_hints_report_destroy(rmalab_hints_report *report);

/* Collective over `comm`: compare the canonical requested values of every
 * must-agree key of `scope` across ranks. Each disagreement lists, per rank
 * of comm, the value that rank gave (NULL when unset). */
typedef struct {
    const char *key;
    int nranks;
    char **values; /* nranks entries */
} rmalab_disagreement;

typedef struct rmalab_agreement {
    int count;
    rmalab_disagreement *items;
} rmalab_agreement;

RMALAB_API int rmalab_hints_check_agreement(MPI_Comm comm, rmalab_hint_scope scope,
                                            const rmalab_info *requested,
                                            rmalab_agreement **out);
RMALAB_API void rmalab_agreement_destroy(rmalab_agreement *agreement);

#endif
