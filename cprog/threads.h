/* threads.c: the order among a process's threads, as OpenMP's constructs
 * make it (omp.c calls these from its wrappers of libgomp), so that
 * the checker judges a thread's loads and stores by what that thread knows,
 * not by what the process knows.
 *
 * Each thread has a vector clock over the process's threads (slot i: what
 * it knows of thread i's steps) and a view of the race checker's world
 * clock (what it knows of the other ranks). A release (the end of a
 * critical section, the arrival at a barrier, the creation of a task, the
 * fork of a team) joins both into a sync object and ticks the thread's own
 * slot; an acquire (the start of a critical section, the way out of a
 * barrier, the start of a task, a taskwait, the join of a team) joins the
 * object into the thread. A thread's view of the world clock catches up
 * with the process's after each MPI call it makes (at its next access or
 * OpenMP construct: what other threads acquired in between is taken too,
 * which can hide a race, never make one).
 *
 * A thread first seen outside a team's fork (the main thread, a thread of
 * the program's own) knows everything so far: no order is missing for it.
 * Up to RUN_THREADS - RUN_SECTIONS threads are told apart; beyond, they
 * share the last of their slots.
 *
 * Each section of a sections construct runs as a thread of its own, on one
 * of the last RUN_SECTIONS slots: it starts from what its thread knew when
 * it met the construct, so two sections that one thread runs in turn stay
 * unordered, as OpenMP has them; the thread knows them all when it leaves
 * the construct. A section slot is free again after the thread's next
 * barrier or the end of its part of the team (every thread knows its steps
 * then). A section that finds no free slot runs as its thread, which can
 * hide a race, never make one. */
#ifndef RMALAB_CPROG_THREADS_H
#define RMALAB_CPROG_THREADS_H

#include <stdbool.h>
#include <stdint.h>

#define RUN_THREADS 64
#define RUN_SECTIONS 16

/* A sync object: what was released into it. Zero-filled is empty. */
typedef struct {
    int64_t t[RUN_THREADS];
    int64_t *k; /* the world view, W int64, or NULL */
    /* A team's fork: its threads that have not begun yet (run_threads_begin),
     * once the first has begun. */
    int waiting;
    bool opened;
} run_sync;

/* A point of a thread: its slot, and its own entry there. */
typedef struct {
    int slot;
    int64_t step;
} run_point;

/* MPI has started (collective over MPI_COMM_WORLD; `checked`: the race
 * checker is on): when some rank's thread level lets its threads call MPI
 * (serialized or multiple), every rank's clock gets one entry per slot
 * (rmalab_clock_threads), and the core calls of a thread in a part of an
 * OpenMP team carry its own view (rmalab_clock_thread): a release by one
 * thread then orders only what that thread knows, and the view catches
 * up with the process's clock only through the thread's own calls. A
 * thread outside any team uses the process's clock on slot 0, as with one
 * entry per rank: the order among threads of the program's own is not
 * seen. */
void run_threads_start(bool checked);
/* Whether run_threads_start gave each thread its own clock entries. */
bool run_threads_own_clocks(void);
/* The world view's entries once MPI_Init has run (the world's size, times
 * the slots with per-thread entries); 0 before. */
int run_threads_world(void);
/* More than one thread has been seen, or a team runs (its other threads
 * may not have begun yet): else everything below is moot. */
bool run_threads_many(void);
/* The calling thread makes an MPI call (order.c). */
void run_threads_mpi(void);
/* The calling thread, where it stands now. */
run_point run_threads_now(void);
/* Does the calling thread know p (p happens before what it does next)? */
bool run_threads_knows(run_point p);
/* Does every thread seen so far know p (while no team runs, a team thread
 * between its parts counts as knowing: run_threads_end), and every thread
 * of a running team that has not begun yet (it will know what its fork
 * gave it, no more)? */
bool run_threads_all_know(run_point p);
/* The calling thread's view of the world clock into buf (the snapshot's
 * form, rmalab_clock_wire_size bytes); false when it has none, or when
 * only one thread was ever seen (the process's clock is its own). */
bool run_threads_view(int64_t *buf);

/* Release into o; acquire from o. */
void run_threads_release(run_sync *o);
void run_threads_acquire(run_sync *o);
/* A thread of a team of `size` threads starts (first: never seen before;
 * it then knows only what the fork gave it), or ends its part, releasing
 * into `join`. From the first thread's begin until the last's, the fork
 * stands for the threads that have not begun (run_threads_all_know): under
 * load a thread of the team can start after the forking thread has issued
 * and completed an operation that it then races. While
 * no team runs (run_threads_teams: +1 at a fork, -1 at its join), a thread
 * whose part ended does not hold back run_threads_all_know until its next
 * part, which begins with a fork's acquire: an idle pool thread would
 * otherwise keep every operation of the serial code after a team watched
 * for ever, and each access would scan them all. While a team runs, one
 * of its threads may not have begun yet, so idle threads count as they
 * are. A team forked by a thread that does not know a point can hide a
 * race there, never make one. */
void run_threads_begin(run_sync *fork, int size);
void run_threads_end(run_sync *join);
void run_threads_teams(int delta);
/* The calling thread was handed a section (`another`), or none is left
 * for it (the construct is over for it): GOMP_sections_start and _next. */
void run_threads_section(bool another);
/* After a team barrier, or at the end of the thread's part: the section
 * slots it took are free again. */
void run_threads_settled(void);
/* o emptied (its world view freed). */
void run_threads_sync_free(run_sync *o);

#endif
