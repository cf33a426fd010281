/* Private to the core: the calls of info-typed.c, the standard's typed
 * values of an info object. Never installed. */
#ifndef RMALAB_INFO_TYPED_H
#define RMALAB_INFO_TYPED_H

#include "private.h"

/* Strip the white space around s[0..n) as the standard
 * strips it from typed values (rmalab_parse_bool, _int, _list). */
void rmalab__info_typed_trim(const char **s, size_t *n);

#endif
