/* Private to the core: what every file of the core stands on, the C and MPI
 * headers and the public API. Each file's own calls are declared in its own
 * header (alloc.h for alloc.c, error-private.h for error.c...); the list at
 * the top of win-private.h names them. Never installed. */
#ifndef RMALAB_PRIVATE_H
#define RMALAB_PRIVATE_H

#include <mpi.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <rmalab/rmalab.h>
#include <rmalab/win.h>

#endif
