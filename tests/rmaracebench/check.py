#!/usr/bin/python3
"""RMARaceBench's MPI RMA cases under `rmalab cc` and `rmalab run`.

    tests/rmaracebench/check.py build/repl/rmalab [REPO] [--only SUBSTRING] [--timeout S]
    tests/rmaracebench/check.py build/repl/rmalab CASE.c

REPO holds RMARaceBench's MPIRMA folder: by default this folder, which
carries the 125 MPI RMA cases of 1.2.0 (488075f) under their BSD licence
(LICENSE). Each case is built with `rmalab cc -fopenmp -g` and run with
`rmalab run -n NPROCS`, NPROCS being its label's, with 2 OpenMP threads.
The verdicts follow the benchmark's own rule (util/run_test.py): a racy
case is found (TP) when the output has a `race:` line and names both lines
of its RACE_PAIR as BASENAME:LINE; a race-free case is right (TN) when no
`race:` line is printed. A case that does not end in its time is counted
apart (timeout), whatever its label. With a REPO: a table per category and
the cases that went wrong. With one CASE.c (the tests): its verdict, and
status 0 when it is TP or TN, 1 when FN or FP, 99 when it could not be
judged (build failed, timeout); a racy hybrid case gets HYBRID_RUNS runs."""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

CATEGORIES = ["atomic", "conflict", "sync", "misc", "hybrid"]


def labels(path):
    text = open(path).read()
    body = text.split("// RACE LABELS BEGIN\n/*")[1].split("*/\n// RACE LABELS END")[0]
    return json.loads(body)


def run_case(rmalab, path, tmp, timeout):
    lab = labels(path)
    base = os.path.basename(path)
    exe = os.path.join(tmp, base[:-2])
    built = subprocess.run([rmalab, "cc", "-fopenmp", "-g", path, "-o", exe],
                           capture_output=True, text=True)
    if built.returncode != 0:
        return "build", built.stderr[-2000:], 0.0
    t0 = time.monotonic()
    try:
        ran = subprocess.run([rmalab, "run", "-n", str(lab["NPROCS"]), exe], capture_output=True,
                             text=True, timeout=timeout, cwd=tmp,
                             env=dict(os.environ, OMP_NUM_THREADS="2"))
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") + (e.stderr or b"").decode(errors="replace")
        return "timeout", out[-2000:], time.monotonic() - t0
    secs = time.monotonic() - t0
    out = ran.stdout + ran.stderr
    raced = re.search(r"^\S+:\d+: race: ", out, re.M) is not None
    if "RACE_PAIR" in lab:
        lines = [p.split("@")[1] for p in lab["RACE_PAIR"]]
        named = all("%s:%s" % (base, n) in out for n in lines)
        verdict = "TP" if raced and named else "FN"
    else:
        verdict = "FP" if raced else "TN"
    return verdict, out[-2000:], secs


# A racy hybrid case (the tests) gets up to this many runs, and is found
# when one of them finds it. It was 3 while hybrid/006 was missed in about
# 1 run of 10 under load: a thread of the team that began after the other
# thread's unlock was not counted (cprog/threads.c now counts it as
# knowing what its fork gave it; docs/c-measured.md). Every run of a
# race-free case must stay quiet, and the table is one run each.
HYBRID_RUNS = 1


def one(rmalab, path, timeout):
    runs = HYBRID_RUNS if "/hybrid/" in path and "RACE_PAIR" in labels(path) else 1
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(1, runs + 1):
            verdict, out, secs = run_case(rmalab, path, tmp, timeout)
            if verdict != "FN" or run == runs:
                break
            print("%s: FN in run %d of %d" % (path, run, runs))
    print(out.strip())
    print("%s: %s (%.1f s)" % (path, verdict, secs))
    if verdict in ("TP", "TN"):
        return 0
    return 1 if verdict in ("FN", "FP") else 99


def main():
    args = sys.argv[1:]
    only, timeout = None, 60.0
    if "--only" in args:
        i = args.index("--only")
        only = args[i + 1]
        del args[i:i + 2]
    if "--timeout" in args:
        i = args.index("--timeout")
        timeout = float(args[i + 1])
        del args[i:i + 2]
    if len(args) not in (1, 2):
        sys.exit(__doc__)
    rmalab = os.path.abspath(args[0])
    repo = args[1] if len(args) == 2 else os.path.dirname(os.path.abspath(__file__))
    if repo.endswith(".c"):
        sys.exit(one(rmalab, repo, timeout))
    root = os.path.join(repo, "MPIRMA")
    if not os.path.isdir(root):
        sys.exit("%s: no MPIRMA folder: give a checkout of RMARaceBench" % repo)
    table, wrong = {}, []
    with tempfile.TemporaryDirectory() as tmp:
        for cat in CATEGORIES:
            for name in sorted(os.listdir(os.path.join(root, cat))):
                path = os.path.join(root, cat, name)
                if not name.endswith(".c") or (only and only not in path):
                    continue
                verdict, out, secs = run_case(rmalab, path, tmp, timeout)
                print("%-55s %-7s %5.1f s" % (cat + "/" + name, verdict, secs), flush=True)
                row = table.setdefault(cat, {})
                row[verdict] = row.get(verdict, 0) + 1
                if verdict not in ("TP", "TN"):
                    wrong.append((cat + "/" + name, verdict, out))
    cols = ["TP", "FN", "TN", "FP", "timeout", "build"]
    print("\n%-10s" % "category" + "".join("%8s" % c for c in cols))
    total = {}
    for cat in CATEGORIES:
        if cat in table:
            print("%-10s" % cat + "".join("%8d" % table[cat].get(c, 0) for c in cols))
            for c in cols:
                total[c] = total.get(c, 0) + table[cat].get(c, 0)
    print("%-10s" % "all" + "".join("%8d" % total.get(c, 0) for c in cols))
    for name, verdict, out in wrong:
        print("\n--- %s: %s\n%s" % (name, verdict, out.strip()))


if __name__ == "__main__":
    main()
