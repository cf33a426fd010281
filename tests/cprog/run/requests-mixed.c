/* Request-based RMA operations completed together with messages, by every
 * completion call: MPI_Waitany, _Waitsome, _Testany, _Testsome, _Testall,
 * _Waitall, MPI_Request_get_status before MPI_Wait, and an MPI_Wait
 * after MPI_Win_free (the unlock completed the operation). Under rmalab run
 * the RMA requests are the core's behind generalized ones: each call must
 * return them, and the messages, as plain MPICH does (the same output). */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

static int peer, rank, *base;
static MPI_Win win;

/* The receive of the peer's message with tag, which the peer sends once
 * it has posted its own receive and its RMA operation. */
static void irecv(MPI_Request *rq, int *m, int tag)
{
    MPI_Irecv(m, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, rq);
}

static int waitany(void)
{
    int m = -1, got = -1, i, seen = 0;
    MPI_Request rq[2];
    irecv(&rq[0], &m, 1);
    MPI_Rget(&got, 1, MPI_INT, peer, 0, 1, MPI_INT, win, &rq[1]);
    MPI_Send(&rank, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
    for (int k = 0; k < 2; k++) {
        MPI_Waitany(2, rq, &i, MPI_STATUS_IGNORE);
        seen |= 1 << i;
    }
    MPI_Waitany(2, rq, &i, MPI_STATUS_IGNORE); /* none left: MPI_UNDEFINED */
    return seen == 3 && m == peer && got == 10 + peer && i == MPI_UNDEFINED;
}

static int waitsome(void)
{
    int m = -1, one = 1, n, idx[2], seen = 0;
    MPI_Request rq[2];
    MPI_Status st[2];
    irecv(&rq[0], &m, 2);
    MPI_Raccumulate(&one, 1, MPI_INT, peer, 1, 1, MPI_INT, MPI_SUM, win, &rq[1]);
    MPI_Send(&rank, 1, MPI_INT, peer, 2, MPI_COMM_WORLD);
    while (seen != 3) {
        MPI_Waitsome(2, rq, &n, idx, st);
        for (int k = 0; k < n; k++)
            seen |= 1 << idx[k];
    }
    return m == peer;
}

static int tests(void)
{
    int m = -1, got = -1, flag = 0, i, n, idx[2], seen = 0;
    MPI_Request rq[2];
    MPI_Status st[2];
    irecv(&rq[0], &m, 3);
    MPI_Rget(&got, 1, MPI_INT, peer, 0, 1, MPI_INT, win, &rq[1]);
    MPI_Send(&rank, 1, MPI_INT, peer, 3, MPI_COMM_WORLD);
    for (MPI_Testany(2, rq, &i, &flag, MPI_STATUS_IGNORE); !flag;
         MPI_Testany(2, rq, &i, &flag, MPI_STATUS_IGNORE))
        usleep(100);
    seen |= 1 << i;
    while (seen != 3) {
        MPI_Testsome(2, rq, &n, idx, st);
        for (int k = 0; k < n; k++)
            seen |= 1 << idx[k];
        if (seen != 3)
            usleep(100);
    }
    int ok = m == peer && got == 10 + peer;
    irecv(&rq[0], &m, 4);
    MPI_Rget(&got, 1, MPI_INT, peer, 0, 1, MPI_INT, win, &rq[1]);
    MPI_Send(&rank, 1, MPI_INT, peer, 4, MPI_COMM_WORLD);
    for (MPI_Testall(2, rq, &flag, st); !flag;
         MPI_Testall(2, rq, &flag, st))
        usleep(100);
    return ok && rq[0] == MPI_REQUEST_NULL && rq[1] == MPI_REQUEST_NULL;
}

static int status_then_wait(void)
{
    int v = 20 + rank, flag = 0, m = -1;
    MPI_Request rq[2];
    MPI_Status st[2];
    MPI_Rput(&v, 1, MPI_INT, peer, 2, 1, MPI_INT, win, &rq[0]);
    for (MPI_Request_get_status(rq[0], &flag, MPI_STATUS_IGNORE); !flag;
         MPI_Request_get_status(rq[0], &flag, MPI_STATUS_IGNORE))
        usleep(100);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Isend(&rank, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &rq[0]);
    MPI_Rput(&v, 1, MPI_INT, peer, 3, 1, MPI_INT, win, &rq[1]);
    MPI_Waitall(2, rq, st);
    MPI_Recv(&m, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return rq[0] == MPI_REQUEST_NULL && rq[1] == MPI_REQUEST_NULL && m == peer;
}

int main(int argc, char **argv)
{
    int late_v = 30;
    MPI_Request late;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    base[0] = 10 + rank;
    base[1] = base[2] = base[3] = base[4] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    printf("rank %d: waitany %s\n", rank, waitany() ? "ok" : "wrong");
    printf("rank %d: waitsome %s\n", rank, waitsome() ? "ok" : "wrong");
    printf("rank %d: testany, testsome, testall %s\n", rank, tests() ? "ok" : "wrong");
    printf("rank %d: get_status, waitall %s\n", rank, status_then_wait() ? "ok" : "wrong");
    MPI_Rput(&late_v, 1, MPI_INT, peer, 4, 1, MPI_INT, win, &late);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d: window %d %d %d %d %d\n", rank, base[0], base[1], base[2], base[3],
           base[4]);
    MPI_Win_free(&win);
    MPI_Wait(&late, MPI_STATUS_IGNORE);
    printf("rank %d: wait after free %s\n", rank, late == MPI_REQUEST_NULL ? "ok" : "wrong");
    MPI_Finalize();
    return 0;
}
