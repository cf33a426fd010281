/* What the MPI_* wrappers (pmpi-*.c) share. */
#ifndef RMALAB_CPROG_PMPI_H
#define RMALAB_CPROG_PMPI_H

#include "handles.h"
#include "order.h"
#include "run.h"
#include "stuck.h"
#include "watch.h"

/* The start of a wrapper of a call on `win`: `s` is its slot. A window
 * the core does not know goes to `pmpi` unchanged, unless it is
 * MPI_WIN_NULL or freed: then an error (run_win_unknown). */
#define RUN_KNOWN_WINDOW(win, pmpi)                                            \
    run_win *s = run_win_find(win);                                           \
    if (!s) {                                                                 \
        int unknown_ = run_win_unknown(win, RUN_PC, RUN_CALL);                \
        if (unknown_ != MPI_SUCCESS)                                          \
            return unknown_;                                                  \
        run_win_passing();                                                    \
        return run_win_passed(pmpi, RUN_PC, RUN_CALL);                        \
    }

/* ... and `pc` is the call site, order.c knows the calling thread, the
 * loads and stores gathered so far reach the checker, and the stuck
 * thread knows the call. */
#define RUN_ON_WINDOW(win, pmpi)                                               \
    RUN_KNOWN_WINDOW(win, pmpi);                                              \
    const char *pc = RUN_PC;                                                  \
    run_order_thread();                                                       \
    run_watch_flush();                                                        \
    run_stuck_at(pc, RUN_CALL)

#endif
