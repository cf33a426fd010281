#!/usr/bin/python3
"""scripts/README.md lists every lab in scripts/, a .lua file or a folder
(but lib/, written `name/`), and only those, in a table row of its own;
README.md, where it sends readers to that list, states no count of labs
but the number of labs.

    listed.py SOURCE_ROOT
"""
import glob
import os
import re
import sys

root = sys.argv[1]
scripts = os.path.join(root, 'scripts')
have = {os.path.basename(f) for f in glob.glob(os.path.join(scripts, '*.lua'))}
have |= {f + '/' for f in os.listdir(scripts)
         if f != 'lib' and os.path.isdir(os.path.join(scripts, f))}
table = open(os.path.join(scripts, 'README.md')).read()
rows = re.findall(r'^\| *\d+ *\| *`([^`]+\.lua|[^`/]+/)` *\|', table, re.M)
failed = []
for f in sorted(have - set(rows)):
    failed.append('scripts/%s is not in the table of scripts/README.md' % f)
for f in sorted(set(rows) - have):
    failed.append('scripts/README.md lists %s, which is not in scripts/' % f)
for f in sorted({r for r in rows if rows.count(r) > 1}):
    failed.append('scripts/README.md lists %s twice' % f)
words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten',
         'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen']
readme = open(os.path.join(root, 'README.md')).read()
# A count in a sentence that sends readers to scripts/README.md.
for m in re.finditer(r'\(scripts/README\.md\)[^.]*?\b(\d+|%s)\b' % '|'.join(words), readme, re.I):
    said = m.group(1).lower()
    n = int(said) if said.isdigit() else words.index(said)
    if n != len(have):
        failed.append('README.md says "%s", but scripts/ has %d labs' % (m.group(0), len(have)))
for f in failed:
    print('listed.py: FAIL: ' + f)
print('listed.py: %d labs in scripts/, %d rows in scripts/README.md' % (len(have), len(rows)))
sys.exit(1 if failed else 0)
