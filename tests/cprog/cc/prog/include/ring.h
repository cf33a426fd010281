/* The ring program's shared declarations (tests/cprog/cc/prog): found
 * through -I, as a project's headers are. */
#ifndef RING_H
#define RING_H

#define RING_N 64

/* The value rank r puts at index i of its right neighbour's window. */
double ring_value(int r, int i);

#endif
