/* Rank 0 puts to the even ints of rank 1's window through an indexed
 * datatype at the target, its origin the even ints of its buffer through a
 * vector; in the same fence epoch rank 1 writes the odd ints of its window
 * and rank 0 the odd ints of its origin buffer. The layouts interleave, but
 * no byte is reached twice: no conflict (a bounding range would see one).
 * verdict: no race
 * ranks: 2
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, origin[8] = {10, 0, 12, 0, 14, 0, 16, 0}, *base, ok = 1;
    int lens[4] = {1, 1, 1, 1}, at[4] = {0, 2, 4, 6};
    MPI_Datatype evens, every_other;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_indexed(4, lens, at, MPI_INT, &evens);
    MPI_Type_vector(4, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&evens);
    MPI_Type_commit(&every_other);
    MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Put(origin, 1, every_other, 1, 0, 1, evens, win);
        for (int i = 1; i < 8; i += 2)
            origin[i] = -1;
    } else {
        for (int i = 1; i < 8; i += 2)
            base[i] = i;
    }
    MPI_Win_fence(0, win);
    if (rank == 1)
        for (int i = 0; i < 8; i++)
            ok = ok && base[i] == (i % 2 ? i : 10 + i);
    MPI_Win_free(&win);
    MPI_Type_free(&evens);
    MPI_Type_free(&every_other);
    MPI_Finalize();
    return !ok;
}
