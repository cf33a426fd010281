/* A thread of an OpenMP team that begins late (cprog/threads.c): under
 * load the forking thread can issue and complete an operation before
 * another thread of its team has begun; that thread then knows only what
 * the fork gave it, so the operation's buffer is not free for it yet
 * (RMARaceBench's hybrid/006 was missed in about 1 run of 10 so). The
 * schedule is forced here on real threads, under mpiexec with real MPI,
 * calling threads.c as omp.c's wrappers do: the second thread waits until
 * the first has finished its step. Exit status 0 when every check holds. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#include "threads.h"

static run_sync fork_, join_;
static run_point done; /* the first thread's step after the fork: an unlock, say */
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int stage;
static int fails;

static void expect(const char *what, bool ok)
{
    if (!ok) {
        printf("FAIL: %s\n", what);
        fails++;
    }
}

static void wait_stage(int s)
{
    pthread_mutex_lock(&m);
    while (stage < s)
        pthread_cond_wait(&c, &m);
    pthread_mutex_unlock(&m);
}

static void set_stage(int s)
{
    pthread_mutex_lock(&m);
    stage = s;
    pthread_cond_broadcast(&c);
    pthread_mutex_unlock(&m);
}

static void *late(void *arg)
{
    (void)arg;
    wait_stage(1);
    run_threads_begin(&fork_, 2);
    expect("the late thread knows the fork only, not the step after it",
           !run_threads_knows(done));
    run_threads_end(&join_);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t;
    run_sync step = {{0}, NULL};
    MPI_Init(&argc, &argv);
    run_threads_mpi(); /* the main thread, seen at its MPI call */
    run_threads_teams(1);
    run_threads_release(&fork_);
    pthread_create(&t, NULL, late, NULL);
    run_threads_begin(&fork_, 2);
    run_threads_release(&step); /* its step moves on */
    done = run_threads_now();
    expect("a running team counts as more than one thread", run_threads_many());
    expect("a step after the fork is not known to all while a thread of the team has not begun",
           !run_threads_all_know(done));
    set_stage(1);
    run_threads_end(&join_);
    pthread_join(t, NULL);
    expect("a step after the fork is not known to all while its team runs",
           !run_threads_all_know(done));
    run_threads_acquire(&join_);
    run_threads_teams(-1);
    expect("once the team has ended, its idle threads count as knowing",
           run_threads_all_know(done));
    run_threads_sync_free(&fork_);
    run_threads_sync_free(&join_);
    run_threads_sync_free(&step);
    MPI_Finalize();
    if (!fails)
        printf("ok\n");
    return fails != 0;
}
