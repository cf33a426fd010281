/* Private to the core: engine-rma.c's one name, the rma PSCW engine
 * (docs/pscw-rma.md), which win.c chooses at creation. Never installed. */
#ifndef RMALAB_ENGINE_RMA_H
#define RMALAB_ENGINE_RMA_H

#include "win-private.h"

extern const rmalab__engine rmalab__engine_rma;

#endif
