"""A test bed of hosts on one machine (docs/clusters.md, "The namespace
test bed"): a private bridge with no address of the machine on it (nothing
is routed to or from it), and one network namespace per host, each with a
veth (eth0) on the bridge, an address in 10.29.0.0/24, loopback up, its own
/etc/hosts (`ip netns exec` bind-mounts /etc/netns/NS/hosts) and its own
hostname (a UTS namespace, made by `unshare -u` as each process enters).
The head host runs the front end; the node hosts run the ranks, started by
Hydra's rsh launcher through a launcher-exec script that enters the host's
namespaces. As on Debian, every host's /etc/hosts maps its own name to
127.0.1.1 (the situation of issue 29: a front end that listened on its
name's address was unreachable).

Names carry the pid of the process that made them (rlbr<pid>, rlnode<pid>h,
rlnode<pid>a, ...), so two beds at once never meet; `Bed()` first removes
what beds of dead processes left (a test killed with SIGKILL), and `close()`
(also at exit and on SIGTERM/SIGINT/SIGHUP) removes its own.

usage as a module: with Bed(["nodeA", "nodeB"]) as bed: bed.run_head([...])
usage as a script: bed.py up|down|clean (by hand, to reproduce a bug)"""
import atexit
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile

SKIP = 77
SUBNET = "10.29.0"
HEAD = "rlhead"


