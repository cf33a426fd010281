/* bench/pscw-floor.c: the floor binding of bench-pscw, opened as the Lua
 * module "pscw_floor" (package.preload). */
#ifndef PSCW_FLOOR_H
#define PSCW_FLOOR_H

#include <lua.h>

int luaopen_pscw_floor(lua_State *L);

#endif
