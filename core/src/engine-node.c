/* A communicator's node, for the rma engine (engine-rma.c): the first rma
 * window over a communicator finds it (a split, an allreduce) and caches
 * it on the communicator, as an attribute freed with it. Creations over a
 * communicator are ordered alike on every rank, so all ranks find it
 * cached, or not, together.
 *
 * The node's memory. When every rank is on one node, the memory and
 * counters of the engine's win_allocate windows come from node-shared
 * chunks (MPI_Win_allocate_shared over the node), made once and cut into
 * slices, so that a creation makes an MPI_Win_create over its slice and
 * no shared memory of its own: MPICH 4.0.2 makes, maps and unlinks a
 * file for every MPI_Win_allocate and MPI_Win_allocate_shared, and its
 * get on a window from MPI_Win_allocate_shared goes through active
 * messages the target must answer, where on one from MPI_Win_create it is
 * UCX's get (issue 41). Every rank places a window in the same chunk:
 * creation takes the largest of every rank's room (engine_node_room), so
 * a chunk has the same windows on every rank, and the window free that
 * leaves one that the node no longer holds empty is the same on all,
 * which frees it there, collectively. The chunk the node holds goes with
 * the communicator (or with the last window in it, after). */
#include "alloc.h"
#include "error-private.h"
#include "engine-node.h"

#include <string.h>

/* A rank's part of a new chunk, at least; a window whose memory is over a
 * quarter of it gets a chunk of its own, freed with it. */
#define CHUNK ((MPI_Aint)1 << 20)
#define OWN_FROM (CHUNK / 4)
#define SLICE_ALIGN 64

struct extent {
    MPI_Aint off, len;
};

struct rmalab__engine_node_chunk {
    MPI_Win win;            /* MPI_Win_allocate_shared over the node */
    unsigned char **peer;   /* per rank of the communicator: its part, NULL off node */
    struct extent *free;    /* this rank's part's free extents, by offset */
    int nfree, capfree;
    int users;              /* slices given and not released */
    bool held;              /* the node's chunk at hand */
};

static int node_keyval = MPI_KEYVAL_INVALID;

/* Local: k's bookkeeping (k may be NULL or part-made). */
static void chunk_forget(rmalab__engine_node_chunk *k)
{
    if (k)
        rmalab__mem_free(k->peer), rmalab__mem_free(k->free);
    rmalab__mem_free(k);
}

/* Collective over the node, on every rank at the same point. */
static void chunk_free(rmalab__engine_node_chunk *k)
{
    MPI_Win_free(&k->win);
    chunk_forget(k);
}

/* The chunk the node held is held no longer: freed now if no window is in
 * it, else by the release of the last (the same on every rank). */
static void chunk_drop(rmalab__engine_node_chunk *k)
{
    if (!k)
        return;
    k->held = false;
    if (!k->users)
        chunk_free(k);
}

static int node_delete(MPI_Comm c, int keyval, void *value, void *extra)
{
    rmalab__engine_node *n = value;
    (void)c, (void)keyval, (void)extra;
    chunk_drop(n->chunk);
    if (n->size) /* split */
        MPI_Comm_free(&n->comm);
    rmalab__mem_free(n);
    return MPI_SUCCESS;
}

static MPI_Aint slice_bytes(MPI_Aint bytes)
{
    return (bytes + SLICE_ALIGN - 1) / SLICE_ALIGN * SLICE_ALIGN;
}

/* The first free extent of k with `bytes`, or -1. */
static int first_fit(const rmalab__engine_node_chunk *k, MPI_Aint bytes)
{
    for (int i = 0; k && i < k->nfree; i++)
        if (k->free[i].len >= bytes)
            return i;
    return -1;
}

int rmalab__engine_node_room(const rmalab__engine_node *n, MPI_Aint bytes)
{
    bytes = slice_bytes(bytes);
    if (bytes > OWN_FROM)
        return RMALAB__NODE_OWN;
    return n && first_fit(n->chunk, bytes) >= 0 ? RMALAB__NODE_FITS : RMALAB__NODE_GROW;
}

/* Local: a slice of k, which has room (first_fit). */
static void cut(rmalab__engine_node_chunk *k, MPI_Aint bytes, rmalab__engine_node_slice *s)
{
    int i = first_fit(k, bytes);
    struct extent *x = &k->free[i];
    *s = (rmalab__engine_node_slice){k, x->off, bytes};
    x->off += bytes, x->len -= bytes;
    if (!x->len)
        memmove(x, x + 1, (size_t)(--k->nfree - i) * sizeof *x);
    k->users++;
}

int rmalab__engine_node_segment(const rmalab__engine_node *n, MPI_Aint bytes, MPI_Win *win,
                                void *mine)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    int e = MPI_Win_allocate_shared(bytes, 1, info, n->comm, mine, win);
    MPI_Info_free(&info);
    if (e == MPI_SUCCESS)
        return RMALAB_OK;
    *win = MPI_WIN_NULL;
    return rmalab__err_mpi(e, "allocating node-shared memory");
}

