/* The core's texts in a C program's words (rmalab/error.h,
 * rmalab_text_in_c): calls as MPI spells them. Moved from the C programs'
 * interceptor (cprog/report.c), whose reports use it, so that rmalab's
 * watcher of a C program's ranks (repl/cprog/hang.c) speaks the same.
 * It calls no other file. */
#include "private.h"

#include <ctype.h>
#include <stdio.h>

/* The core speaks of calls as the Lua binding spells them ("fence()",
 * "lock(0)", "win:read"); a C program's reader knows MPI_Win_fence(...)
 * and loads. */
static const char *const c_names[][2] = {
    {"fence(\"nosucceed\")", "MPI_Win_fence(MPI_MODE_NOSUCCEED, win)"},
    {"fence(", "MPI_Win_fence("}, {"start(", "MPI_Win_start("}, {"post(", "MPI_Win_post("},
    {"complete(", "MPI_Win_complete("}, {"wait(", "MPI_Win_wait("}, {"test(", "MPI_Win_test("},
    {"lock(", "MPI_Win_lock("}, {"unlock(", "MPI_Win_unlock("},
    {"lock_all(", "MPI_Win_lock_all("}, {"unlock_all(", "MPI_Win_unlock_all("},
    {"flush(", "MPI_Win_flush("}, {"flush_all(", "MPI_Win_flush_all("},
    {"flush_local(", "MPI_Win_flush_local("}, {"flush_local_all(", "MPI_Win_flush_local_all("},
    {"sync(", "MPI_Win_sync("}, {"free(", "MPI_Win_free("}, {"barrier(", "MPI_Barrier("},
    {"put(", "MPI_Put("}, {"get(", "MPI_Get("}, {"accumulate(", "MPI_Accumulate("},
    {"get_accumulate(", "MPI_Get_accumulate("}, {"fetch_and_op(", "MPI_Fetch_and_op("},
    {"compare_and_swap(", "MPI_Compare_and_swap("}, {"win_allocate(", "MPI_Win_allocate("},
    {"win_allocate_shared(", "MPI_Win_allocate_shared("}, {"win_create(", "MPI_Win_create("},
    {"win:read", "load"}, {"win:write", "store"},
};

/* "lock(1, \"exclusive\")" at p: its C call in out, and the length it
 * spans; 0 when p holds no such text. */
static size_t c_lock(const char *p, char *out, size_t size)
{
    int rank, n = 0;
    char kind[10];
    if (sscanf(p, "lock(%d, \"%9[a-z]\")%n", &rank, kind, &n) != 2 || n == 0)
        return 0;
    bool excl = strcmp(kind, "exclusive") == 0;
    if (!excl && strcmp(kind, "shared") != 0)
        return 0;
    snprintf(out, size, "MPI_Win_lock(MPI_LOCK_%s, %d, 0, win)", excl ? "EXCLUSIVE" : "SHARED",
             rank);
    return (size_t)n;
}

void rmalab_text_in_c(const char *msg, char *out, size_t size)
{
    size_t o = 0;
    for (const char *p = msg; *p && o + 1 < size;) {
        bool word = p == msg || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == ':');
        size_t k = 0, n = sizeof c_names / sizeof *c_names, lock;
        char call[64];
        if (word && (lock = c_lock(p, call, sizeof call))) {
            o += (size_t)snprintf(out + o, size - o, "%s", call);
            p += lock;
            continue;
        }
        while (word && k < n && strncmp(p, c_names[k][0], strlen(c_names[k][0])) != 0)
            k++;
        if (word && k < n) {
            o += (size_t)snprintf(out + o, size - o, "%s", c_names[k][1]);
            p += strlen(c_names[k][0]);
        } else {
            out[o++] = *p++;
        }
    }
    out[o < size ? o : size - 1] = '\0';
}

