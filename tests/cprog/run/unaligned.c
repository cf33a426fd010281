/* MPI_Win_create on memory 4 bytes past a 64-byte boundary: MPICH 4.0.2
 * would put the data 4 bytes before it (README, "MPICH 4.0.2 behaviour
 * rmalab works around"); rmalab run refuses it at this line, on every
 * rank, and the job ends. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Win win;
    MPI_Init(&argc, &argv);
    char *mem = aligned_alloc(64, 128);
    MPI_Win_create(mem + 4, 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_free(&win);
    free(mem);
    MPI_Finalize();
    return 0;
}
