/* The blocking collectives carry the race checker's clocks (order.h),
 * once their payload is done, on the communicator's shadow: MPI_Bcast,
 * _Scatter and _Scatterv the root's clock to every rank; MPI_Reduce,
 * _Gather and _Gatherv every rank's to the root (their max); MPI_Allreduce,
 * _Allgather(v), _Alltoall(v, w), _Reduce_scatter(_block) every rank's to
 * every rank; MPI_Scan and _Exscan those of the ranks before (and, for a
 * scan, of itself), as their results go. MPI_Barrier is rmalab_barrier
 * (pmpi-order.c). Nonblocking, persistent, neighbourhood and large-count
 * collectives, and those of intercommunicators, go to PMPI unchanged:
 * the order they make is not seen. */
#include "order.h"
#include "run.h"

#define ORDERED(comm, shape, root, call)                                       \
    do {                                                                       \
        MPI_Comm sh = run_order_shadow(comm);                                  \
        int rc = call;                                                         \
        if (sh != MPI_COMM_NULL && rc == MPI_SUCCESS)                          \
            run_order_coll(sh, shape, root);                                   \
        return rc;                                                             \
    } while (0)

typedef MPI_Datatype T;

RUN_API int MPI_Bcast(void *b, int n, T t, int root, MPI_Comm comm)
{
    ORDERED(comm, RUN_ORDER_BCAST, root, PMPI_Bcast(b, n, t, root, comm));
}

RUN_API int MPI_Scatter(const void *s, int sn, T st, void *r, int rn, T rt, int root,
                        MPI_Comm comm)
{
    ORDERED(comm, RUN_ORDER_BCAST, root, PMPI_Scatter(s, sn, st, r, rn, rt, root, comm));
}

RUN_API int MPI_Scatterv(const void *s, const int sn[], const int sd[], T st, void *r, int rn,
                         T rt, int root, MPI_Comm comm)
{
    ORDERED(comm, RUN_ORDER_BCAST, root,
            PMPI_Scatterv(s, sn, sd, st, r, rn, rt, root, comm));
}

RUN_API int MPI_Gather(const void *s, int sn, T st, void *r, int rn, T rt, int root,
                       MPI_Comm comm)
{
    ORDERED(comm, RUN_ORDER_TO_ROOT, root, PMPI_Gather(s, sn, st, r, rn, rt, root, comm));
}

RUN_API int MPI_Gatherv(const void *s, int sn, T st, void *r, const int rn[], const int rd[],
                        T rt, int root, MPI_Comm comm)
{
    ORDERED(comm, RUN_ORDER_TO_ROOT, root,
            PMPI_Gatherv(s, sn, st, r, rn, rd, rt, root, comm));
}

RUN_API int MPI_Reduce(const void *s, void *r, int n, T t, MPI_Op op, int root, MPI_Comm comm)
{
    ORDERED(comm, RUN_ORDER_TO_ROOT, root, PMPI_Reduce(s, r, n, t, op, root, comm));
}

RUN_API int MPI_Allreduce(const void *s, void *r, int n, T t, MPI_Op op, MPI_Comm comm)
{
    ORDERED(comm, RUN_ORDER_ALL, 0, PMPI_Allreduce(s, r, n, t, op, comm));
}

RUN_API int MPI_Allgather(const void *s, int sn, T st, void *r, int rn, T rt, MPI_Comm comm)
{
    ORDERED(comm, RUN_ORDER_ALL, 0, PMPI_Allgather(s, sn, st, r, rn, rt, comm));
}

RUN_API int MPI_Allgatherv(const void *s, int sn, T st, void *r, const int rn[],
                           const int rd[], T rt, MPI_Comm comm)
{
    ORDERED(comm, RUN_ORDER_ALL, 0, PMPI_Allgatherv(s, sn, st, r, rn, rd, rt, comm));
}

RUN_API int MPI_Alltoall(const void *s, int sn, T st, void *r, int rn, T rt, MPI_Comm comm)
{
    ORDERED(comm, RUN_ORDER_ALL, 0, PMPI_Alltoall(s, sn, st, r, rn, rt, comm));
}

RUN_API int MPI_Alltoallv(const void *s, const int sn[], const int sd[], T st, void *r,
                          const int rn[], const int rd[], T rt, MPI_Comm comm)
{
    ORDERED(comm, RUN_ORDER_ALL, 0, PMPI_Alltoallv(s, sn, sd, st, r, rn, rd, rt, comm));
}

RUN_API int MPI_Alltoallw(const void *s, const int sn[], const int sd[], const T st[],
                          void *r, const int rn[], const int rd[], const T rt[],
                          MPI_Comm comm)
{
    ORDERED(comm, RUN_ORDER_ALL, 0, PMPI_Alltoallw(s, sn, sd, st, r, rn, rd, rt, comm));
}

RUN_API int MPI_Reduce_scatter(const void *s, void *r, const int rn[], T t, MPI_Op op,
                               MPI_Comm comm)
{
    ORDERED(comm, RUN_ORDER_ALL, 0, PMPI_Reduce_scatter(s, r, rn, t, op, comm));
}

RUN_API int MPI_Reduce_scatter_block(const void *s, void *r, int n, T t, MPI_Op op,
                                     MPI_Comm comm)
{
    ORDERED(comm, RUN_ORDER_ALL, 0, PMPI_Reduce_scatter_block(s, r, n, t, op, comm));
}

RUN_API int MPI_Scan(const void *s, void *r, int n, T t, MPI_Op op, MPI_Comm comm)
{
    ORDERED(comm, RUN_ORDER_SCAN, 0, PMPI_Scan(s, r, n, t, op, comm));
}

RUN_API int MPI_Exscan(const void *s, void *r, int n, T t, MPI_Op op, MPI_Comm comm)
{
    ORDERED(comm, RUN_ORDER_EXSCAN, 0, PMPI_Exscan(s, r, n, t, op, comm));
}
