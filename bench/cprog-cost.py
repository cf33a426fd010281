#!/usr/bin/env python3
"""What rmalab cc's instrumentation costs a memory-bound C kernel whose grid
is a window (bench/cprog-cost.c: 5-point Jacobi, halo rows by MPI_Put and
fences), against the same file built with mpicc -O2, both -O2 and run under
plain `mpiexec -n 2 -bind-to core`, in interleaved rounds of one launch.
Issue 39's goals: at most 2x for the kernel, 1.1x for a plain mpicc binary
under rmalab run.

usage: cprog-cost.py RMALAB SOURCE [rounds [sweeps]]

Prints each build's best and median seconds and the median of the per-round
ratios to mpicc's, and the load average before and after (on a shared
machine the ratios of the rmalab run rows follow the load: docs/c-measured.md,
"What rmalab run costs"); every build must print the same check value."""
import os
import statistics
import subprocess
import sys
import tempfile

rmalab, source = sys.argv[1], sys.argv[2]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
sweeps = sys.argv[4] if len(sys.argv) > 4 else "100"
MPIEXEC = ["mpiexec", "-n", "2", "-bind-to", "core"]

# (name, build command without -o, launcher): the kernel built by mpicc and
# by rmalab cc under plain mpiexec (the runtime dormant), then rmalab cc's
# build under rmalab run (every access to the grid checked), and mpicc's
# under rmalab run (the MPI calls checked, no access seen), with the race
# checker and with --no-check: the difference between those two rows is the
# checker's share, that between --no-check and mpicc's the interceptor's and
# the epoch rules' (the agreement before each fence).
RUN = [rmalab, "run", "-n", "2", "-bind-to", "core"]
RUN_NO_CHECK = [rmalab, "run", "--no-check", "-n", "2", "-bind-to", "core"]
# The last item is issue 39's goal against mpicc's row: a stencil at most
# 2x, a plain mpicc binary under rmalab run at most 1.1x.
VARIANTS = [
    ("mpicc -O2", ["mpicc", "-O2", source], MPIEXEC, None),
    ("rmalab cc -O2", [rmalab, "cc", "-O2", source], MPIEXEC, 2.0),
    ("rmalab cc -O2, rmalab run", [rmalab, "cc", "-O2", source], RUN, 2.0),
    ("mpicc -O2, rmalab run", ["mpicc", "-O2", source], RUN, 1.1),
    ("mpicc -O2, run --no-check", ["mpicc", "-O2", source], RUN_NO_CHECK, None),
]


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        sys.exit(f"cprog-cost: {' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    return r.stdout


with tempfile.TemporaryDirectory(prefix="cprog-cost.") as tmp:
    progs = []
    for k, (name, build, launch, _) in enumerate(VARIANTS):
        exe = os.path.join(tmp, f"v{k}")
        run(build + ["-o", exe])
        progs.append(launch + [exe, sweeps])
    load_before = os.getloadavg()[0]
    times = [[] for _ in VARIANTS]
    checks = set()
    for r in range(rounds):
        for k, cmd in enumerate(progs):
            words = run(cmd).split()
            times[k].append(float(words[1]))
            checks.add(words[3])
    if len(checks) != 1:
        sys.exit(f"cprog-cost: the builds computed different grids: {sorted(checks)}")
    print(f"{rounds} rounds of {sweeps} sweeps, 2 ranks x 1024 x 2048 doubles, "
          f"check {checks.pop()}, load average {load_before:.1f} before, "
          f"{os.getloadavg()[0]:.1f} after")
    print(f"{'build':28} {'best s':>8} {'median s':>9} {'ratio':>7}")
    for k, (name, _, _, goal) in enumerate(VARIANTS):
        ratio = statistics.median(t / p for t, p in zip(times[k], times[0]))
        verdict = "" if goal is None else "  %s (goal <= %gx)" % (
            "PASS" if ratio <= goal else "MISS", goal)
        print(f"{name:28} {min(times[k]):8.3f} {statistics.median(times[k]):9.3f} "
              f"{ratio:6.2f}x{verdict}")
