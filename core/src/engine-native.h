/* Private to the core: engine-native.c's one name, the native PSCW engine
 * (MPI's own post, start, complete, wait and test), which win.c chooses at
 * creation. Never installed. */
#ifndef RMALAB_ENGINE_NATIVE_H
#define RMALAB_ENGINE_NATIVE_H

#include "win-private.h"

extern const rmalab__engine rmalab__engine_native;

#endif
