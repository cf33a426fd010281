/* The blocking collectives carry the race checker's clocks (order.h),
 * once their payload is done, on the communicator's shadow: MPI_Bcast,
 * _Scatter and _Scatterv the root's clock to every rank; MPI_Reduce,
 * _Gather and _Gatherv every rank's to the root (their max); MPI_Allreduce,
 * _Allgather(v), _Alltoall(v, w), _Reduce_scatter(_block) every rank's to
 * every rank; MPI_Scan and _Exscan those of the ranks before (and, for a
 * scan, of itself), as their results go. MPI_Barrier is rmalab_barrier
 * (pmpi-order.c). The nonblocking ones (MPI_Ibarrier, _Ibcast...) in the
 * same shapes: the clocks as they stand at the call, joined when the
 * program's wait or test completes the request (run_order_icoll).
 * Persistent, neighbourhood and large-count collectives, and those of
 * intercommunicators, go to PMPI unchanged: the order they make is not
 * seen. */
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

/* A nonblocking collective: its request *rq is tracked once started. */
#define IORDERED(comm, shape, root, rq, call)                                  \
    do {                                                                       \
        MPI_Comm sh = run_order_shadow(comm);                                  \
        int rc = call;                                                         \
        if (sh != MPI_COMM_NULL && rc == MPI_SUCCESS)                          \
            run_order_icoll(*(rq), sh, shape, root);                           \
        return rc;                                                             \
    } while (0)

typedef MPI_Datatype T;
typedef MPI_Request R;

RUN_API int run_MPI_Bcast(void *b, int n, T t, int root, MPI_Comm comm)
{
    ORDERED(comm, RMALAB_CLOCK_BCAST, root, PMPI_Bcast(b, n, t, root, comm));
}

RUN_API int run_MPI_Scatter(const void *s, int sn, T st, void *r, int rn, T rt, int root,
                            MPI_Comm comm)
{
    ORDERED(comm, RMALAB_CLOCK_BCAST, root, PMPI_Scatter(s, sn, st, r, rn, rt, root, comm));
}

RUN_API int run_MPI_Scatterv(const void *s, const int sn[], const int sd[], T st, void *r, int rn,
                             T rt, int root, MPI_Comm comm)
{
    ORDERED(comm, RMALAB_CLOCK_BCAST, root,
            PMPI_Scatterv(s, sn, sd, st, r, rn, rt, root, comm));
}

RUN_API int run_MPI_Gather(const void *s, int sn, T st, void *r, int rn, T rt, int root,
                           MPI_Comm comm)
{
    ORDERED(comm, RMALAB_CLOCK_TO_ROOT, root, PMPI_Gather(s, sn, st, r, rn, rt, root, comm));
}

RUN_API int run_MPI_Gatherv(const void *s, int sn, T st, void *r, const int rn[], const int rd[],
                            T rt, int root, MPI_Comm comm)
{
    ORDERED(comm, RMALAB_CLOCK_TO_ROOT, root,
            PMPI_Gatherv(s, sn, st, r, rn, rd, rt, root, comm));
}

RUN_API int run_MPI_Reduce(const void *s, void *r, int n, T t, MPI_Op op, int root, MPI_Comm comm)
{
    ORDERED(comm, RMALAB_CLOCK_TO_ROOT, root, PMPI_Reduce(s, r, n, t, op, root, comm));
}

RUN_API int run_MPI_Allreduce(const void *s, void *r, int n, T t, MPI_Op op, MPI_Comm comm)
{
    ORDERED(comm, RMALAB_CLOCK_ALL, 0, PMPI_Allreduce(s, r, n, t, op, comm));
}

RUN_API int run_MPI_Allgather(const void *s, int sn, T st, void *r, int rn, T rt, MPI_Comm comm)
{
    ORDERED(comm, RMALAB_CLOCK_ALL, 0, PMPI_Allgather(s, sn, st, r, rn, rt, comm));
}

RUN_API int run_MPI_Allgatherv(const void *s, int sn, T st, void *r, const int rn[],
                               const int rd[], T rt, MPI_Comm comm)
{
    ORDERED(comm, RMALAB_CLOCK_ALL, 0, PMPI_Allgatherv(s, sn, st, r, rn, rd, rt, comm));
}

