/* Who waits for whom, from the ranks' states (waits.c, pure): the ranks a
 * blocked call waits for, and the call each must make. The `:status`
 * lines (status.c) and the deadlock hints (hints.c) read it. A rank
 * waits on a call that only other ranks can end: an epoch call, a
 * message, or a collective (fence, free, barrier, window creation) that
 * some members have not reached, have failed, or cannot reach. A
 * passive-target call is none, MPI's progress ends it, except a lock that
 * waits for other ranks' locks on its target. */
#ifndef RMALAB_REPL_WAITS_H
#define RMALAB_REPL_WAITS_H

#include <stddef.h>

#include "../wire/state.h"
#include "cmdline.h"

/* Is rank r blocked in a call (its state known)? */
int waits_is_blocked(const rstate *r);
/* The window r is blocked on, or NULL. */
const rstate_win *waits_blocked_win(const rstate *r);
/* The ranks that rank `me`, blocked on window w in an epoch call or a
 * lock, waits for (into *miss), and the call each must make (into call:
 * "complete()", "unlock(2)"); their count, 0 when unknown. */
int waits_partners(const rstate *all, int n, int me, const rstate_win *w, rankset *miss,
                   char *call, size_t size);
/* The members rank r's collective waits for (into *miss); their count. */
int waits_collective_missing(const rstate *all, int n, int r, rankset *miss);
/* A message call's peer (-1: none, or not a message) and the peer's call. */
int waits_message_peer(const rstate *r, int n, const char **call);
/* The same, -1 also when the peer is blocked in the matching call already
 * (the message is on its way). */
int waits_message_missing(const rstate *all, int n, int r, const char **call);
/* Every kind of wait of rank r: a collective's members not there yet, an
 * epoch call's partners, a message's peer; the call they must make. */
int waits_on(const rstate *all, int n, int r, rankset *to, char *call, size_t size);
/* Is some rank blocked in a call that will end by itself: a collective
 * that every member has reached (a slow window creation, say), or a
 * passive-target call (lock, unlock, a flush...), which MPI's progress at
 * its targets ends, unless it is a lock that other ranks' locks hold back? */
int rstate_progressing(const rstate *all, int n);

#endif
