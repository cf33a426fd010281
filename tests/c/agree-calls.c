/* What the agreement of a window's collective calls costs in collectives
 * (issue 41): fence, free and set_info agree before MPI (issue 42), and in
 * SLEEP mode (rmalab/block.h) they wait for their group in a nonblocking
 * collective first. That collective is the agreement itself, an
 * MPI_Iallreduce of its packet, so SLEEP mode makes no more collectives
 * than SPIN mode: before, it made an MPI_Ibarrier and then the agreement's
 * MPI_Allreduce, two where one does. This program's own MPI_Allreduce,
 * MPI_Iallreduce and MPI_Ibarrier count the core's calls and pass them on
 * to PMPI (the core is linked statically, so its calls resolve here).
 *
 * Under mpiexec -n 2 (or more): in each mode, the collectives of a fence
 * before its MPI_Win_fence (exactly one: the agreement), and of a whole
 * fence, set_info and free (SLEEP makes as many as SPIN, and no
 * MPI_Ibarrier). And in SLEEP mode a mistake on the last rank alone still
 * fails a fence, a free and a set_info on every rank, with that rank's own
 * error there and "another rank failed" elsewhere, and ranks in different
 * calls (fence against free) all fail: the agreement's verdict holds when
 * the nonblocking collective carries it. Exits 0 when all holds. */
#include <mpi.h>
#include <rmalab/rmalab.h>

#include <stdio.h>
#include <string.h>

enum { ALLREDUCE, IALLREDUCE, IBARRIER, NCALLS };
static const char *const names[NCALLS] = {"MPI_Allreduce", "MPI_Iallreduce", "MPI_Ibarrier"};
static long calls[NCALLS];
static long before_fence = -1; /* collectives counted when MPI_Win_fence came */

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    calls[ALLREDUCE]++;
    return PMPI_Allreduce(s, r, n, t, op, c);
}

int MPI_Iallreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c,
                   MPI_Request *req)
{
    calls[IALLREDUCE]++;
    return PMPI_Iallreduce(s, r, n, t, op, c, req);
}

int MPI_Ibarrier(MPI_Comm c, MPI_Request *req)
{
    calls[IBARRIER]++;
    return PMPI_Ibarrier(c, req);
}

int MPI_Win_fence(int assert_, MPI_Win w)
{
    if (before_fence < 0)
        before_fence = calls[ALLREDUCE] + calls[IALLREDUCE] + calls[IBARRIER];
    return PMPI_Win_fence(assert_, w);
}

static int failures, rank, size;

static void fail(const char *what, const char *msg)
{
    printf("not ok: rank %d: %s: %s\n", rank, what, msg);
    failures++;
}

static long total(const long c[NCALLS])
{
    return c[ALLREDUCE] + c[IALLREDUCE] + c[IBARRIER];
}

enum { FENCE, SET_INFO, FREE, NSTEPS };
static const char *const steps[NSTEPS] = {"fence", "set_info", "free"};

/* Each step's counts in the current mode, on a new window. */
static void count_steps(long seen[NSTEPS][NCALLS], long *fence_first)
{
    rmalab_win *w = NULL;
    rmalab_win_opts opts = {.size = 64, .disp_unit = 8};
    rmalab_info *info = NULL;
    if (rmalab_win_allocate(&opts, &w, NULL) || rmalab_info_create(&info) ||
        rmalab_info_set(info, "accumulate_ordering", "none")) {
        fail("a window", rmalab_errmsg());
        return;
    }
    for (int s = 0; s < NSTEPS; s++) {
        memset(calls, 0, sizeof calls);
        before_fence = -1;
        int rc = s == FENCE      ? rmalab_win_fence(w, 0)
                 : s == SET_INFO ? rmalab_win_set_info(w, info, NULL)
                                 : rmalab_win_free(&w);
        if (rc)
            fail(steps[s], rmalab_errmsg());
        memcpy(seen[s], calls, sizeof calls);
        if (s == FENCE)
            *fence_first = before_fence;
    }
    rmalab_info_destroy(&info);
}

