/* The block suite: what a process is blocked in, read from a second thread
 * while the first waits in a call that the last rank delays (window
 * creation, fence, barrier on MPI_COMM_WORLD and on a communicator rmalab
 * created, free, PSCW wait), in both wait modes; and the last failed call
 * (a free refused inside an epoch, a creation refused on its arguments, a
 * barrier on MPI_COMM_NULL), cleared by the next call; the progress hook
 * that passive-target calls tell, and a sleeper that is hurried. Needs
 * MPI_THREAD_MULTIPLE (the `rma` set of test-core-mpi) and two ranks or
 * more. */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "testutil.h"

static int rank, nranks;

/* A second thread that keeps the first snapshot of `call` at least 0.1 s
 * old, and every call it saw. */
typedef struct {
    const char *call;
    atomic_int stop;
    int seen;
    rmalab_blocked b;
    char calls[256];
} watcher;

static void *watch(void *arg)
{
    watcher *wt = arg;
    while (!atomic_load(&wt->stop)) {
        rmalab_blocked b;
        if (rmalab_blocked_get(&b)) {
            char tag[40];
            snprintf(tag, sizeof tag, "%s,", b.call);
            if (!strstr(wt->calls, tag) && strlen(wt->calls) + strlen(tag) < sizeof wt->calls)
                strcat(wt->calls, tag);
            if (!wt->seen && strcmp(b.call, wt->call) == 0 && b.seconds >= 0.1) {
                wt->b = b;
                wt->seen = 1;
            }
        } else if (b.call || b.n_members) {
            tu_soft_fail(__FILE__, __LINE__, "not blocked, but the snapshot is not zeroed");
        }
        usleep(2000);
    }
    return NULL;
}

/* What the ranks that wait should see. */
typedef struct {
    const char *call;
    const char *object;
    uint64_t id;
    int collective;
} expected;

static pthread_t t;
static watcher wt;

/* Before `call`: a watcher on every rank but the last, which enters the
 * call 300 ms late. */
static void watch_start(const char *call)
{
    memset(&wt, 0, sizeof wt);
    wt.call = call;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == nranks - 1)
        usleep(300000);
    else
        ck_assert_int_eq(pthread_create(&t, NULL, watch, &wt), 0);
}

static void watch_stop(void)
{
    if (rank == nranks - 1 || atomic_exchange(&wt.stop, 1))
        return;
    pthread_join(t, NULL);
}

/* After the call: what the waiting ranks saw. */
static void watch_check(expected e)
{
    if (rank == nranks - 1)
        return;
    watch_stop();
    EXPECT(wt.seen, "never saw %s (calls seen: %s)", e.call, wt.calls);
    if (!wt.seen)
        return;
    EXPECT_STR_EQ(wt.b.call, e.call);
    EXPECT_STR_EQ(wt.b.object, e.object);
    EXPECT_INT_EQ(wt.b.id, e.id);
    EXPECT_INT_EQ(wt.b.collective, e.collective);
    EXPECT(wt.b.seconds >= 0.1 && wt.b.seconds < 30, "%s: blocked %f s", e.call,
           wt.b.seconds);
    rmalab_blocked now;
    EXPECT(!rmalab_blocked_get(&now), "still blocked in %s", now.call);
}

static void expect_world(const char *call)
{
    if (rank == nranks - 1 || !wt.seen)
        return;
    EXPECT_INT_EQ(wt.b.n_members, nranks);
    for (int i = 0; i < nranks && i < RMALAB_STATE_MAX_RANKS; i++)
        EXPECT(wt.b.members[i] == i, "%s: member %d is %d", call, i, wt.b.members[i]);
}

