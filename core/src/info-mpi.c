/* Conversion between rmalab info objects and MPI_Info, written around the
 * quirks of MPICH 4.0.2 measured here:
 *  - MPI_Info_get_nthkey copies at most 254 characters of a 255-character
 *    key, so a key read back that long may be a prefix; we find the real key
 *    by probing the candidates for its last character;
 *  - MPI_Info_get with a buffer shorter than the value fails with
 *    MPI_ERR_INFO_VALUE instead of truncating, so we ask for the length
 *    first and read with an exact buffer;
 *  - info errors go to MPI_COMM_WORLD's error handler, so the calls run
 *    under MPI_ERRORS_RETURN;
 *  - MPICH rewrites an info it parses, so we always hand it a fresh copy. */
#include "private.h"
#include "alloc.h"
#include "error-private.h"
#include "info-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* MPI_ERRORS_RETURN on MPI_COMM_WORLD and MPI_COMM_SELF for the duration of
 * a few MPI calls that report through them (MPICH routes info errors to
 * MPI_COMM_WORLD). Not reentrant across threads: MPI handlers are global. */
typedef struct {
    MPI_Errhandler world, self;
    int active;
} errguard;

static void guard_enter(errguard *g)
{
    int init = 0, fini = 0;
    g->active = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fini);
    if (!init || fini)
        return;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &g->world);
    MPI_Comm_get_errhandler(MPI_COMM_SELF, &g->self);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    g->active = 1;
}

static void guard_leave(errguard *g)
{
    if (!g->active)
        return;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, g->world);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, g->self);
    MPI_Errhandler_free(&g->world);
    MPI_Errhandler_free(&g->self);
    g->active = 0;
}

static int need_mpi(const char *what)
{
    int init = 0, fini = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fini);
    if (!init || fini)
        return rmalab__err_fail(RMALAB_ERR_OTHER,
                                "%s needs MPI to be initialised and not yet "
                                "finalised",
                                what);
    return RMALAB_OK;
}

int rmalab_info_to_mpi(const rmalab_info *info, MPI_Info *out)
{
    int rc = need_mpi("converting an info object to MPI_Info");
    if (rc)
        return rc;
    if (!info)
        return rmalab__err_fail(RMALAB_ERR_INFO, "info object is NULL");
    errguard g;
    guard_enter(&g);
    MPI_Info mi = MPI_INFO_NULL;
    int e = MPI_Info_create(&mi);
    /* nth may compact, which changes no pairs: the const is about content. */
    rmalab_info *src = (rmalab_info *)info;
    int n = 0;
    rmalab_info_get_nkeys(src, &n);
    for (int i = 0; e == MPI_SUCCESS && i < n; i++) {
        const char *k, *v;
        rmalab_info_nth(src, i, &k, NULL, &v, NULL);
        e = MPI_Info_set(mi, k, v);
    }
    if (e != MPI_SUCCESS) {
        rc = rmalab__err_mpi(e, "MPI_Info_set");
        if (mi != MPI_INFO_NULL)
            MPI_Info_free(&mi);
    } else {
        *out = mi;
    }
    guard_leave(&g);
    return rc;
}

/* MPICH hands back at most 254 characters of a 255-character key, so a
 * 254-character key from nthkey stands for the key itself and/or any
 * 255-character keys that extend it. On its first appearance, add every real
 * key behind it (probing the 255 possible last characters); later
 * appearances of the same prefix are then skipped. */
static int add_truncated(MPI_Info in, rmalab_info *info, char *key, char *val)
{
    size_t n = strlen(key);
    int vlen, flag = 0, rc = RMALAB_OK;
    for (int c = 0; c < 256 && !rc; c++) {
        key[n] = (char)c; /* c == 0: the 254-character key itself */
        key[n + 1] = '\0';
        if (rmalab_info_lookup(info, key, strlen(key), NULL))
            continue;
        MPI_Info_get_valuelen(in, key, &vlen, &flag);
        if (!flag)
            continue;
        if (vlen > RMALAB_MAX_INFO_VAL)
            vlen = RMALAB_MAX_INFO_VAL;
        if (MPI_Info_get(in, key, vlen, val, &flag) != MPI_SUCCESS || !flag)
            continue;
        rc = rmalab_info_set_n(info, key, strlen(key), val, strlen(val));
    }
    key[n] = '\0';
    return rc;
}

