/* What a window creation costs the ranks in calls that synchronise them
 * (issue 41): under a shared machine's load each of them costs a
 * scheduling slice, whatever its instructions, so their number is the cost
 * to hold. This program's own MPI_Allreduce, MPI_Comm_split_type and the
 * others below count the core's calls and pass them on to PMPI (the core
 * is linked statically, so its calls resolve here).
 *
 * Under mpiexec -n 2, for each engine, in SPIN and in SLEEP mode (whose
 * wait for the group is the creation's MPI_Comm_idup, no MPI_Ibarrier
 * before it): one window of 64 bytes made and
 * freed first (the rma engine caches its node on the communicator then),
 * then one counted. Holds the counts to the budgets below: the agreement
 * on arguments carried by the allreduce of same_size and same_disp_unit
 * (the engine's state and the MPI infos are made before it, so it carries
 * their failures too), the base check's agreement and the engine's attach
 * by the layout's allgather, and on the rma engine no MPI_Comm_split_type
 * and one node-shared window after the first window: one allreduce on
 * either engine. On one node the rma engine's window is an MPI_Win_create
 * over a slice of node-shared memory that the first window made for every
 * window over the communicator, its counters after each rank's memory,
 * settled from the node cached on the communicator before the first
 * agreement (so no setup step and no agreement after it), and it is also
 * the window of fences and locks: one MPI_Win_create and no
 * MPI_Win_allocate_shared. Before (measured): 18 allreduces on the rma
 * engine and 15 on the native one, two allgathers, and on the rma engine
 * a split, a barrier and two node-shared windows; then 6 and 4
 * allreduces; then on the rma engine two allreduces and a companion
 * MPI_Win_create of fences and locks; then the window itself node-shared,
 * one MPI_Win_allocate_shared (on which MPICH's get is an active message
 * its target must answer). Windows that outgrow the node-shared memory at
 * hand, or are large, get more (node_memory). And a mistake on one rank,
 * or a step after the MPI window exists failing there alone, still fails
 * every rank's creation: that rank with its own error, the others with
 * "another rank failed". Exits 0 when all holds. */
#include <mpi.h>
#include <rmalab/rmalab.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ALLREDUCE, ALLGATHER, BCAST, BARRIER, IBARRIER, DUP, SPLIT_TYPE, WIN_NEW, WIN_SHARED,
       NCALLS };
static const char *const names[NCALLS] = {
    "MPI_Allreduce", "MPI_Allgather", "MPI_Bcast", "MPI_Barrier", "MPI_Ibarrier",
    "MPI_Comm_dup/idup",  "MPI_Comm_split_type", "MPI_Win_create/allocate",
    "MPI_Win_allocate_shared"};
static long calls[NCALLS];

/* One rank's step after the MPI window exists failing alone
 * (one_rank_attach_failure): the next MPI_Win_get_group fails there,
 * doing nothing. */
static int fail_group;

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    calls[ALLREDUCE]++;
    return PMPI_Allreduce(s, r, n, t, op, c);
}

int MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                  MPI_Comm c)
{
    calls[ALLGATHER]++;
    return PMPI_Allgather(s, sn, st, r, rn, rt, c);
}

int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
    calls[BCAST]++;
    return PMPI_Bcast(b, n, t, root, c);
}

int MPI_Barrier(MPI_Comm c)
{
    calls[BARRIER]++;
    return PMPI_Barrier(c);
}

int MPI_Ibarrier(MPI_Comm c, MPI_Request *req)
{
    calls[IBARRIER]++;
    return PMPI_Ibarrier(c, req);
}

int MPI_Comm_dup(MPI_Comm c, MPI_Comm *out)
{
    calls[DUP]++;
    return PMPI_Comm_dup(c, out);
}

int MPI_Comm_idup(MPI_Comm c, MPI_Comm *out, MPI_Request *req)
{
    calls[DUP]++;
    return PMPI_Comm_idup(c, out, req);
}

int MPI_Comm_split_type(MPI_Comm c, int type, int key, MPI_Info info, MPI_Comm *out)
{
    calls[SPLIT_TYPE]++;
    return PMPI_Comm_split_type(c, type, key, info, out);
}

