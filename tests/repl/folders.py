#!/usr/bin/env python3
"""repl/'s folders use each other one way, and no two files call each other
in a circle.

usage: folders.py REPL_DIR

The folders and what each may use are in the first comment of
REPL_DIR/main.c, a line each: " *   front/  uses wire/". A file of a folder
may include, and call functions defined in, files of its own folder and of
the folders its line names; main.c, at the top, may use them all. Then the
calls between all the files of repl/ (each .c with the inline functions of
the headers it includes) make a graph, which must have no circle: a
circle's files are printed with the names that tie them. Prints each break
and exits 1 if there is any. (Inside a folder, the order of its files is
layers.py's, the list in the folder's header.)"""
import pathlib
import posixpath
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from cblock import block  # noqa: E402

root = pathlib.Path(sys.argv[1])
head = (root / "main.c").read_text()
head = head[: head.index("*/")]
uses = {}
for folder, line in re.findall(r"^ \*   (\w+)/\s+uses (.*)$", head, re.M):
    uses[folder] = set(re.findall(r"(\w+)/", line))
TOP = "."


def folder_of(rel):
    parts = rel.split("/")
    return parts[0] if len(parts) > 1 else TOP


def allowed(src, dst):
    return src == dst or src == TOP or dst in uses.get(src, set())


def uncomment(text):
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


files = sorted(str(p.relative_to(root)) for p in root.rglob("*.[ch]"))
errors = [f"{f}: in a folder main.c does not name" for f in files
          if folder_of(f) != TOP and folder_of(f) not in uses]
text = {f: uncomment((root / f).read_text()) for f in files}

# Includes: a path relative to the including file, as the sources write them.
include = re.compile(r'^#include "([^"]+)"', re.M)
includes = {}
for f in files:
    includes[f] = []
    for h in include.findall(text[f]):
        target = posixpath.normpath(posixpath.join(posixpath.dirname(f), h))
        if target.startswith("..") or target not in text:
            continue  # outside repl/: the core's, the binding's
        includes[f].append(target)
        if not allowed(folder_of(f), folder_of(target)):
            errors.append(f"{f}: includes {target}, and {folder_of(f)}/ may not use "
                          f"{folder_of(target)}/")

# Functions: the non-static ones of each .c, the inline ones of headers.
definition = re.compile(r"^(?!static\b)[A-Za-z_][\w \*]*?\b([a-z_]\w*)\([^;]*$", re.M)
inline = re.compile(r"^static inline\b[^;{]*?\b([a-z_]\w*)\(", re.M)
owner = {}
for f in files:
    pattern = definition if f.endswith(".c") else inline
    for name in pattern.findall(text[f]):
        if name != "main":
            owner[name] = f
call = re.compile(r"(?<![\w.>])([a-z_]\w*)\s*\(")


def inline_bodies(h):
    """The bodies of a header's inline functions: the calls a header makes."""
    t, out = text[h], []
    for m in inline.finditer(t):
        out.append(block(t, t.index("{", m.end())))
    return "".join(out)


def headers_of(f):
    """The headers of repl/ that f includes, directly or through others."""
    seen, todo = set(), list(includes[f])
    while todo:
        h = todo.pop()
        if h not in seen and h.endswith(".h"):
            seen.add(h)
            todo += includes[h]
    return seen


graph = {}
for f in files:
    if not f.endswith(".c"):
        continue
    hs = headers_of(f)
    for body in [text[f]] + [inline_bodies(h) for h in sorted(hs)]:
        for name in call.findall(body):
            g = owner.get(name)
            if not g or g == f or g in hs:
                continue  # its own, or an inline function of a header it includes
            if not allowed(folder_of(f), folder_of(g)):
                errors.append(f"{f}: calls {name} of {g}, and {folder_of(f)}/ may not use "
                              f"{folder_of(g)}/")
            if g.endswith(".c"):
                graph.setdefault(f, {}).setdefault(g, set()).add(name)

# Circles: the strongly connected components of the call graph (Tarjan).
index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]


def visit(v):
    index[v] = low[v] = counter[0]
    counter[0] += 1
    stack.append(v)
    on.add(v)
    for w in graph.get(v, {}):
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            sccs.append(sorted(comp))


sys.setrecursionlimit(10000)
for v in sorted(graph):
    if v not in index:
        visit(v)
for comp in sccs:
    ties = "; ".join(f"{a} -> {b}: {', '.join(sorted(graph[a][b]))}"
                     for a in comp for b in comp if b in graph.get(a, {}))
    errors.append(f"circle of {len(comp)} files: {ties}")

for e in sorted(set(errors)):
    print(e)
nedges = sum(len(v) for v in graph.values())
print(f"{len(files)} files in {len(uses) + 1} places, {nedges} calls between files: "
      f"{'one way, no circle' if not errors else f'{len(set(errors))} breaks'}")
sys.exit(1 if errors else 0)
