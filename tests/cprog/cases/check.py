#!/usr/bin/python3
"""One case of our C race corpus (tests/cprog/cases, docs/c-measured.md): CASE.c is
built with `rmalab cc -g` (and -fopenmp when it has an OpenMP pragma) in a
temporary folder and run with `rmalab run -n N`, N from its header's
`ranks: N` line, and judged by its header's `verdict:` line:

- `race`: some `race:` line is at one of the two lines marked
  `/* RACE A */` and `/* RACE B */` and names the other as FILE:LINE, and
  the job ends with a non-zero status;
- `no race`: no `race:` and no `error:` line, and status 0.

A line marked `/* ERROR */` breaks a rule of MPI that MPICH does not
enforce (docs/c.md, "The reports"): `error:` lines must come at each
such line and at no other, and the job must end with a non-zero status,
whatever the verdict; the run goes on past it, so the verdict stands.

A `cflags:` line adds its options to the build (-O2: rmalab's gcc plugin
then takes checks out of loops); a `calls:` line names a function the
program must call (objdump -d), so that a case shows the plugin's work.

    check.py RMALAB CASE.c        judge one case
    check.py --listed FOLDER      every case's header is well formed and
                                  meson.build lists every case

Exit status 0: the verdict is right; 1: it is wrong (a known miss, a
`should_fail` test in meson.build, passes on 1 only); 99: the case could not
be judged (a bad header, a failed build, a run that did not end), which
meson counts as an error even for a `should_fail` test."""
import os
import re
import subprocess
import sys
import tempfile

WRONG, BROKEN = 1, 99
RUN_TIMEOUT = 60


def broken(why):
    print("check.py: cannot judge: " + why)
    sys.exit(BROKEN)


def header(path):
    """(racy, ranks, {mark: line}) from a case's source, or a reason it is
    malformed."""
    text = open(path).read()
    head = text.split("*/", 1)[0]
    verdict = re.search(r"^ \* verdict: (race|no race)$", head, re.M)
    ranks = re.search(r"^ \* ranks: ([2-4])$", head, re.M)
    if not verdict or not ranks:
        return "no ' * verdict: race|no race' or ' * ranks: 2-4' line in the header comment"
    marks = {}
    errors = set()
    for n, line in enumerate(text.splitlines(), 1):
        for m in re.findall(r"/\* RACE ([AB]) \*/", line):
            if m in marks:
                return "RACE %s marked twice" % m
            marks[m] = n
        if "/* ERROR */" in line:
            errors.add(n)
    racy = verdict.group(1) == "race"
    name_racy = path.endswith("-race.c")
    if racy != name_racy or not (name_racy or path.endswith("-norace.c")):
        return "the name must end in -race.c for 'race', -norace.c for 'no race'"
    if racy and sorted(marks) != ["A", "B"]:
        return "a racy case marks exactly one RACE A and one RACE B line"
    if not racy and marks:
        return "a race-free case marks no RACE line"
    return racy, int(ranks.group(1)), marks, errors


def judge_errors(errors, base, status, stderr):
    """None when the error: lines are those the ERROR marks ask for, else why not."""
    got = [(os.path.basename(f), int(n)) for f, n in
           re.findall(r"^(\S+?):(\d+): error: ", stderr, re.M)]
    want = [(base, n) for n in sorted(errors)]
    if sorted(set(got)) != want:
        return "error: lines at %s, expected some at each of %s and none elsewhere" % (got, want)
    if status == 0:
        return "an error: line came, but the job ended with status 0"
    return None


