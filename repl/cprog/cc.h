/* `rmalab cc` (cc.c, docs/c.md "Building with rmalab cc"): mpicc, with the
 * loads and stores of C sources instrumented and the access runtime
 * (cprog/access.c) linked in. */
#ifndef RMALAB_REPL_CPROG_CC_H
#define RMALAB_REPL_CPROG_CC_H

/* argv[0] is "cc"; self is this executable (where the runtime is found).
 * Returns the exit status: the compiler's own, 2 for no arguments. */
int cc_main(int argc, char **argv, const char *self);

#endif
