"""No rank process outlives its job, whatever the way out (docs/repl.md,
"Ending a session"). One case per run: lifetime.py RMALAB CASE. Real
processes: the job's are found through /proc, by a marker in their
environment (mpiexec passes the environment on to its proxies and the
ranks), and the case fails when one is still there (not a zombie) after the
time allowed, or when the exit status is not 128 + the signal. Each case
prints how long the job took to disappear."""
import os
import signal
import subprocess
import sys
import tempfile
import time

RMALAB, CASE = sys.argv[1], sys.argv[2]
MARK = "RMALAB_LIFETIME_TEST=%d.%d" % (os.getpid(), time.time_ns())
ENV = dict(os.environ, RMALAB_LIFETIME_TEST=MARK.split("=", 1)[1])


def job():
    """The live (not zombie) processes that carry this run's marker."""
    found = []
    for p in os.listdir("/proc"):
        if not p.isdigit() or int(p) == os.getpid():
            continue
        try:
            with open("/proc/%s/environ" % p, "rb") as f:
                if MARK.encode() not in f.read().split(b"\0"):
                    continue
            with open("/proc/%s/stat" % p) as f:
                if f.read().rsplit(")", 1)[1].split()[0] in "ZX":
                    continue
        except OSError:
            continue
        found.append(int(p))
    return found


def describe(pids):
    return subprocess.run(["ps", "-o", "pid,ppid,sid,stat,etime,cmd", "-p",
                           ",".join(map(str, pids))], capture_output=True, text=True).stdout


def wait_busy(n, seconds=60):
    """Until n rank processes of the job (rmalab, not mpiexec or a proxy)
    exist and have used CPU or connected: they are up."""
    until = time.time() + seconds
    while time.time() < until:
        ranks = [p for p in job() if is_rank(p)]
        if len(ranks) >= n:
            return ranks
        time.sleep(0.1)
    fail("the %d ranks did not start: %s" % (n, describe(job())))


def is_rank(p):
    try:
        with open("/proc/%d/cmdline" % p, "rb") as f:
            argv = f.read().split(b"\0")
        with open("/proc/%d/comm" % p) as f:
            comm = f.read().strip()
    except OSError:
        return False
    return comm == "rmalab" and b"--serve" in argv or (
        comm == "rmalab" and not any(a.startswith(b"-n") for a in argv))


def fail(why):
    left = job()
    print("FAIL:", why)
    if left:
        print(describe(left))
    for p in left:  # this run's processes only, by pid
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass
    sys.exit(1)


def gone_within(seconds, t0, proc=None):
    """Seconds until no process of the job is left, or fail."""
    while True:
        if proc is not None:
            proc.poll()
        left = job()
        took = time.time() - t0
        if not left and (proc is None or proc.returncode is not None):
            return took
        if took > seconds:
            fail("%d processes of the job still there %.1f s after the signal" %
                 (len(left), took))
        time.sleep(0.05)


