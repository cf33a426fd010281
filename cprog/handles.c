/* The windows table (MPI_Win -> the core's window), the communicators the
 * core wrapped, and error handlers. MPICH's handles are ints; a program
 * has a few windows, so an array scanned without a lock serves the
 * lookups, and creation and free take a mutex. The array grows by blocks
 * of slots that never move (a program may hold a thousand windows at
 * once: MPICH's own test window_creation does), each published before the
 * count that reaches it. */
#include "handles.h"

#include "report.h"
#include "where.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <rmalab/error.h>
#include <rmalab/races.h>

#define BLOCK 256
#define BLOCKS 64
#define COMMS 64

static run_win *blocks[BLOCKS];
static int nslots;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static struct {
    MPI_Comm mpi;
    rmalab_comm *c;
} comms[COMMS];
static int ncomms;

static run_win *slot(int i)
{
    return &__atomic_load_n(&blocks[i / BLOCK], __ATOMIC_ACQUIRE)[i % BLOCK];
}

int run_win_max(void)
{
    return BLOCK * BLOCKS;
}

run_win *run_win_find(MPI_Win handle)
{
    int n = __atomic_load_n(&nslots, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n && handle != MPI_WIN_NULL; i++)
        if (__atomic_load_n(&slot(i)->handle, __ATOMIC_ACQUIRE) == handle)
            return slot(i);
    return NULL;
}

/* The last windows freed, and where: a handle used after its free is an
 * error that says so (plain MPICH 4.0.2 crashes on a second MPI_Win_free). */
#define FREED 64
static struct {
    MPI_Win handle;
    const void *pc;
} freed[FREED];
static unsigned nfreed;

static void freed_forget(MPI_Win handle)
{
    for (int i = 0; i < FREED; i++)
        if (freed[i].handle == handle)
            freed[i].handle = MPI_WIN_NULL;
}

run_win *run_win_add(rmalab_win *w)
{
    pthread_mutex_lock(&lock);
    int i = 0;
    while (i < nslots && slot(i)->handle != MPI_WIN_NULL)
        i++;
    if (i == nslots && i < BLOCK * BLOCKS && !blocks[i / BLOCK])
        __atomic_store_n(&blocks[i / BLOCK], calloc(BLOCK, sizeof(run_win)), __ATOMIC_RELEASE);
    run_win *s = i < BLOCK * BLOCKS && blocks[i / BLOCK] ? slot(i) : NULL;
    if (s) {
        run_span *att = s->att;
        if (!att && rmalab_win_flavor(w) == RMALAB_FLAVOR_DYNAMIC)
            att = calloc(RUN_ATTACHED, sizeof *att);
        *s = (run_win){.handle = MPI_WIN_NULL, .w = w, .eh = MPI_ERRORS_ARE_FATAL,
                       .group = MPI_GROUP_NULL, .base = rmalab_win_base(w),
                       .size = rmalab_win_size(w), .rank = rmalab_win_rank(w),
                       .checked = rmalab_win_check_mode(w) != RMALAB_CHECK_OFF, .att = att};
        s->own = (run_span){s, s->base, s->size, 0};
        PMPI_Win_get_group(rmalab_win_mpi(w), &s->group);
        freed_forget(rmalab_win_mpi(w)); /* MPICH reuses handles */
        __atomic_store_n(&s->handle, rmalab_win_mpi(w), __ATOMIC_RELEASE);
        if (i == nslots)
            __atomic_store_n(&nslots, i + 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&lock);
    return s;
}

int run_win_unknown(MPI_Win handle, const void *pc, const char *call)
{
    if (handle == MPI_WIN_NULL)
        return run_comm_done(MPI_COMM_WORLD, pc, call,
                             rmalab_set_error(RMALAB_ERR_WIN, "the window is MPI_WIN_NULL"));
    const void *at = NULL;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < FREED && !at; i++)
        if (freed[i].handle == handle)
            at = freed[i].pc;
    pthread_mutex_unlock(&lock);
    if (!at)
        return MPI_SUCCESS;
    return run_comm_done(MPI_COMM_WORLD, pc, call,
                         rmalab_set_error(RMALAB_ERR_WIN, "this window was freed by "
                                          "MPI_Win_free at %s", run_where(at)));
}

static bool is_fatal(MPI_Errhandler eh)
{
#ifdef MPI_ERRORS_ABORT
    if (eh == MPI_ERRORS_ABORT)
        return true;
#endif
    return eh == MPI_ERRORS_ARE_FATAL;
}

/* While calls are passed on, MPI_COMM_WORLD returns errors: MPICH raises
 * a bad window handle there, and its fatal handler would end the job
 * before the error line. The first call in saves the program's handler,
 * the last out puts it back. */
static pthread_mutex_t pass_lock = PTHREAD_MUTEX_INITIALIZER;
static int passing;
static MPI_Errhandler program_eh = MPI_ERRHANDLER_NULL;

