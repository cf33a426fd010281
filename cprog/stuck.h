/* stuck.c: a rank blocked in one call for RMALAB_STUCK seconds (default 10;
 * 0 or less: never) says so while it waits:
 *   FILE:LINE: note: MPI_Win_complete: rank 1 blocked 10 s; window ...
 * with what the call waits for, as the core describes the window (or the
 * ranks a barrier waits for). A thread looks every 250 ms; it calls no
 * MPI. When RMALAB_STATE_DIR names a folder, the thread also keeps the
 * file DIR/RANK (RANK: the world rank) holding the rank's state as it
 * looks, for a watcher of the whole job (rmalab test, rmalab run: they
 * name cross-rank deadlocks from all of them): STATE text (docs/repl.md),
 * with at=CALL FILE:LINE while blocked, and state=idle after
 * MPI_Finalize. The watcher then says what the rank is stuck in (it knows
 * the other ranks too); the rank says it itself only when it cannot write
 * the file (a folder on another host). */
#ifndef RMALAB_CPROG_STUCK_H
#define RMALAB_CPROG_STUCK_H

/* The call the program is in now (on the thread that drives its windows),
 * for the note's line: two stores, made by every wrapper that may block. */
void run_stuck_at(const void *pc, const char *call);

/* MPI_Init: start looking (rank: this process's world rank). */
void run_stuck_start(int rank);
/* MPI_Finalize: stop. */
void run_stuck_stop(void);

#endif
