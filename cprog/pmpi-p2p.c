/* Point-to-point messages carry the race checker's clock (order.h): every
 * form that sends, in its int and MPI_Count (_c) forms, sends the clock
 * after its payload, so that every form that receives can count on one;
 * a blocking receive takes it as it returns, a nonblocking one at its
 * completion (pmpi-wait.c), a matched probe (MPI_Mprobe, MPI_Improbe) at
 * the match. A communicator without a shadow (the checker off, an
 * intercommunicator) goes to PMPI unchanged. Partitioned messages
 * (MPI_Psend_init) match only their own kind and carry no clock. */
#include "order.h"
#include "run.h"

/* A send of any mode: the payload, then its clock. */
#define SEND(NAME, COUNT)                                                      \
    RUN_API int run_##NAME(const void *buf, COUNT n, MPI_Datatype t, int dest, int tag, \
                           MPI_Comm comm)                                      \
    {                                                                          \
        MPI_Comm sh = run_order_shadow(comm);                                  \
        int rc = P##NAME(buf, n, t, dest, tag, comm);                          \
        if (sh != MPI_COMM_NULL && rc == MPI_SUCCESS && dest != MPI_PROC_NULL) \
            run_order_send(sh, dest, tag);                                     \
        return rc;                                                             \
    }

/* A nonblocking send: the same, at its start. */
#define ISEND(NAME, COUNT)                                                     \
    RUN_API int run_##NAME(const void *buf, COUNT n, MPI_Datatype t, int dest, int tag, \
                           MPI_Comm comm, MPI_Request *req)                    \
    {                                                                          \
        MPI_Comm sh = run_order_shadow(comm);                                  \
        int rc = P##NAME(buf, n, t, dest, tag, comm, req);                     \
        if (sh != MPI_COMM_NULL && rc == MPI_SUCCESS && dest != MPI_PROC_NULL) \
            run_order_send(sh, dest, tag);                                     \
        return rc;                                                             \
    }

/* A call that hands back a request the order tracks (KIND): a persistent
 * send or receive, whose MPI_Start sends or awaits the clock, or a
 * nonblocking receive (IRECV). */
#define TRACKED(NAME, COUNT, CONST, KIND)                                       \
    RUN_API int run_##NAME(CONST void *buf, COUNT n, MPI_Datatype t, int peer, int tag, \
                           MPI_Comm comm, MPI_Request *req)                    \
    {                                                                          \
        MPI_Comm sh = run_order_shadow(comm);                                  \
        int rc = P##NAME(buf, n, t, peer, tag, comm, req);                     \
        if (sh != MPI_COMM_NULL && rc == MPI_SUCCESS && peer != MPI_PROC_NULL) \
            run_order_track(*req, sh, KIND, peer, tag);                        \
        return rc;                                                             \
    }

/* A blocking receive: its status, the program's or ours, names the clock's
 * source and tag. */
#define RECV(NAME, COUNT)                                                      \
    RUN_API int run_##NAME(void *buf, COUNT n, MPI_Datatype t, int src, int tag, \
                           MPI_Comm comm, MPI_Status *st)                      \
    {                                                                          \
        MPI_Comm sh = run_order_shadow(comm);                                  \
        if (sh == MPI_COMM_NULL || src == MPI_PROC_NULL)                       \
            return P##NAME(buf, n, t, src, tag, comm, st);                     \
        MPI_Status own;                                                        \
        MPI_Status *s = st == MPI_STATUS_IGNORE ? &own : st;                   \
        s->MPI_SOURCE = MPI_ANY_SOURCE;                                        \
        int rc = P##NAME(buf, n, t, src, tag, comm, s);                        \
        run_order_recv(sh, s); /* a matched message even on an error */        \
        return rc;                                                             \
    }

/* A nonblocking receive: tracked as a persistent one is, from its call. */
#define IRECV(NAME, COUNT) TRACKED(NAME, COUNT, , RUN_ORDER_RECV)

