/* Incomplete chunks (chunk.h), as lua.c tells them: a chunk whose syntax
 * error ends at the "<eof>" mark continues on the next line. */
#include "chunk.h"

#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

int chunk_incomplete(lua_State *L, const char *s, size_t n)
{
    static const char ret[] = "return ";
    static const char mark[] = "<eof>";
    size_t rn = sizeof ret - 1, mn = sizeof mark - 1;
    char *p = malloc(rn + n + 1);
    int status = LUA_ERRMEM;
    if (p) {
        memcpy(p, ret, rn);
        if (n)
            memcpy(p + rn, s, n);
        p[rn + n] = '\0';
        status = luaL_loadbuffer(L, p, rn + n, "=stdin");
        free(p);
        lua_pop(L, 1);
    }
    if (status == LUA_OK)
        return 0;
    status = luaL_loadbuffer(L, s, n, "=stdin");
    size_t len = 0;
    const char *msg = lua_tolstring(L, -1, &len);
    int inc = status == LUA_ERRSYNTAX && msg && len >= mn &&
              memcmp(msg + len - mn, mark, mn) == 0;
    lua_pop(L, 1);
    return inc;
}
