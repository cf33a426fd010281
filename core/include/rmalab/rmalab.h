/* rmalab: a lab bench for MPI one-sided communication. The umbrella header
 * of the core's public API. */
#ifndef RMALAB_RMALAB_H
#define RMALAB_RMALAB_H

#include <rmalab/export.h>
#include <rmalab/error.h>
#include <rmalab/info.h>
#include <rmalab/hints.h>
#include <rmalab/comm.h>
#include <rmalab/coll.h>
#include <rmalab/win.h>
#include <rmalab/trace.h>
#include <rmalab/sync.h>
#include <rmalab/races.h>
#include <rmalab/block.h>

RMALAB_API const char *rmalab_version(void);

#endif
