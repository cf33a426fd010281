#!/usr/bin/python3
"""rmalab's own instructions per call of a Lua binding's function on 2
ranks: callgrind collects inside FN (a C function of the module, e.g.
comm_allreduce) while bench/instr-lua.lua runs WHAT at two counts, and the
difference over the difference in calls leaves out startup. Printed per
rank: the module's own functions (core and binding), the Lua API's, and
the largest of them. MPI's work and its polling are left out: polling
varies with how long the other rank takes, and raw C pays MPI's work too.

    bench/instr-ranks.py build WHAT FN [calls]
    e.g. bench/instr-ranks.py build allreduce comm_allreduce 2000
"""
import glob
import os
import re
import subprocess
import sys
import tempfile


def functions(path):
    """Exclusive instructions of each function of a callgrind file."""
    out = subprocess.run(["callgrind_annotate", "--threshold=100", "--auto=no", path],
                         capture_output=True, text=True, check=True).stdout
    per = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+(\S.*)$", line)
        if m and "PROGRAM TOTALS" not in line:
            per[m.group(2)] = per.get(m.group(2), 0) + int(m.group(1).replace(",", ""))
    return per


def run(build, what, fn, calls, tmp):
    env = dict(os.environ, LUA_CPATH=f"{build}/lua/?.so")
    out = f"{tmp}/cg.{calls}.%p"
    subprocess.run(["mpiexec", "-n", "2", "valgrind", "--tool=callgrind",
                    f"--toggle-collect={fn}", f"--callgrind-out-file={out}", "lua5.4",
                    os.path.join(os.path.dirname(__file__), "instr-lua.lua"), what, str(calls)],
                   env=env, capture_output=True, check=True)
    return [functions(f) for f in sorted(glob.glob(f"{tmp}/cg.{calls}.*"),
                                         key=lambda f: int(f.rsplit(".", 1)[1]))]


def main():
    build, what, fn = sys.argv[1:4]
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 2000
    with tempfile.TemporaryDirectory() as tmp:
        few, many = run(build, what, fn, n, tmp), run(build, what, fn, 3 * n, tmp)
    # inlined code is named by its source file alone, and by a path relative
    # to the folder callgrind_annotate ran in when the build's is relative
    repo = os.path.realpath(os.path.join(os.path.dirname(__file__), "..")) + "/"
    root = os.path.realpath(build) + "/"

    def ours(k):
        path = os.path.realpath(k.split(":", 1)[0])  # "???" for no file
        return "rmalab.so" in k or (os.path.isfile(path) and path.startswith((root, repo)))
    print(f"{what}: instructions per call inside {fn} (callgrind, {n} and {3 * n} calls)")
    for rank, (a, b) in enumerate(zip(few, many)):
        per = {k: (b.get(k, 0) - a.get(k, 0)) / (2 * n) for k in set(a) | set(b)}
        own = {k: v for k, v in per.items() if ours(k)}
        api = {k: v for k, v in per.items() if "lua5.4" in k}
        print(f"  process {rank}: rmalab {sum(own.values()):.0f}, Lua API "
              f"{sum(api.values()):.0f}; the largest:")
        for k, v in sorted(own.items(), key=lambda kv: -kv[1])[:6]:
            print(f"    {v:6.0f}  {k.split(' ')[0].split('/')[-1]}")


main()
