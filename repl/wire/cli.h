/* The command line's conventions, shared by rmalab (main.c) and rmalab
 * test (runner.c), as the GNU coding standards give them: --version's text,
 * and a usage error as one line of diagnosis, a hint and exit status 2.
 * Header-only: both callers are in the one executable. */
#ifndef RMALAB_REPL_CLI_H
#define RMALAB_REPL_CLI_H

#include <stdarg.h>
#include <stdio.h>

#include <rmalab/rmalab.h>

/* After --help or --version: 0, or 1 when stdout could not take the text
 * (rmalab --help >/dev/full). */
static inline int cli_stdout_done(const char *prog)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    fprintf(stderr, "%s: write error on standard output\n", prog);
    return 1;
}

/* --version: the program's name and version first, then its copyright,
 * its licence (MIT, as meson.build says) and the absence of warranty. */
static inline int cli_version(const char *prog)
{
    printf("rmalab %s\n"
           "Copyright (C) 2026 the rmalab authors.\n"
           "License MIT: <https://opensource.org/license/mit>.\n"
           "This is free software: you are free to change and redistribute it.\n"
           "There is NO WARRANTY, to the extent permitted by law.\n",
           rmalab_version());
    return cli_stdout_done(prog);
}

/* A usage error: "prog: what is wrong" and where help is, on stderr.
 * Returns 2, the exit status of a usage error. */
__attribute__((format(printf, 2, 3))) static inline int cli_usage_error(const char *prog,
                                                                        const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '%s --help' for more information.\n", prog);
    return 2;
}

#endif
