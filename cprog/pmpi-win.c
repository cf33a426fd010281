/* Window creation and free, and the calls about a window as a whole
 * (shared query, error handler). The core makes the window: the program
 * gets its MPI window (rmalab_win_mpi) as its MPI_Win, and its memory, which
 * the core aligns to 64 bytes with a size rounded up to 16 (so MPICH
 * 4.0.2's base-rounding defect does not reach C programs either); user
 * memory that is not 16-byte aligned is refused. The program's MPI_Info
 * goes through the hint catalogue, whose diagnostics become warnings at
 * the creating line (written by rank 0 of the communicator only: ranks
 * mostly pass the same hints, and a compiler says a thing once).
 *
 * The large-count forms (MPI_Win_allocate_c...) take the same path.
 * Dynamic windows are the core's too: MPI_Win_attach hands it the
 * program's memory (rmalab_win_attach_memory), so operations on them are
 * checked against what each target attached, and the program's loads and
 * stores of attached memory are watched from the attach to the detach.
 * MPI_Win_set_name names the core's window too (traces show the name). */
#include "pmpi.h"
#include "report.h"
#include "requests.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <rmalab/error.h>
#include <rmalab/hints.h>
#include <rmalab/info.h>
#include <rmalab/races.h>

/* The program's hints, with the race checker's mode made quiet: this
 * interceptor prints the races itself, once each, in its own form. The
 * mode is the hint rmalab_check, else RMALAB_CHECK (which `rmalab run`
 * sets), else off. */
static int hints_of(MPI_Info in, rmalab_info **out)
{
    int rc = rmalab_info_from_mpi(in, out);
    if (rc)
        return rc;
    const char *v = rmalab_info_lookup(*out, RMALAB_KEY_CHECK, strlen(RMALAB_KEY_CHECK), NULL);
    if (!v)
        v = getenv("RMALAB_CHECK");
    if (v && (!strcmp(v, "races") || !strcmp(v, "races:warn") || !strcmp(v, "races:quiet")))
        rc = rmalab_info_set(*out, RMALAB_KEY_CHECK, "races:quiet");
    return rc;
}

typedef int (*creator)(const rmalab_win_opts *, rmalab_win **, rmalab_diags *);

static int create(rmalab_flavor flavor, creator fn, rmalab_win_opts *o, MPI_Info info,
                  MPI_Comm comm, const void *pc, const char *call, MPI_Win *win)
{
    rmalab_info *hints = NULL;
    rmalab_win *w = NULL;
    rmalab_diags d;
    rmalab_diags_init(&d);
    *win = MPI_WIN_NULL;
    run_stuck_at(pc, call);
    if (!(o->comm = run_comm(comm)))
        return run_comm_done(comm, pc, call,
                             rmalab_set_error(RMALAB_ERR_COMM, "an invalid communicator"));
    int rc = hints_of(info, &hints);
    o->info = hints;
    o->rules = RMALAB_RULES_REPORT; /* the program runs as under mpiexec (run_win_done) */
    rc = rc ? rmalab_win_take_part(flavor, o, rc) : fn(o, &w, &d);
    int crank = -1;
    PMPI_Comm_rank(comm, &crank);
    for (int i = 0; crank == 0 && i < d.count; i++)
        run_warning(pc, call, d.items[i].message);
    rmalab_diags_clear(&d);
    rmalab_info_destroy(&hints);
    if (rc)
        return run_comm_done(comm, pc, call, rc);
    run_win *s = run_win_add(w);
    if (!s) {
        rmalab_win_free(&w);
        rc = rmalab_set_error(RMALAB_ERR_NO_MEM, "rmalab run keeps at most %d windows "
                              "at once", run_win_max());
        return run_comm_done(comm, pc, call, rc);
    }
    *win = s->handle;
    run_watch_windows();
    return MPI_SUCCESS;
}

/* allocate and allocate_shared: the core's memory, handed back. */
static int allocate(rmalab_flavor flavor, creator fn, MPI_Aint size, int disp_unit,
                    MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win,
                    const void *pc, const char *call)
{
    rmalab_win_opts o = {.size = size, .disp_unit = disp_unit};
    int rc = create(flavor, fn, &o, info, comm, pc, call, win);
    run_win *s = rc == MPI_SUCCESS ? run_win_find(*win) : NULL;
    if (s)
        *(void **)baseptr = s->base;
    return rc;
}

RUN_API int run_MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                 void *baseptr, MPI_Win *win)
{
    return allocate(RMALAB_FLAVOR_ALLOCATE, rmalab_win_allocate, size, disp_unit, info, comm,
                    baseptr, win, RUN_PC, RUN_CALL);
}

