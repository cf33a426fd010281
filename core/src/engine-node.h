/* Private to the core: engine-node.c's calls, a communicator's node as the
 * rma engine (engine-rma.c) finds it and caches it. Never installed. */
#ifndef RMALAB_ENGINE_NODE_H
#define RMALAB_ENGINE_NODE_H

#include "private.h"

/* Node-shared memory that the windows over a communicator share, made
 * in chunks (engine-node.c). */
typedef struct rmalab__engine_node_chunk rmalab__engine_node_chunk;

/* Where one window's memory is in a chunk: this rank's part from `off`,
 * `bytes` long (none: chunk NULL). */
typedef struct rmalab__engine_node_slice {
    rmalab__engine_node_chunk *chunk;
    MPI_Aint off, bytes;
} rmalab__engine_node_slice;

/* A communicator's node, shared by its rma windows: the ranks of this node
 * as ranks of it, whether any rank has a peer off its node, and (every
 * rank on one node) the chunk that windows take their memory from. */
typedef struct rmalab__engine_node {
    MPI_Comm comm; /* MPI_Comm_split_type SHARED */
    int size, any_remote, parent_size;
    rmalab__engine_node_chunk *chunk;
    int ranks[];   /* [i]: node rank i's rank; then room for P more */
} rmalab__engine_node;

/* Collective over the node: node-shared memory of `bytes` on this rank,
 * each rank's part apart (MPI_Win_allocate_shared), its start in *mine. */
int rmalab__engine_node_segment(const rmalab__engine_node *n, MPI_Aint bytes, MPI_Win *win,
                                void *mine);
/* Rank i's part of such memory (or of any shared window): its start, and
 * its bytes in *size; NULL if MPI answers none. */
unsigned char *rmalab__engine_node_part(MPI_Win win, int i, MPI_Aint *size);

/* What a window's place in the node's memory asks (creation takes the
 * largest over the ranks): the chunk at hand has room, a new chunk, or a
 * chunk of the window's own, as it is large. */
enum { RMALAB__NODE_FITS, RMALAB__NODE_GROW, RMALAB__NODE_OWN };
/* Local: which of those `bytes` of this rank need (n NULL: no node yet). */
int rmalab__engine_node_room(const rmalab__engine_node *n, MPI_Aint bytes);
/* `bytes` of node-shared memory for this rank, as `how` (the largest of
 * every rank's room) says: local, and never failing, for FITS; else
 * collective over the node (every rank the same how), a new chunk made
 * with MPI_Win_allocate_shared, and ranks agree on its failure over
 * `comm`, the window's. */
int rmalab__engine_node_place(rmalab__engine_node *n, int how, MPI_Aint bytes, MPI_Comm comm,
                              rmalab__engine_node_slice *s);
/* Rank `rank`'s memory at offset `off` of the slice's chunk. */
unsigned char *rmalab__engine_node_at(const rmalab__engine_node_slice *s, int rank, MPI_Aint off);
/* Give the slice back. When that leaves a chunk that is not the node's
 * own with no window, the chunk is freed: collective over the node, and
 * it happens on every rank in the same window free, as every rank placed
 * the window in the same chunk. */
void rmalab__engine_node_release(rmalab__engine_node_slice *s);

/* The node cached on `parent`, else NULL (also when none can be). */
rmalab__engine_node *rmalab__engine_node_cached(MPI_Comm parent);
/* Local: room for the node of a communicator of `size` ranks, or NULL. */
rmalab__engine_node *rmalab__engine_node_new(int size);
/* Collective over `comm` (of `size` ranks): its node, into n. */
int rmalab__engine_node_find(MPI_Comm comm, int size, rmalab__engine_node *n);
/* Cache n on `parent` if `keep` (it is freed with the communicator), else
 * free it. */
void rmalab__engine_node_keep(MPI_Comm parent, rmalab__engine_node *n, bool keep);

#endif
