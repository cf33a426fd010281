/* Launching the ranks (launch.c): the listening socket and token of the
 * control channel, and mpiexec in a session of its own. */
#ifndef RMALAB_REPL_LAUNCH_H
#define RMALAB_REPL_LAUNCH_H

#include <sys/types.h>

typedef struct {
    int listen_fd;
    char addr[600];   /* ADDR[,ADDR...]:PORT for RMALAB_CONNECT (addr.h) */
    char token[65];
    pid_t pid;        /* mpiexec, the leader of its own session; 0 if none */
    char **env;       /* NULL, or "KEY=VALUE" strings for mpiexec's environment */
    int err_fd;       /* > 0: mpiexec's stdout and stderr go there (else stderr) */
    int wide;         /* ranks may be on other hosts (launch_listen sets it, or the
                         caller before it) */
} launch_t;

/* How many values the mpiexec option `opt` takes (0, 1 or 2: -genv K V). */
int launch_option_values(const char *opt);
/* Listen on one port: of 127.0.0.1, or of every address when the ranks may
 * be on other hosts (l->wide, or the mpiexec options or the environment
 * say so: addr_wide), the ranks then trying this host's addresses in order
 * (addr_candidates); RMALAB_LISTEN overrides (0.0.0.0: every address).
 * The port: the first free one of MPIEXEC_PORT_RANGE or MPICH_PORT_RANGE
 * (LOW:HIGH, as Hydra takes them), else one the system picks.
 * Make a random token. 0 or -1 (message on stderr). */
int launch_listen(launch_t *l, int argc, char **argv);
/* Start `mpiexec -n N [opts] self --serve` in a new session, with the
 * address and token in its environment (not on its command line). */
int launch_start(launch_t *l, int n, int argc, char **argv, const char *self);
/* End the job now: mpiexec (l->pid), the hydra_pmi_proxy processes it
 * started and every rank process they started on this host, whatever each
 * is doing (running Lua, blocked inside MPI), with SIGKILL. Hydra puts each
 * proxy and each rank in a session of its own, so mpiexec's process group
 * or session does not reach them: the job is the process tree under
 * mpiexec, found through /proc and stopped (SIGSTOP) as it is found, so
 * that nothing forks behind the walk, then killed, mpiexec first, so that
 * Hydra prints nothing (no "BAD TERMINATION" banner: the caller says what
 * was ended, in one line). Reaps mpiexec and returns once every process of
 * the tree is gone (well under a second). Returns how many processes were
 * ended, mpiexec included; 0 if there was no job. Ranks on other hosts
 * (-hosts) lose their proxy and their control connection and end by
 * themselves within 5 s (rank.c). Safe to call when mpiexec has exited.
 * Also works for any child pid (the whole tree under it). */
int launch_end(launch_t *l);
/* Wait up to `grace` seconds for mpiexec to exit by itself, then
 * launch_end. */
void launch_kill(launch_t *l, double grace);
/* Wait up to `seconds` for mpiexec to exit; its status, or -1. */
int launch_wait(launch_t *l, double seconds);

#endif
