/* A compile error (cc.py errors): gcc's message and status. */
#include <mpi.h>

int main(void)
{
    int x = 1
    return x;
}
