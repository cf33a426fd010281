/* where.c: the source line of an instruction, for reports. */
#ifndef RMALAB_CPROG_WHERE_H
#define RMALAB_CPROG_WHERE_H

#include <stddef.h>

/* "FILE:LINE" of the instruction at pc, as the program's debug information
 * names it (the file as given to the compiler); without it, "OBJECT+0xOFF".
 * The text lives as long as the process: it is computed once per pc and
 * kept. Thread-safe. */
const char *run_where(const void *pc);

/* The same line as a short key, "@@1b2c3d4e:11f9", for the core's race
 * checker, which keeps 47 bytes of a call site (rmalab_check_site): a path
 * is often longer. The key is the same on every rank of a program (an
 * offset in the module holding pc), so that a rank reads back the sites of
 * the others in the core's reports: run_expand writes `in` with every key
 * replaced by its line. */
const char *run_where_key(const void *pc);
void run_expand(const char *in, char *out, size_t size);

#endif