def judge(racy, marks, errors, base, status, stderr):
    """None when the verdict is right, else why not."""
    if errors:
        why = judge_errors(errors, base, status, stderr)
        if why:
            return why
        # judged as if they had not come: a race-free run then ends with 1,
        # the status errors give (cprog/report.h), and nothing else
        stderr = re.sub(r"^\S+?:\d+: error: .*\n?", "", stderr, flags=re.M)
        status = 0 if not racy and status == 1 else status
    reports = re.findall(r"^(\S+?):(\d+): (race|error): (.*)$", stderr, re.M)
    if not racy:
        if reports or status != 0:
            return "race-free, but %d race:/error: lines and status %d" % (len(reports), status)
        return None
    a, b = marks["A"], marks["B"]
    for f, line, kind, text in reports:
        if kind == "race" and os.path.basename(f) == base and any(
                int(line) == x and "%s:%d" % (base, y) in text for x, y in ((a, b), (b, a))):
            if status == 0:
                return "the race was reported, but the job ended with status 0"
            return None
    return "no race: line at %s:%d naming %s:%d, or the other way round (status %d)" % (
        base, a, base, b, status)


def called(exe, fn):
    """Whether exe's code has a call of fn (objdump's disassembly)."""
    dis = subprocess.run(["objdump", "-d", exe], capture_output=True, text=True).stdout
    return re.search(r"\bcall\s.*<%s(@plt)?>" % re.escape(fn), dis) is not None


def one(rmalab, path):
    got = header(path)
    if isinstance(got, str):
        broken("%s: %s" % (path, got))
    racy, ranks, marks, errors = got
    base = os.path.basename(path)
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, base[:-2])
        text = open(path).read()
        omp = ["-fopenmp"] if "#pragma omp" in text else []
        flags = re.search(r"^ \* cflags: (.*)$", text, re.M)
        flags = flags.group(1).split() if flags else []
        built = subprocess.run([rmalab, "cc", "-g"] + omp + flags + [path, "-o", exe],
                               capture_output=True, text=True)
        if built.returncode != 0:
            broken("rmalab cc failed:\n" + built.stdout + built.stderr)
        calls = re.search(r"^ \* calls: (.*)$", text, re.M)
        if calls and not called(exe, calls.group(1)):
            print("check.py: WRONG: %s: the program never calls %s" % (base, calls.group(1)))
            sys.exit(WRONG)
        try:
            ran = subprocess.run([rmalab, "run", "-n", str(ranks), exe], capture_output=True,
                                 text=True, timeout=RUN_TIMEOUT, cwd=tmp)
        except subprocess.TimeoutExpired:
            broken("rmalab run -n %d %s did not end within %d s" % (ranks, base, RUN_TIMEOUT))
    print("$ rmalab run -n %d %s   (status %d)\n%s%s" % (ranks, base, ran.returncode, ran.stdout,
                                                       ran.stderr))
    why = judge(racy, marks, errors, base, ran.returncode, ran.stderr)
    if why:
        print("check.py: WRONG: %s: %s" % (base, why))
        sys.exit(WRONG)
    print("check.py: right: %s: %s" % (base, "race found" if racy else "quiet"))


def listed(folder):
    cases = sorted(f for f in os.listdir(folder) if f.endswith(".c"))
    build = open(os.path.join(folder, "meson.build")).read()
    names = set(re.findall(r"'([a-z0-9-]+)'", build))
    fails = []
    for c in cases:
        got = header(os.path.join(folder, c))
        if isinstance(got, str):
            fails.append("%s: %s" % (c, got))
        if c[:-2] not in names:
            fails.append("%s: not listed in meson.build" % c)
    for n in sorted(names):
        if (n.endswith("-race") or n.endswith("-norace")) and n + ".c" not in cases:
            fails.append("meson.build lists %s, which has no %s.c" % (n, n))
    for f in fails:
        print("check.py: FAIL: " + f)
    racy = sum(1 for c in cases if c.endswith("-race.c"))
    print("check.py: %d cases, %d racy and %d race-free" % (len(cases), racy, len(cases) - racy))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--listed":
        listed(sys.argv[2])
    elif len(sys.argv) == 3:
        one(sys.argv[1], sys.argv[2])
    else:
        sys.exit(__doc__)
