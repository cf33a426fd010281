/* MPI's rules that rmalab run checked only in part (issue 39), each call
 * with the window returning errors (MPI_ERRORS_RETURN), its class printed:
 * - type signatures: a put from a struct {int, double} to a struct
 *   {double, int} has as many bytes on both sides but not the same
 *   sequence of basic types: MPI_ERR_TYPE; a put from a struct {int,
 *   double} to one laid out otherwise, and from two ints to one MPI_2INT,
 *   land; so do a put and an accumulate of MPI_INT from a struct {MPI_LB,
 *   MPI_INT, MPI_UB} (bounds markers, gone from MPI-3.0 but kept by
 *   MPICH, hold no data: the signature is one int), which once gave a false
 *   "signatures differ";
 * - accumulates of MPI_LONG_DOUBLE (MPI_SUM) and MPI_C_DOUBLE_COMPLEX
 *   (MPI_SUM, MPI_PROD) land; MPI_MAX on a complex is MPI_ERR_OP, as MPI
 *   defines no order on them;
 * - a negative count, in the int and the _c forms: MPI_ERR_COUNT;
 * - MPI_Cancel of an MPI_Rput's request: it cannot be cancelled, the wait
 *   returns it, MPI_Test_cancelled says false; MPI_Request_free of an
 *   MPI_Rget's request in flight: the epoch completes it. */
#include <complex.h>
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct id {
    int i;
    double d;
};
struct di {
    double d;
    int i;
};

static const char *class_of(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c == MPI_SUCCESS ? "MPI_SUCCESS" : c == MPI_ERR_TYPE ? "MPI_ERR_TYPE"
         : c == MPI_ERR_OP ? "MPI_ERR_OP" : c == MPI_ERR_COUNT ? "MPI_ERR_COUNT" : "?";
}

int main(int argc, char **argv)
{
    int rank, e[10], n = 0, flag = 0, two[2] = {4, 5}, got = 0, quad[4] = {7, 8, 9, 10};
    static char mem[256];
    memset(mem + 244, 0, 4);
    MPI_Datatype id_t, di_t, id_far, ints2[2] = {MPI_INT, MPI_DOUBLE}, dis[2] = {MPI_DOUBLE, MPI_INT};
    int blocks[3] = {1, 1, 1};
    MPI_Aint id_at[2] = {offsetof(struct id, i), offsetof(struct id, d)},
             di_at[2] = {offsetof(struct di, d), offsetof(struct di, i)}, far_at[2] = {0, 32};
    struct id src = {7, 2.5};
    long double ld = 1.5L;
    double complex z = 1.0 + 2.0 * I;
    MPI_Win win;
    MPI_Request rq;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_create_struct(2, blocks, id_at, ints2, &id_t);
    MPI_Type_create_struct(2, blocks, di_at, dis, &di_t);
    MPI_Type_create_struct(2, blocks, far_at, ints2, &id_far);
    MPI_Type_commit(&id_t);
    MPI_Type_commit(&di_t);
    MPI_Type_commit(&id_far);
    MPI_Datatype lbub, bounded[3] = {MPI_LB, MPI_INT, MPI_UB};
    MPI_Aint bounds_at[3] = {0, 0, 8};
    MPI_Type_create_struct(3, blocks, bounds_at, bounded, &lbub);
    MPI_Type_commit(&lbub);
    MPI_Win_create(mem, sizeof mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int peer = 1 - rank;
    MPI_Win_fence(0, win);
    e[n++] = MPI_Put(&src, 1, id_t, peer, 0, 1, di_t, win);
    e[n++] = MPI_Put(&src, 1, id_t, peer, 64, 1, id_far, win);
    e[n++] = MPI_Put(two, 2, MPI_INT, peer, 128, 1, MPI_2INT, win);
    e[n++] = MPI_Put(quad, 2, lbub, peer, 208, 2, MPI_INT, win);
    e[n++] = MPI_Accumulate(quad, 2, lbub, peer, 216, 2, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    int far_i;
    double far_d;
    memcpy(&far_i, mem + 64, sizeof far_i);
    memcpy(&far_d, mem + 96, sizeof far_d);
    printf("rank %d: struct %d %g, pair %d %d\n", rank, far_i, far_d, ((int *)(mem + 128))[0],
           ((int *)(mem + 128))[1]);
    printf("rank %d: bounded %d %d, %d %d\n", rank, ((int *)(mem + 208))[0],
           ((int *)(mem + 208))[1], ((int *)(mem + 216))[0], ((int *)(mem + 216))[1]);
    long double lds = 1.0L;
    double complex zs = 3.0 + 0.0 * I;
    memcpy(mem + 144, &lds, sizeof lds);
    memcpy(mem + 176, &zs, sizeof zs);
    memcpy(mem + 192, &zs, sizeof zs);
    MPI_Win_fence(0, win);
    e[n++] = MPI_Accumulate(&ld, 1, MPI_LONG_DOUBLE, peer, 144, 1, MPI_LONG_DOUBLE, MPI_SUM, win);
    e[n++] = MPI_Accumulate(&z, 1, MPI_C_DOUBLE_COMPLEX, peer, 176, 1, MPI_C_DOUBLE_COMPLEX,
                            MPI_SUM, win);
    e[n++] = MPI_Accumulate(&z, 1, MPI_C_DOUBLE_COMPLEX, peer, 192, 1, MPI_C_DOUBLE_COMPLEX,
                            MPI_MAX, win);
    e[n++] = MPI_Put(two, -1, MPI_INT, peer, 0, -1, MPI_INT, win);
    e[n++] = MPI_Put_c(two, -2, MPI_INT, peer, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    memcpy(&lds, mem + 144, sizeof lds);
    memcpy(&zs, mem + 176, sizeof zs);
    printf("rank %d: long double %.2Lf, complex %g%+gi\n", rank, lds, creal(zs), cimag(zs));
    MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win);
    MPI_Rput(two, 1, MPI_INT, peer, 240, 1, MPI_INT, win, &rq);
    MPI_Cancel(&rq);
    MPI_Wait(&rq, &st);
    MPI_Test_cancelled(&st, &flag);
    MPI_Rget(&got, 1, MPI_INT, peer, 244, 1, MPI_INT, win, &rq);
    MPI_Request_free(&rq);
    MPI_Win_unlock(peer, win);
    printf("rank %d: cancelled %d, got %d\n", rank, flag, got);
    for (int i = 0; i < n; i++)
        printf("rank %d: call %d: %s\n", rank, i, class_of(e[i]));
    MPI_Type_free(&id_t);
    MPI_Type_free(&di_t);
    MPI_Type_free(&id_far);
    MPI_Type_free(&lbub);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