RUN_API int run_MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                        void *baseptr, MPI_Win *win)
{
    return allocate(RMALAB_FLAVOR_SHARED, rmalab_win_allocate_shared, size, disp_unit, info,
                    comm, baseptr, win, RUN_PC, RUN_CALL);
}

/* No memory (size 0, base NULL or not) is memory of the program's all the
 * same: the core allocates only for a NULL base of a size. A NULL base of
 * no size stands in the core as `none`, and MPI_WIN_BASE gives the program
 * its NULL back (MPICH's test util frees a base it gets that is not NULL). */
static char none[16] __attribute__((aligned(16)));

static int create_on(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                     MPI_Win *win, const void *pc, const char *call)
{
    rmalab_win_opts o = {.size = size, .disp_unit = disp_unit,
                         .base = base || size > 0 ? base : none};
    return create(RMALAB_FLAVOR_CREATE, rmalab_win_create, &o, info, comm, pc, call, win);
}

RUN_API int run_MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                               MPI_Comm comm, MPI_Win *win)
{
    return create_on(base, size, disp_unit, info, comm, win, RUN_PC, RUN_CALL);
}

/* The large-count forms (MPI-4), for a disp_unit that fits in an int. */
static int unit_too_large(MPI_Comm comm, const void *pc, const char *call, MPI_Win *win)
{
    *win = MPI_WIN_NULL;
    return run_comm_done(comm, pc, call, rmalab_set_error(RMALAB_ERR_ARG, "a disp_unit over "
                         "%d", INT_MAX));
}

RUN_API int run_MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                                   void *baseptr, MPI_Win *win)
{
    if (disp_unit < 0 || disp_unit > INT_MAX)
        return unit_too_large(comm, RUN_PC, RUN_CALL, win);
    return allocate(RMALAB_FLAVOR_ALLOCATE, rmalab_win_allocate, size, (int)disp_unit, info,
                    comm, baseptr, win, RUN_PC, RUN_CALL);
}

RUN_API int run_MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                          MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    if (disp_unit < 0 || disp_unit > INT_MAX)
        return unit_too_large(comm, RUN_PC, RUN_CALL, win);
    return allocate(RMALAB_FLAVOR_SHARED, rmalab_win_allocate_shared, size, (int)disp_unit, info,
                    comm, baseptr, win, RUN_PC, RUN_CALL);
}

RUN_API int run_MPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                 MPI_Comm comm, MPI_Win *win)
{
    if (disp_unit < 0 || disp_unit > INT_MAX)
        return unit_too_large(comm, RUN_PC, RUN_CALL, win);
    return create_on(base, size, (int)disp_unit, info, comm, win, RUN_PC, RUN_CALL);
}

RUN_API int run_MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    rmalab_win_opts o = {0};
    return create(RMALAB_FLAVOR_DYNAMIC, rmalab_win_create_dynamic, &o, info, comm, RUN_PC,
                  RUN_CALL, win);
}

RUN_API int run_MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    RUN_KNOWN_WINDOW(win, PMPI_Win_attach(win, base, size));
    int rc = rmalab_win_attach_memory(s->w, base, size);
    if (rc == RMALAB_OK) {
        run_win_attached(s, base, size);
        run_watch_windows();
    }
    return run_win_done(s, RUN_PC, "MPI_Win_attach", rc);
}

RUN_API int run_MPI_Win_detach(MPI_Win win, const void *base)
{
    RUN_KNOWN_WINDOW(win, PMPI_Win_detach(win, base));
    MPI_Aint addr;
    PMPI_Get_address(base, &addr);
    run_watch_flush(); /* the loads and stores so far, while the region is attached */
    int rc = rmalab_win_detach(s->w, addr);
    if (rc == RMALAB_OK) {
        run_win_detached(s, base);
        run_watch_windows();
    }
    return run_win_done(s, RUN_PC, "MPI_Win_detach", rc);
}

/* Hints after creation: the catalogue's diagnostics are warnings at the
 * calling line (rank 0 of the window, as at creation); get_info gives
 * every hint in effect, rmalab's own included. */
RUN_API int run_MPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    RUN_KNOWN_WINDOW(win, PMPI_Win_set_info(win, info));
    const char *pc = RUN_PC;
    rmalab_info *hints = NULL;
    rmalab_diags d;
    rmalab_diags_init(&d);
    run_stuck_at(pc, RUN_CALL);
    int rc = rmalab_info_from_mpi(info, &hints); /* a failure takes part all the same */
    rc = rmalab_win_set_info_status(s->w, hints, &d, rc);
    for (int i = 0; s->rank == 0 && i < d.count; i++)
        run_warning(pc, RUN_CALL, d.items[i].message);
    rmalab_diags_clear(&d);
    rmalab_info_destroy(&hints);
    return run_win_done(s, pc, RUN_CALL, rc);
}