RUN_API int run_MPI_Alltoall(const void *s, int sn, T st, void *r, int rn, T rt, MPI_Comm comm)
{
    ORDERED(comm, RMALAB_CLOCK_ALL, 0, PMPI_Alltoall(s, sn, st, r, rn, rt, comm));
}

RUN_API int run_MPI_Alltoallv(const void *s, const int sn[], const int sd[], T st, void *r,
                              const int rn[], const int rd[], T rt, MPI_Comm comm)
{
    ORDERED(comm, RMALAB_CLOCK_ALL, 0, PMPI_Alltoallv(s, sn, sd, st, r, rn, rd, rt, comm));
}

RUN_API int run_MPI_Alltoallw(const void *s, const int sn[], const int sd[], const T st[],
                              void *r, const int rn[], const int rd[], const T rt[],
                              MPI_Comm comm)
{
    ORDERED(comm, RMALAB_CLOCK_ALL, 0, PMPI_Alltoallw(s, sn, sd, st, r, rn, rd, rt, comm));
}

RUN_API int run_MPI_Reduce_scatter(const void *s, void *r, const int rn[], T t, MPI_Op op,
                                   MPI_Comm comm)
{
    ORDERED(comm, RMALAB_CLOCK_ALL, 0, PMPI_Reduce_scatter(s, r, rn, t, op, comm));
}

RUN_API int run_MPI_Reduce_scatter_block(const void *s, void *r, int n, T t, MPI_Op op,
                                         MPI_Comm comm)
{
    ORDERED(comm, RMALAB_CLOCK_ALL, 0, PMPI_Reduce_scatter_block(s, r, n, t, op, comm));
}

RUN_API int run_MPI_Scan(const void *s, void *r, int n, T t, MPI_Op op, MPI_Comm comm)
{
    ORDERED(comm, RMALAB_CLOCK_SCAN, 0, PMPI_Scan(s, r, n, t, op, comm));
}

RUN_API int run_MPI_Exscan(const void *s, void *r, int n, T t, MPI_Op op, MPI_Comm comm)
{
    ORDERED(comm, RMALAB_CLOCK_EXSCAN, 0, PMPI_Exscan(s, r, n, t, op, comm));
}

/* ------------------------------------------------------------------------ */
/* Nonblocking                                                              */

RUN_API int run_MPI_Ibarrier(MPI_Comm comm, R *rq)
{
    IORDERED(comm, RMALAB_CLOCK_ALL, 0, rq, PMPI_Ibarrier(comm, rq));
}

RUN_API int run_MPI_Ibcast(void *b, int n, T t, int root, MPI_Comm comm, R *rq)
{
    IORDERED(comm, RMALAB_CLOCK_BCAST, root, rq, PMPI_Ibcast(b, n, t, root, comm, rq));
}

RUN_API int run_MPI_Iscatter(const void *s, int sn, T st, void *r, int rn, T rt, int root,
                             MPI_Comm comm, R *rq)
{
    IORDERED(comm, RMALAB_CLOCK_BCAST, root, rq,
             PMPI_Iscatter(s, sn, st, r, rn, rt, root, comm, rq));
}

RUN_API int run_MPI_Iscatterv(const void *s, const int sn[], const int sd[], T st, void *r, int rn,
                              T rt, int root, MPI_Comm comm, R *rq)
{
    IORDERED(comm, RMALAB_CLOCK_BCAST, root, rq,
             PMPI_Iscatterv(s, sn, sd, st, r, rn, rt, root, comm, rq));
}

RUN_API int run_MPI_Igather(const void *s, int sn, T st, void *r, int rn, T rt, int root,
                            MPI_Comm comm, R *rq)
{
    IORDERED(comm, RMALAB_CLOCK_TO_ROOT, root, rq,
             PMPI_Igather(s, sn, st, r, rn, rt, root, comm, rq));
}

