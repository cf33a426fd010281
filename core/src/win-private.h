/* Private to the core: the window structure shared by win.c (creation,
 * hints, local memory), rma.c (operations and results) and sync.c (the
 * epoch state machine). Never installed. */
#ifndef RMALAB_WIN_PRIVATE_H
#define RMALAB_WIN_PRIVATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "private.h"

/* MPICH 4.0.2 + UCX 1.13 rounds window bases down to this. */
#define RMALAB__WIN_ALIGN 16
/* What the core allocates with. */
#define RMALAB__MEM_ALIGN 64

struct rmalab__region {
    void *mem;
    MPI_Aint addr, size;
};

struct rmalab_win {
    MPI_Win win;
    MPI_Comm comm;          /* a duplicate, for the window's own collectives */
    int rank, size;
    rmalab_flavor flavor;
    void *base;
    void *owned_mem;        /* memory the core allocated for create */
    MPI_Aint size_req;      /* bytes the user asked for */
    int disp_unit;
    int model;
    MPI_Aint *sizes;        /* every rank's size_req */
    int *disp_units;        /* every rank's disp_unit */
    int *world_ranks;       /* every rank's rank in MPI_COMM_WORLD */
    char name[128];
    rmalab_info *requested; /* hints as the user gave them, merged */
    rmalab_info *at_create; /* canonical hints in force from creation */
    const char *engine;     /* "native" */
    rmalab__attr_list attrs;
    int in_callback;        /* attribute callbacks running on this window */

    struct rmalab__region *regions; /* dynamic windows */
    int nregions, capregions;

    /* Epoch state: written by the owning thread under `lock`, read by any
     * thread under `lock`. */
    pthread_mutex_t lock;
    rmalab_access access;
    rmalab_exposure exposure;
    int *group;             /* start group, as given */
    int ngroup;
    unsigned char *in_group;/* per rank: in the start group */
    unsigned char *locked;  /* per rank: 0, 1 shared, 2 exclusive */
    int nlocked;
    int *xgroup;            /* post group */
    int nxgroup;
    uint64_t ops_in_epoch;  /* RMA calls since the access epoch opened */
    uint64_t epochs;
    bool closed_by_test;    /* the last exposure epoch ended in test() */
    const char *blocked_in;
    double blocked_since;

    /* Results: op_seq numbers every data-returning operation; done_all and
     * done[t] say up to which number operations have completed. */
    uint64_t op_seq, done_all;
    uint64_t *done;
    rmalab_result **pending;
    int npending, cappending;
};

struct rmalab_result {
    int refs;
    rmalab_win *win;        /* while pending */
    int target;
    uint64_t seq;
    bool ready;
    rmalab_type type;
    int count;
    char completer[96];     /* which call completes it */
    _Alignas(16) unsigned char data[];
};

/* Type and op tables (win.c). */
MPI_Datatype rmalab__mpi_type(rmalab_type t);
MPI_Op rmalab__mpi_op(rmalab_op op);

/* The origin-side checks every operation makes (sync.c): the target is in
 * the group, an access epoch is open to it, and [disp, disp + count) lies in
 * its window. `what` names the call ("put"). Counts the call in the epoch. */
int rmalab__check_op(rmalab_win *win, const char *what, int target, MPI_Aint disp,
                     rmalab_type type, int count);
/* Register a result as pending on the window (rma.c). */
int rmalab__result_track(rmalab_win *win, rmalab_result *r);
/* Mark completed results ready: all of them, or those of one target. */
void rmalab__results_complete(rmalab_win *win, int target);
/* Mark the owning thread blocked in `call` (NULL: not blocked). */
void rmalab__set_blocked(rmalab_win *win, const char *call);

#endif
