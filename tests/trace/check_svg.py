#!/usr/bin/env python3
"""Check an SVG that rl.trace.svg drew (docs/trace.md), or the golden ones.

    check_svg.py FILE.svg [--groups N] [--min-flows K]
    check_svg.py --golden RMALAB DIR [--update]

A picture must have: a lane per rank, a legend naming the arrows, a
separator and a title per epoch group (--groups: exactly N), an arrow per
operation's data (one per put, get, accumulate... label), at least K
synchronisation arrows, and no arrow that crosses a box other than the
ones it starts and ends at (each segment of each arrow against each box).

--golden draws the saved traces DIR/pscw-example-set.lua (in both scales)
and DIR/mixed-set.lua through DIR/svg-golden.lua, checks them as above
(and that a get's arrow points back, a put's to the target), and compares
each byte for byte with its golden copy in DIR (--update rewrites those).
check-trace.py uses check() on the SVG of a real run.
"""
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
# An operation's label: Lua's names, or the C calls (rmalab run --trace).
OPS = re.compile(r"(put|get|accumulate|get_accumulate|fetch_and_op|compare_and_swap|MPI_Put|"
                 r"MPI_Get|MPI_Accumulate|MPI_Get_accumulate|MPI_Fetch_and_op|"
                 r"MPI_Compare_and_swap) \d+ @\d+ \d+B")
EPS = 0.5  # px: a segment may touch a box's edge


def fail(msg):
    print("check-svg: FAIL:", msg)
    sys.exit(1)


def points(el):
    return [tuple(float(v) for v in p.split(",")) for p in el.get("points").split()]


def crosses(p, q, box):
    """Whether segment p-q passes through the inside of box (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = box[0] + EPS, box[1] + EPS, box[2] - EPS, box[3] - EPS
    if x0 >= x1 or y0 >= y1:
        return False
    t0, t1 = 0.0, 1.0
    dx, dy = q[0] - p[0], q[1] - p[1]
    for d, lo, hi, s in ((dx, x0, x1, p[0]), (dy, y0, y1, p[1])):
        if d == 0:
            if not lo < s < hi:
                return False
            continue
        a, b = (lo - s) / d, (hi - s) / d
        if a > b:
            a, b = b, a
        t0, t1 = max(t0, a), min(t1, b)
        if t0 >= t1:
            return False
    return True


def inside(pt, box):
    return box[0] - EPS <= pt[0] <= box[2] + EPS and box[1] - EPS <= pt[1] <= box[3] + EPS


def check(path, groups=None, min_flows=0, nranks=None):
    root = ET.parse(path).getroot()
    if root.tag != NS + "svg":
        fail(f"{path}: the root is {root.tag}")
    texts = ["".join(t.itertext()) for t in root.iter(NS + "text")]
    lanes = [t for t in texts if re.fullmatch(r"rank \d+", t)]
    if nranks is not None and lanes != [f"rank {r}" for r in range(nranks)]:
        fail(f"{path}: lanes {lanes}, expected one per rank 0..{nranks - 1}")
    legend = [r for r in root.iter(NS + "rect") if r.get("class") == "legend"]
    for words in ("a call from its start to its return", "post \u2192", "complete \u2192",
                  "data: put \u2192 target"):
        if not legend or not any(words in t for t in texts):
            fail(f"{path}: the legend does not say {words!r}")
    seps = [l for l in root.iter(NS + "line") if l.get("class") == "separator"]
    titles = [t for t in root.iter(NS + "text") if t.get("class") == "group"]
    if len(seps) != len(titles) or not seps or (groups is not None and len(seps) != groups):
        fail(f"{path}: {len(seps)} separators and {len(titles)} group titles, "
             f"expected {groups if groups is not None else 'one each per group'}")
    boxes = {}
    for r in root.iter(NS + "rect"):
        if r.get("class") == "call":
            x, y = float(r.get("x")), float(r.get("y"))
            boxes[r.get("data-event")] = (x, y, x + float(r.get("width")),
                                          y + float(r.get("height")))
    arrows = [p for p in root.iter(NS + "polyline") if (p.get("class") or "").startswith("arrow")]
    data = [a for a in arrows if a.get("class") == "arrow data"]
    ops = sum(1 for t in texts if OPS.fullmatch(t))
    if len(data) != ops:
        fail(f"{path}: {len(data)} data arrows for {ops} operations")
    for a in data:  # the head where the data goes: the target, or back for a get
        want = {"get": (True, False), "put": (False, True), "accumulate": (False, True)}
        heads = (a.get("marker-start") is not None, a.get("marker-end") is not None)
        if heads != want.get(a.get("data-op"), (True, True)):
            fail(f"{path}: the {a.get('data-op')} arrow from event {a.get('data-from')} has "
                 f"heads (start, end) {heads}")
    dots = [c for c in root.iter(NS + "circle") if c.get("class") == "arrival"]
    if dots and not any("seen arriving" in t for t in texts):
        fail(f"{path}: arrivals, and the legend does not say what a dot is")
    flows = len(arrows) - len(data)
    if flows < min_flows:
        fail(f"{path}: {flows} synchronisation arrows, expected at least {min_flows}")
    for a in arrows:
        pts = points(a)
        own = {a.get("data-from"), a.get("data-to")}
        own |= {k for k, b in boxes.items() if inside(pts[-1], b) or inside(pts[0], b)}
        for p, q in zip(pts, pts[1:]):
            for k, b in boxes.items():
                if k not in own and crosses(p, q, b):
                    fail(f"{path}: the {a.get('class')} arrow from event {a.get('data-from')} "
                         f"crosses the box of event {k}: segment {p}-{q}, box {b}")
    print(f"check-svg: {path}: {len(lanes)} lanes, a legend, {len(seps)} groups, "
          f"{len(data)} data arrows, {flows} other arrows, none crosses a box")
    return root


def golden(rmalab, here, update):
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([rmalab, "-n", "1", os.path.join(here, "svg-golden.lua"), here, d],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=120)
        print(p.stdout)
        if p.returncode != 0:
            fail(f"svg-golden.lua: exit status {p.returncode}")
        for name, groups, flows, ranks in (("pscw-example-order.svg", 2, 12, 4),
                                           ("pscw-example-time.svg", 2, 12, 4),
                                           ("mixed-order.svg", 3, 2, 2)):
            new = os.path.join(d, name)
            check(new, groups=groups, min_flows=flows, nranks=ranks)
            with open(new, "rb") as f:
                text = f.read()
            gold = os.path.join(here, name)
            if update:
                with open(gold, "wb") as f:
                    f.write(text)
                print(f"check-svg: wrote {gold}")
                continue
            with open(gold, "rb") as f:
                if f.read() != text:
                    subprocess.run(["diff", "-u", gold, new])
                    fail(f"{name} differs from its golden copy (check_svg.py --golden "
                         f"RMALAB DIR --update rewrites it, after a look at the picture)")
            print(f"check-svg: {name} is the golden copy")


def main():
    args = sys.argv[1:]
    if args and args[0] == "--golden":
        golden(args[1], args[2], "--update" in args)
        return
    groups = min_flows = None
    if "--groups" in args:
        groups = int(args[args.index("--groups") + 1])
    if "--min-flows" in args:
        min_flows = int(args[args.index("--min-flows") + 1])
    check(args[0], groups, min_flows or 0)


if __name__ == "__main__":
    main()
