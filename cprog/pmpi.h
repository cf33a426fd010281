/* What the MPI_* wrappers (pmpi-*.c) share. */
#ifndef RMALAB_CPROG_PMPI_H
#define RMALAB_CPROG_PMPI_H

#include "handles.h"
#include "order.h"
#include "run.h"
#include "stuck.h"
#include "watch.h"

/* The start of a wrapper of a call on `win`: a window the core does not
 * know goes to `pmpi` unchanged; else `s` is its slot, `pc` the call site,
 * order.c knows the calling thread, the loads and stores gathered so far
 * reach the checker, and the stuck thread knows the call. */
#define RUN_ON_WINDOW(win, pmpi)                                               \
    run_win *s = run_win_find(win);                                           \
    if (!s)                                                                   \
        return pmpi;                                                          \
    const char *pc = RUN_PC;                                                  \
    run_order_thread();                                                       \
    run_watch_flush();                                                        \
    run_stuck_at(pc, __func__)

#endif
