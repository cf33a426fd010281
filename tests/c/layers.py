#!/usr/bin/env python3
"""The core's files call each other in one direction only.

The order is the list at the top of core/src/win-private.h: a file may call
functions defined in its own line of that list or in lines above it, never
below. Every core/src/*.c file must appear in the list. Prints each call
that breaks the order and exits 1 if there is any."""
import pathlib
import re
import sys

src = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "core/src")
note = (src / "win-private.h").read_text()
head = note[: note.index("THE WINDOW.")]

level = {}
for n, line in enumerate(re.findall(r"^ \*   (\S+\.c(?: \S+\.c)*)", head, re.M)):
    for name in line.split():
        level[name] = n

files = sorted(p.name for p in src.glob("*.c"))
errors = [f"{f}: not in the order of win-private.h" for f in files if f not in level]

defined = {}
definition = re.compile(r"^(?!static)[A-Za-z_][\w \*]*?\b(rmalab_\w+)\([^;]*$", re.M)
for f in files:
    for name in definition.findall((src / f).read_text()):
        defined[name] = f

call = re.compile(r"\b(rmalab_\w+)\s*\(")
for f in files:
    text = re.sub(r"/\*.*?\*/", "", (src / f).read_text(), flags=re.S)
    for n, line in enumerate(text.split("\n"), 1):
        for name in call.findall(line):
            owner = defined.get(name)
            if owner and owner != f and level.get(owner, -1) > level.get(f, -1):
                errors.append(f"{f}: calls {name} of {owner}, which comes after it")

for e in sorted(set(errors)):
    print(e)
print(f"{len(files)} files, {len(defined)} functions: "
      f"{'the order holds' if not errors else f'{len(set(errors))} calls break it'}")
sys.exit(1 if errors else 0)
