/* Private to the core: the calls of hints.c, the hint catalogue, which
 * hints-value.c, hints-validate.c, hints-report.c and the window's files
 * read. Never installed. */
#ifndef RMALAB_HINTS_PRIVATE_H
#define RMALAB_HINTS_PRIVATE_H

#include "private.h"

/* The value of the hint `key` (an RMALAB_KEY_ constant) in `info` (may be
 * NULL), or NULL (hints.c). */
const char *rmalab__hints_lookup(const rmalab_info *info, const char *key);
#endif
