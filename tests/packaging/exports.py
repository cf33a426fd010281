#!/usr/bin/env python3
"""The core exports exactly its API, and the Lua module exactly its entry
points.

    exports.py SOURCE_ROOT LIBRMALAB_SO LUA_MODULE_SO

Three lists must agree: the names the public headers declare with
RMALAB_API (core/include/rmalab/*.h), the list kept in the repository
(core/exports.txt, one name per line), and the dynamic symbols that
librmalab.so defines (nm -D). The Lua module embeds the core, and must
export only its luaopen_ functions: were it to export the core's names, a
program that links librmalab.so and also loads the module would bind the
module's calls to the other copy of the core.
"""
import glob
import os
import re
import subprocess
import sys


def declared(include_dir):
    """Names declared RMALAB_API in the public headers."""
    names = {}
    for path in sorted(glob.glob(os.path.join(include_dir, "*.h"))):
        text = open(path, encoding="utf-8").read()
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        text = re.sub(r"//[^\n]*", " ", text)
        text = re.sub(r"^\s*#[^\n]*", " ", text, flags=re.M)
        for m in re.finditer(r"\bRMALAB_API\b([^;]*);", text):
            decl = m.group(1)
            paren = decl.find("(")
            head = decl[:paren] if paren >= 0 else re.sub(r"\[.*", "", decl)
            ident = re.findall(r"[A-Za-z_]\w*", head)
            if not ident:
                sys.exit(f"{path}: cannot read the declaration RMALAB_API{decl}")
            names[ident[-1]] = os.path.basename(path)
    return names


def dynamic(so):
    """Names the shared object defines in its dynamic symbol table."""
    out = subprocess.run(["nm", "-D", "--defined-only", so], check=True,
                         capture_output=True, text=True).stdout
    return {f[2] for f in (l.split() for l in out.splitlines()) if len(f) == 3}


def compare(what, have, want):
    extra, missing = sorted(have - want), sorted(want - have)
    for n in extra:
        print(f"{what}: {n} is exported but not in the list")
    for n in missing:
        print(f"{what}: {n} is in the list but not exported")
    return not extra and not missing


def main():
    root, lib, module = sys.argv[1:4]
    heads = declared(os.path.join(root, "core", "include", "rmalab"))
    listed = {l.strip() for l in open(os.path.join(root, "core", "exports.txt"))
              if l.strip() and not l.startswith("#")}
    ok = compare("core/exports.txt against the headers' RMALAB_API", listed, set(heads))
    ok &= compare(f"{os.path.basename(lib)} (nm -D) against core/exports.txt",
                  dynamic(lib), listed)
    ok &= compare(f"{os.path.basename(module)} (nm -D) against luaopen_rmalab*",
                  dynamic(module), {"luaopen_rmalab", "luaopen_rmalab_test"})
    print(f"{len(listed)} names: headers, core/exports.txt and nm -D agree" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
