#!/usr/bin/env python3
"""One case of `rmalab test` on C programs (tests/cprog/test).

usage: check.py CASE BINDIR RMALAB

BINDIR holds the test programs, plain mpicc -g builds; RMALAB is the
rmalab executable. Each case runs `rmalab test --ranks 2` on programs and
checks its TAP: the verdict, the named calls at their FILE:LINE, the exit
status, how long it took (a deadlock is named in seconds, not at a
timeout), and that no process or state file of it is left. Exits 1 with
the reasons when a check fails."""
import os
import re
import subprocess
import sys
import tempfile
import time

case, bindir, rmalab = sys.argv[1], sys.argv[2], sys.argv[3]
here = os.path.dirname(os.path.abspath(__file__))
fails = []


def expect(what, ok):
    if not ok:
        fails.append(what)


def line_of(src, text, nth=1):
    for i, l in enumerate(open(os.path.join(here, src)), 1):
        if text in l:
            nth -= 1
            if nth == 0:
                return i
    raise SystemExit(f"{src}: no line holds {text!r}")


def run(*words, limit=30):
    """rmalab test --ranks 2 WORDS (programs by name, from BINDIR): its exit
    status and stdout; checks the time, leftovers and state files."""
    args = [os.path.join(bindir, w) if os.path.exists(os.path.join(bindir, w)) else w
            for w in words]
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, TMPDIR=tmp, RMALAB_STUCK="0")
        t0 = time.monotonic()
        p = subprocess.run([rmalab, "test", "--ranks", "2", "--timeout", "60", *args],
                           capture_output=True, text=True, timeout=120, env=env)
        took = time.monotonic() - t0
        expect(f"took {took:.1f} s, more than {limit} s: {p.stdout}", took < limit)
        left_files = [f for f in os.listdir(tmp) if f.startswith("rmalab-states")]
        expect(f"state folders left in TMPDIR: {left_files}", not left_files)
    time.sleep(0.5)
    for w in words:
        if "/" not in w and not w.startswith("-") and os.path.exists(os.path.join(bindir, w)):
            out = subprocess.run(["pgrep", "-af", os.path.join(bindir, w)],
                                 capture_output=True, text=True).stdout
            expect(f"processes of {w} left: {out}", not out.strip())
    return p.returncode, p.stdout + p.stderr


def deadlock(prog, ranks, ring, src=None):
    """prog (built from src, else prog.c) deadlocks: not ok, each rank's call
    at its line, the ring."""
    src = src or prog + ".c"
    rc, out = run(prog)
    expect(f"exit status {rc}, wanted 1: {out}", rc == 1)
    expect(f"no 'not ok 1 - ...{prog} [2 ranks]: deadlocked after N s': {out}",
           re.search(rf"^not ok 1 - \S*{prog} \[2 ranks\]: deadlocked after [\d.]+ s$", out, re.M))
    for r, (src_text, nth, call, what) in enumerate(ranks):
        n = line_of(src, src_text, nth)
        name = re.escape(os.path.basename(src))
        pat = rf'- state: "\S*\b{name}:{n}: note: {re.escape(call)}: rank {r} is ' + what
        expect(f"rank {r}'s line is not {pat!r}: {out}", re.search(pat, out))
    expect(f"no deadlock line {ring!r}: {out}", f'deadlock: "deadlock: {ring}"' in out)
    expect(f"more than one test point: {out}", "1..1\n0 passed, 1 failed" in out)


def pscw_order():
    deadlock("pscw-order",
             [("MPI_Put(", 1, "MPI_Put", r"blocked in MPI_Put\(\) until rank 1 calls "
               r"MPI_Win_post\(\) \([\d.]+ s\); access epoch to \{1\}: MPI_Win_post\(\) arrived "
               r"from 0 of 1, missing \{1\}"),
              ("MPI_Put(", 1, "MPI_Put", r"blocked in MPI_Put\(\) until rank 0 calls "
               r"MPI_Win_post\(\)")],
             "rank 0 waits for rank 1's MPI_Win_post(), rank 1 waits for rank 0's MPI_Win_post()")


def start_nopost():
    deadlock("start-nopost",
             [("MPI_Put(", 1, "MPI_Put", r"blocked in MPI_Put\(\) until rank 1 calls "
               r"MPI_Win_post\(\) \([\d.]+ s\); access epoch to \{1\}: MPI_Win_post\(\) arrived "
               r"from 0 of 1, missing \{1\}"),
              ("MPI_Barrier(", 1, "MPI_Barrier", r"blocked in the collective MPI_Barrier\(\); "
               r"rank 0 is blocked in MPI_Put\(\) until rank 1 calls MPI_Win_post\(\)")],
             "rank 0 waits for rank 1's MPI_Win_post(), rank 1 waits for rank 0's MPI_Barrier()",
             "../run/stuck.c")