int rmalab_info_from_mpi(MPI_Info in, rmalab_info **out)
{
    int rc = need_mpi("reading an MPI_Info");
    if (rc)
        return rc;
    rmalab_info *info;
    if ((rc = rmalab_info_create(&info)))
        return rc;
    if (in == MPI_INFO_NULL) {
        *out = info;
        return RMALAB_OK;
    }
    errguard g;
    guard_enter(&g);
    int n = 0, e = MPI_Info_get_nkeys(in, &n);
    char key[RMALAB_MAX_INFO_KEY + 2];
    char *val = rmalab__mem_alloc(RMALAB_MAX_INFO_VAL + 1);
    if (!val)
        rc = rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory reading an MPI_Info");
    for (int i = 0; !rc && e == MPI_SUCCESS && i < n; i++) {
        int vlen = 0, flag = 0;
        if ((e = MPI_Info_get_nthkey(in, i, key)) != MPI_SUCCESS)
            break;
        if (strlen(key) == RMALAB_MAX_INFO_KEY - 1) {
            rc = add_truncated(in, info, key, val);
            continue;
        }
        if ((e = MPI_Info_get_valuelen(in, key, &vlen, &flag)) != MPI_SUCCESS || !flag)
            continue;
        if (vlen > RMALAB_MAX_INFO_VAL)
            vlen = RMALAB_MAX_INFO_VAL;
        if ((e = MPI_Info_get(in, key, vlen, val, &flag)) != MPI_SUCCESS)
            break;
        rc = rmalab_info_set_n(info, key, strlen(key), val, strlen(val));
    }
    rmalab__mem_free(val);
    guard_leave(&g);
    if (!rc && e != MPI_SUCCESS)
        rc = rmalab__err_mpi(e, "reading an MPI_Info");
    if (rc) {
        rmalab_info_destroy(&info);
        return rc;
    }
    *out = info;
    return RMALAB_OK;
}

/* Set `key` unless MPI already reported it. */
static int env_default(rmalab_info *info, const char *key, const char *value)
{
    if (!value || rmalab_info_lookup(info, key, strlen(key), NULL))
        return RMALAB_OK;
    return rmalab_info_set_n(info, key, strlen(key), value,
                             strnlen(value, RMALAB_MAX_INFO_VAL));
}

static int thread_requested = -1;

void rmalab_info_env_thread_requested(int level)
{
    thread_requested = level;
}

/* MPICH 4.0.2 leaves MPI_INFO_ENV empty, so the standard's keys that the
 * process can tell about itself are filled in: command, argv, maxprocs,
 * host, arch, wdir and thread_level. Keys MPI does report win. */
int rmalab_info_env(rmalab_info **out)
{
    rmalab_info *info;
    int rc = rmalab_info_from_mpi(MPI_INFO_ENV, &info);
    if (rc)
        return rc;
    char buf[RMALAB_MAX_INFO_VAL + 1], cmd[RMALAB_MAX_INFO_VAL + 1] = "", args[RMALAB_MAX_INFO_VAL + 1] = "";
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (f) {
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        snprintf(cmd, sizeof cmd, "%s", buf);
        size_t off = 0;
        for (size_t i = strlen(buf) + 1; i < n && off < sizeof args - 1; i += strlen(buf + i) + 1)
            off += (size_t)snprintf(args + off, sizeof args - off, "%s%s", off ? " " : "", buf + i);
    }
    int size = 0, level = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if ((level = thread_requested) < 0)
        MPI_Query_thread(&level); /* nobody said what was asked for */
    static const char *const levels[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                         "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};
    char procs[32];
    snprintf(procs, sizeof procs, "%d", size);
    struct utsname u;
    int have_uname = uname(&u) == 0;
    rc = env_default(info, "command", cmd[0] ? cmd : NULL);
    if (!rc)
        rc = env_default(info, "argv", args[0] ? args : NULL);
    if (!rc)
        rc = env_default(info, "maxprocs", procs);
    if (!rc)
        rc = env_default(info, "host", have_uname ? u.nodename : NULL);
    if (!rc)
        rc = env_default(info, "arch", have_uname ? u.machine : NULL);
    if (!rc)
        rc = env_default(info, "wdir", getcwd(buf, sizeof buf));
    if (!rc)
        rc = env_default(info, "thread_level", level >= 0 && level < 4 ? levels[level] : NULL);
    if (rc) {
        rmalab_info_destroy(&info);
        return rc;
    }
    *out = info;
    return RMALAB_OK;
}
