/* Private to the core: engine-node.c's calls, a communicator's node as the
 * rma engine (engine-rma.c) finds it and caches it. Never installed. */
#ifndef RMALAB_ENGINE_NODE_H
#define RMALAB_ENGINE_NODE_H

#include "private.h"

/* A communicator's node, shared by its rma windows: the ranks of this node
 * as ranks of it, and whether any rank has a peer off its node. */
typedef struct rmalab__engine_node {
    MPI_Comm comm; /* MPI_Comm_split_type SHARED */
    int size, any_remote;
    int ranks[];   /* [i]: node rank i's rank; then room for P more */
} rmalab__engine_node;

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
