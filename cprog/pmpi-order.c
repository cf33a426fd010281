/* The calls that order ranks. MPI_Barrier carries the race checker's
 * clocks (rmalab_barrier), so that a barrier between two accesses orders
 * them as it does in a Lua program. Point-to-point messages and the other
 * collectives still go to MPI unchanged: they order the ranks, but the
 * checker does not see it yet (docs/c.md, "Limits"). MPI_Comm_free
 * forgets the core's wrapper of a communicator first. */
#include "handles.h"
#include "run.h"
#include "stuck.h"
#include "watch.h"

#include <rmalab/races.h>

RUN_API int MPI_Barrier(MPI_Comm comm)
{
    const char *pc = RUN_PC;
    run_watch_flush();
    run_stuck_at(pc, __func__);
    return run_comm_done(comm, pc, "MPI_Barrier", rmalab_barrier(comm));
}

RUN_API int MPI_Comm_free(MPI_Comm *comm)
{
    if (comm)
        run_comm_forget(*comm);
    return PMPI_Comm_free(comm);
}
