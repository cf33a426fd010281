#!/usr/bin/python3
"""MPICH's own RMA tests under rmalab (docs/c-measured.md, "MPICH's RMA tests"):
correct programs that nobody here wrote stay quiet. Each test listed in
testlist (a selection of MPICH 4.0.2's test/mpi/rma, copied into rma/ with
MPICH's COPYRIGHT beside it) is built with `rmalab cc -g -O2` against
MPICH's test utility (util/, include/) in a temporary folder, and run with
`rmalab run -n N` as MPICH's runtests runs it. A test passes when:

- the job ends with status 0 within the time limit;
- its output is " No Errors" and nothing else, as runtests wants;
- rmalab says nothing: no `error:`, `race:` or `warning:` line but the
  true ones listed in EXPECTED (a report MPICH's code earns).

    check.py RMALAB FOLDER [NAME...]

prints one line per test and the count; exit status 0 when every test
passed, 1 when one failed, 99 when one could not be built."""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

BROKEN = 99
# True reports: MPICH's util/mtest.c (MTestGetWin, the fourth window) sets
# the hint "nolocks", which no MPI version defines (MPI's is "no_locks"):
# the hint is ignored, plain MPICH says nothing, rmalab warns.
EXPECTED = [r"^\S*mtest\.c:\d+: warning: MPI_Win_create: nolocks: unknown hint; "
            r"did you mean no_locks\?$"]
REPORT = re.compile(r"^\S+:\d+: (error|race|warning): ", re.M)


def tests(folder):
    """(name, ranks, source, cppflags, args) per line of testlist."""
    out = []
    for line in open(os.path.join(folder, "testlist")):
        words = line.split("#", 1)[0].split()
        if words:
            name, ranks, source = words[:3]
            rest = words[3:]
            out.append((name, int(ranks), source, [w for w in rest if w.startswith("-D")],
                        [w[4:] for w in rest if w.startswith("arg=")]))
    return out


def cc(rmalab, folder, args):
    """None, or why rmalab cc failed."""
    cmd = [rmalab, "cc", "-g", "-O2", "-w", "-I" + os.path.join(folder, "include")] + args
    r = subprocess.run(cmd, capture_output=True, text=True)
    return "%s\n%s%s" % (" ".join(cmd), r.stdout, r.stderr) if r.returncode else None


def run(cmd, cwd, timeout):
    """(status or None when it did not end, stdout, stderr, seconds); a job
    that does not end is ended as a whole (rmalab run passes SIGTERM on)."""
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=cwd, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err, time.time() - t0
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGTERM)
        try:
            out, err = p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
        return None, out, err, time.time() - t0


def judge(status, out, err, timeout):
    """None when the test passed, else why not."""
    unexpected = [l for l in err.splitlines() if REPORT.match(l)
                  and not any(re.match(e, l) for e in EXPECTED)]
    if status is None:
        return "did not end within %d s" % timeout
    if unexpected:
        return "rmalab reported: " + " | ".join(unexpected)
    if status != 0:
        return "exit status %d" % status
    if out.strip() != "No Errors":
        return "output is not ' No Errors': %r" % out[-300:]
    return None


def main():
    rmalab, folder = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    only = set(sys.argv[3:])
    chosen = [t for t in tests(folder) if not only or t[0] in only]
    timeout = int(os.environ.get("MPICH_TEST_TIMEOUT", "60"))
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        util = [os.path.join(tmp, u + ".o") for u in ("mtest", "mtest_common", "mtest_single")]
        jobs = [["-c", os.path.join(folder, "util", os.path.basename(o)[:-2] + ".c"), "-o", o]
                for o in util]
        with ThreadPoolExecutor(2) as pool:  # the builds two at a time, then the runs
            built = list(pool.map(lambda a: cc(rmalab, folder, a), jobs))
            if not any(built):
                once = {t[0]: t for t in chosen}.values()  # a name with several arg= lines
                built = list(pool.map(lambda t: cc(rmalab, folder, t[3] + [
                    os.path.join(folder, "rma", t[2])] + util + ["-lm", "-o",
                                                                 os.path.join(tmp, t[0])]), once))
        if any(built):
            print("check.py: cannot build: " + next(b for b in built if b))
            sys.exit(BROKEN)
        for name, ranks, source, flags, args in chosen:
            status, out, err, took = run([rmalab, "run", "-n", str(ranks), os.path.join(tmp, name)]
                                         + args, tmp, timeout)
            why = judge(status, out, err, timeout)
            failed += why is not None
            print("%s %s -n %d%s (%.1f s)%s" % ("FAIL" if why else "ok  ", name, ranks,
                                              "".join(" " + a for a in args), took,
                                              ": " + why if why else ""), flush=True)
            if why:
                print("  stdout: %r\n  stderr: %r" % (out[-2000:], err[-2000:]))
    print("check.py: %d of %d MPICH RMA tests passed, quiet" % (len(chosen) - failed,
                                                                 len(chosen)))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
