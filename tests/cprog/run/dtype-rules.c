/* MPI's rules between an operation's derived datatypes, as errors at the
 * call's line (the window returns them: MPI_ERRORS_RETURN), and a correct
 * operation through an indexed type and a vector that goes on: rmalab run
 * refused every derived origin type before. Then pair types: MPI_MAXLOC
 * on MPI_INT and MPI_SUM on MPI_2INT are errors, MPI_MAXLOC on a vector of
 * MPI_2INT and MPI_Fetch_and_op's MPI_MINLOC of one land (rmalab run
 * refused every accumulate of a pair type). Last, a target datatype that
 * reaches 4 bytes before its displacement: at displacement 0 an error
 * (before the window), at 6 it lands (rmalab run refused it). And an
 * accumulate through a struct of two MPI_INT blocks lands (its two leaves
 * are one type; the pair types' check took them for mixed). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, ints[8] = {1, 2, 3, 4, 5, 6, 7, 8}, mem[8] = {0};
    int lens[2] = {1, 2}, at[2] = {0, 4}, blocks[2] = {1, 1}, failed = 0, pairs[4], got[4], fetched[2],
        around[2] = {1, 1};
    MPI_Aint behind[2] = {-4, 4};
    MPI_Aint where[2] = {0, 8};
    MPI_Datatype four_ints, two_doubles, int_double, parts[2] = {MPI_INT, MPI_DOUBLE}, picked,
                                                    odd, two_pairs, back, two_ints,
                                                    ints2[2] = {MPI_INT, MPI_INT};
    MPI_Aint apart[2] = {0, 2 * sizeof(int)};
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_vector(4, 1, 2, MPI_INT, &four_ints);
    MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &two_doubles);
    MPI_Type_create_struct(2, blocks, where, parts, &int_double);
    MPI_Type_indexed(2, lens, at, MPI_INT, &picked);
    MPI_Type_vector(3, 1, 2, MPI_INT, &odd);
    MPI_Type_commit(&four_ints);
    MPI_Type_commit(&two_doubles);
    MPI_Type_commit(&int_double);
    MPI_Type_commit(&picked);
    MPI_Type_commit(&odd);
    MPI_Type_vector(2, 1, 2, MPI_2INT, &two_pairs);
    MPI_Type_commit(&two_pairs);
    MPI_Type_create_hindexed(2, around, behind, MPI_INT, &back);
    MPI_Type_commit(&back);
    MPI_Type_create_struct(2, blocks, apart, ints2, &two_ints);
    MPI_Type_commit(&two_ints);
    MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Win_fence(0, win);
    int peer = 1 - rank, e[6];
    e[0] = MPI_Accumulate(ints, 1, four_ints, peer, 0, 1, two_doubles, MPI_SUM, win);
    e[1] = MPI_Accumulate(ints, 1, int_double, peer, 0, 3, MPI_INT, MPI_SUM, win);
    e[2] = MPI_Put(ints, 3, MPI_INT, peer, 0, 1, four_ints, win);
    failed = MPI_Put(ints, 1, picked, peer, 1, 1, odd, win) != MPI_SUCCESS;
    MPI_Win_fence(0, win);
    printf("rank %d: put %s, window %d %d %d %d %d %d\n", rank, failed ? "failed" : "done",
           mem[1], mem[2], mem[3], mem[4], mem[5], mem[6]);
    for (int i = 0; i < 8; i++)
        mem[i] = i < 4 ? 5 : 0;
    pairs[0] = 7, pairs[1] = 10 + rank, pairs[2] = 3, pairs[3] = 20 + rank;
    MPI_Win_fence(0, win);
    e[3] = MPI_Accumulate(ints, 2, MPI_INT, peer, 0, 2, MPI_INT, MPI_MAXLOC, win);
    e[4] = MPI_Accumulate(pairs, 1, MPI_2INT, peer, 0, 1, MPI_2INT, MPI_SUM, win);
    failed = MPI_Accumulate(pairs, 2, MPI_2INT, peer, 0, 1, two_pairs, MPI_MAXLOC, win);
    failed |= MPI_Fetch_and_op(pairs + 2, fetched, MPI_2INT, peer, 2, MPI_MINLOC, win);
    MPI_Win_fence(0, win);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    for (int i = 0; i < 4; i++)
        got[i] = mem[i];
    MPI_Win_unlock(rank, win);
    printf("rank %d: maxloc %s, window %d %d %d %d, fetched %d %d\n", rank,
           failed ? "failed" : "done", got[0], got[1], got[2], got[3], fetched[0], fetched[1]);
    MPI_Win_fence(0, win);
    e[5] = MPI_Put(ints, 2, MPI_INT, peer, 0, 1, back, win);
    failed = MPI_Put(ints, 2, MPI_INT, peer, 6, 1, back, win);
    MPI_Win_fence(0, win);
    printf("rank %d: back %s, window %d %d %d %d\n", rank, failed ? "failed" : "done", mem[4],
           mem[5], mem[6], mem[7]);
    for (int i = 0; i < 8; i++)
        mem[i] = 0;
    MPI_Win_fence(0, win);
    failed = MPI_Accumulate(ints, 1, two_ints, peer, 0, 1, two_ints, MPI_SUM, win);
    MPI_Win_fence(0, win);
    printf("rank %d: struct %s, window %d %d %d\n", rank, failed ? "failed" : "done", mem[0],
           mem[1], mem[2]);
    for (int i = 0; i < 6; i++) {
        int class;
        MPI_Error_class(e[i], &class);
        printf("rank %d: call %d: %s\n", rank, i,
               class == MPI_ERR_TYPE ? "MPI_ERR_TYPE" : class == MPI_ERR_OP ? "MPI_ERR_OP"
               : class == MPI_ERR_RMA_RANGE ? "MPI_ERR_RMA_RANGE" : "?");
    }
    MPI_Type_free(&four_ints);
    MPI_Type_free(&two_doubles);
    MPI_Type_free(&int_double);
    MPI_Type_free(&picked);
    MPI_Type_free(&odd);
    MPI_Type_free(&two_pairs);
    MPI_Type_free(&back);
    MPI_Type_free(&two_ints);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
