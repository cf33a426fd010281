/* JSON requests (request.c, docs/repl-json.md "Requests"): under --json, a line
 * that is a JSON object asks the front end itself (the Jupyter kernel's
 * cell marks, completion, is_complete, inspect). No Lua line can be one:
 * after a string in a table constructor Lua wants `,`, `;`, `}` or an
 * operator, never `:`. Pure, no I/O: fuzzable as it is. */
#ifndef RMALAB_REPL_REQUEST_H
#define RMALAB_REPL_REQUEST_H

#include <stddef.h>

typedef struct {
    char name[16];  /* "request": mark, complete, is_complete, inspect */
    char tag[64];   /* "tag", echoed in the reply ("" if absent) */
    char *text;     /* "text", decoded (malloc'd; "" if absent) */
    size_t textlen;
} request;

/* Is the line a flat JSON object of string values? Then *q is filled (a
 * missing "request" leaves name "") and 1 is returned; release it with
 * request_free. 0: not a JSON object (a Lua line); -1: out of memory. */
int request_parse(const char *line, size_t n, request *q);
void request_free(request *q);

#endif
