#!/usr/bin/python3
"""The C race lab (scripts/c-race-lab/README.md) says what happens: heat.c,
built with `rmalab cc -g` and run with `rmalab run -n 2` from the top of
the tree, reports races only between its put and its stencil's load, each
`race:` line as the README quotes it, and ends with status 1; heat-fixed.c
is quiet, ends with 0, and prints what its plain mpicc build prints under
mpiexec, the answer the README quotes. Both plain builds run silently.

    c-race-lab.py RMALAB SOURCE_ROOT
"""
import os
import re
import subprocess
import sys
import tempfile

rmalab, root = os.path.abspath(sys.argv[1]), sys.argv[2]
os.chdir(root)
lab = 'scripts/c-race-lab'
readme = open(os.path.join(lab, 'README.md')).read()
failed = []


def line_of(path, text):
    for n, line in enumerate(open(path), 1):
        if text in line:
            return n
    sys.exit('c-race-lab.py: %s has no line with %r' % (path, text))


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
    print('$ %s   (status %d)\n%s%s' % (' '.join(cmd), p.returncode, p.stdout, p.stderr))
    return p


def reports(stderr, kinds='race|error|warning'):
    return re.findall(r'^\S+:\d+: (?:%s): .*$' % kinds, stderr, re.M)


with tempfile.TemporaryDirectory() as tmp:
    out = {}
    for prog in ('heat', 'heat-fixed'):
        src = '%s/%s.c' % (lab, prog)
        if 'rmalab cc -g %s -o build/%s' % (src, prog) not in readme:
            failed.append('README.md does not give the command that builds %s' % src)
        exe, plain = os.path.join(tmp, prog), os.path.join(tmp, prog + '-plain')
        for cmd in ([rmalab, 'cc', '-g', src, '-o', exe], ['mpicc', '-g', src, '-o', plain]):
            if subprocess.run(cmd).returncode != 0:
                sys.exit('c-race-lab.py: %s failed' % ' '.join(cmd))
        out[prog] = run([rmalab, 'run', '-n', '2', exe]), run(['mpiexec', '-n', '2', plain])

    checked, plain = out['heat']
    put = line_of(lab + '/heat.c', 'MPI_Put(')
    load = line_of(lab + '/heat.c', 'next[i] = u[i]')
    src = lab + '/heat.c'
    races = reports(checked.stderr, 'race')
    pair = ('%s:%d: race: ' % (src, load), '%s:%d' % (src, put))
    pair_back = ('%s:%d: race: ' % (src, put), '%s:%d' % (src, load))
    if checked.returncode != 1 or not races or len(reports(checked.stderr)) != len(races):
        failed.append('heat.c: want race: lines only and status 1')
    for r in races:
        if not any(r.startswith(a) and b in r for a, b in (pair, pair_back)):
            failed.append('heat.c: a race not between lines %d and %d: %s' % (put, load, r))
        if r not in readme:
            failed.append('README.md does not quote the report %r' % r)
    if plain.returncode != 0 or plain.stderr:
        failed.append('heat.c: its mpicc build under mpiexec is not silent')

    checked, plain = out['heat-fixed']
    if checked.returncode != 0 or reports(checked.stderr):
        failed.append('heat-fixed.c: want no report and status 0')
    if checked.stdout != plain.stdout or plain.returncode != 0:
        failed.append('heat-fixed.c: prints %r under rmalab run, %r under mpiexec'
                      % (checked.stdout, plain.stdout))
    if not checked.stdout.strip() or checked.stdout.strip() not in readme:
        failed.append('README.md does not quote heat-fixed\'s answer %r' % checked.stdout)

for f in failed:
    print('c-race-lab.py: FAIL: ' + f)
sys.exit(1 if failed else 0)
