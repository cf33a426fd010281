/* Two puts by two ranks on the same bytes of rank 0's window, in
 * passive-target epochs (lock_all: a shared lock keeps nothing apart):
 * rank FIRST puts and flushes, then the call that MODE names passes from
 * rank FIRST to the other, which puts after it. A call that orders the
 * ranks in that direction leaves no race; none, or one in the wrong
 * place, must leave the race on the line of the put. (2 ranks.)
 *
 * usage: order MODE FIRST */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, first, second;

/* p2p: FIRST sends one int to the other, tag 7. */
static void p2p(const char *mode, MPI_Comm comm)
{
    int v = 42, got = 0, flag = 0;
    MPI_Request rq = MPI_REQUEST_NULL, rqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st, sts[2];
    MPI_Message msg;
    if (rank == first) {
        if (!strcmp(mode, "ssend"))
            MPI_Ssend(&v, 1, MPI_INT, second, 7, comm);
        else if (!strcmp(mode, "reqfree")) { /* tag 9 first, to a receive freed */
            MPI_Send(&v, 1, MPI_INT, second, 9, comm);
            MPI_Send(&v, 1, MPI_INT, second, 7, comm);
        }
        else if (!strcmp(mode, "isend")) {
            MPI_Isend(&v, 1, MPI_INT, second, 7, comm, &rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        } else if (!strcmp(mode, "persistent")) {
            MPI_Send_init(&v, 1, MPI_INT, second, 7, comm, &rq);
            MPI_Start(&rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
            MPI_Request_free(&rq);
        } else
            MPI_Send(&v, 1, MPI_INT, second, 7, comm);
    } else if (!strcmp(mode, "isend") || !strcmp(mode, "waitall")) {
        MPI_Irecv(&got, 1, MPI_INT, first, 7, comm, &rqs[1]);
        if (!strcmp(mode, "waitall"))
            MPI_Waitall(2, rqs, sts);
        else
            MPI_Wait(&rqs[1], MPI_STATUS_IGNORE);
    } else if (!strcmp(mode, "waitsome")) {
        int out = 0, idx[2];
        MPI_Irecv(&got, 1, MPI_INT, first, 7, comm, &rqs[0]);
        while (out != MPI_UNDEFINED)
            MPI_Waitsome(2, rqs, &out, idx, sts);
    } else if (!strcmp(mode, "test")) {
        MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &rq);
        while (!flag)
            MPI_Testany(1, &rq, &v, &flag, MPI_STATUS_IGNORE);
    } else if (!strcmp(mode, "persistent")) {
        MPI_Recv_init(&got, 1, MPI_INT, first, 7, comm, &rq);
        MPI_Start(&rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        MPI_Request_free(&rq);
    } else if (!strcmp(mode, "mprobe")) {
        MPI_Mprobe(MPI_ANY_SOURCE, 7, comm, &msg, &st);
        MPI_Mrecv(&got, 1, MPI_INT, &msg, MPI_STATUS_IGNORE);
    } else if (!strcmp(mode, "cancel")) { /* a receive cancelled brings no clock */
        MPI_Irecv(&got, 1, MPI_INT, first, 99, comm, &rq);
        MPI_Cancel(&rq);
        MPI_Wait(&rq, &st);
        MPI_Test_cancelled(&st, &flag);
        if (!flag)
            fprintf(stderr, "rank %d: the receive was not cancelled\n", rank);
        MPI_Recv(&got, 1, MPI_INT, first, 7, comm, MPI_STATUS_IGNORE);
    } else if (!strcmp(mode, "reqfree")) {
        static int early;
        MPI_Irecv(&early, 1, MPI_INT, first, 9, comm, &rq);
        MPI_Request_free(&rq);
        MPI_Recv(&got, 1, MPI_INT, first, 7, comm, MPI_STATUS_IGNORE);
    } else if (!strcmp(mode, "anysource"))
        MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, MPI_STATUS_IGNORE);
    else
        MPI_Recv(&got, 1, MPI_INT, first, 7, comm, &st);
    if (rank == second && got != 42)
        fprintf(stderr, "rank %d: got %d, not 42\n", rank, got);
}

/* Collectives, and the point-to-point forms both ranks call alike. */
/* The nonblocking collectives, each completed by MPI_Wait: "barrier",
 * "bcast0" (the root's rank last), "reduce1", "allreduce", "scan"... */
static void nonblocking(const char *mode)
{
    int v = rank, w = -1, two[2] = {rank, rank};
    MPI_Request rq;
    MPI_Comm W = MPI_COMM_WORLD;
    if (!strcmp(mode, "barrier"))
        MPI_Ibarrier(W, &rq);
    else if (!strncmp(mode, "bcast", 5))
        MPI_Ibcast(&v, 1, MPI_INT, mode[5] - '0', W, &rq);
    else if (!strncmp(mode, "reduce", 6))
        MPI_Ireduce(&v, &w, 1, MPI_INT, MPI_SUM, mode[6] - '0', W, &rq);
    else if (!strncmp(mode, "gather", 6))
        MPI_Igather(&v, 1, MPI_INT, two, 1, MPI_INT, mode[6] - '0', W, &rq);
    else if (!strncmp(mode, "scatter", 7))
        MPI_Iscatter(two, 1, MPI_INT, &w, 1, MPI_INT, mode[7] - '0', W, &rq);
    else if (!strcmp(mode, "allreduce"))
        MPI_Iallreduce(&v, &w, 1, MPI_INT, MPI_MAX, W, &rq);
    else if (!strcmp(mode, "alltoall"))
        MPI_Ialltoall(&v, 1, MPI_INT, two, 1, MPI_INT, W, &rq);
    else if (!strcmp(mode, "scan"))
        MPI_Iscan(&v, &w, 1, MPI_INT, MPI_SUM, W, &rq);
    else if (!strcmp(mode, "exscan"))
        MPI_Iexscan(&v, &w, 1, MPI_INT, MPI_SUM, W, &rq);
    else {
        fprintf(stderr, "unknown mode i%s\n", mode);
        MPI_Abort(W, 2);
    }
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
}

static void both(const char *mode)
{
    int v = rank, w = -1, two[2] = {rank, rank};
    if (!strcmp(mode, "sendrecv"))
        MPI_Sendrecv(&v, 1, MPI_INT, 1 - rank, 3, &w, 1, MPI_INT, 1 - rank, 3, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    else if (!strcmp(mode, "isendrecv")) {
        MPI_Request rq;
        MPI_Isendrecv(&v, 1, MPI_INT, 1 - rank, 3, &w, 1, MPI_INT, 1 - rank, 3,
                      MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else if (!strcmp(mode, "sendrecv-replace"))
        MPI_Sendrecv_replace(&v, 1, MPI_INT, 1 - rank, 3, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
    else if (!strncmp(mode, "bcast", 5)) /* bcast0, bcast1: the root */
        MPI_Bcast(&v, 1, MPI_INT, mode[5] - '0', MPI_COMM_WORLD);
    else if (!strncmp(mode, "reduce", 6))
        MPI_Reduce(&v, &w, 1, MPI_INT, MPI_SUM, mode[6] - '0', MPI_COMM_WORLD);
    else if (!strncmp(mode, "gather", 6))
        MPI_Gather(&v, 1, MPI_INT, two, 1, MPI_INT, mode[6] - '0', MPI_COMM_WORLD);
    else if (!strncmp(mode, "scatter", 7))
        MPI_Scatter(two, 1, MPI_INT, &w, 1, MPI_INT, mode[7] - '0', MPI_COMM_WORLD);
    else if (!strcmp(mode, "allreduce"))
        MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    else if (!strcmp(mode, "alltoall"))
        MPI_Alltoall(&v, 1, MPI_INT, two, 1, MPI_INT, MPI_COMM_WORLD);
    else if (!strcmp(mode, "scan"))
        MPI_Scan(&v, &w, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else if (!strcmp(mode, "exscan"))
        MPI_Exscan(&v, &w, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else if (mode[0] == 'i')
        nonblocking(mode + 1);
    else {
        fprintf(stderr, "unknown mode %s\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static void order(const char *mode)
{
    MPI_Comm c;
    if (!strcmp(mode, "none"))
        return;
    if (!strcmp(mode, "dup") || !strcmp(mode, "split")) {
        if (mode[0] == 'd')
            MPI_Comm_dup(MPI_COMM_WORLD, &c);
        else
            MPI_Comm_split(MPI_COMM_WORLD, 1, 1 - rank, &c); /* ranks swapped */
        int f = first;
        MPI_Comm_rank(c, &rank);
        first = mode[0] == 'd' ? f : 1 - f, second = 1 - first;
        p2p("send", c);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        first = f, second = 1 - f;
        MPI_Comm_free(&c);
    } else if (!strcmp(mode, "send") || !strcmp(mode, "ssend") || !strcmp(mode, "isend") ||
               !strcmp(mode, "waitall") || !strcmp(mode, "waitsome") ||
               !strcmp(mode, "test") ||
               !strcmp(mode, "anysource") || !strcmp(mode, "persistent") ||
               !strcmp(mode, "mprobe") || !strcmp(mode, "cancel") ||
               !strcmp(mode, "reqfree"))
        p2p(mode, MPI_COMM_WORLD);
    else
        both(mode);
}

int main(int argc, char **argv)
{
    int *base, v;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 3) {
        fprintf(stderr, "usage: order MODE FIRST\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *mode = argv[1];
    first = atoi(argv[2]), second = 1 - first;
    v = rank + 1;
    MPI_Win_allocate(16, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_lock_all(0, win);
    if (!strcmp(mode, "early")) /* the message before the put */
        order("send");
    if (rank == first) {
        MPI_Put(&v, 1, MPI_INT, 0, 1, 1, MPI_INT, win); /* first put */
        MPI_Win_flush(0, win);
    }
    if (strcmp(mode, "early"))
        order(mode);
    if (rank == second) {
        MPI_Put(&v, 1, MPI_INT, 0, 1, 1, MPI_INT, win); /* second put */
        MPI_Win_flush(0, win);
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
