#!/usr/bin/env python3
"""The Lua binding's files call each other in one direction only.

The order is the list at the top of lua/lrmalab.h: a file may call lrm_
functions defined in its own file or in files listed above it, never below.
Every lua/*.c file must appear in the list. Prints each call that breaks the
order and exits 1 if there is any."""
import pathlib
import re
import sys

src = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "lua")
header = (src / "lrmalab.h").read_text()
head = header[: header.index("*/")]

level = {}
for n, name in enumerate(re.findall(r"^ \*   (\S+\.c)\b", head, re.M)):
    level[name] = n

files = sorted(p.name for p in src.glob("*.c"))
errors = [f"{f}: not in the order of lrmalab.h" for f in files if f not in level]

defined = {}
definition = re.compile(r"^(?!static)[A-Za-z_][\w \*]*?\b(lrm_\w+)\([^;]*$", re.M)
for f in files:
    for name in definition.findall((src / f).read_text()):
        defined[name] = f

call = re.compile(r"\b(lrm_\w+)\s*\(")
for f in files:
    text = re.sub(r"/\*.*?\*/", "", (src / f).read_text(), flags=re.S)
    for line in text.split("\n"):
        for name in call.findall(line):
            owner = defined.get(name)
            if owner and owner != f and level.get(owner, -1) > level.get(f, -1):
                errors.append(f"{f}: calls {name} of {owner}, which comes after it")

for e in sorted(set(errors)):
    print(e)
print(f"{len(files)} files, {len(defined)} functions: "
      f"{'the order holds' if not errors else f'{len(set(errors))} calls break it'}")
sys.exit(1 if errors else 0)
