/* rmalab_barrier, which carries the race checker's clocks across a
 * communicator; the clock as the other collectives and messages carry it
 * (coll.c, xchg.c, p2p.c); and the races that the processes of a
 * communicator found (rmalab/races.h). */
#include "races-private.h"

#include <rmalab/coll.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Clocks on the wire, for collectives and messages (coll.c, xchg.c, p2p.c) */

size_t rmalab__clock_wire(void)
{
    static int W;
    if (!W)
        MPI_Comm_size(MPI_COMM_WORLD, &W);
    return (size_t)W * sizeof(int64_t);
}

bool rmalab__clock_out(int64_t *S)
{
    if (!rmalab__clock_exists())
        return false;
    rmalab__clock_release(S);
    return true;
}

int rmalab__clock_in(const void *S)
{
    int rc = rmalab__clock_ready();
    if (rc)
        return rc;
    int64_t *V = rmalab__malloc(rmalab__clock_wire());
    if (!V)
        return rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    memcpy(V, S, rmalab__clock_wire()); /* S may be unaligned */
    rmalab__clock_acquire(V);
    rmalab__free(V);
    return RMALAB_OK;
}

int rmalab__clock_reduce(MPI_Comm mc, int rank, rmalab_reduce_kind kind, int root,
                         const char *what)
{
    int rc = rmalab__clock_ready(), W = (int)(rmalab__clock_wire() / 8), e;
    int64_t *S = rc ? NULL : rmalab__malloc(2 * rmalab__clock_wire());
    if (!rc && !S)
        rc = rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory in the race checker");
    if ((rc = rmalab__agree(mc, rc, "carrying the race checker's clocks"))) {
        rmalab__free(S);
        return rc;
    }
    rmalab__clock_release(S);
    bool in = true;
    if (kind == RMALAB_REDUCE_ALL)
        e = MPI_Allreduce(MPI_IN_PLACE, S, W, MPI_INT64_T, MPI_MAX, mc);
    else if (kind == RMALAB_REDUCE_ROOT)
        e = MPI_Reduce((in = rank == root) ? MPI_IN_PLACE : S, S, W, MPI_INT64_T,
                       MPI_MAX, root, mc);
    else if (kind == RMALAB_REDUCE_SCAN)
        e = MPI_Scan(MPI_IN_PLACE, S, W, MPI_INT64_T, MPI_MAX, mc);
    else
        e = MPI_Exscan(S, S + W, W, MPI_INT64_T, MPI_MAX, mc), in = rank > 0;
    if (e == MPI_SUCCESS && in)
        rmalab__clock_acquire(kind == RMALAB_REDUCE_EXSCAN ? S + W : S);
    rmalab__free(S);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__mpi_fail(e, what);
}

static int barrier_call(MPI_Comm comm)
{
    rmalab__races_jitter_now();
    int active = rmalab__clock_exists(), any = 0;
    int e = MPI_Allreduce(&active, &any, 1, MPI_INT, MPI_MAX, comm);
    if (e != MPI_SUCCESS)
        return rmalab__mpi_fail(e, "MPI_Allreduce (barrier)");
    return any ? rmalab__clock_reduce(comm, 0, RMALAB_REDUCE_ALL, 0, "MPI_Allreduce (barrier)")
               : RMALAB_OK;
}

int rmalab_barrier(MPI_Comm comm)
{
    rmalab__block b = {.call = "barrier", .collective = true};
    rmalab__call_begin();
    if (comm == MPI_COMM_NULL)
        return rmalab__call_end("barrier", "comm", UINT64_MAX,
                                rmalab__fail(RMALAB_ERR_COMM, "barrier: the communicator "
                                                              "is MPI_COMM_NULL"));
    rmalab__block_comm(&b, comm);
    int rc = rmalab__block_enter(&b);
    if (!rc) {
        rc = barrier_call(comm);
        rmalab__block_leave(&b);
    }
    return rmalab__call_end("barrier", "comm", b.id, rc);
}

int rmalab_races_total(MPI_Comm comm, uint64_t *total)
{
    const rmalab_race *l;
    int n;
    uint64_t found;
    rmalab_races(&l, &n, &found);
    int e = MPI_Allreduce(&found, total, 1, MPI_UINT64_T, MPI_SUM, comm);
    return e == MPI_SUCCESS ? RMALAB_OK : rmalab__mpi_fail(e, "MPI_Allreduce (races total)");
}

/* This rank's reports, one after the other. */
static char *own_text(void)
{
    const rmalab_race *l;
    int n;
    uint64_t found;
    rmalab_races(&l, &n, &found);
    size_t size = 1;
    for (int i = 0; i < n; i++)
        size += strlen(l[i].text) + 2;
    size += 128;
    char *s = rmalab__malloc(size), *p = s;
    if (!s)
        return NULL;
    *p = 0;
    for (int i = 0; i < n; i++)
        p += sprintf(p, "%s\n\n", l[i].text);
    if (found > (uint64_t)n)
        sprintf(p, "(%llu more races were found than kept)\n\n",
                (unsigned long long)(found - (uint64_t)n));
    return s;
}

/* Rank 0 gets every rank's text; lens has 2 * size ints on rank 0. */
static int gather_text(MPI_Comm comm, int rank, int size, const char *mine, int *lens,
                       char **text)
{
    int len = (int)strlen(mine), total = 0, *offs = lens ? lens + size : NULL;
    int e = MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, comm);
    if (e != MPI_SUCCESS)
        return rmalab__mpi_fail(e, "gathering race reports");
    for (int i = 0; rank == 0 && i < size; i++) {
        offs[i] = total;
        total += lens[i];
    }
    char *all = rank == 0 ? malloc((size_t)total + 32) : NULL; /* the caller's: free() */
    int rc = rank == 0 && !all
                 ? rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory gathering race reports")
                 : RMALAB_OK;
    rc = rmalab__agree(comm, rc, "gathering race reports");
    if (!rc && (e = MPI_Gatherv(mine, len, MPI_CHAR, all, lens, offs, MPI_CHAR, 0, comm)) !=
                   MPI_SUCCESS)
        rc = rmalab__mpi_fail(e, "gathering race reports");
    if (rc) {
        free(all);
        return rc;
    }
    if (rank == 0) {
        while (total > 0 && all[total - 1] == '\n')
            total--;
        all[total] = 0;
        if (!total)
            strcpy(all, "no races found");
        *text = all;
    }
    return RMALAB_OK;
}

int rmalab_races_text(MPI_Comm comm, char **text)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    *text = NULL;
    char *mine = own_text();
    int *lens = rank == 0 ? rmalab__calloc(2 * (size_t)size, sizeof *lens) : NULL;
    int rc = !mine || (rank == 0 && !lens)
                 ? rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory gathering race reports")
                 : RMALAB_OK;
    if (!(rc = rmalab__agree(comm, rc, "gathering race reports")))
        rc = gather_text(comm, rank, size, mine, lens, text);
    rmalab__free(mine);
    rmalab__free(lens);
    return rc;
}
