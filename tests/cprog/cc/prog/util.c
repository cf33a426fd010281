/* The ring program's second file (tests/cprog/cc/prog): a build of more
 * than one source, and libm through -lm. */
#include <math.h>

#include "ring.h"

double ring_value(int r, int i)
{
    return sqrt((double)(r + 1) * (i + 1));
}