void run_win_passing(void)
{
    pthread_mutex_lock(&pass_lock);
    if (passing++ == 0) {
        PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &program_eh);
        PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    }
    pthread_mutex_unlock(&pass_lock);
}

/* The program's handler of MPI_COMM_WORLD back (the last call out), and
 * which it is (compared only: a user handler's reference is freed). */
static MPI_Errhandler passed(void)
{
    pthread_mutex_lock(&pass_lock);
    MPI_Errhandler eh = program_eh;
    if (--passing == 0) {
        PMPI_Comm_set_errhandler(MPI_COMM_WORLD, program_eh);
        if (program_eh != MPI_ERRORS_RETURN && !is_fatal(program_eh))
            PMPI_Errhandler_free(&program_eh);
    }
    pthread_mutex_unlock(&pass_lock);
    return eh;
}

int run_win_passed(int rc, const void *pc, const char *call)
{
    MPI_Errhandler eh = passed();
    int cls = rc;
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING]; /* the class's: one line, no stack */
        int n = 0;
        PMPI_Error_class(rc, &cls);
        if (PMPI_Error_string(cls, text, &n) != MPI_SUCCESS)
            snprintf(text, sizeof text, "MPI error %d", rc);
        run_error(pc, call, text);
    }
    if (cls == MPI_ERR_WIN && is_fatal(eh)) /* MPI raised it on MPI_COMM_WORLD */
        run_fatal();
    if (cls == MPI_ERR_WIN && eh != MPI_ERRORS_RETURN)
        PMPI_Comm_call_errhandler(MPI_COMM_WORLD, rc);
    return rc;
}

void run_win_drop(run_win *s, const void *pc)
{
    pthread_mutex_lock(&lock);
    freed_forget(s->handle);
    freed[nfreed++ % FREED].handle = s->handle;
    freed[(nfreed - 1) % FREED].pc = pc;
    __atomic_store_n(&s->handle, MPI_WIN_NULL, __ATOMIC_RELEASE);
    for (int i = 0; s->att && i < RUN_ATTACHED; i++)
        __atomic_store_n(&s->att[i].size, 0, __ATOMIC_RELEASE);
    if (s->group != MPI_GROUP_NULL)
        PMPI_Group_free(&s->group);
    s->w = NULL;
    pthread_mutex_unlock(&lock);
}

void run_win_each(void (*fn)(run_win *s, void *ud), void *ud)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nslots; i++)
        if (slot(i)->handle != MPI_WIN_NULL)
            fn(slot(i), ud);
    pthread_mutex_unlock(&lock);
}

static bool holds(const run_span *p, const void *addr)
{
    MPI_Aint size = __atomic_load_n(&p->size, __ATOMIC_ACQUIRE);
    return size > 0 && (const char *)addr >= p->base && (const char *)addr < p->base + size;
}

run_span *run_win_at(const void *addr)
{
    int n = __atomic_load_n(&nslots, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++) {
        run_win *s = slot(i);
        if (__atomic_load_n(&s->handle, __ATOMIC_ACQUIRE) == MPI_WIN_NULL)
            continue;
        if (holds(&s->own, addr))
            return &s->own;
        for (int j = 0; s->att && j < RUN_ATTACHED; j++)
            if (holds(&s->att[j], addr))
                return &s->att[j];
    }
    return NULL;
}

void run_win_attached(run_win *s, void *base, MPI_Aint size)
{
    pthread_mutex_lock(&lock);
    for (int j = 0; s->att && size > 0 && j < RUN_ATTACHED; j++)
        if (s->att[j].size == 0) {
            s->att[j].s = s;
            s->att[j].base = base;
            s->att[j].disp0 = (MPI_Aint)(uintptr_t)base;
            __atomic_store_n(&s->att[j].size, size, __ATOMIC_RELEASE);
            break;
        }
    pthread_mutex_unlock(&lock);
}

void run_win_detached(run_win *s, const void *base)
{
    pthread_mutex_lock(&lock);
    for (int j = 0; s->att && j < RUN_ATTACHED; j++)
        if (s->att[j].size > 0 && s->att[j].base == base) {
            __atomic_store_n(&s->att[j].size, 0, __ATOMIC_RELEASE);
            break;
        }
    pthread_mutex_unlock(&lock);
}

static rmalab_comm *comm_find(MPI_Comm comm)
{
    for (int i = 0; i < ncomms; i++)
        if (comms[i].mpi == comm)
            return comms[i].c;
    return NULL;
}

rmalab_comm *run_comm(MPI_Comm comm)
{
    pthread_mutex_lock(&lock);
    rmalab_comm *c = comm_find(comm);
    if (!c && ncomms < COMMS && rmalab_comm_wrap(comm, &c) == RMALAB_OK)
        comms[ncomms++] = (__typeof__(comms[0])){comm, c};
    pthread_mutex_unlock(&lock);
    return c;
}

