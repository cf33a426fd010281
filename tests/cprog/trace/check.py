#!/usr/bin/env python3
"""One case of rmalab run --trace on a plain mpicc binary (tests/cprog/trace).

usage: check.py CASE BINDIR RMALAB

BINDIR holds the test programs (plain mpicc -g), RMALAB the executable.
Each case runs a program on 2 ranks with `rmalab run --trace FILE` (FILE
.json or .svg) and checks the file: the JSON parses and holds each rank's
calls in order, under the window's name; the SVG is well-formed, passes
tests/trace/check_svg.py's checks (lanes, legend, one data arrow per
operation, no arrow across a box) and names the window and the calls.
Other cases: a bad extension or a folder that cannot be written refused
before the job, a program that aborts says no trace. After every run the
output's folder must hold no temporary folder of the set's, and no process
may be left. Exits 1 with the reasons when a check fails."""
import json
import os
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "trace"))
import check_svg  # noqa: E402

case, bindir, rmalab = sys.argv[1], sys.argv[2], sys.argv[3]
fails = []
work = tempfile.mkdtemp(prefix="cprog-trace-")


def expect(what, ok):
    if not ok:
        fails.append(what)


def run(prog, *opts):
    cmd = [rmalab, "run", "-n", "2", *opts, os.path.join(bindir, prog)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
    except subprocess.TimeoutExpired:
        fails.append(f"{' '.join(cmd)}: hung (no end within 90 s)")
        return -1, "", ""
    time.sleep(0.3)
    left = subprocess.run(["pgrep", "-f", os.path.join(bindir, prog)],
                          capture_output=True, text=True).stdout.split()
    expect(f"processes left: {left}", not left)
    tmp = [f for f in os.listdir(work) if f.startswith(".rmalab-trace")]
    expect(f"temporary folders left beside the output: {tmp}", not tmp)
    return p.returncode, p.stdout, p.stderr


def traced(prog, ext, *opts, out=None):
    path = os.path.join(work, f"{prog}.{ext}")
    rc, o, err = run(prog, "--trace", path, *opts)
    expect(f"exit status {rc}, wanted 0; stderr: {err!r}", rc == 0)
    if out is not None:
        expect(f"stdout {o!r}, wanted {out!r}", o == out)
    expect(f"stderr does not say where the trace is: {err!r}",
           f"rmalab run: the trace is in {path}" in err)
    expect(f"no file {path}", os.path.exists(path))
    return path


def lanes(path):
    """Each rank's events (not metadata) in time order: (name, window)."""
    with open(path) as f:
        doc = json.load(f)
    evs = [e for e in doc["traceEvents"] if e["ph"] in ("X", "i")]
    out = {}
    for e in sorted(evs, key=lambda e: e["ts"]):
        out.setdefault(e["pid"], []).append((e["name"], e["args"]["window"]))
    return doc, out


def json_case(prog, want, window, *opts, out=None):
    """want: rank -> its calls in order (arrivals left out)."""
    path = traced(prog, "json", *opts, out=out)
    if not os.path.exists(path):
        return None
    doc, got = lanes(path)
    for rank, calls in want.items():
        names = [n for n, _ in got.get(rank, []) if not n.endswith(" arrived")]
        expect(f"rank {rank}: events {names}, wanted {calls}", names == calls)
    wins = {w for evs in got.values() for _, w in evs}
    expect(f"windows {wins}, wanted {window!r}", wins == {window} if window else len(wins) == 1)
    expect(f"ranks in otherData: {doc.get('otherData')}", doc["otherData"]["ranks"] == 2)
    return doc


def svg_case(prog, words, *opts, flows=0, out=None):
    path = traced(prog, "svg", *opts, out=out)
    if not os.path.exists(path):
        return
    try:
        root = check_svg.check(path, min_flows=flows, nranks=2)
    except SystemExit:
        fails.append(f"{path}: check_svg failed (above)")
        return
    texts = " | ".join("".join(t.itertext()) for t in root.iter(check_svg.NS + "text"))
    for w in words:
        expect(f"the SVG does not say {w!r}: {texts}", w in texts)


FENCE = {0: ["MPI_Win_fence", "MPI_Put 1 @0 8B", "MPI_Win_fence"],
         1: ["MPI_Win_fence", "MPI_Win_fence"]}
PSCW = {0: ["MPI_Win_start {1}", "MPI_Put 1 @0 4B", "MPI_Win_complete {1}"],
        1: ["MPI_Win_post {0}", "MPI_Win_wait {0}"]}
LOCK = {0: ["MPI_Win_lock 1 excl", "MPI_Get 1 @0 4B", "MPI_Win_unlock 1"], 1: []}


def fence_json():  # "--" ends rmalab run's options (Hydra would refuse it)
    json_case("fence", FENCE, "halo", "--", out="got 3.5\n")


def fence_svg():
    svg_case("fence", ["halo", "MPI_Win_fence", "MPI_Put 1 @0 8B"], out="got 3.5\n")


def pscw_json():
    doc = json_case("pscw", PSCW, "exchange", out="got 42\n")
    if doc:  # the rma engine's post reached rank 0: an arrow from it
        flows = [e for e in doc["traceEvents"] if e["ph"] == "s"]
        expect(f"no post -> start arrow: {flows}",
               any(f["name"] == "post -> start" and f["pid"] == 1 for f in flows))


def pscw_svg():
    svg_case("pscw", ["exchange", "MPI_Win_post {0}", "MPI_Win_start {1}",
                      "MPI_Win_complete {1}", "MPI_Win_wait {0}", "MPI_Put 1 @0 4B"],
             flows=2, out="got 42\n")


def lock_json():  # --no-check: traced all the same
    json_case("lock", LOCK, None, "--no-check", out="got 7\n")


def lock_svg():
    svg_case("lock", ["MPI_Win_lock 1 excl", "MPI_Get 1 @0 4B", "MPI_Win_unlock 1"],
             "--no-check", out="got 7\n")


def bad_extension():
    path = os.path.join(work, "fence.txt")
    rc, out, err = run("fence", "--trace", path)
    expect(f"exit status {rc}, wanted 2", rc == 2)
    expect(f"the program ran: stdout {out!r}", out == "")
    expect(f"stderr does not name .json and .svg: {err!r}", ".json" in err and ".svg" in err)
    expect(f"{path} was written", not os.path.exists(path))
    p = subprocess.run([rmalab, "run", "-n", "2", "--trace"], capture_output=True, text=True,
                       timeout=30)
    rc, err = p.returncode, p.stderr
    expect(f"--trace without FILE: exit status {rc}, wanted 2: {err!r}",
           rc == 2 and "--trace needs a FILE" in err)
    path = os.path.join(work, "no-such-folder", "fence.json")
    rc, out, err = run("fence", "--trace", path)
    expect(f"a folder that does not exist: exit status {rc}, wanted 2", rc == 2)
    expect(f"a folder that does not exist: the program ran: stdout {out!r}", out == "")
    expect(f"a folder that does not exist: stderr does not say so: {err!r}",
           "cannot make a temporary folder" in err and "No such file" in err)


def dies():
    path = os.path.join(work, "dies.json")
    rc, out, err = run("dies", "--trace", path)
    expect(f"exit status {rc}, wanted non-zero", rc != 0)
    expect(f"stderr does not say no trace was written: {err!r}",
           f"rmalab run: no trace was written to {path}" in err)
    expect(f"{path} was written", not os.path.exists(path))
    expect(f"stderr shows a crash: {err!r}", "Segmentation" not in err and "Traceback" not in err)


CASES = {"fence-json": fence_json, "fence-svg": fence_svg, "pscw-json": pscw_json,
         "pscw-svg": pscw_svg, "lock-json": lock_json, "lock-svg": lock_svg,
         "bad-extension": bad_extension, "dies": dies}
CASES[case]()
if fails:
    print(f"cprog-trace-{case}: FAIL (files kept in {work})")
    for f in fails:
        print("  -", f)
    sys.exit(1)
subprocess.run(["rm", "-rf", work])
print(f"cprog-trace-{case}: ok")
