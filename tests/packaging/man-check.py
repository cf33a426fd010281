#!/usr/bin/env python3
"""Keeps rmalab's man page (repl/rmalab.1) true to the code.

Usage: man-check.py SOURCE_ROOT RMALAB [PAGE]

SOURCE_ROOT is the source tree, RMALAB the built executable, PAGE the page
to check (by default SOURCE_ROOT/repl/rmalab.1). It checks that:
  (a) man --warnings prints no warning for the page (and mandoc -Tlint, if
      mandoc is installed);
  (b) every option that `rmalab --help` lists is an entry of OPTIONS, and
      every option that `rmalab test --help` lists is an entry of its
      "Options of rmalab test" subsection;
  (c) every command in repl/front/cmdline.c's list is an entry of the Commands
      subsection, as :name, and every entry there is a command;
  (d) every RMALAB_* variable that core/src, lua and repl read (getenv,
      os.getenv) is an entry of ENVIRONMENT, and every RMALAB_* entry there
      is read by them;
  (e) a version in the .TH line is meson.build's project version, which is
      also what `rmalab --version` prints.
An entry is the tag of a .TP paragraph. Prints what it checked, and each
failure with what to fix; exits 1 on any failure.
"""
import os
import re
import shutil
import subprocess
import sys

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def ok(msg):
    print("ok: " + msg)


def plain(line):
    """A roff macro line's text: no macro name, quotes, fonts or escapes."""
    line = re.sub(r"^\.\w+\s*", "", line)
    line = re.sub(r"\\f(\[[^]]*\]|\(..|.)", "", line)
    line = line.replace("\\-", "-").replace("\\%", "").replace("\\&", "").replace('"', "")
    return line


def entries(page_text):
    """The .TP tags of the page, by (section, subsection), both as written
    after .SH and .SS (subsection None before the first .SS)."""
    tags, sh, ss = {}, None, None
    lines = page_text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(".SH"):
            sh, ss = plain(line).strip(), None
        elif line.startswith(".SS"):
            ss = plain(line).strip()
        elif line.strip() == ".TP" and i + 1 < len(lines):
            tags.setdefault((sh, ss), []).append(plain(lines[i + 1]))
    return tags


def tags_in(tags, section, subsection_has=None):
    """The tags of a section (all of its subsections, or those whose title
    contains subsection_has; "" means the part before the first .SS)."""
    out = []
    for (sh, ss), t in tags.items():
        if sh != section:
            continue
        if subsection_has is None or (subsection_has == "" and ss is None) or \
                (subsection_has and ss and subsection_has in ss):
            out += t
    return out


