#!/usr/bin/env python3
"""A directory's C files call each other in one direction only.

usage: layers.py DIR HEADER PREFIX [ABOVE...]

The order is the list in the first comment of DIR/HEADER, one line per
level: " *   file.c [file.c ...]  what it does". A file may call functions
named PREFIX... that are defined in its own level or in levels above it,
never below. Every DIR/*.c must appear in the list. Prints each call that
breaks the order and exits 1 if there is any. The core (core/src,
private.h, rmalab_) and the Lua binding (lua, lrmalab.h, lrm_) use it.

Inline functions defined in headers (DIR/*.h) count too. A header that the
list names (" *   win-private.h  ...") is a level of its own: its inline
functions are defined there, and the calls in their bodies are checked as
that level's. A header the list does not name is part of every file that
includes it: the calls in its inline functions are checked as that file's,
and a call to one of them is a call within the file.

When the note has a table after "NAMES SAY THEIR FILE" (lines of
"stem_ file.c [file.h]" columns, as in core/src/private.h), each private
name (PREFIX_...) that a file or header declares or defines must be PREFIX_,
then the stem of the file that defines it (a header's own for its inline
functions and lower-case macros), then anything or nothing; the longest
stem that begins a name is the one it reads as. Every DIR/*.c needs a
stem, and a declared name must be defined somewhere.

The folders ABOVE are the layers that call DIR (the core's: cprog, lua,
repl): no file of DIR may call a name that a .c file under them defines
(not static), unless the file defines that name itself: whoever goes by
names takes such a call for one into that layer. The core calls MPI_Put,
so cprog/ defines its wrapper as run_MPI_Put (cprog/run.h); a wrapper
named MPI_Put made the core and cprog/ one circle (issue 40)."""
import pathlib
import re
import sys

from cblock import block

src, header, prefix = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
above = [pathlib.Path(a) for a in sys.argv[4:]]
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


def calls_up():
    """Each call of a file of DIR to a name that a layer above defines."""
    head_of = r"^{}[A-Za-z_][\w \*]*?\b([A-Za-z_]\w*)\s*\([^;]*$"
    upper = re.compile(head_of.format(r"(?!static\b)"), re.M)
    anyhead = re.compile(head_of.format(""), re.M)
    defined_above = {}
    for d in above:
        for p in sorted(d.rglob("*.c")):
            for name in upper.findall(uncomment(p.read_text())):
                defined_above.setdefault(name, p.relative_to(d.parent))
    errs = []
    for f in files + headers:
        text = uncomment((src / f).read_text())
        own = set(anyhead.findall(text))
        for name in sorted(set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", text)) - own):
            if name in defined_above:
                errs.append(f"{f}: calls {name}, which {defined_above[name]} defines, "
                            "a layer above")
    return errs


errors += calls_up()


def names_say_their_file():
    """The table's stems against each private name and its defining file."""
    at = head.find("NAMES SAY THEIR FILE")
    if at < 0:
        return None
    column = re.compile(r"\w+_(?: [\w.-]+\.[ch])+")
    stems = {}  # stem -> the files it names
    for line in head[at:].splitlines():
        cols = re.split(r"\s{2,}", line[5:].strip()) if line.startswith(" *   ") else []
        if cols and all(column.fullmatch(c) for c in cols):
            for c in cols:
                stem, *owners = c.split()
                stems[stem] = owners
    private = prefix + "_"
    named = {f for owners in stems.values() for f in owners}
    errs = [f"{f}: no stem in the table of {header}" for f in files if f not in named]
    top = r"^(?!typedef\b|return\b)[A-Za-z_][\w \*]*?(?<!struct )(?<!enum )(?<!union )\b"
    fn = re.compile(top + rf"({private}\w+)\s*\(", re.M)
    var = re.compile(top + rf"({private}\w+)\s*(?:\[[^\]]*\])?\s*[=;]", re.M)
    macro = re.compile(rf"^#\s*define\s+({private}\w+)", re.M)
    where, declared = {}, {}
    for f in files + headers:
        text = uncomment((src / f).read_text())
        if f.endswith(".c"):
            for n in fn.findall(text) + var.findall(text):
                where.setdefault(n, f)
        else:
            for n, _ in inline_bodies(text):
                where[n] = f
            for n in macro.findall(text):
                where[n] = f
            for n in fn.findall(text) + var.findall(text):
                declared.setdefault(n, f)
    for n, h in sorted(declared.items()):
        if n not in where:
            errs.append(f"{h}: declares {n}, which no file defines")
    for n, f in sorted(where.items()):
        fits = [s for s in stems if n.startswith(private + s) or n == private + s[:-1]]
        if not fits:
            errs.append(f"{f}: {n} begins with no file's stem")
            continue
        stem = max(fits, key=len)
        if f not in stems[stem]:
            errs.append(f"{f}: {n} reads as {' '.join(stems[stem])}'s ({private}{stem})")
    return len(where), errs


named = names_say_their_file()
if named:
    errors += named[1]

ninline = sum(len(b) for b in bodies.values())
for e in sorted(set(errors)):
    print(e)
print(f"{len(files)} files, {len(defined)} functions ({ninline} inline in headers)"
      + (f", {named[0]} private names" if named else "") + ": "
      + ("the order holds" + (" and every name says its file" if named else "")
         + (", and no layer above is called" if above else "")
         if not errors else f"{len(set(errors))} errors"))
sys.exit(1 if errors else 0)
