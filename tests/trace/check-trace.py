#!/usr/bin/env python3
"""Run a script with `rmalab --trace` and check what it wrote (issue 11).

    check-trace.py RMALAB N SCRIPT [--min-flows K] [--svg] [-e] [-- mpiexec options]

The JSON must load, carry the fields Perfetto needs (ph, name, pid, tid,
ts; dur for slices), have one track per rank (a pid per rank, one tid
each, named), and every flow must have one start and one end, each bound
to a slice or instant of its rank, the end no earlier than the start less
the clock uncertainty the file reports. With --svg the script runs again
and writes an SVG through rmalab.trace.svg, which must pass check_svg.py:
a lane per rank, a legend, an arrow per flow of its set and per operation,
none across a box.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_svg as check_svg_py  # noqa: E402

HAIR = 0.002  # us: flow ends sit a nanosecond inside their slice


def fail(msg):
    print("check-trace: FAIL:", msg)
    sys.exit(1)


def run(cmd, env=None):
    print("$", " ".join(cmd), flush=True)
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=240)
    print(p.stdout)
    if p.returncode != 0:
        fail(f"exit status {p.returncode}")


def enclosing(slices, pid, ts):
    return any(s["pid"] == pid and s["ts"] - HAIR <= ts <= s["ts"] + s.get("dur", 0) + HAIR
               for s in slices)


def check_json(path, nranks, min_flows):
    with open(path) as f:
        doc = json.load(f)
    events = doc.get("traceEvents")
    if not isinstance(events, list) or not events:
        fail("no traceEvents")
    unc = doc["otherData"]["clock_uncertainty_us"]
    for e in events:
        for k in ("ph", "name", "pid", "tid"):
            if k not in e:
                fail(f"an event without {k}: {e}")
        if e["ph"] != "M" and not isinstance(e.get("ts"), (int, float)):
            fail(f"an event without ts: {e}")
        if e["ph"] == "X" and not (isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0):
            fail(f"a slice without a duration: {e}")
    slices = [e for e in events if e["ph"] in ("X", "i")]
    pids = sorted({e["pid"] for e in slices})
    if pids != list(range(nranks)):
        fail(f"tracks {pids}, expected one per rank 0..{nranks - 1}")
    for p in pids:
        tids = {e["tid"] for e in slices if e["pid"] == p}
        if len(tids) != 1:
            fail(f"rank {p} has {len(tids)} tracks")
    named = {e["pid"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    if named != set(pids):
        fail("a rank's track has no name")
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    ends = {e["id"]: e for e in events if e["ph"] == "f"}
    if set(starts) != set(ends):
        fail("a flow without both ends")
    for i, s in starts.items():
        f = ends[i]
        if f.get("bp") != "e" or s["name"] != f["name"] or s["cat"] != f["cat"]:
            fail(f"flow {i} is not bound the same at both ends")
        if f["ts"] < s["ts"] - unc - HAIR:
            fail(f"flow {i} ({s['name']}) ends at {f['ts']} before it starts at {s['ts']} "
                 f"(uncertainty {unc} us)")
        if not enclosing(slices, s["pid"], s["ts"]) or not enclosing(slices, f["pid"], f["ts"]):
            fail(f"flow {i} is not inside a slice of its rank")
    if len(starts) < min_flows:
        fail(f"{len(starts)} flows, expected at least {min_flows}")
    print(f"check-trace: {len(slices)} events on {nranks} tracks, {len(starts)} flows, "
          f"clocks within {unc} us: the JSON holds")


def check_svg(path, nranks, min_flows):
    # the lanes, the legend, the groups, the data arrows, no arrow across a box
    check_svg_py.check(path, min_flows=min_flows, nranks=nranks)


def main():
    args = sys.argv[1:]
    mpi = []
    if "--" in args:
        mpi = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    min_flows, svg = 1, False
    if "--min-flows" in args:
        k = args.index("--min-flows")
        min_flows = int(args[k + 1])
        del args[k:k + 2]
    if "--svg" in args:
        args.remove("--svg")
        svg = True
    chunk = "-e" in args  # run the script as rmalab --trace FILE -e 'dofile(...)'
    if chunk:
        args.remove("-e")
    rmalab, n, script = args[0], int(args[1]), args[2]
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "trace.json")
        what = ["-e", f"dofile([[{script}]])"] if chunk else [script]
        run([rmalab, "-n", str(n)] + mpi + ["--trace", out] + what)
        check_json(out, n, min_flows)
        if svg:
            pic = os.path.join(d, "trace.svg")
            env = dict(os.environ, RMALAB_TRACE="1")
            run([rmalab, "-n", str(n)] + mpi +
                ["-e", f"dofile([[{script}]]) rmalab.trace.svg([[{pic}]])"], env)
            check_svg(pic, n, min_flows)


main()