/* _i: the wait mode, RMALAB_WAIT_SPIN then RMALAB_WAIT_SLEEP. */
START_TEST(test_blocked_visible)
{
    int provided = 0;
    MPI_Query_thread(&provided);
    ck_assert_msg(provided == MPI_THREAD_MULTIPLE, "needs MPI_THREAD_MULTIPLE, got %d", provided);
    tu_begin();
    rank = tu_rank();
    nranks = tu_size();
    int saved = rmalab_wait_get_mode();
    rmalab_wait_set_mode(_i);
    EXPECT_INT_EQ(rmalab_wait_get_mode(), _i);
    EXPECT(strcmp(rmalab_wait_mode_name(_i), _i == RMALAB_WAIT_SLEEP ? "sleep" : "spin") == 0,
           "wait mode %d is named %s", _i, rmalab_wait_mode_name(_i));

    rmalab_win *w = NULL;
    rmalab_win_opts o = {.size = 64, .disp_unit = 1};
    watch_start("win_allocate");
    EXPECT_OK(rmalab_win_allocate(&o, &w, NULL));
    watch_check((expected){"win_allocate", "comm", 0, 1});
    expect_world("win_allocate");
    if (!w)
        goto out;

    watch_start("fence");
    EXPECT_OK(rmalab_win_fence(w, 0));
    watch_check((expected){"fence", "win", rmalab_win_id(w), 1});
    expect_world("fence");

    watch_start("barrier");
    EXPECT_OK(rmalab_barrier(MPI_COMM_WORLD));
    watch_check((expected){"barrier", "comm", 0, 1});
    expect_world("barrier");

    /* A communicator rmalab created: the same id on every rank, not 0. */
    rmalab_comm *world = NULL, *dup = NULL;
    EXPECT_OK(rmalab_comm_wrap(MPI_COMM_WORLD, &world));
    EXPECT_OK(rmalab_comm_dup(world, NULL, &dup, NULL));
    if (dup) {
        watch_start("barrier");
        EXPECT_OK(rmalab_barrier(rmalab_comm_mpi(dup)));
        watch_stop();
        /* The last rank saw nothing: it takes rank 0's id. */
        unsigned long long id = rank == nranks - 1 ? 0 : (unsigned long long)wt.b.id, id0 = id;
        MPI_Bcast(&id0, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
        if (rank == nranks - 1)
            id = id0;
        watch_check((expected){"barrier", "comm", id, 1});
        expect_world("barrier on a dup");
        EXPECT(id == id0, "communicator ids differ: %llu here, %llu on rank 0", id, id0);
        EXPECT(id > 0, "a communicator rmalab created has id %llu", id);
    }
    rmalab_comm_free(&dup);
    rmalab_comm_free(&world);

    /* PSCW: rank 0 waits for the last rank's complete; members: the post
     * group. */
    int last = nranks - 1, zero = 0;
    watch_start("wait");
    if (rank == 0) {
        EXPECT_OK(rmalab_win_post(w, &last, 1, 0));
        EXPECT_OK(rmalab_win_wait(w));
    } else if (rank == last) {
        EXPECT_OK(rmalab_win_start(w, &zero, 1, 0));
        EXPECT_OK(rmalab_win_complete(w));
    }
    if (rank == 0) {
        watch_check((expected){"wait", "win", rmalab_win_id(w), 0});
        EXPECT_INT_EQ(wt.b.n_members, 1);
        EXPECT_INT_EQ(wt.b.members[0], last);
    } else {
        watch_stop();
    }

    /* waitany: rank 0 waits for a message from the last rank; members:
     * that rank. */
    rmalab_comm *wc = NULL;
    EXPECT_OK(rmalab_comm_wrap(MPI_COMM_WORLD, &wc));
    watch_start("waitany");
    if (rank == 0) {
        rmalab_request *rq = NULL;
        int index = -1;
        EXPECT_OK(rmalab_comm_irecv(wc, last, 9, &rq));
        EXPECT_OK(rmalab_request_waitany(&rq, 1, &index));
        EXPECT_INT_EQ(index, 0);
        rmalab_request_destroy(&rq);
    } else if (rank == last) {
        EXPECT_OK(rmalab_comm_send(wc, "x", 1, 0, 9));
    }
    if (rank == 0) {
        watch_check((expected){"waitany", "comm", 0, 0});
        EXPECT_INT_EQ(wt.b.n_members, 1);
        EXPECT_INT_EQ(wt.b.members[0], last);
    } else {
        watch_stop();
    }
    rmalab_comm_free(&wc);

    uint64_t wid = rmalab_win_id(w);
    watch_start("free");
    EXPECT_OK(rmalab_win_free(&w));
    watch_check((expected){"free", "win", wid, 1});
    expect_world("free");
out:
    rmalab_wait_set_mode(saved);
    tu_end();
}
END_TEST

/* Calls on two threads: the one that published first (the owner, whose
 * stack is pushed and popped with plain stores) and another (the shared
 * stack, under the spin lock). */
typedef struct {
    rmalab_comm *c;
    int peer, rc, bad;
    atomic_int n, stop;
} pair;

static void *recv_late(void *arg)
{
    pair *p = arg;
    char x = 0;
    rmalab_msg_status st;
    p->rc = rmalab_comm_recv(p->c, &x, 1, p->peer, 11, &st);
    return NULL;
}

/* Copies the owner's records every 20 µs or so (not spinning: the ranks
 * share the cores): each whole, a send or a receive with the peer, never
 * one half gone. */
static void *copy_records(void *arg)
{
    pair *p = arg;
    while (!atomic_load(&p->stop)) {
        rmalab_blocked b;
        usleep(20);
        if (!rmalab_blocked_get(&b))
            continue;
        p->n++;
        if (!b.call || (strcmp(b.call, "send") && strcmp(b.call, "recv")) ||
            strcmp(b.object, "comm") || b.n_members != 1 || b.members[0] != p->peer)
            p->bad++;
    }
    return NULL;
}

START_TEST(test_blocked_threads)
{
    tu_begin();
    rank = tu_rank();
    nranks = tu_size();
    int last = nranks - 1, go = 1;
    pair p = {.peer = rank ? 0 : last, .rc = -1};
    pthread_t th;
    EXPECT_OK(rmalab_comm_wrap(MPI_COMM_WORLD, &p.c));
    EXPECT_OK(rmalab_barrier(MPI_COMM_WORLD)); /* this thread owns, if none did */
    if (rank == 0) { /* a receive on another thread, seen while it waits */
        ck_assert_int_eq(pthread_create(&th, NULL, recv_late, &p), 0);
        rmalab_blocked b = {0};
        for (int i = 0; i < 5000 && !(rmalab_blocked_get(&b) && b.seconds >= 0.05); i++)
            usleep(1000);
        EXPECT_STR_EQ(b.call, "recv");
        EXPECT(b.n_members == 1 && b.members[0] == last, "%d members, the first %d",
               b.n_members, b.members[0]);
        MPI_Send(&go, 1, MPI_INT, last, 12, MPI_COMM_WORLD);
        pthread_join(th, NULL);
        EXPECT_OK(p.rc);
    } else if (rank == last) {
        MPI_Recv(&go, 1, MPI_INT, 0, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        EXPECT_OK(rmalab_comm_send(p.c, "x", 1, 0, 11));
    }
    /* Round trips on the owner while a reader copies its records, until
     * both ranks' readers have copied 20 (a reader that the ranks' spinning
     * keeps off the cores may wait a few ms for its first turn) or 10 s
     * have passed: rank 0's message says whether to go on, the reply
     * whether its sender's reader has its 20. */
    char more = 1, theirs = 0;
    rmalab_msg_status st;
    double t0 = MPI_Wtime();
    ck_assert_int_eq(pthread_create(&th, NULL, copy_records, &p), 0);
    while (more && (rank == 0 || rank == last)) {
        char mine = atomic_load(&p.n) >= 20;
        if (rank == 0) {
            more = !(mine && theirs) && MPI_Wtime() - t0 < 10;
            EXPECT_OK(rmalab_comm_send(p.c, &more, 1, last, 13));
            EXPECT_OK(rmalab_comm_recv(p.c, &theirs, 1, p.peer, 13, &st));
        } else {
            EXPECT_OK(rmalab_comm_recv(p.c, &more, 1, p.peer, 13, &st));
            EXPECT_OK(rmalab_comm_send(p.c, &mine, 1, 0, 13));
        }
    }
    atomic_store(&p.stop, 1);
    pthread_join(th, NULL);
    EXPECT(p.bad == 0, "%d of %d records copied were not whole", p.bad, atomic_load(&p.n));
    EXPECT(atomic_load(&p.n) > 0 || (rank != 0 && rank != last), "no record copied in 10 s");
    rmalab_blocked now;
    EXPECT(!rmalab_blocked_get(&now), "still blocked in %s", now.call);
    rmalab_comm_free(&p.c);
    tu_end();
}
END_TEST

START_TEST(test_last_failure)
{
    tu_begin();
    rank = tu_rank();
    rmalab_failure f;
    rmalab_win *w = NULL;
    rmalab_win_opts o = {.size = 64, .disp_unit = 1};
    EXPECT_OK(rmalab_win_allocate(&o, &w, NULL));
    EXPECT(!rmalab_last_failure(&f), "a failure after a creation that worked: %s", f.call);
    EXPECT(f.call == NULL, "not zeroed: %s", f.call);

    /* Refused by the epoch state machine. */
    EXPECT_OK(rmalab_win_lock_all(w, 0));
    EXPECT_ERR(rmalab_win_free(&w), RMALAB_ERR_RMA_SYNC, "free");
    EXPECT(rmalab_last_failure(&f), "the refused free left no failure");
    EXPECT_STR_EQ(f.call, "free");
    EXPECT_INT_EQ(f.code, RMALAB_ERR_RMA_SYNC);
    EXPECT_STR_EQ(f.object, "win");
    EXPECT_INT_EQ(f.id, rmalab_win_id(w));
    EXPECT_CONTAINS(f.message, "free: a window may only be freed outside of any epoch");
    /* The next such call clears it. */
    EXPECT_OK(rmalab_win_unlock_all(w));
    EXPECT(!rmalab_last_failure(&f), "unlock_all worked, but the failure of %s remains",
           f.call);

    /* Refused on its arguments, before any collective call. */
    rmalab_win *bad = NULL;
    rmalab_win_opts neg = {.size = -1};
    EXPECT_ERR(rmalab_win_create(&neg, &bad, NULL), RMALAB_ERR_ARG, "negative");
    EXPECT(rmalab_last_failure(&f), "the refused creation left no failure");
    EXPECT_STR_EQ(f.call, "win_create");
    EXPECT_INT_EQ(f.code, RMALAB_ERR_ARG);
    EXPECT_STR_EQ(f.object, "comm");
    EXPECT_INT_EQ(f.id, 0);

    EXPECT_ERR(rmalab_barrier(MPI_COMM_NULL), RMALAB_ERR_COMM, "MPI_COMM_NULL");
    EXPECT(rmalab_last_failure(&f) && f.call && strcmp(f.call, "barrier") == 0,
           "the barrier's failure is %s", f.call ? f.call : "(none)");
    EXPECT_OK(rmalab_win_fence(w, 0));
    EXPECT(!rmalab_last_failure(&f), "fence worked, but the failure of %s remains", f.call);
    EXPECT_OK(rmalab_win_free(&w));
    tu_end();
}
END_TEST

/* Passive-target calls tell the progress hook which world ranks they need
 * (rmalab/block.h); calls that wait for a partner's call do not. */
static struct {
    int calls, n;
    int ranks[64];
} heard;

static void hear(const int *world_ranks, int n, void *arg)
{
    (void)arg;
    heard.calls++;
    for (int i = 0; i < n && heard.n < 64; i++)
        heard.ranks[heard.n++] = world_ranks[i];
}

static void expect_heard(const char *call, int calls, int n, int first)
{
    EXPECT(heard.calls == calls && heard.n == n && (!n || heard.ranks[0] == first),
           "%s: the hook heard %d call(s) of %d rank(s), first %d; expected %d of %d, first %d",
           call, heard.calls, heard.n, heard.n ? heard.ranks[0] : -1, calls, n, first);
    memset(&heard, 0, sizeof heard);
}

/* Seconds for 20 lock/put/unlock epochs from rank 0 to the last rank,
 * which sleeps in a barrier meanwhile (SLEEP mode, 10 ms naps by then);
 * with `hurry`, a thread of the last rank hurries it as a REPL's control
 * thread would (the origin's hook cannot reach it here): from 0.3 s on,
 * 0.25 s at a time, until the barrier ends. It hurried once for 1 s, which
 * a loaded machine could let pass before rank 0's epochs were done. */
static atomic_int hurry_stop;

static void *hurry_soon(void *arg)
{
    (void)arg;
    usleep(300000);
    while (!atomic_load(&hurry_stop)) {
        rmalab_wait_hurry(0.25);
        usleep(100000);
    }
    return NULL;
}

static double epochs_to_sleeper(rmalab_win *w, bool hurry)
{
    int last = nranks - 1;
    double dt = 0;
    pthread_t h;
    atomic_store(&hurry_stop, 0);
    if (rank == last && hurry)
        pthread_create(&h, NULL, hurry_soon, NULL);
    if (rank == 0) {
        for (double t0 = MPI_Wtime(); MPI_Wtime() - t0 < 0.5;)
            ; /* the last rank naps 10 ms at a time by now */
        double t0 = MPI_Wtime();
        int64_t v = 7;
        for (int i = 0; i < 20; i++) {
            EXPECT_OK(rmalab_win_lock(w, last, true, 0));
            EXPECT_OK(rmalab_win_put(w, last, 0, RMALAB_INT64, 1, &v));
            EXPECT_OK(rmalab_win_unlock(w, last));
        }
        dt = MPI_Wtime() - t0;
    }
    EXPECT_OK(rmalab_barrier(MPI_COMM_WORLD));
    atomic_store(&hurry_stop, 1);
    if (rank == last && hurry)
        pthread_join(h, NULL);
    return dt;
}

/* Hurried, the sleeper serves the epochs at least twice as fast (10 ms
 * naps against 20 µs ones: about 100 times on a quiet machine). On a
 * loaded one both take what the scheduler gives them, and a burst of load
 * can slow a hurried run to an unhurried one's time (1.39 s against 1.40
 * s, beside eight busy sessions): pairs are run, up to 4, until the
 * fastest hurried run on rank 0 takes under half the fastest unhurried
 * one. Unhurried, each epoch waits for two 10 ms naps at least, however
 * quiet the machine. */
static void expect_hurried_faster(rmalab_win *w)
{
    double slow = 1e9, fast = 1e9;
    int again = 1;
    for (int k = 0; k < 4 && again; k++) {
        double s = epochs_to_sleeper(w, false), f = epochs_to_sleeper(w, true);
        slow = s < slow ? s : slow;
        fast = f < fast ? f : fast;
        again = !(fast < slow / 2);
        MPI_Bcast(&again, 1, MPI_INT, 0, MPI_COMM_WORLD); /* rank 0 measured */
    }
    EXPECT(rank != 0 || fast < slow / 2, "20 epochs to a sleeping target took %.4f s "
           "hurried against %.4f s not, at best", fast, slow);
}

/* On the rma engine complete waits for nothing of its own when its puts were
 * copies (an allocated window): the hook hears nothing. A put into memory the
 * caller gave goes through MPI, and complete's flush of it needs the
 * target's progress, as a passive-target flush does: the hook hears it. */
static void pscw_heard(int last)
{
    static _Alignas(16) int64_t mem[2];
    int64_t v = 3;
    int zero = 0;
    rmalab_info *info = NULL;
    EXPECT_OK(rmalab_info_create(&info));
    EXPECT_OK(rmalab_info_set(info, "rmalab_pscw", "rma")); /* whatever RMALAB_PSCW says */
    for (int given = 0; given < 2; given++) {
        rmalab_win *w = NULL;
        rmalab_win_opts o = {.size = 16, .disp_unit = 8, .info = info,
                             .base = given ? mem : NULL};
        EXPECT_OK(given ? rmalab_win_create(&o, &w, NULL) : rmalab_win_allocate(&o, &w, NULL));
        if (!w)
            break;
        memset(&heard, 0, sizeof heard);
        if (rank == last)
            EXPECT_OK(rmalab_win_post(w, &zero, 1, 0));
        if (rank == 0) {
            EXPECT_OK(rmalab_win_start(w, &last, 1, 0));
            EXPECT_OK(rmalab_win_put(w, last, 0, RMALAB_INT64, 1, &v));
            EXPECT_OK(rmalab_win_complete(w));
            expect_heard(given ? "complete, a put through MPI" : "complete, a copy", given,
                         given, last);
        }
        if (rank == last)
            EXPECT_OK(rmalab_win_wait(w));
        EXPECT(rank != last || !given || mem[0] == 3, "the put left %lld", (long long)mem[0]);
        EXPECT_OK(rmalab_win_free(&w));
    }
    rmalab_info_destroy(&info);
}

START_TEST(test_progress_hook)
{
    tu_begin();
    rank = tu_rank();
    nranks = tu_size();
    int last = nranks - 1, saved = rmalab_wait_get_mode();
    rmalab_win *w = NULL;
    rmalab_win_opts o = {.size = 64, .disp_unit = 1};
    EXPECT_OK(rmalab_win_allocate(&o, &w, NULL));
    if (!w)
        goto out;
    memset(&heard, 0, sizeof heard);
    rmalab_set_progress_hook(hear, NULL);
    EXPECT_OK(rmalab_win_fence(w, 0));
    expect_heard("fence", 0, 0, 0);
    EXPECT_OK(rmalab_win_fence(w, RMALAB_MODE_NOSUCCEED));
    memset(&heard, 0, sizeof heard);
    if (rank == 0) {
        EXPECT_OK(rmalab_win_lock(w, last, false, 0));
        expect_heard("lock", 1, 1, last);
        EXPECT_OK(rmalab_win_flush(w, last));
        expect_heard("flush", 1, 1, last);
        EXPECT_OK(rmalab_win_unlock(w, last));
        expect_heard("unlock", 1, 1, last);
        EXPECT_OK(rmalab_win_lock_all(w, 0));
        expect_heard("lock_all", 1, nranks, 0);
        EXPECT_OK(rmalab_win_flush_all(w));
        expect_heard("flush_all", 1, nranks, 0);
        EXPECT_OK(rmalab_win_unlock_all(w));
        expect_heard("unlock_all", 1, nranks, 0);
    }
    pscw_heard(last);
    rmalab_set_progress_hook(NULL, NULL);
    if (rank == 0) {
        EXPECT_OK(rmalab_win_lock(w, last, false, 0));
        EXPECT_OK(rmalab_win_unlock(w, last));
        expect_heard("a lock without a hook", 0, 0, 0);
    }
    rmalab_wait_set_mode(RMALAB_WAIT_SLEEP);
    EXPECT_OK(rmalab_barrier(MPI_COMM_WORLD));
    expect_hurried_faster(w);
    rmalab_wait_set_mode(saved);
    EXPECT_OK(rmalab_win_free(&w));
out:
    tu_end();
}
END_TEST

/* block.c's flag: some thread reads the records, so calls read the clock. */
extern atomic_bool rmalab__block_timed;

/* Two looks from a second thread, 150 and 250 ms into a barrier that the
 * last rank joins 600 ms late. */
typedef struct {
    int blocked[2];
    double seconds[2];
} looks;

static void *look_twice(void *arg)
{
    looks *l = arg;
    for (int i = 0; i < 2; i++) {
        usleep(i ? 100000 : 150000);
        rmalab_blocked b;
        l->blocked[i] = rmalab_blocked_get(&b);
        l->seconds[i] = b.seconds;
    }
    return NULL;
}

static looks barrier_looked_at(void)
{
    looks l = {{0, 0}, {0, 0}};
    pthread_t lt;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == nranks - 1)
        usleep(600000);
    else
        ck_assert_int_eq(pthread_create(&lt, NULL, look_twice, &l), 0);
    EXPECT_OK(rmalab_barrier(MPI_COMM_WORLD));
    if (rank != nranks - 1) {
        pthread_join(lt, NULL);
        EXPECT(l.blocked[0] && l.blocked[1], "not blocked when looked at: %d %d", l.blocked[0],
               l.blocked[1]);
    }
    return l;
}

/* Until a thread reads or says it will (rmalab_blocked_watch), calls skip
 * the clock: a call blocked then counts from the first look, and from
 * then on the same; after rmalab_blocked_watch, from its start. */
START_TEST(test_blocked_seconds)
{
    tu_begin();
    rank = tu_rank();
    nranks = tu_size();
    atomic_store(&rmalab__block_timed, false); /* as in a process nobody read yet */
    looks l = barrier_looked_at();
    if (rank != nranks - 1) {
        EXPECT(l.seconds[0] < 0.1, "unwatched: %f s at the first look", l.seconds[0]);
        EXPECT(l.seconds[1] - l.seconds[0] > 0.05, "unwatched: %f s, then %f s", l.seconds[0],
               l.seconds[1]);
    }
    atomic_store(&rmalab__block_timed, false);
    rmalab_blocked_watch();
    l = barrier_looked_at();
    if (rank != nranks - 1)
        EXPECT(l.seconds[0] >= 0.12 && l.seconds[1] - l.seconds[0] > 0.05,
               "watched: %f s at the first look, then %f s", l.seconds[0], l.seconds[1]);
    tu_end();
}
END_TEST

Suite *block_suite(void)
{
    Suite *s = suite_create("block");
    TCase *tc = tcase_create("blocked");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_blocked_visible, RMALAB_WAIT_SPIN, RMALAB_WAIT_SLEEP + 1);
    tcase_add_test(tc, test_blocked_threads);
    tcase_add_test(tc, test_last_failure);
    tcase_add_test(tc, test_progress_hook);
    tcase_add_test(tc, test_blocked_seconds);
    suite_add_tcase(s, tc);
    return s;
}
