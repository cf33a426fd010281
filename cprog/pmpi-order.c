/* The calls that make, free and synchronise communicators. MPI_Barrier
 * carries the race checker's clocks (rmalab_barrier), so that a barrier
 * between two accesses orders them as it does in a Lua program; messages
 * and the other collectives carry them through order.c (pmpi-p2p.c,
 * pmpi-wait.c, pmpi-coll.c). Every call that makes an intracommunicator
 * collectively gives it the shadow the clocks travel on (MPI_Comm_idup
 * and the calls of MPI-4 sessions do not: their messages are not
 * ordered); MPI_Comm_free frees the shadow and forgets the core's wrapper
 * of the communicator first. */
#include "handles.h"
#include "order.h"
#include "run.h"
#include "stuck.h"
#include "watch.h"

#include <rmalab/races.h>

RUN_API int run_MPI_Barrier(MPI_Comm comm)
{
    const char *pc = RUN_PC;
    run_order_thread();
    run_watch_flush();
    run_stuck_at(pc, RUN_CALL);
    return run_comm_done(comm, pc, "MPI_Barrier", rmalab_barrier(comm));
}

RUN_API int run_MPI_Comm_free(MPI_Comm *comm)
{
    if (comm) {
        run_comm_forget(*comm);
        run_order_comm_freed(*comm);
    }
    return PMPI_Comm_free(comm);
}

/* The new communicator gets its shadow, where the call made one. */
static int made(int rc, MPI_Comm *comm)
{
    if (rc == MPI_SUCCESS)
        run_order_comm_made(*comm);
    return rc;
}

RUN_API int run_MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out)
{
    return made(PMPI_Comm_dup(comm, out), out);
}

RUN_API int run_MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *out)
{
    return made(PMPI_Comm_dup_with_info(comm, info, out), out);
}

RUN_API int run_MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *out)
{
    return made(PMPI_Comm_split(comm, color, key, out), out);
}

RUN_API int run_MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info,
                                    MPI_Comm *out)
{
    return made(PMPI_Comm_split_type(comm, type, key, info, out), out);
}

RUN_API int run_MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *out)
{
    return made(PMPI_Comm_create(comm, group, out), out);
}

RUN_API int run_MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *out)
{
    return made(PMPI_Comm_create_group(comm, group, tag, out), out);
}

RUN_API int run_MPI_Intercomm_merge(MPI_Comm inter, int high, MPI_Comm *out)
{
    return made(PMPI_Intercomm_merge(inter, high, out), out);
}

RUN_API int run_MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                                int reorder, MPI_Comm *out)
{
    return made(PMPI_Cart_create(comm, ndims, dims, periods, reorder, out), out);
}

RUN_API int run_MPI_Cart_sub(MPI_Comm comm, const int remain[], MPI_Comm *out)
{
    return made(PMPI_Cart_sub(comm, remain, out), out);
}

RUN_API int run_MPI_Graph_create(MPI_Comm comm, int n, const int index[], const int edges[],
                                 int reorder, MPI_Comm *out)
{
    return made(PMPI_Graph_create(comm, n, index, edges, reorder, out), out);
}

RUN_API int run_MPI_Dist_graph_create(MPI_Comm comm, int n, const int srcs[], const int degrees[],
                                      const int dests[], const int weights[], MPI_Info info,
                                      int reorder, MPI_Comm *out)
{
    return made(PMPI_Dist_graph_create(comm, n, srcs, degrees, dests, weights, info, reorder,
                                       out), out);
}

RUN_API int run_MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indeg, const int srcs[],
                                               const int sw[], int outdeg, const int dests[],
                                               const int dw[], MPI_Info info, int reorder,
                                               MPI_Comm *out)
{
    return made(PMPI_Dist_graph_create_adjacent(comm, indeg, srcs, sw, outdeg, dests, dw,
                                                info, reorder, out), out);
}
