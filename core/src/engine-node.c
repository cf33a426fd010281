/* A communicator's node, for the rma engine (engine-rma.c): the first rma
 * window over a communicator finds it (a split, an allreduce) and caches
 * it on the communicator, as an attribute freed with it. Creations over a
 * communicator are ordered alike on every rank, so all ranks find it
 * cached, or not, together. */
#include "alloc.h"
#include "error-private.h"
#include "engine-node.h"

static int node_keyval = MPI_KEYVAL_INVALID;

static int node_delete(MPI_Comm c, int keyval, void *value, void *extra)
{
    rmalab__engine_node *n = value;
    (void)c, (void)keyval, (void)extra;
    if (n->size) /* split */
        MPI_Comm_free(&n->comm);
    rmalab__mem_free(n);
    return MPI_SUCCESS;
}

rmalab__engine_node *rmalab__engine_node_cached(MPI_Comm parent)
{
    rmalab__engine_node *n = NULL;
    int flag = 0;
    if (node_keyval == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, node_delete, &node_keyval, NULL) !=
            MPI_SUCCESS)
        return NULL;
    MPI_Comm_get_attr(parent, node_keyval, &n, &flag);
    return flag ? n : NULL;
}

rmalab__engine_node *rmalab__engine_node_new(int size)
{
    return rmalab__mem_calloc(1, sizeof(rmalab__engine_node) + 2 * (size_t)size * sizeof(int));
}

int rmalab__engine_node_find(MPI_Comm comm, int size, rmalab__engine_node *n)
{
    int e = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &n->comm);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "MPI_Comm_split_type");
    MPI_Comm_size(n->comm, &n->size);
    int *node_ranks = n->ranks + size, remote = size - n->size;
    for (int i = 0; i < n->size; i++)
        node_ranks[i] = i;
    MPI_Group node_group, group;
    MPI_Comm_group(n->comm, &node_group);
    MPI_Comm_group(comm, &group);
    MPI_Group_translate_ranks(node_group, n->size, node_ranks, group, n->ranks);
    MPI_Group_free(&node_group);
    MPI_Group_free(&group);
    e = MPI_Allreduce(&remote, &n->any_remote, 1, MPI_INT, MPI_MAX, comm);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__err_mpi(e, "MPI_Allreduce");
}

void rmalab__engine_node_keep(MPI_Comm parent, rmalab__engine_node *n, bool keep)
{
    if (!keep || node_keyval == MPI_KEYVAL_INVALID ||
        MPI_Comm_set_attr(parent, node_keyval, n) != MPI_SUCCESS)
        node_delete(MPI_COMM_NULL, 0, n, NULL);
}
