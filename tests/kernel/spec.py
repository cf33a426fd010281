"""The kernelspec: the one `meson install` writes under
<prefix>/share/jupyter/kernels/rmalab, found by Jupyter as installed, and
the ones `rmalab kernel install` writes (--user, --prefix, --ranks,
--name), with its usage error:  spec.py BUILD"""
import json
import os
import subprocess
import sys
import tempfile

import harness
from harness import check

FIND = ("from jupyter_client.kernelspec import KernelSpecManager as K; import json; "
        "print(json.dumps({k: v for k, v in K().find_kernel_specs().items()}))")


def specs(env):
    out = subprocess.run(["/usr/bin/python3", "-c", FIND], env=env, capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out)


def main():
    stage, root, opts = harness.prepare(sys.argv[1])
    try:
        prefix = opts["prefix"]
        bindir = os.path.join(prefix, opts["bindir"])
        kdir = os.path.join(prefix, opts["datadir"], "rmalab", "kernel")
        spec_dir = os.path.join(root, opts["datadir"], "jupyter", "kernels", "rmalab")
        with open(os.path.join(spec_dir, "kernel.json")) as f:
            spec = json.load(f)
        check(spec["display_name"] == "Lua (rmalab, 2 ranks)" and spec["language"] == "lua",
              "meson install: the spec is \"Lua (rmalab, 2 ranks)\"")
        check(spec["argv"][0] == "/usr/bin/python3" and kdir in spec["argv"] and
              os.path.join(bindir, "rmalab") in spec["argv"],
              "it runs Debian's python3 on the installed kernel and rmalab: %r" % spec["argv"])
        check(not any(sys.argv[1] in a or "wt-" in a and "/kernel" in a and a != kdir
                      for a in spec["argv"]), "nothing of the build tree")
        check(os.path.isfile(stage + kdir + "/__main__.py") and
              os.path.isfile(stage + kdir + "/rmalab_kernel/kernel.py"),
              "the kernel's files are installed in <datadir>/rmalab/kernel")
        home = tempfile.mkdtemp(dir=stage)
        env = {"HOME": home, "PATH": os.environ["PATH"]}
        dest = os.path.join(home, ".local", "share", "jupyter", "kernels")
        os.makedirs(dest)
        os.symlink(spec_dir, os.path.join(dest, "rmalab"))
        check("rmalab" in specs(env), "a --prefix ~/.local install is found with no further step")
        os.unlink(os.path.join(dest, "rmalab"))
        out = subprocess.run(["rmalab", "kernel", "install", "--user", "--ranks", "4",
                              "--name", "rmalab4"], env=env, capture_output=True, text=True)
        found = specs(env)
        check(out.returncode == 0 and "rmalab4" in found,
              "rmalab kernel install --user --ranks 4 --name rmalab4: %s" % out.stderr)
        with open(os.path.join(found["rmalab4"], "kernel.json")) as f:
            user = json.load(f)
        check(user["display_name"] == "Lua (rmalab, 4 ranks)" and "4" in user["argv"],
              "its spec runs 4 ranks")
        check(user["argv"][user["argv"].index("--rmalab") + 1] ==
              os.path.join(root, opts["bindir"], "rmalab"),
              "and names the rmalab that installed it")
        out = subprocess.run(["rmalab", "kernel"], env=env, capture_output=True, text=True)
        check(out.returncode == 2 and "rmalab kernel install" in out.stderr,
              "rmalab kernel alone is a usage error (status 2)")
        out = subprocess.run(["rmalab", "kernel", "install", "--ranks", "0", "--user"], env=env,
                             capture_output=True, text=True)
        check(out.returncode == 2, "--ranks 0 is refused")
    finally:
        harness.cleanup(stage)


main()
