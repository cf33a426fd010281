/* order.c: the race checker's clock beside the program's messages and
 * collectives, so that the order they make between ranks orders the
 * accesses too (docs/c-internals.md, "What is intercepted").
 *
 * A message's clock travels as a message of its own, W int64 (W the
 * world's size: rmalab_clock_snapshot's form), on a shadow duplicate of
 * the communicator, to the same rank with the same tag, sent right after
 * the payload. The receiver, once the payload is matched (the status gives
 * its source and tag), receives the clock from that source and tag on the
 * shadow: MPI keeps the order of messages per (source, tag, communicator),
 * so the two stay paired, with MPI_ANY_SOURCE and MPI_ANY_TAG too.
 *
 * Only while the race checker is on (RMALAB_CHECK is races, races:warn or
 * races:quiet; `rmalab run` sets it unless --no-check). Off, no shadow is
 * made, run_order_shadow answers MPI_COMM_NULL, and every wrapper goes
 * straight to PMPI. Shadows are made collectively where a communicator is
 * made (MPI_COMM_WORLD and MPI_COMM_SELF at MPI_Init): every member agrees
 * which communicators carry clocks. Intercommunicators carry none. */
#ifndef RMALAB_CPROG_ORDER_H
#define RMALAB_CPROG_ORDER_H

#include <mpi.h>
#include <stdbool.h>

#include <rmalab/races.h>

/* The calling thread makes an MPI call (the wrappers of RMA and
 * synchronisation calls say so; the calls below do it themselves). The
 * clock is the process's, not a thread's: once a second thread has made
 * MPI calls, it would carry one thread's accesses as if another's message
 * ordered them, so from then on messages carry an empty clock, and clocks
 * received are not joined (a false race may come of it, never a missed
 * one). */
void run_order_thread(void);

/* The race checker is on for this job (the same on every rank). */
bool run_order_on(void);

/* comm was just made (collective over it; MPI_COMM_NULL and
 * intercommunicators: nothing): its shadow is made. */
void run_order_comm_made(MPI_Comm comm);
/* comm is about to be freed: its shadow goes first. */
void run_order_comm_freed(MPI_Comm comm);
/* The shadow of comm; MPI_COMM_NULL when its messages carry no clock (the
 * checker off, an intercommunicator, a communicator made by a call not
 * wrapped). */
MPI_Comm run_order_shadow(MPI_Comm comm);

/* A message to dest with tag has gone (its payload sent or started): this
 * rank's clock ticks and follows it on the shadow. The loads and stores
 * gathered so far reach the checker first. */
void run_order_send(MPI_Comm shadow, int dest, int tag);
/* A message was matched (st: its source and tag; MPI_PROC_NULL, a
 * cancelled receive: nothing): its clock is received and joined. */
void run_order_recv(MPI_Comm shadow, const MPI_Status *st);

/* Requests whose completion carries a clock: a receive; the receive of a
 * nonblocking sendrecv, whose clock comes from the call's own source and
 * tag (MPICH 4.0.2's status of MPI_Isendrecv names neither); a
 * nonblocking collective (run_order_icoll makes its entry); and
 * persistent sends and receives (their MPI_Start sends or awaits one). */
typedef enum { RUN_ORDER_RECV, RUN_ORDER_SENDRECV, RUN_ORDER_COLL, RUN_ORDER_PSEND,
               RUN_ORDER_PRECV } run_order_kind;
void run_order_track(MPI_Request req, MPI_Comm shadow, run_order_kind kind, int dest, int tag);
/* Whether any of the n requests is tracked (then the caller keeps a copy
 * of their handles and their statuses). */
bool run_order_any(const MPI_Request *reqs, int n);
/* MPI_Start of req: a persistent send's clock follows it; a persistent
 * receive will await one. */
void run_order_started(MPI_Request req);
/* req (its handle before the call) completed with st. */
void run_order_completed(MPI_Request req, const MPI_Status *st);
/* MPI_Request_free of req: true when order.c took it over (an active
 * receive, completed later with its clock), *req then MPI_REQUEST_NULL. */
bool run_order_free(MPI_Request *req);

/* The clocks of a collective on comm's shadow, once its payload is done,
 * in its shape (rmalab_clock_coll, rmalab/races.h: the root's to all, all
 * to the root (a max), all to all, or a prefix). */
void run_order_coll(MPI_Comm shadow, rmalab_clock_shape shape, int root);
/* The same for a nonblocking collective on comm's shadow, just started
 * (req: its request): the clocks as they stand at the call go out in a
 * nonblocking collective of their own on the shadow, started now (every
 * member starts its collectives in one order, so the two pair up), and
 * are joined when the program's wait or test completes req. */
void run_order_icoll(MPI_Request req, MPI_Comm shadow, rmalab_clock_shape shape, int root);

/* MPI_Finalize: the clocks still going out are completed or cancelled,
 * the shadows freed. */
void run_order_end(void);

#endif
