/* Communicators with hints: validation before MPICH, the requested hints
 * remembered for the report; each one's shadow, a duplicate that carries
 * the rest of long messages (p2p.c), started with MPI_Comm_idup when the
 * communicator is made or wrapped and waited for when first needed.
 *
 * A free is MPI's: it marks the communicator for deallocation, and the
 * message requests still pending on it complete normally. Each such
 * request holds a reference (rmalab__comm_retain), as the user's handle
 * does; the last one to go frees the MPI communicator and its shadow
 * (MPICH's MPI_Comm_free is local: no rank waits for another). The
 * collective part of a free, completing the shadow's MPI_Comm_idup, is
 * done by the user's free, at the same place on every rank. */
#include "private.h"

#include <stdlib.h>
#include <string.h>

#include "rmalab-version.h"
#include "alloc.h"
#include "error-private.h"
#include "comm-private.h"
#include "block.h"

const char *rmalab_version(void)
{
    return RMALAB_VERSION;
}

static int comm_new(MPI_Comm c, int owned, rmalab_comm **out)
{
    rmalab_comm *r = rmalab__mem_calloc(1, sizeof *r);
    int rc;
    if (!r)
        return rmalab__err_fail(RMALAB_ERR_NO_MEM, "out of memory creating a communicator");
    if ((rc = rmalab_info_create(&r->requested))) {
        rmalab__mem_free(r);
        return rc;
    }
    r->comm = c;
    r->owned = owned;
    r->refs = 1;
    r->shadow = MPI_COMM_NULL;
    r->shadow_rq = MPI_REQUEST_NULL;
    MPI_Comm_rank(c, &r->rank);
    MPI_Comm_size(c, &r->size);
    *out = r;
    return RMALAB_OK;
}

/* The shadow's MPI_Comm_idup: a collective call that does not block, so
 * every rank makes it in the same place of the communicator's order of
 * collectives (where it is made or wrapped). A failure leaves no shadow:
 * long messages then fail with the reason. */
static void shadow_start(rmalab_comm *r)
{
    if (MPI_Comm_idup(r->comm, &r->shadow, &r->shadow_rq) != MPI_SUCCESS)
        r->shadow_rq = MPI_REQUEST_NULL;
}

int rmalab__comm_shadow(rmalab_comm *c, MPI_Comm *out)
{
    if (c->shadow_rq != MPI_REQUEST_NULL) {
        int e = rmalab__block_wait_request(&c->shadow_rq, "MPI_Comm_idup (a message's shadow)");
        if (e)
            return e;
        MPI_Comm_set_errhandler(c->shadow, MPI_ERRORS_RETURN);
    }
    if (c->shadow == MPI_COMM_NULL)
        return rmalab__err_fail(RMALAB_ERR_COMM, "this communicator has no shadow for long "
                                                 "messages (MPI_Comm_idup failed)");
    *out = c->shadow;
    return RMALAB_OK;
}