int MPI_Win_create(void *b, MPI_Aint size, int du, MPI_Info info, MPI_Comm c, MPI_Win *w)
{
    calls[WIN_NEW]++;
    return PMPI_Win_create(b, size, du, info, c, w);
}

int MPI_Win_get_group(MPI_Win w, MPI_Group *g)
{
    if (!fail_group)
        return PMPI_Win_get_group(w, g);
    fail_group = 0;
    return MPI_ERR_NO_MEM;
}

int MPI_Win_allocate(MPI_Aint size, int du, MPI_Info info, MPI_Comm c, void *b, MPI_Win *w)
{
    calls[WIN_NEW]++;
    return PMPI_Win_allocate(size, du, info, c, b, w);
}

int MPI_Win_allocate_shared(MPI_Aint size, int du, MPI_Info info, MPI_Comm c, void *b,
                            MPI_Win *w)
{
    calls[WIN_SHARED]++;
    return PMPI_Win_allocate_shared(size, du, info, c, b, w);
}

static int failures;

/* The counts of one creation on `engine` against `budget`. */
static void one_creation(const char *engine, const char *mode, const long budget[NCALLS])
{
    rmalab_info *info = NULL;
    rmalab_win *w = NULL;
    if (rmalab_info_create(&info) || rmalab_info_set(info, "rmalab_pscw", engine)) {
        printf("not ok: info\n");
        failures++;
        return;
    }
    rmalab_win_opts opts = {.size = 64, .disp_unit = 8, .info = info};
    if (rmalab_win_allocate(&opts, &w, NULL) || rmalab_win_free(&w))
        failures++;
    memset(calls, 0, sizeof calls);
    if (rmalab_win_allocate(&opts, &w, NULL)) {
        printf("not ok: %s: %s\n", engine, rmalab_errmsg());
        failures++;
    }
    long seen[NCALLS];
    memcpy(seen, calls, sizeof seen);
    rmalab_win_free(&w);
    rmalab_info_destroy(&info);
    for (int i = 0; i < NCALLS; i++) {
        int over = seen[i] > budget[i];
        failures += over;
        printf("%s %s engine, %s: %-24s %ld (at most %ld)\n", over ? "not ok" : "ok", engine,
               mode, names[i], seen[i], budget[i]);
    }
}

/* A mistake on rank 1 alone still fails the creation on every rank. */
static void one_rank_mistake(int rank)
{
    rmalab_win *w = NULL;
    rmalab_win_opts opts = {.size = 64, .disp_unit = rank == 1 ? -8 : 8};
    int rc = rmalab_win_allocate(&opts, &w, NULL);
    const char *want = rank == 1 ? "disp_unit -8 is negative" : "another rank failed";
    if (rc != RMALAB_ERR_ARG || w || !strstr(rmalab_errmsg(), want)) {
        printf("not ok: a mistake on rank 1: rank %d got %d: %s\n", rank, rc, rmalab_errmsg());
        failures++;
    }
    opts.disp_unit = 8;
    if (rmalab_win_allocate(&opts, &w, NULL) || rmalab_win_free(&w)) {
        printf("not ok: the next creation: %s\n", rmalab_errmsg());
        failures++;
    }
}

/* On the rma engine, rank 1's MPI_Win_get_group failing alone, after the
 * MPI window exists: the layout's allgather carries it, and
 * every rank's creation fails, rank 1 with MPI's error and the others with
 * "another rank failed"; the next creation works. */
static void one_rank_attach_failure(int rank)
{
    rmalab_info *info = NULL;
    rmalab_win *w = NULL;
    rmalab_info_create(&info);
    rmalab_info_set(info, "rmalab_pscw", "rma");
    rmalab_win_opts opts = {.size = 64, .disp_unit = 8, .info = info};
    fail_group = rank == 1;
    int rc = rmalab_win_allocate(&opts, &w, NULL);
    const char *want = rank == 1 ? "MPI_Win_get_group" : "another rank failed";
    if (rc == RMALAB_OK || w || !strstr(rmalab_errmsg(), want)) {
        printf("not ok: an attach failing on rank 1: rank %d got %d: %s\n", rank, rc,
               rmalab_errmsg());
        failures++;
    }
    if (rmalab_win_allocate(&opts, &w, NULL) || rmalab_win_free(&w)) {
        printf("not ok: the next creation: %s\n", rmalab_errmsg());
        failures++;
    }
    rmalab_info_destroy(&info);
}

