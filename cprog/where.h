/* where.c: the source line of an instruction, for reports. */
#ifndef RMALAB_CPROG_WHERE_H
#define RMALAB_CPROG_WHERE_H

/* "FILE:LINE" of the instruction at pc, as the program's debug information
 * names it (the file as given to the compiler); without it, "OBJECT+0xOFF".
 * The text lives as long as the process: it is computed once per pc and
 * kept. Thread-safe. */
const char *run_where(const void *pc);

#endif