def signalled(args, sig, ranks=2, limit=5.0, settle=1.5):
    """Start rmalab ARGS, wait until its ranks run, send sig to rmalab
    alone; the job must be gone within limit s, status 128 + sig."""
    proc = subprocess.Popen([RMALAB, *args], env=ENV, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wait_busy(ranks)
    time.sleep(settle)  # the chunk or the script runs
    end_by_signal(proc, sig, limit)


def end_by_signal(proc, sig, limit):
    """Send sig to rmalab alone: the job must be gone within limit s, with
    status 128 + sig and no Hydra banner. Its output and stderr, as text."""
    t0 = time.time()
    os.kill(proc.pid, sig)
    took = gone_within(limit, t0, proc)
    out, err = proc.communicate(timeout=10)
    err = err.decode(errors="replace")
    print("job gone %.2f s after %s; status %s" % (took, sig.name, proc.returncode))
    print("stderr:", err)
    if proc.returncode != 128 + sig:
        fail("exit status %s, not %d" % (proc.returncode, 128 + sig))
    if "BAD TERMINATION" in err:
        fail("Hydra's banner reached the user")
    return out.decode(errors="replace"), err


def repl_on_pipe(lines, settle, out=subprocess.DEVNULL):
    """rmalab -n 2 reading a pipe that stays open (the session does not end
    by itself): once the ranks run, send lines and let them settle. The
    process and the pipe's write end."""
    r, w = os.pipe()
    proc = subprocess.Popen([RMALAB, "-n", "2"], env=ENV, stdin=r, stdout=out, stderr=out)
    os.close(r)
    wait_busy(2)
    os.write(w, lines)
    time.sleep(settle)
    return proc, w


def case_sigkill_front_end():
    """The front end is SIGKILLed while rank 0 runs `while true do end` and
    rank 1 is blocked in a fence rank 0 never reaches: the ranks notice the
    control channel close and end (interrupt, else _exit), and Hydra with
    them, within 5 s."""
    proc, w = repl_on_pipe(b"w = rmalab.win_create(8)\n@0 while true do end\n@1 w:fence()\n", 2.5)
    pids = job()
    print(describe(pids))
    t0 = time.time()
    proc.kill()
    proc.wait()
    took = gone_within(5.0, t0)
    print("job gone %.2f s after SIGKILL of the front end" % took)
    os.close(w)


def case_sigkill_front_end_idle():
    """Both ranks idle with a window never freed: the exit path's collective
    free must not make a rank wait for a peer that is gone."""
    proc, w = repl_on_pipe(b"w = rmalab.win_create(8)\n@0 w:fence()\n", 2.5)
    t0 = time.time()
    proc.kill()
    proc.wait()
    took = gone_within(5.0, t0)
    print("job gone %.2f s after SIGKILL of the front end" % took)
    os.close(w)


def case_sigkill_front_end_startup():
    """The front end is SIGKILLed as soon as the rank processes exist, before
    they greet it: a refused connection means it is gone, and the ranks end
    instead of retrying."""
    proc = subprocess.Popen([RMALAB, "-n", "2"], env=ENV, stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_busy(2)
    t0 = time.time()
    proc.kill()
    proc.wait()
    took = gone_within(5.0, t0)
    print("job gone %.2f s after SIGKILL of the front end" % took)


def case_e_sigterm():
    """rmalab -n 2 -e 'while true do end', then SIGTERM."""
    signalled(["-n", "2", "-e", "while true do end"], signal.SIGTERM)


def case_e_sighup():
    signalled(["-n", "2", "-e", "while true do end"], signal.SIGHUP)


def case_script_sigterm():
    """Script mode, a script that loops forever, then SIGTERM."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write("while true do end\n")
    try:
        signalled(["-n", "2", f.name], signal.SIGTERM)
    finally:
        os.unlink(f.name)


def case_script_sigint_pipe():
    """Script mode with input not a terminal: SIGINT ends the job (130), even
    a rank blocked in a fence that its peer never reaches."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write("local w = rmalab.win_create(8)\n"
                "if rmalab.world:rank() == 0 then while true do end else w:fence() end\n")
    try:
        signalled(["-n", "2", f.name], signal.SIGINT)
    finally:
        os.unlink(f.name)


def repl_signalled(sig):
    """The REPL with piped input that stays open: rank 0 blocked in a fence
    rank 1 never reaches, rank 1 in `while true do end`. The signal to the
    front end ends the whole job within 5 s, status 128 + sig, one line of
    rmalab's, and no Hydra banner."""
    proc, w = repl_on_pipe(b"w = rmalab.win_create(8)\n@0 w:fence()\n@1 while true do end\n", 1.5,
                           subprocess.PIPE)
    out, err = end_by_signal(proc, sig, 5.0)
    os.close(w)
    if "ended the job" not in err:
        fail("no line from rmalab says the job was ended")
    if "never finished: w:fence()" not in out:
        fail("the output does not say what never finished: %r" % out)


def case_repl_sigterm():
    repl_signalled(signal.SIGTERM)


def case_repl_sighup():
    repl_signalled(signal.SIGHUP)


def case_repl_sigint_pipe():
    repl_signalled(signal.SIGINT)


if __name__ == "__main__":
    globals()["case_" + CASE]()
    print("ok", CASE)
