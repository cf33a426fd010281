"""The REPL as a user feels it (./do bench, or: /usr/bin/python3 bench/repl.py
build/repl/rmalab): the startup time to the first prompt, the round trip of a
one-line expression sent to every rank (typed into the terminal until its
folded result is printed), median and p95 at 2 and 4 ranks, and the CPU that
a whole idle 4-rank session uses over 10 s (front end, mpiexec, Hydra's
proxy and every rank, from /proc). Goals: idle <= 1% of one core; median
<= 5 ms on 2 ranks and <= 20 ms on 4 ranks (on a 2-core machine, where 4
ranks oversubscribe the cores)."""
import os
import statistics
import sys
import time

import pexpect

RMALAB = sys.argv[1]
TICK = os.sysconf("SC_CLK_TCK")


def spawn(n):
    t0 = time.perf_counter()
    child = pexpect.spawn(RMALAB, ["-n", str(n)], encoding="utf-8", timeout=60,
                          env=dict(os.environ, HOME="/tmp", TERM="xterm"))
    child.expect(r"rmalab\[all\]> ")
    child.delaybeforesend = None  # pexpect waits 50 ms before each send otherwise
    return child, time.perf_counter() - t0


def round_trips(child, count):
    times = []
    for i in range(count):
        value = 1000 + i
        t0 = time.perf_counter()
        child.sendline(str(value))
        child.expect(r"\] %d\r\n" % value)
        times.append(time.perf_counter() - t0)
    return times


def tree(pid):
    """pid and all its descendants."""
    children = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open("/proc/%s/stat" % p) as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(p))
            except OSError:
                pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def cpu_seconds(pids):
    total = 0
    for p in pids:
        try:
            with open("/proc/%d/stat" % p) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except OSError:
            pass
    return total / TICK


def verdict(ok):
    return "PASS" if ok else "MISS"


def main():
    print("bench repl: %s" % RMALAB)
    for n, goal in ((2, 0.005), (4, 0.020)):
        child, startup = spawn(n)
        round_trips(child, 10)  # warm up
        t = sorted(round_trips(child, 200))
        med, p95 = statistics.median(t), t[int(0.95 * len(t)) - 1]
        print("%d ranks: startup to the first prompt %.2f s" % (n, startup))
        print("%d ranks: round trip of a one-line expression: median %.2f ms, p95 %.2f ms"
              % (n, 1e3 * med, 1e3 * p95))
        print("goal: median <= %.0f ms on %d ranks: %s (%.2f ms)"
              % (1e3 * goal, n, verdict(med <= goal), 1e3 * med))
        if n == 4:
            time.sleep(2)  # past the ranks' fast polling after a command
            pids = tree(child.pid)
            c0, t0 = cpu_seconds(pids), time.perf_counter()
            time.sleep(10)
            c1, t1 = cpu_seconds(pids), time.perf_counter()
            share = (c1 - c0) / (t1 - t0)
            print("4 ranks idle for %.0f s: %d processes used %.2f%% of one core"
                  % (t1 - t0, len(pids), 100 * share))
            print("goal: idle <= 1%% of one core: %s (%.2f%%)" % (verdict(share <= 0.01),
                                                               100 * share))
        child.sendline(":quit")
        child.expect(pexpect.EOF)
        child.close()


main()