/* On the rma engine the one MPI window of a win_allocate on one node
 * serves PSCW and fences and locks alike: an accumulate in a start epoch
 * (through MPI, in the engine's lock_all for that epoch alone), then a
 * lock and get of it, then a fence epoch's put. And no_locks, which MPICH
 * is not told there, is reported in force and held by rmalab. */
static void one_window_serves_all(int rank)
{
    rmalab_info *info = NULL;
    rmalab_win *w = NULL;
    rmalab_result *got = NULL;
    const void *data = NULL;
    int peer = 1 - rank, bad = 0;
    int64_t one = 1, seven = 7, after = 0;
    rmalab_info_create(&info);
    rmalab_info_set(info, "rmalab_pscw", "rma");
    rmalab_win_opts opts = {.size = 64, .disp_unit = 8, .info = info};
    bad |= rmalab_win_allocate(&opts, &w, NULL) || rmalab_win_post(w, &peer, 1, 0) ||
           rmalab_win_start(w, &peer, 1, 0) ||
           rmalab_win_accumulate(w, peer, 0, RMALAB_INT64, 1, &one, RMALAB_OP_SUM) ||
           rmalab_win_complete(w) || rmalab_win_wait(w);
    bad |= bad || rmalab_win_lock(w, peer, false, 0) ||
           rmalab_win_get(w, peer, 0, RMALAB_INT64, 1, &got) || rmalab_win_unlock(w, peer) ||
           rmalab_result_data(got, &data, NULL, NULL) || *(const int64_t *)data != 1;
    rmalab_result_release(got);
    bad |= bad || rmalab_win_fence(w, 0) || rmalab_win_put(w, peer, 1, RMALAB_INT64, 1, &seven) ||
           rmalab_win_fence(w, 0) || rmalab_win_read(w, 1, RMALAB_INT64, 1, &after) ||
           after != 7;
    if (bad) {
        printf("not ok: one rma window for PSCW, locks and fences: %s\n", rmalab_errmsg());
        failures++;
    }
    rmalab_win_free(&w);
    rmalab_info_set(info, "no_locks", "true");
    rmalab_info *in_force = NULL;
    const char *v = NULL;
    if (rmalab_win_allocate(&opts, &w, NULL) || rmalab_win_get_info(w, &in_force) ||
        !(v = rmalab_info_lookup(in_force, "no_locks", 8, NULL)) || strcmp(v, "true") != 0 ||
        rmalab_win_lock(w, peer, false, 0) != RMALAB_ERR_RMA_SYNC) {
        printf("not ok: no_locks on the rma engine's one window: %s (%s)\n", v ? v : "unset",
               rmalab_errmsg());
        failures++;
    }
    rmalab_info_destroy(&in_force);
    rmalab_win_free(&w);
    rmalab_info_destroy(&info);
}

/* node_memory's windows: rank r's has 100,000 * (r + 1) bytes, or `big`. */
static MPI_Aint numbered_size(int rank, MPI_Aint big) { return big ? big : 100000 * (rank + 1); }

static rmalab_win *numbered(int rank, MPI_Aint big)
{
    rmalab_win *w = NULL;
    rmalab_win_opts opts = {.size = numbered_size(rank, big), .disp_unit = 8};
    return rmalab_win_allocate(&opts, &w, NULL) ? NULL : w;
}

/* In window w (number i), a PSCW epoch puts i * 100 + rank into the peer's
 * last int64 and a shared lock gets it back; what each rank finds in its
 * own must be the peer's. */