def sh(*args, check=True):
    return subprocess.run(args, check=check, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_stale():
    """Remove the namespaces, links and files of beds whose process is gone."""
    for line in sh("ip", "netns", "list", check=False).stdout.splitlines():
        m = re.match(r"(rlnode(\d+)[a-z])\b", line)
        if m and not alive(int(m.group(2))):
            kill_netns(m.group(1))
            sh("ip", "netns", "del", m.group(1), check=False)
    for line in sh("ip", "-o", "link", "show", check=False).stdout.splitlines():
        m = re.match(r"\d+: ((?:rlbr|rlv)(\d+)[a-z]?)[@:]", line)
        if m and not alive(int(m.group(2))):
            sh("ip", "link", "del", m.group(1), check=False)
    if os.path.isdir("/etc/netns"):
        for d in os.listdir("/etc/netns"):
            m = re.match(r"rlnode(\d+)[a-z]$", d)
            if m and not alive(int(m.group(1))):
                shutil.rmtree("/etc/netns/" + d, ignore_errors=True)


def netns_pids(ns):
    out = sh("ip", "netns", "pids", ns, check=False).stdout.split()
    return [int(p) for p in out if p.isdigit()]


def kill_netns(ns):
    for p in netns_pids(ns):
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass


def why_not():
    """Why no bed can be made here, or None."""
    if os.geteuid() != 0:
        return "not root: network namespaces need root"
    for tool in ("ip", "unshare"):
        if not shutil.which(tool):
            return "no %s (iproute2, util-linux)" % tool
    probe = "rlnode%dz" % os.getpid()
    r = sh("ip", "netns", "add", probe, check=False)
    if r.returncode:
        return "cannot make a network namespace: " + r.stderr.strip()
    r = sh("ip", "netns", "exec", probe, "unshare", "-u", "true", check=False)
    sh("ip", "netns", "del", probe, check=False)
    if r.returncode:
        return "cannot make a UTS namespace: " + r.stderr.strip()
    return None


def skip_unless_possible():
    why = why_not()
    if why:
        print("SKIP: no namespace test bed here: " + why)
        sys.exit(SKIP)


class Bed:
    def __init__(self, nodes=("nodeA", "nodeB")):
        clean_stale()
        self.pid = os.getpid()
        self.bridge = "rlbr%d" % self.pid
        self.nodes = list(nodes)
        self.hosts = [HEAD] + self.nodes
        self.ns = {h: "rlnode%d%s" % (self.pid, "h" if h == HEAD else chr(ord("a") + i))
                   for i, h in enumerate(self.nodes)}
        self.ns[HEAD] = "rlnode%dh" % self.pid
        self.addr = {h: "%s.%d" % (SUBNET, i + 1) for i, h in enumerate(self.hosts)}
        self.dir = tempfile.mkdtemp(prefix="rlbed%d-" % self.pid)
        self.closed = False
        atexit.register(self.close)
        for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(s, self._on_signal)
        try:
            self._up()
        except BaseException:
            self.close()
            raise

    def _on_signal(self, sig, frame):
        self.close()
        sys.exit(128 + sig)

    def _up(self):
        sh("ip", "link", "add", self.bridge, "type", "bridge")
        sh("ip", "link", "set", self.bridge, "up")
        hosts = "127.0.0.1 localhost\n127.0.1.1 %s\n" + "".join(
            "%s %s\n" % (self.addr[h], h) for h in self.hosts)
        for i, h in enumerate(self.hosts):
            ns, veth = self.ns[h], "rlv%d%s" % (self.pid, self.ns[h][-1])
            sh("ip", "netns", "add", ns)
            os.makedirs("/etc/netns/" + ns, exist_ok=True)
            with open("/etc/netns/%s/hosts" % ns, "w") as f:
                f.write(hosts % h)
            sh("ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns)
            sh("ip", "link", "set", veth, "master", self.bridge, "up")
            sh("ip", "-n", ns, "addr", "add", self.addr[h] + "/24", "dev", "eth0")
            sh("ip", "-n", ns, "link", "set", "eth0", "up")
            sh("ip", "-n", ns, "link", "set", "lo", "up")
        self.rsh = os.path.join(self.dir, "rsh")
        with open(self.rsh, "w") as f:
            f.write("#!/bin/sh\n# Hydra's rsh launcher: rsh HOST COMMAND...\nhost=$1; shift\n"
                    "case $host in\n")
            for h in self.nodes:
                f.write("%s) ns=%s ;;\n" % (h, self.ns[h]))
            f.write("*) echo \"rsh: no host $host in the test bed\" >&2; exit 255 ;;\nesac\n"
                    "exec ip netns exec $ns unshare -u sh -c 'hostname \"$0\"; exec sh -c \"$*\"'"
                    " \"$host\" \"$@\"\n")
        os.chmod(self.rsh, 0o755)

    def mpiexec_args(self, nodes=None):
        """What makes mpiexec start the ranks on the node hosts."""
        return ["-launcher", "rsh", "-launcher-exec", self.rsh, "-iface", "eth0",
                "-hosts", ",".join(nodes or self.nodes)]

    def head_cmd(self, argv):
        """argv run on the head host (its namespaces, hostname rlhead)."""
        return ["ip", "netns", "exec", self.ns[HEAD], "unshare", "-u", "sh", "-c",
                'hostname %s; exec "$@"' % HEAD, "sh"] + list(argv)

    def pids(self, host=None):
        """Processes in a host's network namespace (every node host's: None)."""
        return [p for h in ([host] if host else self.nodes) for p in netns_pids(self.ns[h])]

    def close(self):
        if self.closed or os.getpid() != self.pid:
            return
        self.closed = True
        for h in self.hosts:
            kill_netns(self.ns[h])
            sh("ip", "netns", "del", self.ns[h], check=False)
            shutil.rmtree("/etc/netns/" + self.ns[h], ignore_errors=True)
        sh("ip", "link", "del", self.bridge, check=False)
        shutil.rmtree(self.dir, ignore_errors=True)


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "clean":
        clean_stale()
    elif cmd == "up":  # a bed that lives until Enter
        skip_unless_possible()
        b = Bed()
        print("head: %s (%s), nodes: %s\na shell on the head: %s\nmpiexec options: %s" % (
            b.ns[HEAD], b.addr[HEAD], ", ".join("%s (%s)" % (h, b.addr[h]) for h in b.nodes),
            shlex.join(b.head_cmd(["bash"])), shlex.join(b.mpiexec_args())))
        input("Enter tears the bed down. ")
        b.close()
    else:
        print(__doc__)
        sys.exit(2)
