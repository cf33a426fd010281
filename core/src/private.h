/* Private to the core: internal helpers shared between the core's files.
 * Nothing here is part of the API; it is never installed. */
#ifndef RMALAB_PRIVATE_H
#define RMALAB_PRIVATE_H

#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>

#include <rmalab/rmalab.h>

/* Record a detailed message for `code` on this thread and return `code`. */
int rmalab__fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int rmalab__vfail(int code, const char *fmt, va_list ap);
/* Prepend "<fmt>: " to the current detailed message and return `code`. */
int rmalab__prefix(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Translate an MPI error code; `what` names the MPI call. */
int rmalab__mpi_fail(int mpierr, const char *what);

#define RMALAB__CHECK_MPI(call, what)                                          \
    do {                                                                       \
        int rmalab__e = (call);                                                \
        if (rmalab__e != MPI_SUCCESS)                                          \
            return rmalab__mpi_fail(rmalab__e, (what));                        \
    } while (0)

/* Strings of known length, NUL-terminated copies. */
char *rmalab__strndup(const char *s, size_t n);

/* MPI_ERRORS_RETURN on MPI_COMM_WORLD and MPI_COMM_SELF for the duration of
 * a few MPI calls that report through them (MPICH routes info errors to
 * MPI_COMM_WORLD). Not reentrant across threads: MPI handlers are global. */
typedef struct {
    MPI_Errhandler world, self;
    int active;
} rmalab__errguard;
void rmalab__errguard_enter(rmalab__errguard *g);
void rmalab__errguard_leave(rmalab__errguard *g);

#endif
