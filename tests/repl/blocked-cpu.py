#!/usr/bin/env python3
"""Ranks blocked in the REPL sleep (issue 25, problem 3): on 4 ranks, ranks
0-2 blocked 3 s in a fence that rank 3, idle at the prompt, has not called
use a few percent of one core together, not the two whole cores MPICH's
spinning takes (docs/core.md, "Blocking calls"). Real ranks, CPU time from
/proc; then rank 3 calls the fence and the session ends cleanly.

usage: blocked-cpu.py RMALAB"""
import os
import subprocess
import sys
import time

RMALAB = sys.argv[1]
TICK = os.sysconf("SC_CLK_TCK")
LIMIT = 0.15  # of one core, for the three together (measured: about 0.01)
MARK = b"RMALAB_TEST_MARK=blocked-cpu.%d" % os.getpid()  # reaches the ranks via mpiexec


def ranks_of(wanted):
    """pid of each wanted rank (PMI_RANK) among the front end's descendants."""
    found = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/environ" % p, "rb") as f:
                env = f.read().split(b"\0")
            with open("/proc/%s/cmdline" % p, "rb") as f:
                serve = b"--serve" in f.read().split(b"\0")
        except OSError:
            continue
        if serve and MARK in env:
            for r in wanted:
                if b"PMI_RANK=%d" % r in env:
                    found[r] = int(p)
    return found


def cpu(pids):
    total = 0
    for p in pids:
        with open("/proc/%d/stat" % p) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / TICK


env = dict(os.environ)
env.pop("RMALAB_WAIT", None)
proc = subprocess.Popen([RMALAB, "-n", "4"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE, env=dict(env, RMALAB_TEST_MARK=MARK.split(b"=")[1].decode()))
proc.stdin.write(b"w = rmalab.win_allocate(8, {disp_unit = 8})\n@0-2 w:fence()\n")
proc.stdin.flush()
pids = {}
for _ in range(300):
    pids = ranks_of((0, 1, 2))
    if len(pids) == 3:
        break
    time.sleep(0.1)
time.sleep(1.5)  # the three are in their fence
c0, t0 = cpu(pids.values()), time.time()
time.sleep(3)
c1, t1 = cpu(pids.values()), time.time()
share = (c1 - c0) / (t1 - t0)
out, err = proc.communicate(b"@3 w:fence()\nw:free()\n:quit\n", timeout=60)
print("3 ranks blocked %.1f s in a fence: %.2f%% of one core together" % (t1 - t0, 100 * share))
failed = []
if len(pids) != 3:
    failed.append("found the processes of ranks %s only" % sorted(pids))
if share > LIMIT:
    failed.append("blocked ranks used %.1f%% of one core (limit %.0f%%)" % (100 * share,
                                                                           100 * LIMIT))
if proc.returncode != 0:
    failed.append("exit status %d: %s" % (proc.returncode, err.decode(errors="replace")))
for f in failed:
    print("blocked-cpu.py:", f)
print("blocked-cpu.py: " + ("passed" if not failed else "failed"))
sys.exit(1 if failed else 0)