RUN_API int run_MPI_Igatherv(const void *s, int sn, T st, void *r, const int rn[], const int rd[],
                             T rt, int root, MPI_Comm comm, R *rq)
{
    IORDERED(comm, RMALAB_CLOCK_TO_ROOT, root, rq,
             PMPI_Igatherv(s, sn, st, r, rn, rd, rt, root, comm, rq));
}

RUN_API int run_MPI_Ireduce(const void *s, void *r, int n, T t, MPI_Op op, int root, MPI_Comm comm,
                            R *rq)
{
    IORDERED(comm, RMALAB_CLOCK_TO_ROOT, root, rq, PMPI_Ireduce(s, r, n, t, op, root, comm, rq));
}

RUN_API int run_MPI_Iallreduce(const void *s, void *r, int n, T t, MPI_Op op, MPI_Comm comm, R *rq)
{
    IORDERED(comm, RMALAB_CLOCK_ALL, 0, rq, PMPI_Iallreduce(s, r, n, t, op, comm, rq));
}

RUN_API int run_MPI_Iallgather(const void *s, int sn, T st, void *r, int rn, T rt, MPI_Comm comm,
                               R *rq)
{
    IORDERED(comm, RMALAB_CLOCK_ALL, 0, rq, PMPI_Iallgather(s, sn, st, r, rn, rt, comm, rq));
}

RUN_API int run_MPI_Iallgatherv(const void *s, int sn, T st, void *r, const int rn[],
                                const int rd[], T rt, MPI_Comm comm, R *rq)
{
    IORDERED(comm, RMALAB_CLOCK_ALL, 0, rq, PMPI_Iallgatherv(s, sn, st, r, rn, rd, rt, comm, rq));
}

RUN_API int run_MPI_Ialltoall(const void *s, int sn, T st, void *r, int rn, T rt, MPI_Comm comm,
                              R *rq)
{
    IORDERED(comm, RMALAB_CLOCK_ALL, 0, rq, PMPI_Ialltoall(s, sn, st, r, rn, rt, comm, rq));
}

RUN_API int run_MPI_Ialltoallv(const void *s, const int sn[], const int sd[], T st, void *r,
                               const int rn[], const int rd[], T rt, MPI_Comm comm, R *rq)
{
    IORDERED(comm, RMALAB_CLOCK_ALL, 0, rq,
             PMPI_Ialltoallv(s, sn, sd, st, r, rn, rd, rt, comm, rq));
}

RUN_API int run_MPI_Ialltoallw(const void *s, const int sn[], const int sd[], const T st[],
                               void *r, const int rn[], const int rd[], const T rt[],
                               MPI_Comm comm, R *rq)
{
    IORDERED(comm, RMALAB_CLOCK_ALL, 0, rq,
             PMPI_Ialltoallw(s, sn, sd, st, r, rn, rd, rt, comm, rq));
}

RUN_API int run_MPI_Ireduce_scatter(const void *s, void *r, const int rn[], T t, MPI_Op op,
                                    MPI_Comm comm, R *rq)
{
    IORDERED(comm, RMALAB_CLOCK_ALL, 0, rq, PMPI_Ireduce_scatter(s, r, rn, t, op, comm, rq));
}

RUN_API int run_MPI_Ireduce_scatter_block(const void *s, void *r, int n, T t, MPI_Op op,
                                          MPI_Comm comm, R *rq)
{
    IORDERED(comm, RMALAB_CLOCK_ALL, 0, rq,
             PMPI_Ireduce_scatter_block(s, r, n, t, op, comm, rq));
}

RUN_API int run_MPI_Iscan(const void *s, void *r, int n, T t, MPI_Op op, MPI_Comm comm, R *rq)
{
    IORDERED(comm, RMALAB_CLOCK_SCAN, 0, rq, PMPI_Iscan(s, r, n, t, op, comm, rq));
}

RUN_API int run_MPI_Iexscan(const void *s, void *r, int n, T t, MPI_Op op, MPI_Comm comm, R *rq)
{
    IORDERED(comm, RMALAB_CLOCK_EXSCAN, 0, rq, PMPI_Iexscan(s, r, n, t, op, comm, rq));
}
