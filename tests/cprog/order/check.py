#!/usr/bin/env python3
"""One case of order.c under rmalab run (tests/cprog/order).

usage: check.py MODE FIRST WANT BINDIR LAUNCH...

Runs `LAUNCH BINDIR/order MODE FIRST` (LAUNCH: `rmalab run -n 2`, with
--no-check for WANT nocheck). WANT is quiet (the call that MODE names
orders the two puts: no race line, nothing on stderr, exit status 0), race
(it does not: one race line that names the lines of both puts, and a
non-zero exit status) or nocheck (the checker is off: nothing reported,
status 0, whatever the order). Exits 1 with the reasons when a check
fails."""
import os
import re
import subprocess
import sys

mode, first, want, bindir, launch = (sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4],
                                     sys.argv[5:])
if want == "nocheck":
    launch = launch + ["--no-check"]
src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "order.c")


def line_of(text):
    for i, l in enumerate(open(src), 1):
        if text in l:
            return i
    raise SystemExit(f"order.c: no line holds {text!r}")


cmd = launch + [os.path.join(bindir, "order"), mode, first]
try:
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
except subprocess.TimeoutExpired:
    print(f"{' '.join(cmd)}: hung (no end within 90 s)")
    sys.exit(1)
fails = []
races = [l for l in p.stderr.splitlines() if ": race: " in l]
if want in ("quiet", "nocheck"):
    if p.returncode != 0:
        fails.append(f"exit status {p.returncode}, wanted 0")
    if p.stderr:
        fails.append(f"stderr not empty: {p.stderr!r}")
else:
    a, b = line_of("/* first put */"), line_of("/* second put */")
    if p.returncode == 0:
        fails.append("exit status 0, wanted non-zero")
    if len(races) != 1:
        fails.append(f"not one race line: {p.stderr!r}")
    elif not (re.search(rf"order\.c:{a}\b", races[0]) and re.search(rf"order\.c:{b}\b", races[0])):
        fails.append(f"the race line does not name lines {a} and {b}: {races[0]!r}")
    other = [l for l in p.stderr.splitlines() if re.search(r": (error|warning): ", l)]
    if other:
        fails.append(f"errors or warnings besides the race: {other!r}")
print(f"{' '.join(cmd)}: status {p.returncode}, {len(races)} race line(s)")
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