int run_comm_world(void)
{
    return run_comm(MPI_COMM_WORLD) ? RMALAB_OK : RMALAB_ERR_COMM;
}

void run_comm_forget(MPI_Comm comm)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < ncomms; i++)
        if (comms[i].mpi == comm) {
            rmalab_comm_free(&comms[i].c);
            comms[i] = comms[--ncomms];
            break;
        }
    pthread_mutex_unlock(&lock);
}

void run_comms_free(void)
{
    pthread_mutex_lock(&lock);
    while (ncomms > 0)
        rmalab_comm_free(&comms[--ncomms].c);
    pthread_mutex_unlock(&lock);
}

int run_class(int status)
{
    static const int classes[] = {
        [RMALAB_OK] = MPI_SUCCESS,
        [RMALAB_ERR_ARG] = MPI_ERR_ARG,
        [RMALAB_ERR_INFO_KEY] = MPI_ERR_INFO_KEY,
        [RMALAB_ERR_INFO_VALUE] = MPI_ERR_INFO_VALUE,
        [RMALAB_ERR_INFO_NOKEY] = MPI_ERR_INFO_NOKEY,
        [RMALAB_ERR_INFO] = MPI_ERR_INFO,
        [RMALAB_ERR_RMA_SYNC] = MPI_ERR_RMA_SYNC,
        [RMALAB_ERR_RMA_RANGE] = MPI_ERR_RMA_RANGE,
        [RMALAB_ERR_RMA_ATTACH] = MPI_ERR_RMA_ATTACH,
        [RMALAB_ERR_RMA_FLAVOR] = MPI_ERR_RMA_FLAVOR,
        [RMALAB_ERR_RMA_CONFLICT] = MPI_ERR_RMA_CONFLICT,
        [RMALAB_ERR_RANK] = MPI_ERR_RANK,
        [RMALAB_ERR_GROUP] = MPI_ERR_GROUP,
        [RMALAB_ERR_KEYVAL] = MPI_ERR_KEYVAL,
        [RMALAB_ERR_COMM] = MPI_ERR_COMM,
        [RMALAB_ERR_WIN] = MPI_ERR_WIN,
        [RMALAB_ERR_TYPE] = MPI_ERR_TYPE,
        [RMALAB_ERR_OP] = MPI_ERR_OP,
        [RMALAB_ERR_NO_MEM] = MPI_ERR_NO_MEM,
        [RMALAB_ERR_CALLBACK] = MPI_ERR_OTHER,
        [RMALAB_ERR_PENDING] = MPI_ERR_PENDING,
        [RMALAB_ERR_OTHER] = MPI_ERR_OTHER,
        [RMALAB_ERR_TRUNCATE] = MPI_ERR_TRUNCATE,
        [RMALAB_ERR_INTERRUPTED] = MPI_ERR_OTHER,
        [RMALAB_ERR_COUNT] = MPI_ERR_COUNT,
    };
    if (status < 0 || status >= (int)(sizeof classes / sizeof *classes))
        return MPI_ERR_OTHER;
    return classes[status];
}

void run_site(run_win *s, const void *pc)
{
    if (s->checked)
        rmalab_check_site(run_where_key(pc));
}

int run_win_done(run_win *s, const void *pc, const char *call, int status)
{
    const char *went;
    if (rmalab_err_went_on(&went)) /* a rule MPICH does not enforce: told, not fatal */
        run_error(pc, call, went);
    if (s->checked)
        run_races_poll();
    if (status == RMALAB_OK)
        return MPI_SUCCESS;
    int cls = run_class(status);
    run_error(pc, call, rmalab_errmsg());
    if (is_fatal(s->eh))
        run_fatal();
    if (s->eh != MPI_ERRORS_RETURN) {
        MPI_Win mpi = rmalab_win_mpi(s->w);
        PMPI_Win_set_errhandler(mpi, s->eh);
        PMPI_Win_call_errhandler(mpi, cls);
        PMPI_Win_set_errhandler(mpi, MPI_ERRORS_RETURN);
    }
    return cls;
}

int run_comm_done(MPI_Comm comm, const void *pc, const char *call, int status)
{
    if (status == RMALAB_OK)
        return MPI_SUCCESS;
    int cls = run_class(status);
    run_error(pc, call, rmalab_errmsg());
    MPI_Errhandler eh = MPI_ERRORS_ARE_FATAL;
    if (comm != MPI_COMM_NULL)
        PMPI_Comm_get_errhandler(comm, &eh);
    if (is_fatal(eh))
        run_fatal();
    if (eh != MPI_ERRORS_RETURN)
        PMPI_Comm_call_errhandler(comm, cls);
    if (eh != MPI_ERRORS_RETURN && eh != MPI_ERRORS_ARE_FATAL)
        PMPI_Errhandler_free(&eh);
    return cls;
}