unsigned char *rmalab__engine_node_part(MPI_Win win, int i, MPI_Aint *size)
{
    unsigned char *p = NULL;
    int du;
    *size = 0;
    MPI_Win_shared_query(win, i, size, &du, &p);
    return p;
}

/* Local: a chunk's bookkeeping, for a part of `part` bytes; NULL when out
 * of memory. */
static rmalab__engine_node_chunk *chunk_alloc(const rmalab__engine_node *n, MPI_Aint part)
{
    rmalab__engine_node_chunk *k = rmalab__mem_calloc(1, sizeof *k);
    if (k) {
        k->peer = rmalab__mem_calloc((size_t)n->parent_size, sizeof *k->peer);
        k->free = rmalab__mem_calloc(1, sizeof *k->free);
    }
    if (k && k->peer && k->free) {
        k->free[0] = (struct extent){0, part};
        k->nfree = k->capfree = 1;
        return k;
    }
    chunk_forget(k);
    return NULL;
}

/* Collective over the node: k's memory, `part` bytes here. */
static int chunk_map(const rmalab__engine_node *n, rmalab__engine_node_chunk *k, MPI_Aint part)
{
    unsigned char *mine = NULL;
    MPI_Aint sz;
    int rc = rmalab__engine_node_segment(n, part, &k->win, &mine);
    for (int i = 0; !rc && i < n->size; i++)
        k->peer[n->ranks[i]] = rmalab__engine_node_part(k->win, i, &sz);
    return rc;
}

int rmalab__engine_node_place(rmalab__engine_node *n, int how, MPI_Aint bytes, MPI_Comm comm,
                              rmalab__engine_node_slice *s)
{
    rmalab__engine_node_chunk *k = NULL;
    bytes = slice_bytes(bytes);
    if (how == RMALAB__NODE_FITS) {
        cut(n->chunk, bytes, s);
        return RMALAB_OK;
    }
    MPI_Aint part = how == RMALAB__NODE_OWN || bytes > CHUNK ? bytes : CHUNK;
    int rc = (k = chunk_alloc(n, part)) ? RMALAB_OK : rmalab__err_fail(RMALAB_ERR_NO_MEM,
              "out of memory for node-shared memory");
    /* Two agreements, as memory for the bookkeeping must not run out on a
     * rank once the chunk is made; a chunk MPI made on some ranks alone
     * stays with them. Only when a window outgrows the chunk at hand. */
    rc = rmalab__err_agree(comm, rc, "allocating node-shared memory");
    if (!rc)
        rc = rmalab__err_agree(comm, chunk_map(n, k, part), "allocating node-shared memory");
    if (rc) {
        chunk_forget(k);
        return rc;
    }
    if (how == RMALAB__NODE_GROW) {
        chunk_drop(n->chunk);
        n->chunk = k;
        k->held = true;
    }
    cut(k, bytes, s);
    return RMALAB_OK;
}

unsigned char *rmalab__engine_node_at(const rmalab__engine_node_slice *s, int rank, MPI_Aint off)
{
    return s->chunk->peer[rank] ? s->chunk->peer[rank] + off : NULL;
}

/* Local: the extent [off, off + len) is free again, merged with its
 * neighbours. Without room for one more extent it stays lost. */
static void give_back(rmalab__engine_node_chunk *k, MPI_Aint off, MPI_Aint len)
{
    int i = 0;
    while (i < k->nfree && k->free[i].off < off)
        i++;
    bool before = i > 0 && k->free[i - 1].off + k->free[i - 1].len == off;
    bool after = i < k->nfree && off + len == k->free[i].off;
    if (before && after) {
        k->free[i - 1].len += len + k->free[i].len;
        memmove(&k->free[i], &k->free[i + 1], (size_t)(--k->nfree - i) * sizeof *k->free);
    } else if (before) {
        k->free[i - 1].len += len;
    } else if (after) {
        k->free[i].off = off, k->free[i].len += len;
    } else {
        if (k->nfree == k->capfree) {
            size_t cap = 2 * (size_t)k->capfree;
            struct extent *more = rmalab__mem_realloc(k->free, cap * sizeof *more);
            if (!more)
                return;
            k->free = more, k->capfree = (int)cap;
        }
        memmove(&k->free[i + 1], &k->free[i], (size_t)(k->nfree++ - i) * sizeof *k->free);
        k->free[i] = (struct extent){off, len};
    }
}

void rmalab__engine_node_release(rmalab__engine_node_slice *s)
{
    rmalab__engine_node_chunk *k = s->chunk;
    if (!k)
        return;
    s->chunk = NULL;
    give_back(k, s->off, s->bytes);
    if (!--k->users && !k->held)
        chunk_free(k);
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
    n->parent_size = size;
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
