"""The kernel tests' common part: a kernel started from an installed
kernelspec through jupyter_client, as a notebook server starts it, and the
processes of its job counted through a marker in their environment (other
jobs on the machine do not count)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

from jupyter_client.manager import KernelManager


def marked(marker):
    """The pids whose environment carries RMALAB_KERNEL_TEST=marker."""
    needle = ("RMALAB_KERNEL_TEST=%s" % marker).encode()
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open("/proc/%s/environ" % d, "rb") as f:
                env = f.read().split(b"\0")
            with open("/proc/%s/stat" % d) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in env and state != "Z":
            pids.append(int(d))
    return pids


def wait_gone(marker, seconds=10.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not marked(marker):
            return []
        time.sleep(0.1)
    return marked(marker)


def prepare(build):
    """meson install into a scratch DESTDIR, then `rmalab kernel install
    --prefix` from there, with only the staged bin on PATH: the kernelspec
    names the staged rmalab and kernel folder, nothing of the build tree.
    Sets JUPYTER_PATH and PATH for what follows; returns the stage."""
    stage = tempfile.mkdtemp(prefix="rmalab-kernel-")
    subprocess.run(["meson", "install", "-C", build, "--destdir", stage, "--no-rebuild",
                    "--quiet"], check=True, stdout=subprocess.DEVNULL)
    opts = {o["name"]: o["value"] for o in json.loads(subprocess.run(
        ["meson", "introspect", build, "--buildoptions"], check=True,
        capture_output=True, text=True).stdout)}
    root = stage + opts["prefix"]
    path = "%s/%s:/usr/bin:/bin" % (root, opts["bindir"])
    os.environ["PATH"] = path
    os.environ.pop("PYTHONPATH", None)
    jp = os.path.join(stage, "jupyter")
    subprocess.run(["rmalab", "kernel", "install", "--prefix", jp], check=True,
                   stdout=subprocess.DEVNULL, env=dict(os.environ, PATH=path))
    os.environ["JUPYTER_PATH"] = os.path.join(jp, "share", "jupyter")
    os.environ["JUPYTER_DATA_DIR"] = os.path.join(stage, "data")
    os.environ["JUPYTER_RUNTIME_DIR"] = os.path.join(stage, "runtime")
    return stage, root, opts


def cleanup(stage):
    shutil.rmtree(stage, ignore_errors=True)


class Session:
    """A kernel from the kernelspec named `name` under the prefix of
    JUPYTER_PATH, and a blocking client."""

    def __init__(self, name="rmalab"):
        self.marker = uuid.uuid4().hex
        assert not marked(self.marker)
        self.km = KernelManager(kernel_name=name)
        env = dict(os.environ, RMALAB_KERNEL_TEST=self.marker)
        self.km.start_kernel(env=env)
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=60)
        self.outputs = {}

    def execute(self, code, timeout=30, stop_on_error=False):
        """Run a cell: its reply, and the iopub messages of its parent."""
        msg_id = self.kc.execute(code, stop_on_error=stop_on_error)
        reply = self.kc.get_shell_msg(timeout=timeout)
        while reply["parent_header"].get("msg_id") != msg_id:
            reply = self.kc.get_shell_msg(timeout=timeout)
        msgs = self.drain(msg_id, timeout)
        return reply, msgs

    def drain(self, msg_id, timeout=30):
        msgs = []
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            m = self.kc.get_iopub_msg(timeout=end - time.monotonic())
            if m["parent_header"].get("msg_id") == msg_id:
                if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
                    return msgs
                msgs.append(m)
            else:
                self.outputs.setdefault("other", []).append(m)
        raise TimeoutError("no idle for %s" % msg_id)

    def iopub(self, seconds):
        """Every iopub message for `seconds`."""
        out = []
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                out.append(self.kc.get_iopub_msg(timeout=max(0.01, end - time.monotonic())))
            except Exception:
                pass
        return out

    def close(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=False)
        del self.kc
        return wait_gone(self.marker)


def texts(msgs, kind=None):
    out = []
    for m in msgs:
        c = m["content"]
        if kind and m["msg_type"] != kind:
            continue
        if m["msg_type"] == "stream":
            out.append(c["text"])
        elif "data" in c:
            out.append(c["data"].get("text/plain", ""))
        elif m["msg_type"] == "error":
            out.append("\n".join(c["traceback"]))
    return "".join(out)


def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr)
        sys.exit(1)
    print("ok:", what)
