#!/usr/bin/python3
"""rmalab across hosts, on the namespace test bed (bed.py, docs/clusters.md):
the front end on host rlhead, the ranks on nodeA and nodeB, started by
Hydra's rsh launcher; no RMALAB_LISTEN. One case per run:

    hosts.py RMALAB CASE [ARGS...]

Without root or namespaces the case says why and exits 77 (meson: skipped).
"""
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bed  # noqa: E402

RMALAB, CASE, ARGS = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3:]
HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
PROMPT = r"rmalab\[all\]> "
TICK = os.sysconf("SC_CLK_TCK")

bed.skip_unless_possible()
import pexpect  # noqa: E402


def spawn(b, n, env=None, hosts=None):
    """The REPL on the head host, its n ranks on the node hosts."""
    cmd = b.head_cmd([RMALAB, "-n", str(n)] + b.mpiexec_args(hosts))
    e = dict(os.environ, HOME="/tmp", TERM="xterm", **(env or {}))
    e.pop("RMALAB_LISTEN", None)
    t0 = time.time()
    child = pexpect.spawn(cmd[0], cmd[1:], env=e, encoding="utf-8", timeout=30,
                          dimensions=(50, 250))
    child.logfile_read = sys.stdout
    child.expect(r"rmalab \S+ on %d ranks \(MPICH [^)]*Lua 5\.4\)\. :help for commands\." % n)
    child.expect(PROMPT)
    child.started = time.time() - t0
    return child


def run(child, line, *expect):
    child.sendline(line)
    for e in expect:
        child.expect(e)


def quit_ok(child, b):
    child.sendline(":quit")
    child.expect(pexpect.EOF, timeout=60)
    child.close()
    assert child.exitstatus == 0, "exit status %s" % child.exitstatus
    assert not re.search(r"Abort|BAD TERMINATION|Caught signal", child.before or "")
    nothing_left(b)


def nothing_left(b):
    """No process is left on any host of the bed."""
    for _ in range(50):
        left = {h: b.pids(h) for h in b.hosts if b.pids(h)}
        if not left:
            return
        time.sleep(0.1)
    raise AssertionError("processes left on the hosts: %s" % left)


def on_hosts(child):
    """Rank 0 on nodeA, rank 1 on nodeB, by their own hostnames."""
    run(child, 'io.open("/proc/sys/kernel/hostname"):read("l")', r"\[0\] nodeA\s+\[1\] nodeB",
        PROMPT)


def case_repl():
    """A PSCW session on one engine (ARGS[0]), :status, a deadlock hint,
    :quit."""
    engine = ARGS[0]
    b = bed.Bed()
    child = spawn(b, 2, {"RMALAB_PSCW": engine})
    print("\nconnected in %.2f s" % child.started)
    on_hosts(child)
    run(child, "win = rmalab.win_create(64, {disp_unit = 8})", PROMPT)
    run(child, 'win:get_info():get("rmalab_pscw")', r"\[0,1\] " + engine, PROMPT)
    # a fence that rank 1 has not reached: the hint comes by itself
    run(child, "@0 win:fence()", r"\[0\] \u2026 still running: win:fence\(\)", PROMPT)
    child.expect(r"hint: rank 0 is blocked in the collective fence\(\) until rank 1 calls "
                 r"fence\(\) too", timeout=5)
    run(child, ":status", r"rank 0: blocked [\d.]+ s in fence\(\)", r"rank 1: idle", PROMPT)
    run(child, "@1 win:fence()", PROMPT)
    run(child, ":status", r"rank 0: idle\s+rank 1: idle", PROMPT)
    if engine == "rma":  # an epoch typed in the wrong order (MPICH's start gives no hint)
        run(child, '@0 win:start{1}; win:put(1, 0, "int64", 42); win:complete()',
            r"\[0\] \u2026 still running: win:start\{1\}", PROMPT)
        child.expect(r"hint: rank 0 is blocked in put\(\) until rank 1 calls post\(\)",
                     timeout=5)
        run(child, ":status", r"rank 0: blocked [\d.]+ s in put\(\); access epoch to \{1\}",
            r"rank 1: idle", PROMPT)
        run(child, '@1 win:post{0}; win:wait(); return win:read(0, "int64")', r"\[1\] 42")
    # a ring: each rank puts its rank to the next one
    run(child, "me, n = rmalab.world:rank(), rmalab.world:size()", PROMPT)
    run(child, "win:post{(me - 1) % n}; win:start{(me + 1) % n}; "
        "win:put((me + 1) % n, 1, 'int64', 100 + me); win:complete(); win:wait(); "
        "return win:read(1, 'int64')", r"\[0\] 101\s+\[1\] 100", PROMPT)
    run(child, "win:free()", PROMPT)
    quit_ok(child, b)


