/* Top-level locals that persist from one chunk to the next (locals.c). */
#ifndef RMALAB_REPL_LOCALS_H
#define RMALAB_REPL_LOCALS_H

#include <stddef.h>

/* Rewrite the top-level `local` declarations of a Lua chunk into plain
 * assignments (`local x, y <const> = e` becomes `x, y = e`, `local function
 * f` becomes `function f`, `local x` becomes `x = nil`), so that they land
 * in the session's environment, which keeps them for later chunks as
 * locals. `<close>` declarations stay local. Declarations inside blocks
 * and functions are left alone. Pure: it only reads `src`.
 *
 * Returns a malloc'd NUL-terminated text (*outlen bytes), and in *names a
 * malloc'd list of the declared names, each NUL-terminated, *nnames of
 * them; NULL when out of memory. Text that is not valid Lua comes out with
 * the same errors (the rewrite never joins or splits tokens). */
char *locals_rewrite(const char *src, size_t len, size_t *outlen, char **names, int *nnames);

#endif
