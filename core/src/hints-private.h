/* hints.c, hints-value.c, hints-validate.c, hints-report.c: the hint
 * catalogue.
 * Private to the core, never installed. */
#ifndef RMALAB_HINTS_PRIVATE_H
#define RMALAB_HINTS_PRIVATE_H

#include "private.h"

/* The value of the hint `key` (an RMALAB_KEY_ constant) in `info` (may be
 * NULL), or NULL (hints.c). */
const char *rmalab__hints_lookup(const rmalab_info *info, const char *key);
/* Hints (hints.c): validation that may keep rmalab's own keys, removing
 * them afterwards, and adding a diagnostic (d may be NULL). */
int rmalab__hints_validate(rmalab_hint_scope scope, const rmalab_info *requested,
                           rmalab_info **to_mpi, rmalab_diags *diags, int keep_own);
int rmalab__hints_validate_strip_own(rmalab_hint_scope scope, rmalab_info *info);
void rmalab__hints_validate_diag_add(rmalab_diags *d, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
