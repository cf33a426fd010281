#!/usr/bin/python3
"""Every lab, run on a rank count it is not written for, says so, names the
command that runs it, `build/repl/rmalab -n N scripts/X.lua` with N its
`-- ranks: N` header, the same command scripts/README.md lists, and ends
with exit status 1, without an MPI abort (issue 42: it exited 0, as if
the lab had run). The command works: pscw-lab's is run.

    wrong-ranks.py RMALAB SOURCE_ROOT
"""
import glob
import os
import re
import subprocess
import sys

rmalab, root = sys.argv[1], sys.argv[2]
os.chdir(root)
listed = open('scripts/README.md').read()
failed = []
for script in sorted(glob.glob('scripts/*.lua')):
    head = open(script).read(2000)
    n = re.search(r'^-- ranks: (\d+)', head, re.M).group(1)
    want = 'build/repl/rmalab -n %s %s' % (n, script)
    p = subprocess.run([rmalab, '-n', '1', script], capture_output=True, text=True, timeout=60)
    out = p.stdout + p.stderr
    print('$ rmalab -n 1 %s\n%s' % (script, out), end='')
    why = []
    if p.returncode != 1:
        why.append('exit status %d, not 1' % p.returncode)
    if re.search(r'Abort|BAD TERMINATION|Caught signal|without MPI_Finalize', out):
        why.append('the job did not end cleanly')
    if not re.search(r'^(\[0\] )?this lab is written for %s ranks.*, not 1: %s$' % (n, re.escape(want)),
                     out, re.M):
        why.append('no "this lab is written for %s ranks ..., not 1: %s"' % (n, want))
    if 'lua5.4' in out or 'mpiexec' in out:
        why.append('suggests lua5.4 or mpiexec, which cannot find the module uninstalled')
    if '`%s`' % want not in listed:
        why.append('scripts/README.md does not list `%s`' % want)
    if why:
        failed.append('%s: %s' % (script, '; '.join(why)))

# The suggested line runs the lab (with the rmalab under test, when this
# build is not the tree's build/).
cmd = 'build/repl/rmalab -n 2 scripts/pscw-lab.lua'.split()
if not os.path.exists(cmd[0]):
    cmd[0] = rmalab
p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
if p.returncode != 0 or 'this lab is written for' in p.stdout:
    failed.append('%s: exit %d\n%s%s' % (' '.join(cmd), p.returncode, p.stdout, p.stderr))

for f in failed:
    print('wrong-ranks.py: FAIL: ' + f)
sys.exit(1 if failed else 0)
