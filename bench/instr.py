#!/usr/bin/python3
"""Instructions per PSCW epoch (bench/bench-instr.c): raw MPICH and rmalab's
C API on both engines, each counted by callgrind at two epoch counts; the
difference over the difference in epochs leaves out startup. Instruction
counts do not drift with the machine's load, so this shows what a change
adds to an epoch's work where timings on a shared machine cannot.

    bench/instr.py build/bench/bench-instr [epochs]
"""
import re
import subprocess
import sys


def collected(prog, variant, epochs):
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                        prog, variant, str(epochs)], capture_output=True, text=True)
    m = re.search(r"Collected : (\d+)", r.stderr)
    if r.returncode or not m:
        sys.exit(f"instr.py: {variant} failed:\n{r.stderr[-2000:]}")
    return int(m.group(1))


def main():
    prog = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    per = {}
    for v in ("raw", "rma", "native"):
        per[v] = (collected(prog, v, 3 * n) - collected(prog, v, n)) / (2 * n)
    print(f"instructions per PSCW epoch to self (callgrind, {n} and {3 * n} epochs):")
    for v, what in (("raw", "raw MPICH"), ("rma", "rmalab C API, rma engine"),
                    ("native", "rmalab C API, native engine")):
        print(f"  {what:<30} {per[v]:8.0f}   {per[v] / per['raw']:.3f}x raw")
    print(f"  rmalab's own work on the native engine: {per['native'] - per['raw']:.0f} "
          "instructions per epoch")


main()
