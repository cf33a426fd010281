/* Whether a typed chunk is complete (chunk.c): lua.c's test, apart from the
 * terminal so that it can be fuzzed. */
#ifndef RMALAB_REPL_CHUNK_H
#define RMALAB_REPL_CHUNK_H

#include <stddef.h>

#include <lua.h>

/* 1 when s[0, n) is an incomplete chunk that the next line may continue:
 * neither `return <s>` nor s compiles, and the syntax error is at <eof>.
 * 0 otherwise (complete, or an error the next line cannot mend). Compiles
 * in L without running anything; leaves L's stack as it was. */
int chunk_incomplete(lua_State *L, const char *s, size_t n);

#endif
