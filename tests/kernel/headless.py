"""A notebook run headless with the commands docs/jupyter.md gives, as
written there, keeps its outputs in the file; and the kernelspec that
`rmalab kernel install` wrote still works once the kernel folder it was
written from is gone (a checkout that moved): it carries its own copy.
    headless.py BUILD SOURCE_ROOT"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

import nbformat

import harness
from harness import check

CELLS = ["x = rmalab.world:rank() * 10\nreturn x + 1", "@1 return 'rank one'"]
WANT = ["[0] 1\n[1] 11\n", "[1] rank one\n"]


def notebook(path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
    nb.metadata["kernelspec"] = {"name": "rmalab", "display_name": "Lua (rmalab, 2 ranks)",
                                 "language": "lua"}
    nbformat.write(nb, path)


def outputs(path):
    nb = nbformat.read(path, 4)
    got = []
    for c in nb.cells:
        got.append("".join(o.get("text", "") or o.get("data", {}).get("text/plain", "")
                           for o in c.get("outputs", [])))
    return got


def documented(doc):
    """The commands of the doc's section on running headless that name the
    first lesson, which the test runs on its own notebook instead."""
    text = open(doc).read()
    part = text.split("## Running a notebook headless", 1)[1].split("\n## ", 1)[0]
    cmds = re.findall(r"```sh\n(.*?)\n```", part, re.S)
    return [c for c in cmds if "notebooks/01-pscw-example.ipynb" in c]


def main():
    build, root = sys.argv[1], sys.argv[2]
    stage, prefix, opts = harness.prepare(build)
    try:
        spec_dir = os.path.join(os.environ["JUPYTER_PATH"], "kernels", "rmalab")
        with open(os.path.join(spec_dir, "kernel.json")) as f:
            argv = json.load(f)["argv"]
        check("{resource_dir}/kernel" in argv and
              os.path.isfile(os.path.join(spec_dir, "kernel", "__main__.py")),
              "rmalab kernel install: the spec runs its own copy of the kernel: %r" % argv)
        # the folder it was written from goes away, as a moved checkout's would
        kdir = os.path.join(prefix, opts["datadir"], "rmalab", "kernel")
        if os.path.isdir(kdir):
            shutil.move(kdir, kdir + ".moved")
        cmds = documented(os.path.join(root, "docs", "jupyter.md"))
        check(len(cmds) >= 2, "docs/jupyter.md gives the headless commands: %r" % cmds)
        ran = 0
        for cmd in cmds:
            words = shlex.split(cmd)
            if words[0] == "jupyter" and not shutil.which("jupyter-nbconvert"):
                print("skipped (no jupyter-nbconvert here): %s" % cmd)
                continue
            path = os.path.join(stage, "headless-%d.ipynb" % ran)
            notebook(path)
            words[-1] = path
            p = subprocess.run(words, capture_output=True, text=True, timeout=300)
            print("$ %s\n%s%s" % (cmd, p.stdout, p.stderr[-2000:]))
            got = outputs(path)
            check(p.returncode == 0 and got == WANT,
                  "%s: status %d, outputs kept %r" % (words[0:3], p.returncode, got))
            ran += 1
        check(ran >= 2, "two of the documented commands ran")
    finally:
        harness.cleanup(stage)


main()
print("headless.py: passed")
