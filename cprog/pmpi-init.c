/* MPI_Init, MPI_Init_thread, MPI_Finalize: MPI_COMM_WORLD wrapped for the
 * core right after MPI starts (every rank at the same place of its order
 * of collectives), the reports, the stuck thread and the recorder
 * (rmalab run --trace) set up, the shadows of MPI_COMM_WORLD and
 * MPI_COMM_SELF made (order.h), and the trace gathered, the core's state
 * and the shadows released before MPI ends. */
#include "handles.h"
#include "order.h"
#include "report.h"
#include "run.h"
#include "stuck.h"
#include "threads.h"
#include "trace.h"
#include "watch.h"

#include <rmalab/error.h>
#include <rmalab/info.h>

static int started(int rc, const void *pc, const char *call)
{
    if (rc != MPI_SUCCESS)
        return rc;
    run_report_start();
    run_threads_start(run_order_on());
    if (run_comm_world() != RMALAB_OK) {
        run_error(pc, call, "rmalab run could not wrap MPI_COMM_WORLD for the core");
        run_fatal();
    }
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    run_stuck_start(rank);
    run_trace_start();
    run_order_comm_made(MPI_COMM_WORLD);
    run_order_comm_made(MPI_COMM_SELF);
    return MPI_SUCCESS;
}

RUN_API int run_MPI_Init(int *argc, char ***argv)
{
    return started(PMPI_Init(argc, argv), RUN_PC, "MPI_Init");
}

RUN_API int run_MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    rmalab_info_env_thread_requested(required);
    return started(PMPI_Init_thread(argc, argv, required, provided), RUN_PC,
                   "MPI_Init_thread");
}

RUN_API int run_MPI_Finalize(void)
{
    run_stuck_stop();
    run_races_poll();
    run_watch_end();
    run_trace_end();
    run_order_end();
    run_comms_free();
    return PMPI_Finalize();
}
