#!/usr/bin/env python3
"""A directory's C files call each other in one direction only.

usage: layers.py DIR HEADER PREFIX

The order is the list in the first comment of DIR/HEADER, one line per
level: " *   file.c [file.c ...]  what it does". A file may call functions
named PREFIX... that are defined in its own level or in levels above it,
never below. Every DIR/*.c must appear in the list. Prints each call that
breaks the order and exits 1 if there is any. The core (core/src,
win-private.h, rmalab_) and the Lua binding (lua, lrmalab.h, lrm_) use it."""
import pathlib
import re
import sys

src, header, prefix = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
note = (src / header).read_text()
head = note[: note.index("*/")]

level = {}
for n, line in enumerate(re.findall(r"^ \*   (\S+\.c(?: \S+\.c)*)", head, re.M)):
    for name in line.split():
        level[name] = n

files = sorted(p.name for p in src.glob("*.c"))
errors = [f"{f}: not in the order of {header}" for f in files if f not in level]

defined = {}
definition = re.compile(rf"^(?!static)[A-Za-z_][\w \*]*?\b({prefix}\w+)\([^;]*$", re.M)
for f in files:
    for name in definition.findall((src / f).read_text()):
        defined[name] = f

call = re.compile(rf"\b({prefix}\w+)\s*\(")
for f in files:
    text = re.sub(r"/\*.*?\*/", "", (src / f).read_text(), flags=re.S)
    for name in call.findall(text):
        owner = defined.get(name)
        if owner and owner != f and level.get(owner, -1) > level.get(f, -1):
            errors.append(f"{f}: calls {name} of {owner}, which comes after it")

for e in sorted(set(errors)):
    print(e)
print(f"{len(files)} files, {len(defined)} functions: "
      f"{'the order holds' if not errors else f'{len(set(errors))} calls break it'}")
sys.exit(1 if errors else 0)