static int numbered_ok(rmalab_win *w, int i, int rank, MPI_Aint big)
{
    int peer = 1 - rank, bad;
    int64_t mine = i * 100 + rank, got = -1;
    MPI_Aint last = numbered_size(peer, big) / 8 - 1, own = numbered_size(rank, big) / 8 - 1;
    const void *data = NULL;
    rmalab_result *r = NULL;
    bad = rmalab_win_post(w, &peer, 1, 0) || rmalab_win_start(w, &peer, 1, 0) ||
          rmalab_win_put(w, peer, last, RMALAB_INT64, 1, &mine) || rmalab_win_complete(w) ||
          rmalab_win_wait(w) || rmalab_win_read(w, own, RMALAB_INT64, 1, &got) ||
          got != i * 100 + peer;
    MPI_Barrier(MPI_COMM_WORLD);
    bad = bad || rmalab_win_lock(w, peer, false, 0) ||
          rmalab_win_get(w, peer, last, RMALAB_INT64, 1, &r) || rmalab_win_unlock(w, peer) ||
          rmalab_result_data(r, &data, NULL, NULL) || *(const int64_t *)data != mine;
    rmalab_result_release(r);
    MPI_Barrier(MPI_COMM_WORLD);
    return bad;
}

/* The rma engine's node-shared memory, shared by the windows over a
 * communicator (1 MiB a rank a chunk): 40 windows alive at once, rank 1's
 * of 200,000 bytes, outgrow it 7 times (5 of rank 1's a chunk, and every
 * rank places a window in the same chunk); two freed in the chunk at hand
 * leave room that the next two take; a window of 2 MiB gets node-shared
 * memory of its own. Every window keeps its own bytes, which PSCW and
 * locks reach, the earlier ones checked again at the end. */
static void node_memory(int rank)
{
    enum { N = 40 };
    rmalab_win *w[N] = {0};
    int bad = 0;
    memset(calls, 0, sizeof calls);
    for (int i = 0; i < N && !bad; i++)
        bad = !(w[i] = numbered(rank, 0)) || numbered_ok(w[i], i, rank, 0);
    long grown = calls[WIN_SHARED];
    bad = bad || rmalab_win_free(&w[N - 4]) || rmalab_win_free(&w[N - 2]) ||
          !(w[N - 4] = numbered(rank, 0)) || !(w[N - 2] = numbered(rank, 0));
    long reused = calls[WIN_SHARED] - grown;
    for (int i = 0; i < N && !bad; i++)
        bad = numbered_ok(w[i], i + 1000, rank, 0);
    rmalab_win *big = bad ? NULL : numbered(rank, 2 << 20);
    bad = bad || !big || numbered_ok(big, 99, rank, 2 << 20) || rmalab_win_free(&big);
    for (int i = 0; i < N; i++)
        rmalab_win_free(&w[i]);
    if (bad || grown != 7 || reused != 0 || calls[WIN_SHARED] != 8) {
        printf("not ok: node-shared memory of 42 windows: %s; chunks made %ld, then %ld, "
               "in all %ld (want 7, 0, 8)\n", bad ? rmalab_errmsg() : "ok", grown, reused,
               calls[WIN_SHARED]);
        failures++;
    }
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /*                         allreduce gather bcast barrier ibarrier dup split win shared */
    static const long rma[NCALLS] = {1, 1, 0, 0, 0, 1, 0, 1, 0};
    static const long native[NCALLS] = {1, 1, 0, 0, 0, 1, 0, 1, 0};
    one_creation("rma", "spin", rma);
    one_creation("native", "spin", native);
    /* SLEEP mode waits for the group in the creation's MPI_Comm_idup, not
     * in an MPI_Ibarrier before a dup (measured before: one of each). */
    rmalab_wait_set_mode(RMALAB_WAIT_SLEEP);
    one_creation("rma", "sleep", rma);
    one_creation("native", "sleep", native);
    rmalab_wait_set_mode(RMALAB_WAIT_SPIN);
    one_rank_mistake(rank);
    one_rank_attach_failure(rank);
    one_window_serves_all(rank);
    node_memory(rank);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return all ? 1 : 0;
}