void rmalab__comm_shadow_test(rmalab_comm *c)
{
    int done = 0;
    if (MPI_Test(&c->shadow_rq, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done)
        MPI_Comm_set_errhandler(c->shadow, MPI_ERRORS_RETURN);
}

static bool mpi_finalized(void)
{
    int fini = 0;
    MPI_Finalized(&fini);
    return fini;
}

/* The user's free: the shadow's MPI_Comm_idup, collective, completes. */
static void shadow_finish(rmalab_comm *c)
{
    if (c->shadow_rq != MPI_REQUEST_NULL && !mpi_finalized())
        MPI_Wait(&c->shadow_rq, MPI_STATUS_IGNORE);
}

int rmalab_comm_wrap(MPI_Comm comm, rmalab_comm **out)
{
    if (comm == MPI_COMM_NULL)
        return rmalab__err_fail(RMALAB_ERR_COMM, "cannot wrap MPI_COMM_NULL");
    int rc = comm_new(comm, 0, out);
    if (!rc)
        shadow_start(*out);
    return rc;
}

int rmalab__comm_adopt(MPI_Comm c, rmalab_comm **out)
{
    int rc = comm_new(c, 1, out);
    if (rc)
        return rc;
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    rmalab__block_tag_comm(c);
    shadow_start(*out);
    return RMALAB_OK;
}

/* Copy every pair of `from` into `into`, overriding. */
static int merge(rmalab_info *into, const rmalab_info *from)
{
    int n = 0, rc = RMALAB_OK;
    if (from)
        rmalab_info_get_nkeys(from, &n);
    for (int i = 0; i < n && !rc; i++) {
        const char *k, *v;
        size_t kl, vl;
        rmalab_info_nth((rmalab_info *)from, i, &k, &kl, &v, &vl);
        rc = rmalab_info_set_n(into, k, kl, v, vl);
    }
    return rc;
}

/* Everything that can fail on one rank alone (memory, above all) happens
 * before MPI_Comm_dup_with_info, and the ranks agree on it first: a rank
 * that gave up alone would leave the others in the collective call. */
int rmalab_comm_dup_status(rmalab_comm *parent, const rmalab_info *info, rmalab_comm **out,
                           rmalab_diags *diags, int status)
{
    if (!parent)
        return status ? status : rmalab__err_fail(RMALAB_ERR_COMM, "communicator is NULL or freed");
    rmalab_info *hints = NULL;
    MPI_Info mi = MPI_INFO_NULL;
    rmalab_comm *r = NULL;
    int rc = status;
    if (!rc)
        rc = comm_new(parent->comm, 1, &r); /* the new one has its rank and size */
    if (!rc)
        rc = merge(r->requested, info);
    if (!rc)
        rc = rmalab_hints_validate(RMALAB_SCOPE_COMM, info, &hints, diags);
    if (!rc)
        rc = rmalab_info_to_mpi(hints, &mi);
    if ((rc = rmalab__err_agree(parent->comm, rc, "duplicating a communicator")))
        goto out;
    int e = MPI_Comm_dup_with_info(parent->comm, mi, &r->comm);
    if (e != MPI_SUCCESS) {
        rc = rmalab__err_mpi(e, "MPI_Comm_dup_with_info");
        goto out;
    }
    MPI_Comm_set_errhandler(r->comm, MPI_ERRORS_RETURN);
    rmalab__block_tag_comm(r->comm); /* its id in rmalab_blocked, in creation order */
    shadow_start(r);
    *out = r;
    r = NULL;
out:
    if (r) {
        rmalab_info_destroy(&r->requested);
        rmalab__mem_free(r);
    }
    if (mi != MPI_INFO_NULL)
        MPI_Info_free(&mi);
    rmalab_info_destroy(&hints);
    return rc;
}

int rmalab_comm_dup(rmalab_comm *parent, const rmalab_info *info, rmalab_comm **out,
                    rmalab_diags *diags)
{
    return rmalab_comm_dup_status(parent, info, out, diags, RMALAB_OK);
}

int rmalab_comm_set_info(rmalab_comm *comm, const rmalab_info *info, rmalab_diags *diags)
{
    return rmalab_comm_set_info_status(comm, info, diags, RMALAB_OK);
}

int rmalab_comm_set_info_status(rmalab_comm *comm, const rmalab_info *info, rmalab_diags *diags,
                                int status)
{
    if (!comm)
        return status ? status : rmalab__err_fail(RMALAB_ERR_COMM, "communicator is NULL or freed");
    rmalab_info *hints = NULL;
    MPI_Info mi = MPI_INFO_NULL;
    int rc = status ? status : rmalab_hints_validate(RMALAB_SCOPE_COMM, info, &hints, diags);
    if (!rc)
        rc = rmalab_info_to_mpi(hints, &mi);
    /* MPI_Comm_set_info is collective: as in dup, agree first. */
    if (!(rc = rmalab__err_agree(comm->comm, rc, "setting a communicator's hints"))) {
        int e = MPI_Comm_set_info(comm->comm, mi);
        if (e != MPI_SUCCESS)
            rc = rmalab__err_mpi(e, "MPI_Comm_set_info");
        else
            rc = merge(comm->requested, info);
    }
    if (mi != MPI_INFO_NULL)
        MPI_Info_free(&mi);
    rmalab_info_destroy(&hints);
    return rc;
}

int rmalab_comm_get_info(rmalab_comm *comm, rmalab_info **out)
{
    if (!comm)
        return rmalab__err_fail(RMALAB_ERR_COMM, "communicator is NULL or freed");
    MPI_Info mi = MPI_INFO_NULL;
    int e = MPI_Comm_get_info(comm->comm, &mi);
    if (e != MPI_SUCCESS)
        return rmalab__err_mpi(e, "MPI_Comm_get_info");
    int rc = rmalab_info_from_mpi(mi, out);
    MPI_Info_free(&mi);
    return rc;
}

const rmalab_info *rmalab_comm_requested(const rmalab_comm *comm)
{
    return comm ? comm->requested : NULL;
}

int rmalab_comm_hints(rmalab_comm *comm, rmalab_hints_report **out)
{
    rmalab_info *eff;
    int rc = rmalab_comm_get_info(comm, &eff);
    if (rc)
        return rc;
    rc = rmalab_hints_report_build(RMALAB_SCOPE_COMM, comm->requested, eff, out);
    rmalab_info_destroy(&eff);
    return rc;
}

int rmalab_comm_check_hints(rmalab_comm *comm, rmalab_agreement **out)
{
    if (!comm)
        return rmalab__err_fail(RMALAB_ERR_COMM, "communicator is NULL or freed");
    return rmalab_hints_check_agreement(comm->comm, RMALAB_SCOPE_COMM, comm->requested, out);
}

void rmalab__comm_retain(rmalab_comm *c)
{
    c->refs++;
}

/* The last reference went: the communicator and its shadow go. */
static int comm_destroy(rmalab_comm *c)
{
    int rc = RMALAB_OK;
    if (!mpi_finalized()) {
        if (c->shadow_rq != MPI_REQUEST_NULL)
            MPI_Wait(&c->shadow_rq, MPI_STATUS_IGNORE);
        if (c->shadow != MPI_COMM_NULL)
            MPI_Comm_free(&c->shadow);
        int e = c->owned ? MPI_Comm_free(&c->comm) : MPI_SUCCESS;
        if (e != MPI_SUCCESS)
            rc = rmalab__err_mpi(e, "MPI_Comm_free");
    }
    rmalab_info_destroy(&c->requested);
    rmalab__mem_free(c);
    return rc;
}

int rmalab__comm_release(rmalab_comm *c, bool user, bool *freed)
{
    if (user)
        shadow_finish(c);
    *freed = c->refs == 1 && c->owned;
    return --c->refs ? RMALAB_OK : comm_destroy(c);
}

MPI_Comm rmalab_comm_mpi(const rmalab_comm *comm)
{
    return comm ? comm->comm : MPI_COMM_NULL;
}

int rmalab_comm_rank(const rmalab_comm *comm)
{
    return comm ? comm->rank : -1;
}

int rmalab_comm_size(const rmalab_comm *comm)
{
    return comm ? comm->size : 0;
}

int rmalab__comm_tag_ub_read;

/* MPI_TAG_UB is MPI_COMM_WORLD's attribute, the same for every
 * communicator: read once (rmalab__comm_tag_ub keeps it). */
int rmalab_comm_tag_ub(rmalab_comm *c)
{
    (void)c;
    if (!rmalab__comm_tag_ub_read) {
        int *ub = NULL, flag = 0;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
        rmalab__comm_tag_ub_read = flag && ub ? *ub : 32767;
    }
    return rmalab__comm_tag_ub_read;
}
