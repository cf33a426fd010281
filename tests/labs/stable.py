#!/usr/bin/python3
"""A lab prints the same text in the same order on every run.

    stable.py RMALAB SCRIPT [--runs N] [--expect TEXT]... [--reject TEXT]...

Runs `RMALAB -n R SCRIPT` N times (2 by default; R is the script's
`-- ranks: R` header) and fails unless the outputs, stdout and stderr each,
are byte-identical once the lab's measured figures are normalised, and
that it writes nothing on stderr (on a terminal, stderr and stdout
interleave in another order on every run: a lab prints on stdout, rank 0
for every rank).

Measured figures are the only thing normalised, and each is listed below by
lab: a time, a rate, a tally of a race's outcomes, the order in which ranks
left a call. Each pattern's groups are replaced by '#'. A number a lab
prints that is not listed here must come out the same on every run.
--expect TEXT: TEXT must occur in the output (what a lab explains);
--reject TEXT: TEXT must not (a key or value a lab must not show).
"""
import os
import re
import subprocess
import sys

TIME = r'(\d+\.\d+)'

# Per lab: patterns whose groups are measurements. Trace timelines
# (rl.trace.timeline) are measured as a whole: see TIMELINE.
MEASURED = {
    'pscw-lab': [TIME + r' us per epoch'],
    'pscw-example': [r'returned at ' + TIME + r' s'],
    'ring': [r'left wait\(\) in the order ([0-9 ]+)$',
             r'put 1 then 2 left (\d+) \(not promised\)'],
    'race': [r'epochs +(\d+) +(\d+) +(\d+)$',
             r'^This run: (\d+) of the \d+ rows had more than one outcome; mixed epochs: (\d+)'],
    'weak-sync': [TIME + r' s\b', r'measured: the origin blocked in (.*)$'],
    'patterns': [TIME + r' us per lock'],
    'halo': [r'^   (?:pscw, rma|pscw, native|fence|lock\+barrier|one rank alone)'
             r'(?: +' + TIME + r')(?: +' + TIME + r')?(?: +' + TIME + r')?(?: +' + TIME + r'x)?'],
}

# A timeline's header ("trace of W (engine): N ranks, clocks within X ms")
# begins a block that ends at the first blank line. Its rows are ordered by
# measured time, so ranks' rows that happen close together may swap: the
# block is normalised to its rows' text without numbers, units of time or
# padding, sorted.
TIMELINE = re.compile(r'^trace of .*: \d+ ranks')


def timeline_row(line):
    line = re.sub(r'\d+(\.\d+)?( ?(ms|us|s)\b)?', '#', line)
    return re.sub(r'\s+', ' ', line).strip()


def normalise_line(lab, line):
    for pat in MEASURED.get(lab, []):
        def blank(m):
            s, base, parts, pos = m.group(0), m.start(0), [], 0
            for g in range(1, m.re.groups + 1):
                if m.start(g) >= 0:
                    parts += [s[pos:m.start(g) - base], '#']
                    pos = m.end(g) - base
            return ''.join(parts) + s[pos:]
        new = re.sub(pat, blank, line)
        if new != line:   # a column padded to the figure's width: widths are measured too
            line = re.sub(r' {2,}', '  ', new)
    return line


def normalise(lab, text):
    out, block = [], None
    for line in text.split('\n'):
        if block is not None:
            if line.strip() == '':
                out.extend(sorted(block))
                block = None
            else:
                block.append(timeline_row(line))
                continue
        if TIMELINE.match(line):
            block = []
            out.append(timeline_row(line))
            continue
        out.append(normalise_line(lab, line))
    if block is not None:
        out.extend(sorted(block))
    return '\n'.join(out)


def ranks_of(script):
    with open(script) as f:
        for i, line in enumerate(f):
            m = re.match(r'--\s*ranks:\s*(\d+)', line)
            if m:
                return m.group(1)
            if i > 20:
                break
    sys.exit('stable.py: %s has no "-- ranks: N" header' % script)


def run(cmd):
    """The lab's run, for at most 120 s. A run that hangs gets SIGTERM, on
    which rmalab ends mpiexec and its ranks, and the test fails; a SIGKILL
    (subprocess.run's timeout) left the ranks running for minutes after."""
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as p:
        try:
            out, err = p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            p.terminate()
            out, err = p.communicate(timeout=30)
            print(out, err)
            sys.exit('stable.py: %s did not end within 120 s' % ' '.join(cmd))
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)


def main():
    rmalab, script = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[sys.argv.index('--runs') + 1]) if '--runs' in sys.argv else 2
    expect = [sys.argv[i + 1] for i, a in enumerate(sys.argv) if a == '--expect']
    reject = [sys.argv[i + 1] for i, a in enumerate(sys.argv) if a == '--reject']
    lab = os.path.basename(script)[:-4]
    cmd = [rmalab, '-n', ranks_of(script), script]
    seen = []
    for i in range(runs):
        p = run(cmd)
        if p.returncode != 0:
            print(p.stdout, p.stderr)
            sys.exit('stable.py: run %d of %s exited %d' % (i + 1, lab, p.returncode))
        seen.append((normalise(lab, p.stdout), normalise(lab, p.stderr)))
        if p.stderr:
            print(p.stdout, p.stderr)
            sys.exit('stable.py: %s wrote on stderr in run %d' % (lab, i + 1))
        missing = [t for t in expect if t not in p.stdout]
        if missing:
            print(p.stdout)
            sys.exit('stable.py: %s printed none of: %s' % (lab, missing))
        shown = [t for t in reject if t in p.stdout]
        if shown:
            print(p.stdout)
            sys.exit('stable.py: %s printed: %s' % (lab, shown))
    first = seen[0]
    print(first[0])
    for i, other in enumerate(seen[1:], 2):
        for name, a, b in (('stdout', first[0], other[0]), ('stderr', first[1], other[1])):
            if a != b:
                import difflib
                sys.stdout.writelines(difflib.unified_diff(
                    a.splitlines(True), b.splitlines(True), 'run 1 ' + name, 'run %d %s' % (i, name)))
                sys.exit('stable.py: %s printed differently in run 1 and run %d (%s)' % (lab, i, name))
    print('stable.py: %s printed the same in %d runs' % (lab, runs))


if __name__ == '__main__':
    main()
