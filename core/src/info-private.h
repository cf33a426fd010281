/* info.c, info-typed.c, info-mpi.c: info objects and their typed values.
 * Private to the core, never installed. */
#ifndef RMALAB_INFO_PRIVATE_H
#define RMALAB_INFO_PRIVATE_H

#include "private.h"

/* Strings of known length, NUL-terminated copies. */
char *rmalab__info_strndup(const char *s, size_t n);

/* info.c: the front of the C readers of an info object: checks `info` and
 * `key` (a C string), then looks it up (*val NULL when absent). */
int rmalab__info_find(const rmalab_info *info, const char *key, const char **val,
                      size_t *vlen);
/* info-typed.c: strip the white space around s[0..n) as the standard
 * strips it from typed values (rmalab_parse_bool, _int, _list). */
void rmalab__info_typed_trim(const char **s, size_t *n);

/* info-mpi.c */
/* MPI_ERRORS_RETURN on MPI_COMM_WORLD and MPI_COMM_SELF for the duration of
 * a few MPI calls that report through them (MPICH routes info errors to
 * MPI_COMM_WORLD). Not reentrant across threads: MPI handlers are global. */
typedef struct {
    MPI_Errhandler world, self;
    int active;
} rmalab__errguard;
void rmalab__info_mpi_guard_enter(rmalab__errguard *g);
void rmalab__info_mpi_guard_leave(rmalab__errguard *g);

#endif
