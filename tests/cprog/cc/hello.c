/* Not an MPI program (cc.py errors): rmalab cc builds it as mpicc does. */
#include <stdio.h>

int main(void)
{
    int a[4] = {1, 2, 3, 4};
    printf("sum %d\n", a[0] + a[1] + a[2] + a[3]);
    return 0;
}
