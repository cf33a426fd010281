#!/usr/bin/env python3
"""rmalab run against plain mpiexec on a plain mpicc -O2 binary (issue 39:
at most 1.1x), from one command:

    python3 bench/cprog-run.py BUILD_DIR [ROUNDS [EPOCHS]]

Builds bench/cprog-loop.c with mpicc -O2 -g, then runs its fence and PSCW
loops on 2 ranks (-bind-to core) under plain mpiexec, `rmalab run`
(the race checker on, the default) and `rmalab run --no-check`, taking
turns round by round so that the machine's drift hits all alike. Prints
each one's median time per epoch and its median ratio to plain mpiexec,
pair by pair, and the load average before and after each loop's rounds."""
import os
import statistics
import subprocess
import sys
import tempfile

build = os.path.abspath(sys.argv[1])
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7
epochs = sys.argv[3] if len(sys.argv) > 3 else "20000"
here = os.path.dirname(os.path.abspath(__file__))
prog = os.path.join(tempfile.mkdtemp(), "cprog-loop")
subprocess.run(["mpicc", "-O2", "-g", os.path.join(here, "cprog-loop.c"), "-o", prog], check=True)
rmalab = os.path.join(build, "repl", "rmalab")
ways = {"mpiexec": ["mpiexec"],
        "rmalab run": [rmalab, "run"],
        "rmalab run --no-check": [rmalab, "run", "--no-check"]}


def once(way, loop):
    out = subprocess.run(ways[way] + ["-n", "2", "-bind-to", "core", prog, loop, epochs],
                         capture_output=True, text=True, check=True).stdout
    return float(out.split()[1])


for loop in ["fence", "pscw"]:
    times = {w: [] for w in ways}
    load_before = os.getloadavg()[0]
    for _ in range(rounds):
        for w in ways:
            times[w].append(once(w, loop))
    print(f"{loop} loop, 8-byte put, 2 ranks, {rounds} rounds of {epochs} epochs, "
          f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after:")
    for w in ways:
        ratios = [t / b for t, b in zip(times[w], times["mpiexec"])]
        print(f"  {w:24s} {statistics.median(times[w]):7.3f} us/epoch   "
              f"{statistics.median(ratios):5.2f}x")
