#!/usr/bin/env python3
"""repl/ keeps its state in per-session structs passed explicitly: no file-
scope variable that can change, but those a callback without a context
argument needs, each named here with its reason (docs/repl.md). Prints any
other and exits 1.

usage: statics.py REPL_DIR"""
import pathlib
import re
import sys

ALLOWED = {
    ("front/repl.c", "signal_w"): "the signal handler's self-pipe (a handler has no context)",
    ("front/term.c", "active"): "libedit's readline callbacks take no context",
    ("main.c", "guard_sig"): "script mode's guard: its signal handler",
    ("main.c", "guard_child"): "script mode's guard: its signal handler",
    ("cprog/run.c", "child"): "rmalab run's signal handler passes signals on to mpiexec",
    ("cprog/run.c", "got"): "rmalab run's signal handler: the signal that came",
}

# A declaration at the start of a line, outside any function: static, not
# const (a pointer to const data still counts: "static const char *p" can
# change), not a function.
decl = re.compile(r"^static\s+(?!inline\b)([^;(=]*?)\b(\w+)\s*(\[[^\]]*\])?\s*(=[^;]*)?;", re.M)
found = []
root = pathlib.Path(sys.argv[1])
for path in sorted(root.rglob("*.c")):
    text = re.sub(r"/\*.*?\*/", "", path.read_text(), flags=re.S)
    for m in decl.finditer(text):
        kind, name = m.group(1), m.group(2)
        if "{" in kind:  # inside a const table's type: "static const struct { ... } t[]"
            continue
        if re.search(r"\bconst\s*$", kind) or (kind.startswith("const") and "*" not in kind):
            continue
        rel = str(path.relative_to(root))
        if (rel, name) not in ALLOWED:
            found.append(f"{rel}: file-scope variable '{name}'")
for f in found:
    print(f)
print(f"{len(found)} file-scope variables beyond the {len(ALLOWED)} a context-free callback needs")
sys.exit(1 if found else 0)