def check_warnings(page):
    env = dict(os.environ, LC_ALL="C.UTF-8", MANROFFSEQ="", MANWIDTH="80")
    r = subprocess.run(["man", "--warnings", "-E", "UTF-8", "-l", page], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    if r.returncode != 0 or r.stderr.strip():
        fail("man --warnings -l %s (exit %d):\n%s" % (page, r.returncode, r.stderr.rstrip()))
    else:
        ok("man --warnings prints no warning")
    if shutil.which("mandoc"):
        r = subprocess.run(["mandoc", "-Tlint", "-Wwarning", page], capture_output=True,
                           text=True, check=False)
        out = (r.stdout + r.stderr).strip()
        if out:
            fail("mandoc -Tlint:\n" + out)
        else:
            ok("mandoc -Tlint prints nothing")
    else:
        ok("mandoc is not installed: its lint was skipped")


def help_options(rmalab, *args):
    r = subprocess.run([rmalab, *args, "--help"], capture_output=True, text=True, timeout=60,
                       check=False)
    if r.returncode != 0:
        fail("%s --help exited %d" % (" ".join(["rmalab", *args]), r.returncode))
    opts = []
    for line in r.stdout.splitlines():
        m = re.match(r"^\s{2,}(-[-\w]+)(?:,\s*(-[-\w]+))?(?=[\s,]|$)", line)
        if m:
            opts += [o for o in m.groups() if o]
    return opts


def check_options(rmalab, tags):
    for args, sub, what in [((), "", "OPTIONS (before its subsections)"),
                            (("test",), "rmalab test", 'OPTIONS, "Options of rmalab test"')]:
        name = " ".join(["rmalab", *args])
        opts = help_options(rmalab, *args)
        if not opts:
            fail("%s --help lists no options: has its format changed?" % name)
            continue
        documented = set(re.findall(r"(?<![\w-])-[-\w]+", " ".join(tags_in(tags, "OPTIONS",
                                                                             sub))))
        missing = [o for o in opts if o not in documented]
        if missing:
            fail("%s --help lists %s, which the man page does not give as an entry of %s"
                 % (name, ", ".join(missing), what))
        else:
            ok("the %d options of %s --help are entries of %s" % (len(opts), name, what))


def check_commands(root, tags):
    src = open(os.path.join(root, "repl", "front", "cmdline.c"), encoding="utf-8").read()
    m = re.search(r"commands\[\]\s*=\s*\{([^}]*)\}", src)
    if not m:
        fail("repl/front/cmdline.c has no `commands[] = {...}` list: update man-check.py")
        return
    commands = re.findall(r'"([^"]+)"', m.group(1))
    section = [sh for (sh, ss) in tags if ss == "Commands"]
    if not section:
        fail('the man page has no subsection "Commands" (.SS Commands) with the REPL\'s commands')
        return
    documented = set()
    for sh in set(section):
        for t in tags.get((sh, "Commands"), []):
            documented.update(re.findall(r"(?<![\w:]):(\w+)", t))
    missing = [":" + c for c in commands if c not in documented]
    extra = [":" + c for c in sorted(documented) if c not in commands]
    if missing:
        fail("repl/front/cmdline.c's commands %s are not entries of the man page's Commands"
             % ", ".join(missing))
    if extra:
        fail("the man page's Commands has entries for %s, which repl/front/cmdline.c does not know"
             % ", ".join(extra))
    if not missing and not extra:
        ok("the %d commands of repl/front/cmdline.c are the entries of Commands" % len(commands))


def variables_read(root):
    found = {}
    pattern = re.compile(r"""getenv\(\s*\\?["'](RMALAB_\w+)\\?["']""")
    for top in ("core/src", "lua", "repl"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if not f.endswith((".c", ".h", ".lua")):
                    continue
                path = os.path.join(d, f)
                for v in pattern.findall(open(path, encoding="utf-8").read()):
                    found.setdefault(v, os.path.relpath(path, root))
    return found


def check_environment(root, tags):
    read = variables_read(root)
    if not read:
        fail("no getenv(\"RMALAB_...\") found under core/src, lua and repl: wrong SOURCE_ROOT?")
        return
    documented = set(re.findall(r"RMALAB_\w+", " ".join(tags_in(tags, "ENVIRONMENT"))))
    missing = ["%s (%s)" % (v, p) for v, p in sorted(read.items()) if v not in documented]
    extra = [v for v in sorted(documented) if v not in read]
    if missing:
        fail("the sources read %s, which are not entries of ENVIRONMENT" % ", ".join(missing))
    if extra:
        fail("ENVIRONMENT has entries for %s, which no getenv in core/src, lua or repl reads"
             % ", ".join(extra))
    if not missing and not extra:
        ok("the %d RMALAB_* variables the sources read are the RMALAB_* entries of ENVIRONMENT"
           % len(read))


def check_version(root, rmalab, page_text):
    meson = open(os.path.join(root, "meson.build"), encoding="utf-8").read()
    m = re.search(r"project\([^)]*?version\s*:\s*'([^']+)'", meson, re.S)
    if not m:
        fail("meson.build's project() has no version")
        return
    version = m.group(1)
    r = subprocess.run([rmalab, "--version"], capture_output=True, text=True, timeout=60,
                       check=False)
    first = r.stdout.splitlines()[0] if r.stdout else ""
    if first != "rmalab " + version:
        fail("rmalab --version's first line is %r, not 'rmalab %s' (meson.build)"
             % (first, version))
    th = [line for line in page_text.splitlines() if line.startswith(".TH")]
    if len(th) != 1:
        fail("the man page has %d .TH lines, not 1" % len(th))
        return
    versions = re.findall(r"\d+\.\d+(?:\.\d+)*", th[0])
    if not versions:
        ok(".TH names no version")
    elif versions != [version]:
        fail(".TH names version %s, but meson.build's project version is %s: update %s"
             % (", ".join(versions), version, th[0]))
    else:
        ok(".TH names version %s, meson.build's and rmalab --version's" % version)


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    root, rmalab = sys.argv[1], sys.argv[2]
    page = sys.argv[3] if len(sys.argv) == 4 else os.path.join(root, "repl", "rmalab.1")
    page_text = open(page, encoding="utf-8").read()
    tags = entries(page_text)
    check_warnings(page)
    check_options(rmalab, tags)
    check_commands(root, tags)
    check_environment(root, tags)
    check_version(root, rmalab, page_text)
    print("%d failed" % len(failures) if failures else "the man page is true to the code")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