static void compare(void)
{
    long seen[2][NSTEPS][NCALLS] = {{{0}}}, first[2] = {-1, -1};
    for (int m = 0; m < 2; m++) {
        rmalab_wait_set_mode(m ? RMALAB_WAIT_SLEEP : RMALAB_WAIT_SPIN);
        count_steps(seen[m], &first[m]);
    }
    rmalab_wait_set_mode(RMALAB_WAIT_SPIN);
    for (int m = 0; m < 2; m++) {
        const char *mode = m ? "sleep" : "spin";
        int bad = first[m] != 1;
        failures += bad;
        if (bad || rank == 0)
            printf("%s %s: collectives before MPI_Win_fence: %ld (exactly 1)\n",
                   bad ? "not ok" : "ok", mode, first[m]);
    }
    for (int s = 0; s < NSTEPS; s++) {
        long spin = total(seen[0][s]), sleep = total(seen[1][s]);
        int bad = sleep != spin || seen[1][s][IBARRIER] || !seen[1][s][IALLREDUCE];
        failures += bad;
        if (!bad && rank)
            continue;
        printf("%s %s: spin %ld collectives, sleep %ld (", bad ? "not ok" : "ok", steps[s],
               spin, sleep);
        for (int i = 0; i < NCALLS; i++)
            printf("%s%s %ld", i ? ", " : "", names[i], seen[1][s][i]);
        printf("); sleep makes as many, its wait the agreement\n");
    }
}

/* rc and the message: this rank's own error on the last rank, "another
 * rank failed" (or `others`) elsewhere. */
static void expect_one_rank(const char *what, int rc, int code, const char *own,
                            const char *others)
{
    const char *want = rank == size - 1 ? own : others;
    if (rc != code || !strstr(rmalab_errmsg(), want))
        fail(what, rmalab_errmsg());
}

static void one_rank_mistakes(void)
{
    rmalab_win *w = NULL;
    rmalab_win_opts opts = {.size = 64, .disp_unit = 8};
    bool last = rank == size - 1;
    rmalab_wait_set_mode(RMALAB_WAIT_SLEEP);
    if (rmalab_win_allocate(&opts, &w, NULL)) {
        fail("a window", rmalab_errmsg());
        return;
    }
    expect_one_rank("fence", rmalab_win_fence(w, last ? RMALAB_MODE_NOCHECK : 0),
                    RMALAB_ERR_ARG, "does not apply to fence", "another rank failed");
    expect_one_rank("fence", rmalab_win_fence(w, last ? RMALAB_MODE_NOSUCCEED : 0),
                    RMALAB_ERR_ARG, "this rank did)", "this rank did not)");
    if (last && rmalab_win_lock(w, 0, true, 0))
        fail("lock", rmalab_errmsg());
    expect_one_rank("free", rmalab_win_free(&w), RMALAB_ERR_RMA_SYNC, "unlock",
                    "another rank failed");
    if (last && rmalab_win_unlock(w, 0))
        fail("unlock", rmalab_errmsg());
    rmalab_info *info = NULL;
    rmalab_info_create(&info);
    rmalab_info_set(info, "accumulate_ordering", "none");
    int status = last ? rmalab_set_error(RMALAB_ERR_INFO_VALUE, "set_info: a bad value") : 0;
    expect_one_rank("set_info", rmalab_win_set_info_status(w, info, NULL, status),
                    RMALAB_ERR_INFO_VALUE, "a bad value", "another rank failed");
    rmalab_info_destroy(&info);
    int rc = last ? rmalab_win_fence(w, 0) : rmalab_win_free(&w);
    expect_one_rank("fence against free", rc, RMALAB_ERR_OTHER, "different collective call",
                    "different collective call");
    if (!w || rmalab_win_fence(w, 0) || rmalab_win_fence(w, RMALAB_MODE_NOSUCCEED) ||
        rmalab_win_free(&w))
        fail("the window after the refusals", rmalab_errmsg());
    rmalab_wait_set_mode(RMALAB_WAIT_SPIN);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    compare();
    one_rank_mistakes();
    int all = 0;
    PMPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s\n", all ? "agree-calls: FAILED" : "agree-calls: all held");
    MPI_Finalize();
    return all ? 1 : 0;
}
