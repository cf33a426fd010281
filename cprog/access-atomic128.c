/* The access runtime's 16-byte atomics (access-atomic.h): a member of its
 * own in the archive, so that only a program that uses them pulls in
 * libatomic (rmalab cc links it as needed), as a plain build does. */
#include "access-atomic.h"

__extension__ typedef __int128 rmalab_int128;

RMALAB_ATOMICS(128, rmalab_int128)
RMALAB_EXCHANGE(128, rmalab_int128)