def case_runner():
    """rmalab test on a scenario, its ranks on the node hosts."""
    b = bed.Bed()
    cmd = b.head_cmd([RMALAB, "test", "--ranks", "2"] + b.mpiexec_args() +
                     [os.path.join(TOP, "tests", "lua", "pscw.lua")])
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=240, env=dict(os.environ, RMALAB_TEST_NODES="1"))
    print(p.stdout)
    assert p.returncode == 0, "rmalab test: exit status %d" % p.returncode
    assert re.search(r"^[1-9]\d* passed, 0 failed$", p.stdout, re.M), "no passing total"
    nothing_left(b)


def case_trace():
    """Script mode with --trace across the hosts: check-trace.py checks the
    arrows against the clocks' offsets and uncertainty."""
    b = bed.Bed()
    head = os.path.join(b.dir, "rmalab-on-head")
    with open(head, "w") as f:
        f.write("#!/bin/sh\nexec %s \"$@\"\n" % " ".join("'%s'" % a for a in b.head_cmd([RMALAB])))
    os.chmod(head, 0o755)
    p = subprocess.run([sys.executable, os.path.join(TOP, "tests", "trace", "check-trace.py"),
                        head, "2", os.path.join(TOP, "tests", "trace", "timeline.lua"),
                        "--min-flows", "4", "--svg", "--"] + b.mpiexec_args(), timeout=240)
    assert p.returncode == 0, "check-trace.py failed"
    nothing_left(b)


def case_killed():
    """A rank killed (SIGKILL) on nodeB: the session ends, and no process is
    left on any host."""
    b = bed.Bed()
    child = spawn(b, 2)
    on_hosts(child)
    run(child, "@1 io.open('/proc/self/stat'):read('n')", r"\[1\] (\d+)")
    pid = int(child.match.group(1))
    assert pid in b.pids("nodeB"), "rank 1 (pid %d) is not on nodeB" % pid
    t0 = time.time()
    os.kill(pid, 9)
    child.expect(r"rank 1 \(pid %d on nodeB\) is gone" % pid, timeout=10)
    child.expect(pexpect.EOF, timeout=20)
    child.close()
    print("\nthe session ended %.1f s after the kill" % (time.time() - t0))
    assert child.exitstatus != 0, "exit status 0 after a rank died"
    nothing_left(b)


def case_kernel():
    """What the Jupyter kernel runs, `rmalab -n 2 --json`, with no mpiexec
    options: Hydra's environment (a hostfile, the launcher, -iface), as a
    kernelspec's env or the Jupyter server's may carry, puts the ranks on
    the node hosts, and the front end listens where they reach it."""
    b = bed.Bed()
    hostfile = os.path.join(b.dir, "hosts")
    with open(hostfile, "w") as f:
        f.write("".join(h + "\n" for h in b.nodes))
    # and the port from the range a firewall lets through, as Hydra's
    env = dict(os.environ, HYDRA_HOST_FILE=hostfile, HYDRA_LAUNCHER="rsh",
               HYDRA_LAUNCHER_EXEC=b.rsh, HYDRA_IFACE="eth0", MPIEXEC_PORT_RANGE="47200:47219")
    env.pop("RMALAB_LISTEN", None)
    p = subprocess.run(b.head_cmd([RMALAB, "-n", "2", "--json"]), env=env, text=True,
                       input='io.open("/proc/sys/kernel/hostname"):read("l")\n'
                       '@0 os.getenv("RMALAB_CONNECT")\n:quit\n',
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=90)
    print(p.stdout, p.stderr)
    events = [json.loads(line) for line in p.stdout.splitlines()]
    got = {e["text"] for e in events if e.get("event") == "result"}
    assert p.returncode == 0, "exit status %d" % p.returncode
    assert {"nodeA", "nodeB"} <= got, "results %s, not nodeA and nodeB" % got
    # the head's addresses: eth0's (-iface) first, loopback last
    want = r"%s,127\.0\.0\.1:472[01]\d" % re.escape(b.addr[bed.HEAD])
    assert any(re.fullmatch(want, t) for t in got), "RMALAB_CONNECT is not %s: %s" % (want, got)
    nothing_left(b)


