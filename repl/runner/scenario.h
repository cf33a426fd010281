/* The header of a scenario file (scenario.c, pure, docs/testing.md): the
 * `-- key: value` comment lines within its first 10 lines. */
#ifndef RMALAB_REPL_SCENARIO_H
#define RMALAB_REPL_SCENARIO_H

#include <stddef.h>

#define SC_MAX_COUNTS 8
#define SC_MAX_ENV 16
#define SC_MAX_ENGINES 4

typedef struct {
    int counts[SC_MAX_COUNTS], ncounts;   /* -- ranks: 2 3 4 (default 2) */
    int counts_given;                     /* the header has a ranks: line */
    double timeout;                       /* -- timeout: 30 (default 60 s) */
    char env[SC_MAX_ENV][256];            /* -- env: KEY=VALUE, repeated */
    int nenv;
    char engines[SC_MAX_ENGINES][16];     /* -- engines: native rma */
    int nengines;
    char err[200];                        /* why the header is wrong */
} scenario;

/* 0, or -1 with the reason (line number and what is wrong) in s->err. */
int scenario_parse(const char *text, size_t len, scenario *s);

#endif
