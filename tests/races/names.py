#!/usr/bin/env python3
"""races-names: every case in tests/races/ claims the verdict its name says.

Usage: names.py DIR NAME...   (NAME: the cases meson.build lists, no .lua)

A case file is named <category>-<NNN>-<pattern>-<yes|no>.lua, and its body
is T.races("yes"|"no", ...); its header names the benchmark's file
(-- RMARaceBench 1.2.0 MPIRMA/<category>/<NNN>-MPI-<category>-<pattern>.c).
A file whose T.races verdicts differ from its name's suffix, that calls
T.races not at all, whose header names another case, that marks a racy
access (T.racy) in a -no case, or that meson.build does not list (so no
test would run it) fails this check; so does a listed name with no file.
"""
import os
import re
import sys

NAME = re.compile(r"^(conflict|sync|atomic|misc)-\d{3}-[a-z0-9-]+-(yes|no)\.lua$")
CALL = re.compile(r"""T\.races\(\s*["']([^"']*)["']""")
RACY = re.compile(r"\bT\.racy\(")
SOURCE = re.compile(r"^-- RMARaceBench 1\.2\.0 MPIRMA/([a-z]+/\d{3}-MPI-[a-z0-9-]+)\.c$", re.M)


def main():
    folder, listed = sys.argv[1], set(sys.argv[2:])
    bad = []
    files = sorted(f for f in os.listdir(folder) if f.endswith(".lua"))
    for f in files:
        m = NAME.match(f)
        if not m:
            bad.append(f"{f}: not named <category>-<NNN>-<pattern>-<yes|no>.lua")
            continue
        want = m.group(2)
        with open(os.path.join(folder, f), encoding="utf-8") as h:
            text = h.read()
        verdicts = CALL.findall(text)
        if want == "no" and RACY.search(text):
            bad.append(f"{f}: a -no case marks a racy access (T.racy)")
        src = SOURCE.search(text)
        num, rest = f[:-4].split("-", 1)[1].split("-", 1)
        cat = f.split("-", 1)[0]
        if not src or src.group(1) != f"{cat}/{num}-MPI-{cat}-{rest}":
            bad.append(f"{f}: its header does not name MPIRMA/{cat}/{num}-MPI-{cat}-{rest}.c")
        if not verdicts:
            bad.append(f"{f}: no T.races(\"{want}\", ...) call")
        for v in verdicts:
            if v != want:
                bad.append(f"{f}: T.races(\"{v}\", ...) but the name says {want}")
        if f[:-4] not in listed:
            bad.append(f"{f}: not in tests/races/meson.build's races_cases")
    for n in sorted(listed - {f[:-4] for f in files}):
        bad.append(f"{n}.lua: listed in tests/races/meson.build, but there is no such file")
    for b in bad:
        print(b)
    print(f"{len(files)} cases, {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
