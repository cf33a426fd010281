/* handles.c: the program's windows and communicators as the core's, and
 * what a refused call returns. */
#ifndef RMALAB_CPROG_HANDLES_H
#define RMALAB_CPROG_HANDLES_H

#include <mpi.h>
#include <stdbool.h>

#include <rmalab/comm.h>
#include <rmalab/win.h>

/* A stretch of this rank's memory that a window's loads and stores touch:
 * the window's own, or a region attached to a dynamic window. Address a in
 * it is the window's byte displacement disp0 + (a - base): a - base on the
 * window's own memory, the address itself on attached memory. size 0: no
 * stretch (a region detached). */
typedef struct run_span {
    struct run_win *s;
    char *base;
    MPI_Aint size;
    MPI_Aint disp0;
} run_span;

/* The regions one dynamic window watches at once (the core's limit). */
#define RUN_ATTACHED 64

/* A window the core made. The program holds rmalab_win_mpi(w), a real
 * MPICH window over the same memory, as its MPI_Win. */
typedef struct run_win {
    MPI_Win handle;      /* MPI_WIN_NULL while the slot is free */
    rmalab_win *w;
    MPI_Errhandler eh;   /* the program's (MPI_ERRORS_ARE_FATAL at first);
                            the core's window keeps MPI_ERRORS_RETURN */
    MPI_Group group;     /* the window's group, for PSCW's groups */
    bool checked;        /* races are checked on it */
    char *base;          /* this rank's memory, size bytes */
    MPI_Aint size;
    int rank;
    run_span own;        /* base and size as a span */
    run_span *att;       /* RUN_ATTACHED: a dynamic window's attached regions,
                            kept with the slot once made */
} run_win;

/* NULL for a window the core does not know (the program's calls on it go
 * to PMPI unchanged). Lock-free; any thread. */
run_win *run_win_find(MPI_Win handle);
/* A slot for a new core window; NULL (and the window left to the caller)
 * when the table is full (run_win_max windows live at once) or no memory. */
run_win *run_win_add(rmalab_win *w);
int run_win_max(void);
/* s was freed by the MPI_Win_free at pc. */
void run_win_drop(run_win *s, const void *pc);
/* A handle the core does not know: MPI_WIN_NULL, or a window freed here,
 * is an error at pc for call, raised on MPI_COMM_WORLD's handler (the
 * class is returned); any other handle is MPICH's own: MPI_SUCCESS, to
 * pass the call on. */
int run_win_unknown(MPI_Win handle, const void *pc, const char *call);
/* A call is passed on to MPI: until run_win_passed, MPI_COMM_WORLD
 * returns errors, so that a bad window handle, which MPICH raises there,
 * comes back. */
void run_win_passing(void);
/* What MPI said of a call passed on (rc): an error is an error line at pc
 * with MPI's own text; then, for a bad window (MPI_ERR_WIN), the program's
 * handler of MPI_COMM_WORLD has its say (the window's has had it). */
int run_win_passed(int rc, const void *pc, const char *call);
/* Every live slot, for the access bridge (fn under the table's lock). */
void run_win_each(void (*fn)(run_win *s, void *ud), void *ud);
/* The span of a window's memory on this rank that holds addr, or NULL.
 * Lock-free. */
run_span *run_win_at(const void *addr);
/* Memory attached to or detached from a dynamic window (MPI_Win_attach,
 * _detach): its loads and stores are watched from the one to the other.
 * Beyond RUN_ATTACHED regions, a region is not watched. */
void run_win_attached(run_win *s, void *base, MPI_Aint size);
void run_win_detached(run_win *s, const void *base);

/* The core's communicator for comm: MPI_COMM_WORLD's was wrapped at
 * MPI_Init; another is wrapped on first use (which is collective over it:
 * window creation). NULL when it cannot be wrapped. */
rmalab_comm *run_comm(MPI_Comm comm);
int run_comm_world(void);
void run_comm_forget(MPI_Comm comm);
void run_comms_free(void);

/* The MPI error class of a core status. */
int run_class(int status);

/* Tell the core where the next call on s comes from (checked windows). */
void run_site(run_win *s, const void *pc);

/* After a call on s that the core made (status): a refusal becomes an
 * error line at pc, then what the window's error handler says: the class
 * returned (MPI_ERRORS_RETURN), the program's handler called, or the job
 * ended. New races are printed either way. Returns the MPI status. */
int run_win_done(run_win *s, const void *pc, const char *call, int status);
/* The same for a call on a communicator (its handler, from MPI). */
int run_comm_done(MPI_Comm comm, const void *pc, const char *call, int status);

#endif
