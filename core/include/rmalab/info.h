/* Info objects: an ordered store of (key, value) strings.
 *
 * The semantics are those of the MPI standard's chapter "The Info Object",
 * agreeing with MPICH 4.0.2: insertion order is kept, setting an existing
 * key overrides its value in place, dup keeps pairs and order, nthkey is
 * 0-based and stable while the object is not modified. Keys hold 1 to
 * RMALAB_MAX_INFO_KEY bytes and values 0 to RMALAB_MAX_INFO_VAL bytes; a
 * longer or empty key is ERR_INFO_KEY, a longer value ERR_INFO_VALUE, and a
 * key or value holding a NUL byte is rejected with the same classes rather
 * than truncated. Lookups are O(1) on average (a hash index over the
 * insertion-ordered entries). An object holds at most 16,777,214 entries,
 * counting deleted keys it has not yet squeezed out; a set beyond that
 * squeezes them out first, and is ERR_NO_MEM when there are none.
 *
 * Nothing here calls MPI except the conversion functions at the end, so the
 * object works before MPI_Init and without mpiexec. An info object is not
 * thread-safe; callers serialise access to one object.
 */
#ifndef RMALAB_INFO_H
#define RMALAB_INFO_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

#include <rmalab/export.h>

#define RMALAB_MAX_INFO_KEY 255
#define RMALAB_MAX_INFO_VAL 1024

typedef struct rmalab_info rmalab_info;

RMALAB_API int rmalab_info_create(rmalab_info **out);
/* Sets *info to NULL, as the win, comm and keyval free functions do.
 * Accepts NULL and a NULL *info. */
RMALAB_API void rmalab_info_destroy(rmalab_info **info);
RMALAB_API int rmalab_info_dup(const rmalab_info *info, rmalab_info **out);

/* C strings, or explicit lengths (the _n forms reject embedded NULs). */
RMALAB_API int rmalab_info_set(rmalab_info *info, const char *key, const char *value);
RMALAB_API int rmalab_info_set_n(rmalab_info *info, const char *key, size_t klen,
                                 const char *value, size_t vlen);
/* ERR_INFO_NOKEY when the key is absent. */
RMALAB_API int rmalab_info_delete(rmalab_info *info, const char *key);
RMALAB_API int rmalab_info_delete_n(rmalab_info *info, const char *key, size_t klen);

/* MPI_Info_get: value must hold valuelen + 1 bytes; a longer value is
 * truncated to valuelen bytes and NUL-terminated. *flag tells presence;
 * value is untouched when absent. */
RMALAB_API int rmalab_info_get(const rmalab_info *info, const char *key, int valuelen,
                               char *value, int *flag);
RMALAB_API int rmalab_info_get_valuelen(const rmalab_info *info, const char *key,
                                        int *valuelen, int *flag);
/* MPI-4 MPI_Info_get_string: *buflen is the size of value in bytes on input
 * and the value's length plus one on output. When the buffer is too small the
 * value is truncated to *buflen - 1 bytes; with *buflen == 0 nothing is
 * written. */
RMALAB_API int rmalab_info_get_string(const rmalab_info *info, const char *key, int *buflen,
                                      char *value, int *flag);
RMALAB_API int rmalab_info_get_nkeys(const rmalab_info *info, int *nkeys);
/* key must hold RMALAB_MAX_INFO_KEY + 1 bytes. ERR_ARG when n is out of
 * range. Not const: it may compact the entries left by deletes, which
 * allocates nothing, so that nthkey and nth (and delete) never fail for
 * lack of memory. */
RMALAB_API int rmalab_info_get_nthkey(rmalab_info *info, int n, char *key);

/* Direct, zero-copy access. lookup returns NULL when absent; the pointers
 * stay valid until the object is next modified, and a first nth or nthkey
 * after a delete counts (it compacts, which moves short keys and values).
 * They may be handed back to set on the same object. */
RMALAB_API const char *rmalab_info_lookup(const rmalab_info *info, const char *key,
                                          size_t klen, size_t *vlen);
RMALAB_API int rmalab_info_nth(rmalab_info *info, int n, const char **key, size_t *klen,
                               const char **value, size_t *vlen);

/* Typed readers after the standard's representation rules. *flag is 0 and
 * nothing is written when the key is absent; text that is not of the type
 * is ERR_ARG with a message that quotes it. */
RMALAB_API int rmalab_info_get_bool(const rmalab_info *info, const char *key, bool *value,
                                    int *flag);
RMALAB_API int rmalab_info_get_int(const rmalab_info *info, const char *key, int *value,
                                   int *flag);
/* *items is a malloc'd array of *count malloc'd strings, trimmed; release
 * it with rmalab_list_free. */
RMALAB_API int rmalab_info_get_list(const rmalab_info *info, const char *key, char ***items,
                                    int *count, int *flag);
RMALAB_API void rmalab_list_free(char **items, int count);

/* The same rules on raw text. */
RMALAB_API int rmalab_parse_bool(const char *s, size_t n, bool *out);
RMALAB_API int rmalab_parse_int(const char *s, size_t n, int *out);
RMALAB_API int rmalab_parse_list(const char *s, size_t n, char ***items, int *count);

/* Conversion with MPI_Info (requires MPI to be initialised). to_mpi always
 * creates a fresh MPI_Info that the caller frees: MPICH 4.0.2 rewrites the
 * info it parses, so a caller's object must never be handed over. from_mpi
 * reads every pair back without losing keys to MPICH's quirks (nthkey cuts
 * 255-byte keys; a short buffer is an error instead of a truncation). Both
 * run with MPI_ERRORS_RETURN on MPI_COMM_WORLD and MPI_COMM_SELF and restore
 * the caller's handlers. MPI_INFO_NULL converts to an empty object. */
RMALAB_API int rmalab_info_to_mpi(const rmalab_info *info, MPI_Info *out);
RMALAB_API int rmalab_info_from_mpi(MPI_Info in, rmalab_info **out);
/* The keys of MPI_INFO_ENV, completed with the standard keys the process
 * can tell about itself (MPICH 4.0.2 reports none). */
RMALAB_API int rmalab_info_env(rmalab_info **out);
/* The thread level the program asked MPI_Init_thread for (MPI_THREAD_*),
 * which rmalab_info_env reports as thread_level, as the standard defines
 * the key. Whoever initialises MPI says so here; when nobody has, the
 * level MPI provides is reported instead. */
RMALAB_API void rmalab_info_env_thread_requested(int level);

#endif
