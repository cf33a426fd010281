"""The kernel's command line (run as `python3 <kernel folder>`):

  ... -f CONNECTION_FILE --rmalab EXE [--ranks N]   run the kernel
  ... spec --rmalab EXE [--ranks N]                 print kernel.json
  ... install --rmalab EXE [--user | --prefix P] [--ranks N] [--name NAME]
                                                    write a kernelspec

`rmalab kernel install ...` runs the last with its own path as EXE; meson
install writes the spec that `spec` prints. `install` copies this folder
into the kernelspec's own directory and names it as Jupyter's
{resource_dir}: a spec written from a checkout keeps working when the
checkout moves, but for the rmalab it names."""
import argparse
import json
import os
import shutil
import sys
import tempfile

PYTHON = "/usr/bin/python3"  # Debian's, where python3-ipykernel is


def kernel_dir():
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def spec(exe, ranks, folder=None, python=None):
    return {
        "argv": [python or PYTHON, "-Xfrozen_modules=off", folder or kernel_dir(), "-f", "{connection_file}",
                 "--rmalab", exe, "--ranks", str(ranks)],
        "display_name": "Lua (rmalab, %d rank%s)" % (ranks, "" if ranks == 1 else "s"),
        "language": "lua",
        "interrupt_mode": "message",
        "metadata": {"debugger": False},
    }


def ranks_arg(text):
    n = int(text)
    if not 1 <= n <= 1024:
        raise argparse.ArgumentTypeError("a number of ranks, 1 to 1024")
    return n


def install(argv):
    p = argparse.ArgumentParser(prog="rmalab kernel install",
                                description="Write the rmalab kernelspec where Jupyter "
                                            "finds it (as python -m ipykernel install).")
    p.add_argument("--rmalab", required=True, help=argparse.SUPPRESS)
    where = p.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true",
                       help="for this user (~/.local/share/jupyter/kernels)")
    where.add_argument("--prefix", help="under PREFIX/share/jupyter/kernels (a venv, "
                                        "a conda env, a JupyterHub image)")
    p.add_argument("--ranks", type=ranks_arg, default=2, help="ranks of each job (2)")
    p.add_argument("--name", default="rmalab", help="the kernel's name (rmalab)")
    a = p.parse_args(argv)
    from jupyter_client.kernelspec import KernelSpecManager
    with tempfile.TemporaryDirectory() as d:
        os.chmod(d, 0o755)
        shutil.copytree(kernel_dir(), os.path.join(d, "kernel"),
                        ignore=shutil.ignore_patterns("__pycache__", "meson.build"))
        with open(os.path.join(d, "kernel.json"), "w") as f:
            json.dump(spec(os.path.abspath(a.rmalab), a.ranks, "{resource_dir}/kernel"), f,
                      indent=1)
        dest = KernelSpecManager().install_kernel_spec(
            d, kernel_name=a.name, user=a.user, prefix=a.prefix)
    print("Installed kernelspec %s in %s" % (a.name, dest))
    return 0


def run(argv):
    p = argparse.ArgumentParser(prog="rmalab-kernel", add_help=False)
    p.add_argument("--rmalab", default="rmalab")
    p.add_argument("--ranks", type=ranks_arg, default=2)
    a, rest = p.parse_known_args(argv)
    from ipykernel.kernelapp import IPKernelApp
    from .kernel import RmalabKernel
    RmalabKernel.exe = a.rmalab
    RmalabKernel.default_ranks = a.ranks
    IPKernelApp.launch_instance(argv=rest, kernel_class=RmalabKernel)
    return 0


def main(argv):
    if argv[:1] == ["install"]:
        return install(argv[1:])
    if argv[:1] == ["spec"]:
        p = argparse.ArgumentParser(prog="rmalab-kernel spec")
        p.add_argument("--rmalab", required=True)
        p.add_argument("--ranks", type=ranks_arg, default=2)
        p.add_argument("--kernel-dir")
        a = p.parse_args(argv[1:])
        json.dump(spec(a.rmalab, a.ranks, a.kernel_dir), sys.stdout, indent=1)
        print()
        return 0
    return run(argv)