def post_nostart():
    deadlock("post-nostart",
             [("MPI_Barrier(", 1, "MPI_Barrier", r"blocked in the collective MPI_Barrier\(\); "
               r"rank 1 is blocked in MPI_Win_wait\(\) until rank 0 calls MPI_Win_start\(\) and "
               r"MPI_Win_complete\(\)"),
              ("MPI_Win_wait(", 1, "MPI_Win_wait", r"blocked in MPI_Win_wait\(\) until rank 0 "
               r"calls MPI_Win_start\(\) and MPI_Win_complete\(\) \([\d.]+ s\); .*waits for "
               r"MPI_Win_complete\(\) from \{0\}: 0 of 1 arrived")],
             "rank 0 waits for rank 1's MPI_Barrier(), rank 1 waits for rank 0's MPI_Win_start() "
             "and MPI_Win_complete()")


def lock_held():
    deadlock("lock-held",
             [("MPI_Barrier(", 2, "MPI_Barrier", r"blocked in the collective MPI_Barrier\(\); "
               r"rank 1 is blocked in MPI_Win_lock\(\) until rank 0 calls MPI_Win_unlock\(1\)"),
              ("MPI_Win_lock(", 2, "MPI_Win_lock", r"blocked in MPI_Win_lock\(\) until rank 0 "
               r"calls MPI_Win_unlock\(1\) \([\d.]+ s\); .*waiting for an exclusive lock on rank "
               r"1 to be granted")],
             "rank 0 waits for rank 1's MPI_Barrier(), rank 1 waits for rank 0's "
             "MPI_Win_unlock(1)")


def fence_missing():
    deadlock("fence-missing",
             [("MPI_Win_fence(", 1, "MPI_Win_fence", r"blocked in the collective "
               r"MPI_Win_fence\(\); rank 1 is blocked in the collective MPI_Barrier\(\)"),
              ("MPI_Barrier(", 1, "MPI_Barrier", r"blocked in the collective MPI_Barrier\(\); "
               r"rank 0 is blocked in the collective MPI_Win_fence\(\)")],
             "rank 0 waits for rank 1's MPI_Win_fence(), rank 1 waits for rank 0's MPI_Barrier()")


def correct():
    rc, out = run("correct")
    expect(f"exit status {rc}, wanted 0: {out}", rc == 0)
    expect(f"not 'ok 1 - ...correct [2 ranks]: the program ran to its end': {out}",
           re.search(r"^ok 1 - \S*correct \[2 ranks\]: the program ran to its end, no error or "
                     r"race$", out, re.M))
    expect(f"not '1 passed, 0 failed': {out}", "1..1\n1 passed, 0 failed" in out)


def crash():
    rc, out = run("crash")
    expect(f"exit status {rc}, wanted 1: {out}", rc == 1)
    expect(f"no 'not ok 1 - ...crash [2 ranks]: a rank ended badly: Segmentation fault': {out}",
           re.search(r"^not ok 1 - \S*crash \[2 ranks\]: a rank ended badly: Segmentation "
                     r"fault \(signal 11\)$", out, re.M))


def race():
    rc, out = run("race")
    n, f = line_of("race.c", "MPI_Put("), line_of("race.c", "MPI_Win_fence(", 2)
    expect(f"exit status {rc}, wanted 1: {out}", rc == 1)
    expect(f"no 'not ok 1 - ...race [2 ranks]: 1 race reported': {out}",
           re.search(r"^not ok 1 - \S*race \[2 ranks\]: 1 race reported$", out, re.M))
    expect(f"the race is not in reports: at race.c:{n}, found at the fence at line {f}: {out}",
           re.search(rf"  reports: \|\n    \S*race\.c:{n}: race: MPI_Put by rank 0 .*"
                     rf"MPI_Put at \S*race\.c:{n} by rank 1.*\n(    .*\n)*.*found at "
                     rf"MPI_Win_fence\(\) at \S*race\.c:{f}", out))


def mixed():
    """A scenario and programs in one call, a program's arguments after it:
    'fail' makes correct exit with status 3."""
    rc, out = run("tests/runner/plain.lua", "correct", "fail", "now", "correct", "crash")
    expect(f"exit status {rc}, wanted 1: {out}", rc == 1)
    expect(f"the scenario did not pass first: {out}",
           re.search(r"^ok 1 - tests/runner/plain\.lua \[2 ranks\]", out, re.M))
    expect(f"correct with 'fail now' did not fail with status 3, arguments printed: {out}",
           re.search(r"^not ok 2 - \S*correct \[2 ranks\]: mpiexec exited with status 3$", out,
                     re.M)
           and "rank 0: argument 2: now" in out and "rank 1: argument 1: fail" in out)
    expect(f"correct without arguments did not pass: {out}",
           re.search(r"^ok 3 - \S*correct \[2 ranks\]: the program ran", out, re.M))
    expect(f"crash is not the fourth point: {out}",
           re.search(r"^not ok 4 - \S*crash \[2 ranks\]", out, re.M))
    expect(f"not '1..4 / 2 passed, 2 failed': {out}", "1..4\n2 passed, 2 failed" in out)


cases = {"pscw-order": pscw_order, "start-nopost": start_nopost, "post-nostart": post_nostart,
         "lock-held": lock_held, "fence-missing": fence_missing, "correct": correct,
         "crash": crash, "race": race, "mixed": mixed}
cases[case]()
if fails:
    print(f"{case}:", *fails, sep="\n  ")
    sys.exit(1)
print(f"{case}: ok")
