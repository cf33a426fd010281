/* Status codes of the rmalab core.
 *
 * Every core call returns one of these codes and never aborts. Each code is
 * named after the MPI error class it corresponds to (without "MPI_"), so the
 * Lua binding and the REPL can show users the vocabulary of the standard.
 * The detailed message of the last failure on the calling thread, which
 * names the broken rule and the fix, is kept by rmalab_errmsg().
 * ERR_INTERRUPTED has no MPI counterpart: a wait in rmalab's own loop that
 * rmalab_interrupt (rmalab/block.h) ended. New codes go at the end, so the
 * numbers of the others never change.
 */
#ifndef RMALAB_ERROR_H
#define RMALAB_ERROR_H

#include <stddef.h>

#include <rmalab/export.h>

/* X(code suffix, message) -- the class name is "ERR_" #suffix. */
#define RMALAB_ERRNO_MAP(X)                                                    \
    X(ARG, "invalid argument")                                                 \
    X(INFO_KEY, "invalid info key")                                            \
    X(INFO_VALUE, "invalid info value")                                        \
    X(INFO_NOKEY, "info key not defined")                                      \
    X(INFO, "invalid info object")                                             \
    X(RMA_SYNC, "wrong synchronisation of RMA calls")                          \
    X(RMA_RANGE, "target memory is outside the window")                        \
    X(RMA_ATTACH, "memory cannot be attached")                                 \
    X(RMA_FLAVOR, "wrong window flavour for this call")                        \
    X(RMA_CONFLICT, "conflicting RMA accesses")                                \
    X(RANK, "invalid rank")                                                    \
    X(GROUP, "invalid group")                                                  \
    X(KEYVAL, "invalid keyval")                                                \
    X(COMM, "invalid communicator")                                            \
    X(WIN, "invalid window")                                                   \
    X(TYPE, "invalid datatype")                                                \
    X(OP, "invalid reduction operation")                                       \
    X(NO_MEM, "out of memory")                                                 \
    X(CALLBACK, "a user callback failed")                                      \
    X(PENDING, "the operation has not completed yet")                          \
    X(OTHER, "MPI reported an error")                                          \
    X(TRUNCATE, "message truncated")                                           \
    X(INTERRUPTED, "the blocked call was interrupted")                         \
    X(COUNT, "invalid count")

enum rmalab_status {
    RMALAB_OK = 0,
#define RMALAB__ENUM(name, msg) RMALAB_ERR_##name,
    RMALAB_ERRNO_MAP(RMALAB__ENUM)
#undef RMALAB__ENUM
    RMALAB_ERR_LASTCODE
};

/* "ERR_ARG" and so on; "SUCCESS" for RMALAB_OK, "ERR_UNKNOWN" otherwise. */
RMALAB_API const char *rmalab_err_name(int code);
/* A short generic message for the code. */
RMALAB_API const char *rmalab_strerror(int code);
/* The detailed message of the last failure on this thread: what rule was
 * broken and how to fix it. Valid until the next failing call on this
 * thread; never NULL. */
RMALAB_API const char *rmalab_errmsg(void);
/* The world rank that found the race behind this thread's last failure,
 * or -1. In races mode every rank of a window raises ERR_RMA_CONFLICT at
 * the call that noticed a race (rmalab/races.h): the rank that found it
 * with its own report, the others with the same report as that rank's.
 * This says which, without reading the message: the finder's own failure
 * names itself. Any later failure sets it back to -1. */
RMALAB_API int rmalab_err_finder(void);
/* Record a detailed message for `code` on this thread and return `code`:
 * for user callbacks (attribute copy/delete) that fail with a reason. */
RMALAB_API int rmalab_set_error(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The rule of MPI that this thread's last call on a window under
 * RMALAB_RULES_REPORT (rmalab/win.h) broke and went on from, as MPICH
 * does: its code (RMALAB_ERR_RMA_SYNC...), RMALAB_OK when none; its message
 * in *msg (may be NULL; valid until the next such call on this thread).
 * Taking it clears it, so that each is told once; the call's own status
 * and rmalab_errmsg are apart from it. */
RMALAB_API int rmalab_err_went_on(const char **msg);

/* Warnings: what the core reports without failing a call (a race found in
 * races:warn, race checking that became incomplete). They go to one
 * process-wide function, which an embedder installs to show them its own
 * way (the Lua module does, and through it the REPL); the default writes
 * the text and a newline to stderr. `text` has no final newline and is
 * valid during the call only. The function runs on the thread that made
 * the core call, inside it: it must not call the core. */
typedef void (*rmalab_warn_fn)(void *ud, const char *text);
/* Install `fn` with `ud` (NULL: the default). */
RMALAB_API void rmalab_set_warnf(rmalab_warn_fn fn, void *ud);
/* The function installed now and its `ud`, so that an embedder can chain
 * to it or put it back; the default is reported as NULL. */
RMALAB_API void rmalab_get_warnf(rmalab_warn_fn *fn, void **ud);

/* The core's texts speak of calls as the Lua binding spells them
 * ("fence()", "lock(1, \"exclusive\")", "win:read"); a C program's
 * reader knows MPI_Win_fence(), MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0,
 * win) and loads. msg in those words into out (always terminated when
 * size > 0; cut to fit). */
RMALAB_API void rmalab_text_in_c(const char *msg, char *out, size_t size);

#endif
