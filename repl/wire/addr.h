/* Where the ranks reach the front end (addr.c, docs/repl.md "Control
 * channel", docs/clusters.md): whether the ranks may run on other hosts,
 * the addresses of this host that they may reach, best first, and a rank's
 * connection to the first of them that answers.
 *
 * RMALAB_CONNECT is "ADDR[,ADDR...]:PORT": one address (the local case,
 * RMALAB_LISTEN), or the candidates in the order the rank tries them. */
#ifndef RMALAB_REPL_ADDR_H
#define RMALAB_REPL_ADDR_H

#include <stddef.h>

/* Whether the mpiexec options (or the environment: a hostfile or launcher
 * for Hydra, a resource manager's allocation that Hydra detects, such as
 * Slurm's) may put ranks on other hosts than this one. */
int addr_wide(int argc, char **argv);
/* This host's IPv4 addresses, comma-separated into buf, best first: those
 * of interface `iface` (Hydra's -iface; NULL: none), then the address of
 * the host's name if it is one of the host's and not loopback, then every
 * other non-loopback address of an interface that is up, and 127.0.0.1
 * last. At most 32. */
void addr_candidates(const char *iface, char *buf, size_t size);
/* The value of mpiexec's -iface among the options, else HYDRA_IFACE, else
 * NULL. */
const char *addr_iface(int argc, char **argv);
/* Connect to the front end at RMALAB_CONNECT's value, trying the
 * addresses in order, each for at most 1 s, in rounds 0.1 s apart for up to
 * 5 s; a round in which an address refused the connection counts as a
 * refusal, and after 5 the front end is taken to be gone. The socket, or
 * -1. */
int addr_connect(const char *spec);

#endif
