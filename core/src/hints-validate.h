/* Private to the core: the calls of hints-validate.c, the validation of
 * hints against the catalogue. Never installed. */
#ifndef RMALAB_HINTS_VALIDATE_H
#define RMALAB_HINTS_VALIDATE_H

#include "private.h"

/* Validation that may keep rmalab's own keys, removing
 * them afterwards, and adding a diagnostic (d may be NULL). */
int rmalab__hints_validate(rmalab_hint_scope scope, const rmalab_info *requested,
                           rmalab_info **to_mpi, rmalab_diags *diags, int keep_own);
int rmalab__hints_validate_strip_own(rmalab_hint_scope scope, rmalab_info *info);
void rmalab__hints_validate_diag_add(rmalab_diags *d, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
