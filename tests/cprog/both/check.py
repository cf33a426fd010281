#!/usr/bin/python3
"""rmalab cc and rmalab run together (docs/c.md): races.c built with
`rmalab cc` and run with `rmalab run -n 2`. A racy case must print one
`race:` line at its access's FILE:LINE that names its operation's line, or
the other way round (a race on window memory is found at the target),
and end with status 1; "quiet" must print no report and end with 0, with
the same output as its plain mpicc build under mpiexec.

    check.py CASE RMALAB SOURCE_DIR"""
import os
import re
import subprocess
import sys
import tempfile

case, rmalab, src = sys.argv[1], sys.argv[2], sys.argv[3]
source = os.path.join(src, "races.c")


def line_of(mark):
    for n, text in enumerate(open(source), 1):
        if "/* %s */" % mark in text:
            return n
    sys.exit("races.c has no line marked %s" % mark)


with tempfile.TemporaryDirectory() as tmp:
    exe = os.path.join(tmp, "races")
    subprocess.run([rmalab, "cc", "-g", "-O1", source, "-o", exe], check=True)
    ran = subprocess.run([rmalab, "run", "-n", "2", exe, case], capture_output=True, text=True,
                         timeout=90)
    print(ran.stdout + ran.stderr)
    reports = re.findall(r"^(\S+?):(\d+): (race|error|warning): (.*)$", ran.stderr, re.M)
    if case == "quiet":
        plain = os.path.join(tmp, "plain")
        subprocess.run(["mpicc", "-g", source, "-o", plain], check=True)
        want = subprocess.run(["mpiexec", "-n", "2", plain, case], capture_output=True,
                              text=True, timeout=90).stdout
        ok = not reports and ran.returncode == 0 and sorted(ran.stdout.splitlines()) == \
            sorted(want.splitlines())
        sys.exit(0 if ok else "quiet: reports %s, status %d, output %r against %r"
                 % (reports, ran.returncode, ran.stdout, want))
    access, op = line_of(case + ": access"), line_of(case + ": op")
    races = [r for r in reports if r[2] == "race"]
    named = [r for r in races if r[0].endswith("races.c") and any(
        int(r[1]) == a and "races.c:%d" % b in r[3] for a, b in ((access, op), (op, access)))]
    if not named or len(races) != 1 or ran.returncode != 1:
        sys.exit("%s: want one race naming races.c:%d and races.c:%d and status 1; got %s, "
                 "status %d" % (case, access, op, races, ran.returncode))
