/* The interceptor (librmalab-run.so, which `rmalab run` preloads into each
 * rank): a C program's MPI calls mapped onto the core, its reports in the
 * form compilers use (docs/c.md). Private to cprog/; never installed.
 *
 * ONE CONCERN PER FILE, CALLS IN ONE DIRECTION: a file calls only the files
 * listed above it, through their headers.
 *   where.c       pc -> "FILE:LINE", from the debug information (libdw)
 *   report.c      the error:, warning: and race: lines; the counts and the
 *                 job's exit status
 *   handles.c     the program's windows and communicators as the core's;
 *                 error handlers and error classes
 *   stuck.c       a rank blocked for RMALAB_STUCK seconds: which call, at
 *                 which line, waiting for what
 *   threads.c     the order among the process's threads (OpenMP's), by
 *                 which a thread's accesses are judged
 *   watch.c       the access bridge (access-hooks.h): the watched
 *                 ranges, the operations in flight, loads and stores that
 *                 reach them
 *   requests.c    the program's requests of MPI_Rput, _Rget...: the
 *                 core's requests behind them, completed at its waits
 *   dtype.c       a datatype as the bytes it touches and its element,
 *                 cached per MPI_Datatype until MPI_Type_free
 *   types.c       an operation's sides (datatypes, spans, MPI's rules
 *                 between them), ops and assertions as the core's
 *   trace.c       rmalab run --trace: windows record, and rank 0 writes
 *                 the gathered set at MPI_Finalize
 *   order.c       the race checker's clock beside messages and
 *                 collectives: the communicators' shadows, the clocks
 *                 going out, the requests whose completion brings one
 *   pmpi-init.c pmpi-win.c pmpi-sync.c pmpi-rma.c pmpi-order.c
 *   pmpi-p2p.c pmpi-wait.c pmpi-coll.c  the MPI_* wrappers, by area (what
 *                 they share: pmpi.h), each named run_MPI_* (below);
 *                 nothing calls them but the program
 *   omp.c         the wrappers of libgomp's entry points: OpenMP's
 *                 constructs as releases and acquires (threads.c)
 *
 * The core it calls is the copy built with PMPI_* for MPI_* (meson.build),
 * so the core's own MPI calls never come back here. */
#ifndef RMALAB_CPROG_RUN_H
#define RMALAB_CPROG_RUN_H

/* What the program sees: the MPI_* wrappers and rmalab_run_attach. */
#define RUN_API __attribute__((visibility("default")))

/* The wrapper of MPI_X is the C function run_MPI_X, which the library
 * exports as the symbol MPI_X: run-names.py writes into the header below
 * the label `__typeof__(MPI_X) run_MPI_X __asm__("MPI_X");` for every
 * function of mpi.h. The core's sources call MPI_X by name (its copy here
 * is built to call PMPI_X: pmpi-names.py); a wrapper defined under that
 * same C name would read, to anyone who goes by names, as the core
 * calling into cprog/. */
#include "rmalab-run-names.h"

/* The MPI name of the wrapper this expands in, for its messages:
 * "MPI_Put" in run_MPI_Put. */
#define RUN_CALL (__func__ + sizeof "run_" - 1)

/* The call site of the wrapper this expands in: its return address, one
 * byte back so that it falls inside the call instruction's line. */
#define RUN_PC ((const char *)__builtin_return_address(0) - 1)

#endif
