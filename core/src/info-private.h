/* Private to the core: the calls of info.c, info objects, which
 * info-typed.c, info-mpi.c and the hints' files use. Never installed. */
#ifndef RMALAB_INFO_PRIVATE_H
#define RMALAB_INFO_PRIVATE_H

#include "private.h"

/* Strings of known length, NUL-terminated copies. */
char *rmalab__info_strndup(const char *s, size_t n);

/* The front of the C readers of an info object: checks `info` and
 * `key` (a C string), then looks it up (*val NULL when absent). */
int rmalab__info_find(const rmalab_info *info, const char *key, const char **val,
                      size_t *vlen);
#endif