RUN_API int run_MPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    RUN_KNOWN_WINDOW(win, PMPI_Win_get_info(win, info_used));
    rmalab_info *in_effect = NULL;
    int rc = rmalab_win_get_info(s->w, &in_effect);
    if (!rc)
        rc = rmalab_info_to_mpi(in_effect, info_used);
    rmalab_info_destroy(&in_effect);
    return run_win_done(s, RUN_PC, RUN_CALL, rc);
}

RUN_API int run_MPI_Win_free(MPI_Win *win)
{
    if (!win)
        return PMPI_Win_free(win);
    RUN_KNOWN_WINDOW(*win, PMPI_Win_free(win));
    rmalab_win *w = s->w;
    run_watch_flush(); /* the loads and stores since the last call, while w is alive */
    run_stuck_at(RUN_PC, RUN_CALL);
    run_requests_win_free(*win);
    int rc = rmalab_win_free(&w);
    if (rc)
        return run_win_done(s, RUN_PC, "MPI_Win_free", rc);
    run_watch_forget(s);
    run_win_drop(s, RUN_PC);
    run_races_poll();
    *win = MPI_WIN_NULL;
    return MPI_SUCCESS;
}

RUN_API int run_MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit,
                                     void *baseptr)
{
    RUN_KNOWN_WINDOW(win, PMPI_Win_shared_query(win, rank, size, disp_unit, baseptr));
    int rc = rmalab_win_shared_query(s->w, rank, size, disp_unit, (void **)baseptr);
    return run_win_done(s, RUN_PC, "MPI_Win_shared_query", rc);
}

RUN_API int run_MPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                                       void *baseptr)
{
    RUN_KNOWN_WINDOW(win, PMPI_Win_shared_query_c(win, rank, size, disp_unit, baseptr));
    int unit = 0;
    int rc = rmalab_win_shared_query(s->w, rank, size, &unit, (void **)baseptr);
    *disp_unit = unit;
    return run_win_done(s, RUN_PC, RUN_CALL, rc);
}

/* The core's name, which it also gives the MPI window (MPI_Win_get_name
 * goes to MPICH), and which traces show (rmalab run --trace). */
RUN_API int run_MPI_Win_set_name(MPI_Win win, const char *name)
{
    RUN_KNOWN_WINDOW(win, PMPI_Win_set_name(win, name));
    return run_win_done(s, RUN_PC, RUN_CALL, rmalab_win_set_name(s->w, name));
}

/* The core's window keeps MPI_ERRORS_RETURN; the program's handler is
 * applied by run_win_done. */
RUN_API int run_MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    RUN_KNOWN_WINDOW(win, PMPI_Win_set_errhandler(win, errhandler));
    s->eh = errhandler;
    return MPI_SUCCESS;
}

RUN_API int run_MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    RUN_KNOWN_WINDOW(win, PMPI_Win_get_errhandler(win, errhandler));
    *errhandler = s->eh;
    return MPI_SUCCESS;
}

/* The predefined attributes are the core's: the window MPICH holds may be
 * larger (sizes rounded up to 16) or of another flavour (an engine's).
 * The program's own keyvals stay on the MPI window. */
RUN_API int run_MPI_Win_get_attr(MPI_Win win, int keyval, void *value, int *flag)
{
    RUN_KNOWN_WINDOW(win, PMPI_Win_get_attr(win, keyval, value, flag));
    rmalab_keyval *kv = keyval == MPI_WIN_BASE ? RMALAB_WIN_BASE
                      : keyval == MPI_WIN_SIZE ? RMALAB_WIN_SIZE
                      : keyval == MPI_WIN_DISP_UNIT ? RMALAB_WIN_DISP_UNIT
                      : keyval == MPI_WIN_CREATE_FLAVOR ? RMALAB_WIN_CREATE_FLAVOR
                      : keyval == MPI_WIN_MODEL ? RMALAB_WIN_MODEL : NULL;
    if (!kv)
        return PMPI_Win_get_attr(win, keyval, value, flag);
    if (kv == RMALAB_WIN_BASE && s->base == none) {
        *(void **)value = NULL;
        *flag = 1;
        return MPI_SUCCESS;
    }
    return run_win_done(s, RUN_PC, "MPI_Win_get_attr",
                        rmalab_win_get_attr(s->w, kv, (void **)value, flag));
}