#define BOTH(M, ...) M(MPI_##__VA_ARGS__, int) M(MPI_##__VA_ARGS__##_c, MPI_Count)

BOTH(SEND, Send)
BOTH(SEND, Ssend)
BOTH(SEND, Bsend)
BOTH(SEND, Rsend)
BOTH(ISEND, Isend)
BOTH(ISEND, Issend)
BOTH(ISEND, Ibsend)
BOTH(ISEND, Irsend)
BOTH(RECV, Recv)
BOTH(IRECV, Irecv)

#define INITS(NAME, CONST, KIND)                                               \
    TRACKED(MPI_##NAME, int, CONST, KIND) TRACKED(MPI_##NAME##_c, MPI_Count, CONST, KIND)
INITS(Send_init, const, RUN_ORDER_PSEND)
INITS(Ssend_init, const, RUN_ORDER_PSEND)
INITS(Bsend_init, const, RUN_ORDER_PSEND)
INITS(Rsend_init, const, RUN_ORDER_PSEND)
INITS(Recv_init, , RUN_ORDER_PRECV)

RUN_API int run_MPI_Start(MPI_Request *req)
{
    MPI_Request r = *req;
    int rc = PMPI_Start(req);
    if (rc == MPI_SUCCESS && run_order_any(&r, 1))
        run_order_started(r);
    return rc;
}

RUN_API int run_MPI_Startall(int n, MPI_Request reqs[])
{
    int rc = PMPI_Startall(n, reqs);
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
        if (run_order_any(&reqs[i], 1))
            run_order_started(reqs[i]);
    return rc;
}

/* Send and receive in one call: the clock goes to dest after the call has
 * started the payload, and comes from the status's source. */
#define SENDRECV(NAME, COUNT)                                                  \
    RUN_API int run_##NAME(const void *sbuf, COUNT sn, MPI_Datatype st_, int dest, int stag, \
                           void *rbuf, COUNT rn, MPI_Datatype rt, int src, int rtag, \
                           MPI_Comm comm, MPI_Status *st)                      \
    {                                                                          \
        MPI_Comm sh = run_order_shadow(comm);                                  \
        if (sh == MPI_COMM_NULL)                                               \
            return P##NAME(sbuf, sn, st_, dest, stag, rbuf, rn, rt, src, rtag, comm, st); \
        MPI_Status own;                                                        \
        MPI_Status *s = st == MPI_STATUS_IGNORE ? &own : st;                   \
        s->MPI_SOURCE = MPI_ANY_SOURCE;                                        \
        int rc = P##NAME(sbuf, sn, st_, dest, stag, rbuf, rn, rt, src, rtag, comm, s); \
        if (rc == MPI_SUCCESS && dest != MPI_PROC_NULL)                        \
            run_order_send(sh, dest, stag);                                    \
        if (src != MPI_PROC_NULL)                                              \
            run_order_recv(sh, s);                                             \
        return rc;                                                             \
    }

#define SENDRECV_REPLACE(NAME, COUNT)                                          \
    RUN_API int run_##NAME(void *buf, COUNT n, MPI_Datatype t, int dest, int stag, int src, \
                           int rtag, MPI_Comm comm, MPI_Status *st)            \
    {                                                                          \
        MPI_Comm sh = run_order_shadow(comm);                                  \
        if (sh == MPI_COMM_NULL)                                               \
            return P##NAME(buf, n, t, dest, stag, src, rtag, comm, st);        \
        MPI_Status own;                                                        \
        MPI_Status *s = st == MPI_STATUS_IGNORE ? &own : st;                   \
        s->MPI_SOURCE = MPI_ANY_SOURCE;                                        \
        int rc = P##NAME(buf, n, t, dest, stag, src, rtag, comm, s);           \
        if (rc == MPI_SUCCESS && dest != MPI_PROC_NULL)                        \
            run_order_send(sh, dest, stag);                                    \
        if (src != MPI_PROC_NULL)                                              \
            run_order_recv(sh, s);                                             \
        return rc;                                                             \
    }

