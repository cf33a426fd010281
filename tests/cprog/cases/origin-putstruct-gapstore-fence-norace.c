/* The origin of a put is a struct datatype over the two doubles of a C
 * struct; the char between them, which the datatype skips, is written
 * before the fence that completes the put: MPI never reads it, no
 * conflict. The values land as sent.
 * verdict: no race
 * ranks: 2
 */
#include <mpi.h>
#include <stddef.h>

struct particle {
    double x;
    char tag;
    double v;
};

int main(int argc, char **argv)
{
    int rank, lens[2] = {1, 1}, ok;
    MPI_Aint at[2] = {offsetof(struct particle, x), offsetof(struct particle, v)};
    MPI_Datatype types[2] = {MPI_DOUBLE, MPI_DOUBLE}, xv;
    struct particle p = {1.0, 'a', 2.0};
    double *base;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_create_struct(2, lens, at, types, &xv);
    MPI_Type_commit(&xv);
    MPI_Win_allocate(4 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                     &win);
    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Put(&p, 1, xv, 1, 0, 2, MPI_DOUBLE, win);
        p.tag = 'b';
    }
    MPI_Win_fence(0, win);
    ok = rank == 0 || (base[0] == 1.0 && base[1] == 2.0);
    MPI_Win_free(&win);
    MPI_Type_free(&xv);
    MPI_Finalize();
    return !ok;
}
