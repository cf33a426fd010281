#!/usr/bin/env python3
"""Run a command that runs tests/exit/lines.lua on N ranks and check its
stdout: every line whole (its rank's letter only, ending in "end"), each
rank's lines all there and in their order, and exit status 0.

usage: lines-whole.py N COUNT command [args...]"""
import re
import subprocess
import sys

ranks, count, cmd = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
out = subprocess.run(cmd, stdout=subprocess.PIPE, timeout=300).stdout.decode()
line_re = re.compile(r"^R(\d+) line (\d+)[ \t]([A-Z]*)[ \t]?end$")
bad, seen = [], {r: 0 for r in range(ranks)}
for text in out.splitlines():
    m = line_re.match(text)
    if not m or set(m.group(3)) - {chr(65 + int(m.group(1)) % 26)}:
        bad.append(text)
        continue
    r, i = int(m.group(1)), int(m.group(2))
    if seen.get(r, -1) + 1 != i:
        bad.append("out of order: " + text[:40])
    seen[r] = i
for text in bad[:5]:
    print("cut or mixed line (%d bytes): %s ... %s" % (len(text), text[:50], text[-50:]))
missing = {r: n for r, n in seen.items() if n != count}
print("%d lines, %d bad; last line of each rank: %s" % (len(out.splitlines()), len(bad), seen))
sys.exit(1 if bad or missing else 0)
