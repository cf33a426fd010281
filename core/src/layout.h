/* layout.c: what every rank's window is (struct rmalab__layout in
 * win-private.h).
 * Private to the core, never installed. */
#ifndef RMALAB_LAYOUT_H
#define RMALAB_LAYOUT_H

#include "win-private.h"

/* Allocate the per-rank arrays of the layout and of the epoch state
 * (sync.c's, sized by the group). Local: creation agrees on failures. */
int rmalab__layout_alloc(rmalab_win *w);
/* Collective: every rank's size, disp_unit, world rank and no_locks, in
 * the allgather that carries creation's agreement so far: `rc`, this
 * rank's verdict (a rank that failed takes part all the same), and *flag,
 * which comes back set if any rank set it. Returns the verdict: rc, else
 * "another rank failed" if one did; the layout is kept only when none
 * did. */
int rmalab__layout_exchange(rmalab_win *w, bool no_locks, int rc, bool *flag);
/* Collective: every rank learns every rank's no_locks promise. */
int rmalab__layout_set_no_locks(rmalab_win *w, bool mine);
/* Is [disp, disp + count) of `type` inside target's window (or attached
 * memory, for dynamic windows)? `what` names the call. */
int rmalab__layout_check_range(rmalab_win *w, const char *what, int target, MPI_Aint disp,
                               rmalab_type type, int count);
/* Is target's memory in w this process's own: the target is this rank, or
 * shares its node in a shared window? Only then can the caller's memory
 * overlap it (rmalab__layout_overlap). */
bool rmalab__layout_own(const rmalab_win *w, int target);
/* An operation's footprint in target's memory (at disp: `span` elements of
 * `type`, or the blocks of vec) when that memory is this process's own (the
 * target is this rank, or shares its node in a shared window): ERR_ARG if
 * the caller's n bytes at mem (its `role`: "origin", "result"...) overlap
 * it, which MPI forbids and MPICH 4.0.2 answers by aborting the job. */
int rmalab__layout_overlap(rmalab_win *w, const char *what, int target, MPI_Aint disp,
                           rmalab_type type, int span, const rmalab_vector *vec,
                           const void *mem, size_t n, const char *role);
/* The same for spans (rmalab_typed_op): the target's nt spans from disp,
 * the caller's nm spans from mem, each list ascending. */
int rmalab__layout_overlap_spans(rmalab_win *w, const char *what, int target, MPI_Aint disp,
                                 const rmalab_span *t, int nt, const void *mem,
                                 const rmalab_span *m, int nm, const char *role);
/* This rank's memory at disp, n bytes (win:read and win:write). */
int rmalab__layout_local(rmalab_win *w, const char *what, MPI_Aint disp, MPI_Aint n,
                         unsigned char **p);
/* Dynamic windows: the region bookkeeping; created in creation (collective),
 * released with the window. */
int rmalab__layout_open_meta(rmalab_win *w);
void rmalab__layout_free(rmalab_win *w);

#endif