BOTH(SENDRECV, Sendrecv)
BOTH(SENDRECV_REPLACE, Sendrecv_replace)

/* The nonblocking forms: the clock sent at once, the receive tracked with
 * the call's source and tag. MPICH 4.0.2's status of their completion
 * names neither: with MPI_ANY_SOURCE or MPI_ANY_TAG the clock cannot be
 * found, and stays behind (docs/c.md, "Limits"). */
static void isendrecv(MPI_Comm sh, int rc, int dest, int stag, int src, int rtag,
                      const MPI_Request *req)
{
    if (sh != MPI_COMM_NULL && rc == MPI_SUCCESS && dest != MPI_PROC_NULL)
        run_order_send(sh, dest, stag);
    if (sh != MPI_COMM_NULL && rc == MPI_SUCCESS && src >= 0 && rtag != MPI_ANY_TAG)
        run_order_track(*req, sh, RUN_ORDER_SENDRECV, src, rtag);
}

#define ISENDRECV(NAME, COUNT)                                                 \
    RUN_API int run_##NAME(const void *sbuf, COUNT sn, MPI_Datatype st, int dest, int stag, \
                           void *rbuf, COUNT rn, MPI_Datatype rt, int src, int rtag, \
                           MPI_Comm comm, MPI_Request *req)                    \
    {                                                                          \
        MPI_Comm sh = run_order_shadow(comm);                                  \
        int rc = P##NAME(sbuf, sn, st, dest, stag, rbuf, rn, rt, src, rtag, comm, req); \
        isendrecv(sh, rc, dest, stag, src, rtag, req);                         \
        return rc;                                                             \
    }

#define ISENDRECV_REPLACE(NAME, COUNT)                                         \
    RUN_API int run_##NAME(void *buf, COUNT n, MPI_Datatype t, int dest, int stag, int src, \
                           int rtag, MPI_Comm comm, MPI_Request *req)          \
    {                                                                          \
        MPI_Comm sh = run_order_shadow(comm);                                  \
        int rc = P##NAME(buf, n, t, dest, stag, src, rtag, comm, req);         \
        isendrecv(sh, rc, dest, stag, src, rtag, req);                         \
        return rc;                                                             \
    }

BOTH(ISENDRECV, Isendrecv)
BOTH(ISENDRECV_REPLACE, Isendrecv_replace)

/* A matched probe takes the message off the queue: its clock comes now,
 * and MPI_Mrecv needs nothing more. */
RUN_API int run_MPI_Mprobe(int src, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *st)
{
    MPI_Comm sh = run_order_shadow(comm);
    if (sh == MPI_COMM_NULL || src == MPI_PROC_NULL)
        return PMPI_Mprobe(src, tag, comm, msg, st);
    MPI_Status own;
    MPI_Status *s = st == MPI_STATUS_IGNORE ? &own : st;
    int rc = PMPI_Mprobe(src, tag, comm, msg, s);
    if (rc == MPI_SUCCESS)
        run_order_recv(sh, s);
    return rc;
}

RUN_API int run_MPI_Improbe(int src, int tag, MPI_Comm comm, int *flag, MPI_Message *msg,
                            MPI_Status *st)
{
    MPI_Comm sh = run_order_shadow(comm);
    if (sh == MPI_COMM_NULL || src == MPI_PROC_NULL)
        return PMPI_Improbe(src, tag, comm, flag, msg, st);
    MPI_Status own;
    MPI_Status *s = st == MPI_STATUS_IGNORE ? &own : st;
    int rc = PMPI_Improbe(src, tag, comm, flag, msg, s);
    if (rc == MPI_SUCCESS && *flag)
        run_order_recv(sh, s);
    return rc;
}