def case_under_mpiexec():
    """mpiexec -n 2 rmalab, with no front end of its own: rank 0, on nodeA,
    runs it, and rank 1 on nodeB must reach it there, not at 127.0.0.1."""
    b = bed.Bed()
    p = subprocess.run(b.head_cmd(["mpiexec"] + b.mpiexec_args() + ["-n", "2", RMALAB]),
                       input='io.open("/proc/sys/kernel/hostname"):read("l")\n:quit\n',
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
    print(p.stdout)
    assert p.returncode == 0, "exit status %d" % p.returncode
    assert re.search(r"^\[0\] nodeA\n\[1\] nodeB$", p.stdout, re.M), "not one rank per host"
    nothing_left(b)


def ticks(pid):
    """utime + stime of a process, in clock ticks (0 once it is gone)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            utime, stime = f.read().rsplit(")", 1)[1].split()[11:13]
    except OSError:
        return 0
    return int(utime) + int(stime)


def cpu(pids):
    return sum(ticks(p) for p in pids) / TICK


def case_many():
    """32 ranks over the two node hosts: connected within 10 s, :status
    folds by state, and the idle session takes under 3% of one core."""
    b = bed.Bed()
    child = spawn(b, 32, hosts=["nodeA:16", "nodeB:16"])
    print("\n32 ranks connected in %.2f s" % child.started)
    assert child.started < 10, "32 ranks took %.1f s to connect" % child.started
    run(child, "@0-15 return io.open('/proc/sys/kernel/hostname'):read('l')",
        r"\[0-15\] nodeA", PROMPT)
    run(child, "@16-31 return io.open('/proc/sys/kernel/hostname'):read('l')",
        r"\[16-31\] nodeB", PROMPT)
    run(child, ":status", r"ranks 0-31: idle", PROMPT)
    pids = [p for h in b.hosts for p in b.pids(h)]
    time.sleep(2)  # past the second of quick pokes after :status (rank.c)
    # The kernel charges a tick to whichever process runs when its timer
    # fires, so the rare wake-ups of 38 idle processes are sampled: over 4 s,
    # 1% is 4 ticks, and one idle session measured 0.7% to 2.5% (main's too,
    # on a quiet machine; 1.7% over 10 s). Against 3% over 10 s, a spinning
    # rank (100%) or 32 ranks waking every few ms still fail; sampling does not.
    c0, t0 = cpu(pids), time.time()
    time.sleep(10)
    c1, t1 = cpu(pids), time.time()
    share = (c1 - c0) / (t1 - t0)
    print("\nidle session of 32 ranks: %d processes, %.2f%% of one core over %.1f s"
          % (len(pids), 100 * share, t1 - t0))
    # (a barrier: a window on 32 ranks takes 18 s to make here, one host or two)
    run(child, "@0-3 rmalab.world:barrier()", r"\u2026 still running", PROMPT)
    run(child, ":status", r"ranks 0-3: blocked [\d.]+ s in barrier\(\)",
        r"ranks 4-31: idle", PROMPT)
    run(child, "@4-31 rmalab.world:barrier(); return 2", r"\[4-31\] 2", PROMPT)
    quit_ok(child, b)
    assert share < 0.03, "the idle session took %.1f%% of one core" % (100 * share)


globals()["case_" + CASE]()
print("\nhosts.py %s: passed" % CASE)
