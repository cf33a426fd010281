#!/usr/bin/env python3
"""A directory's C files call each other in one direction only.

usage: layers.py DIR HEADER PREFIX

The order is the list in the first comment of DIR/HEADER, one line per
level: " *   file.c [file.c ...]  what it does". A file may call functions
named PREFIX... that are defined in its own level or in levels above it,
never below. Every DIR/*.c must appear in the list. Prints each call that
breaks the order and exits 1 if there is any. The core (core/src,
win-private.h, rmalab_) and the Lua binding (lua, lrmalab.h, lrm_) use it.

Inline functions defined in headers (DIR/*.h) count too. A header that the
list names (" *   win-private.h  ...") is a level of its own: its inline
functions are defined there, and the calls in their bodies are checked as
that level's. A header the list does not name is part of every file that
includes it: the calls in its inline functions are checked as that file's,
and a call to one of them is a call within the file."""
import pathlib
import re
import sys

from cblock import block

src, header, prefix = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
note = (src / header).read_text()
head = note[: note.index("*/")]

level = {}
for n, line in enumerate(re.findall(r"^ \*   (\S+\.[ch](?: \S+\.[ch])*)\b", head, re.M)):
    for name in line.split():
        level[name] = n

files = sorted(p.name for p in src.glob("*.c"))
headers = sorted(p.name for p in src.glob("*.h"))
errors = [f"{f}: not in the order of {header}" for f in files if f not in level]


def uncomment(text):
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


inline = re.compile(rf"^static inline\b[^;{{]*?\b({prefix}\w+)\(", re.M)


def inline_bodies(text):
    """Each inline PREFIX function of a header: its name and its body."""
    text = uncomment(text)
    for m in inline.finditer(text):
        yield m.group(1), block(text, text.index("{", m.end()))


defined = {}
definition = re.compile(rf"^(?!static)[A-Za-z_][\w \*]*?\b({prefix}\w+)\([^;]*$", re.M)
for f in files:
    for name in definition.findall((src / f).read_text()):
        defined[name] = f
bodies = {h: list(inline_bodies((src / h).read_text())) for h in headers}
for h in headers:
    for name, _ in bodies[h]:
        defined[name] = h

call = re.compile(rf"\b({prefix}\w+)\s*\(")
include = re.compile(r'^#include "([^"]+\.h)"', re.M)


def check(caller, text):
    for name in call.findall(text):
        owner = defined.get(name)
        if owner and owner in level and owner != caller and \
                level[owner] > level.get(caller, -1):
            errors.append(f"{caller}: calls {name} of {owner}, which comes after it")


for f in files:
    text = uncomment((src / f).read_text())
    check(f, text)
    for h in include.findall(text):  # unnamed headers: part of f
        if h in bodies and h not in level:
            for _, body in bodies[h]:
                check(f, body)
for h in headers:
    if h in level:
        for _, body in bodies[h]:
            check(h, body)

ninline = sum(len(b) for b in bodies.values())
for e in sorted(set(errors)):
    print(e)
print(f"{len(files)} files, {len(defined)} functions ({ninline} inline in headers): "
      f"{'the order holds' if not errors else f'{len(set(errors))} calls break it'}")
sys.exit(1 if errors else 0)
