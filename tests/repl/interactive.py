"""The REPL driven through a pseudo-terminal, as a person drives it
(IPython's and CPython's REPL tests do the same with pexpect). One case per
run: interactive.py RMALAB CASE. Each case exits non-zero on failure, with
what the screen showed."""
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time

import pexpect

RMALAB, CASE = sys.argv[1], sys.argv[2]
PROMPT = r"rmalab\[all\]> "
UP = "\x1b[A"


def spawn(n=2, extra=()):
    env = dict(os.environ, HOME=os.environ.get("RMALAB_TEST_HOME", "/tmp"), TERM="xterm")
    child = pexpect.spawn(RMALAB, ["-n", str(n), *extra], env=env, encoding="utf-8",
                          timeout=30, dimensions=(50, 250))
    child.logfile_read = sys.stdout
    child.expect(r"rmalab \S+ on %d ranks \(MPICH [^)]*Lua 5\.4\)\. :help for commands\." % n)
    child.expect(PROMPT)
    return child


def run(child, line, *expect):
    child.sendline(line)
    for e in expect:
        child.expect(e)


def quit_ok(child):
    child.sendline(":quit")
    child.expect(pexpect.EOF, timeout=60)
    child.close()
    assert child.exitstatus == 0, "exit status %s" % child.exitstatus
    assert not re.search(r"Abort|BAD TERMINATION|Caught signal", child.before or "")


def case_banner():
    child = spawn()
    run(child, ":help", r":on <ranks>", r"@1 win:wait\(\)", PROMPT)
    run(child, "rmalab.world:rank()", r"\[0\] 0\s+\[1\] 1", PROMPT)
    quit_ok(child)


def case_multiline_history():
    child = spawn()
    run(child, "for i = 1, 2 do", r">> ")
    run(child, "  print('line', i)", r">> ")
    run(child, "end", r"\[0,1\] line\s+1\s+\[0,1\] line\s+2", PROMPT)
    run(child, "local x = 5", PROMPT)
    run(child, "x * 2", r"\[0,1\] 10", PROMPT)
    child.send(UP + UP + "\r")  # recalls "local x = 5"
    child.expect(PROMPT)
    run(child, "x + 1", r"\[0,1\] 6", PROMPT)
    quit_ok(child)


def case_completion():
    """Globals, fields and methods, from an idle rank: what the completed
    line then does shows what was completed."""
    child = spawn()
    run(child, "win = rmalab.win_create(16, {name = 'w'})", PROMPT)
    child.send("win:get_na\t")  # a method, through the metatable
    time.sleep(0.5)
    child.sendline("()")
    child.expect(r"\[0,1\] w")
    child.send("rmalab.wor\t")  # a field
    time.sleep(0.5)
    child.send(":si\t")       # a method of the field's value
    time.sleep(0.5)
    child.sendline("()")
    child.expect(r"\[0,1\] 2")
    run(child, "win:free()", PROMPT)
    quit_ok(child)


def case_ctrl_c():
    child = spawn()
    child.sendline("while true do end")
    time.sleep(0.3)
    child.sendintr()  # first: stop waiting, show who is still running
    child.expect(r"\[0,1\] \u2026 still running: while true do end")
    child.expect(PROMPT)
    child.sendintr()  # second: interrupt the runaway chunk
    child.expect(r"\[0,1\] error (stdin:\d+: )?interrupted")
    run(child, "1 + 1", r"\[0,1\] 2", PROMPT)
    child.sendline("while true do end")
    child.expect("still running")
    child.sendintr()  # not waiting any more: interrupts at once, again
    child.expect(r"\[0,1\] error (stdin:\d+: )?interrupted")
    child.sendintr()  # nothing runs: clears the line
    child.expect(r"\^C")
    run(child, "2 + 2", r"\[0,1\] 4", PROMPT)
    quit_ok(child)


def case_ctrl_c_deadlock():
    """The classroom deadlock on the rma engine: both ranks start and put
    before either posts. Ctrl-C ends both puts with ERR_INTERRUPTED, and a
    correct epoch follows in the same session."""
    child = spawn()
    run(child, "win = rmalab.win_allocate(64, {disp_unit = 8})", PROMPT)
    run(child, "o = 1 - rmalab.world:rank()", PROMPT)
    run(child, 'win:start{o}; win:put(o, 0, "int64", 1)',
        r"\[0,1\] \u2026 still running: win:start\{o\}", PROMPT)
    run(child, ":status", r"\(can be interrupted: :interrupt 0\)",
        r"\(can be interrupted: :interrupt 1\)", PROMPT)
    child.sendintr()  # the chunks run and nothing waits: interrupts at once
    child.expect(r"\[0\] error ERR_INTERRUPTED: win:put to rank 1: interrupted while it "
                 r"waited for rank 1's post\(\)")
    child.expect(r"\[1\] error ERR_INTERRUPTED: win:put to rank 0")
    run(child, 'win:post{o}; win:put(o, 0, "int64", 11 - o); win:complete(); win:wait()',
        PROMPT)
    run(child, 'win:read(0, "int64")', r"\[0\] 11\s+\[1\] 10", PROMPT)
    run(child, "win:free()", PROMPT)
    quit_ok(child)


def case_blocked_session():
    child = spawn()
    run(child, "win = rmalab.win_create(64, {disp_unit = 8})", PROMPT)
    run(child, '@0 win:start{1}; win:put(1, 0, "int64", 42); win:complete()',
        r"\[0\] \u2026 still running: win:start\{1\}", PROMPT)
    # the hint comes about 1 s after the deadlock began, by itself
    child.expect(r"hint: rank 0 is blocked in put\(\) until rank 1 calls post\(\)", timeout=5)
    run(child, ":status", r"rank 0: blocked [\d.]+ s in put\(\); access epoch to \{1\}",
        r"rank 1 has not called post\(\)", r"rank 1: idle", PROMPT)
    run(child, '@1 win:post{0}; win:wait(); return win:read(0, "int64")', r"\[1\] 42")
    run(child, ":status", r"rank 0: idle\s+rank 1: idle", PROMPT)
    run(child, "win:free()", PROMPT)
    quit_ok(child)


def case_failed_rank_shown():
    """Rank 0 skips the second fence, then free goes to both ranks: rank 0's
    refused free is shown at once. Every collective call agrees before MPI
    (docs/core.md), so rank 0's free meets rank 1's fence there: rank 1's
    fence fails too, saying another rank made a different call, and its
    free, queued behind, waits for rank 0's. Rank 0's second free, refused
    again, fails on both ranks and leaves the window usable: a fence and a
    free on both then end it, the session goes on, and each of rank 0's
    errors is printed once."""
    child = spawn()
    seen = []

    class Tee:  # the screen as it went, to count the error's lines
        def write(self, text):
            seen.append(text)
            sys.stdout.write(text)

        def flush(self):
            sys.stdout.flush()
    child.logfile_read = Tee()
    run(child, "win = rmalab.win_allocate(64, {disp_unit = 8})", PROMPT)
    run(child, "win:fence()", PROMPT)
    run(child, '@0 win:put(1, 0, "int64", 1)', PROMPT)
    run(child, "@1 win:fence()", r"\[1\] \u2026 still running: win:fence\(\)", PROMPT)
    child.expect(r"hint: rank 1 is blocked in the collective fence\(\) until rank 0 calls "
                 r"fence\(\) too", timeout=5)
    def both(command, a, b):  # the two ranks' lines come in either order
        run(child, command, r"(?s)(?:%s.*?%s|%s.*?%s)" % (a, b, b, a))
    both("win:free()",
         r"\[0\] error ERR_RMA_SYNC: win:free: [^\r]*fence epoch \(1 RMA calls\); close it first",
         r"\[1\] error ERR_OTHER: win:fence: another rank made a different collective call")
    child.expect(r"\[1\] \u2026 still running: win:free\(\)", timeout=5)
    both("@0 win:free()", r"\[0\] error ERR_RMA_SYNC: win:free: [^\r]*close it first",
         r"\[1\] error ERR_RMA_SYNC: win:free: another rank failed")
    run(child, "win:fence()", PROMPT)
    run(child, "win:free()", PROMPT)
    run(child, "return 'went on'", r"\[0,1\] went on", PROMPT)
    quit_ok(child)
    shown = "".join(seen).count("[0] error ERR_RMA_SYNC")
    assert shown == 2, "rank 0's errors printed %d times, not once each" % shown


def case_save_transcript():
    """A terminal session saved with :save: the transcript holds each block
    after its command (the terminal prints them as they complete), :status
    without durations, and `rmalab test` replays it."""
    path = os.path.join(os.environ.get("RMALAB_TEST_HOME", "/tmp"), "saved.rlab")
    child = spawn()
    run(child, "win = rmalab.win_create(64, {disp_unit = 8})", PROMPT)
    run(child, '@0 win:start{1}; win:put(1, 0, "int64", 42); win:complete(); return "sent"',
        r"still running", PROMPT)
    run(child, ":status", r"rank 0: blocked [\d.]+ s in put\(\)", PROMPT)
    run(child, '@1 win:post{0}; win:wait(); return win:read(0, "int64")')
    seen = {child.expect([r"\[1\] 42", r"\[0\] sent"]) for _ in range(2)}
    assert seen == {0, 1}
    run(child, "win:free()", PROMPT)
    run(child, ":save " + path, r"saved the session to", PROMPT)
    quit_ok(child)
    text = open(path).read()
    print(text)
    want = ["-- ranks: 2", '> @0 win:start{1}; win:put(1, 0, "int64", 42); win:complete(); '
            'return "sent"', "> :status", "rank 0: blocked in put(); access epoch to {1}",
            '> @1 win:post{0}; win:wait(); return win:read(0, "int64")', "[1] 42",
            "[0] sent", "> win:free()"]
    at = [text.find(w) for w in want]
    assert all(a >= 0 for a in at), "missing: %s" % [w for w, a in zip(want, at) if a < 0]
    assert text.find('return "sent"\n[0] sent\n> :status') >= 0, "the @0 block follows its command"
    assert ":save" not in text and " s in " not in text
    replay = subprocess.run([RMALAB, "test", path], capture_output=True, text=True,
                            timeout=120, check=False)
    print(replay.stdout)
    assert replay.returncode == 0 and "1 passed, 0 failed" in replay.stdout, "replay failed"


def case_quit_open_epoch():
    child = spawn()
    run(child, "win = rmalab.win_create(64, {disp_unit = 8})", PROMPT)
    run(child, "w2 = rmalab.win_allocate(16)", PROMPT)
    run(child, "@1 win:post{0}", PROMPT)
    run(child, "w2:lock_all()", PROMPT)
    quit_ok(child)


def descendants(pid):
    """Every process below pid (mpiexec, hydra_pmi_proxy, the ranks)."""
    parent = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    parent[int(d)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                pass
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        found += kids
        todo += kids
    return found


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def rank_pid(child, r):
    run(child, '@%d io.open("/proc/self/stat"):read("n")' % r, r"\[%d\] (\d+)" % r)
    return int(child.match.group(1))


def name_of(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return ""


def killed(child, victim, pid):
    """SIGKILL rank `victim`: the front end names it, the session ends within
    seconds with a non-zero status, and no process of the job is left (a
    user's own `sleep` is not the job's)."""
    procs = [p for p in descendants(child.pid) if name_of(p) != "sleep"]
    t0 = time.time()
    os.kill(pid, signal.SIGKILL)
    child.expect(r"rank %d \(pid %d on \S+\) is gone" % (victim, pid), timeout=10)
    child.expect(pexpect.EOF, timeout=20)
    child.close()
    took = time.time() - t0
    print("\nthe session ended %.1f s after the kill" % took)
    assert took < 5, "the session took %.1f s to end after the kill" % took
    assert child.exitstatus != 0, "exit status 0 after a rank died"
    for _ in range(50):
        if not any(alive(p) for p in procs):
            break
        time.sleep(0.1)
    left = [p for p in procs if alive(p)]
    assert not left, "processes of the job left running: %s" % left


def case_killed_rank():
    child = spawn()
    pid = rank_pid(child, 1)
    rank_pid(child, 0)
    killed(child, 1, pid)


def case_killed_mid_epoch():
    """Rank 1 dies inside an access epoch while rank 0 is blocked in wait()
    for it: the blocked rank must not keep the job (or the prompt) alive."""
    child = spawn()
    pid = rank_pid(child, 1)
    run(child, "win = rmalab.win_allocate(64, {disp_unit = 8})", PROMPT)
    run(child, "@0 win:post{1}; win:wait()", PROMPT)
    run(child, "@1 win:start{0}; win:put(0, 0, 'int64', 42)", PROMPT)
    # a child that outlives the rank must not hold its control connection
    # open (it did: the socket was inherited, so the death went unseen)
    run(child, "@1 os.execute('sleep 15 &')", PROMPT)
    run(child, ":status", r"rank 0: blocked \S+ s in wait\(\)", r"rank 1: idle", PROMPT)
    killed(child, 1, pid)


def case_abort():
    """comm:abort(3) on one rank (MPI_Abort, on purpose) ends the job: the
    session ends with a non-zero status, says what never finished, and no
    process of the job is left. (MPICH's own 'Abort(3) on node 1' line
    usually shows too, but mpiexec's cleanup sometimes loses it.)"""
    child = spawn()
    run(child, "6 * 7", r"\[0,1\] 42", PROMPT)
    procs = descendants(child.pid)
    child.sendline("@1 rmalab.world:abort(3)")
    child.expect(r"rank \d \(pid \d+ on \S+\) is gone; ending the session", timeout=10)
    child.expect(r"\[1\] \S+ never finished: rmalab\.world:abort\(3\)", timeout=10)
    child.expect(pexpect.EOF, timeout=20)
    child.close()
    assert child.exitstatus != 0, "exit status 0 after an abort"
    time.sleep(0.5)
    left = [p for p in procs if alive(p)]
    assert not left, "processes of the job left running: %s" % left


def listening_ports(pid):
    inodes = set()
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:  # the front end opens and closes descriptors as it starts
            link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except FileNotFoundError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
    ports = []
    with open("/proc/%d/net/tcp" % pid) as f:
        for row in f.readlines()[1:]:
            cols = row.split()
            if cols[3] == "0A" and cols[9] in inodes:
                ports.append(int(cols[1].split(":")[1], 16))
    return ports


def case_bad_token():
    # Strangers connect while the front end waits for its ranks (mpiexec
    # starts 2 s late, through a wrapper first on PATH): each is refused and
    # logged. Once every rank is in, the front end listens no more.
    import tempfile
    wrap = tempfile.mkdtemp()
    with open(os.path.join(wrap, "mpiexec"), "w") as f:
        f.write("#!/bin/sh\nsleep 2\nexec /usr/bin/mpiexec \"$@\"\n")
    os.chmod(os.path.join(wrap, "mpiexec"), 0o755)
    env = dict(os.environ, HOME=os.environ.get("RMALAB_TEST_HOME", "/tmp"), TERM="xterm",
               PATH=wrap + ":" + os.environ["PATH"])
    child = pexpect.spawn(RMALAB, ["-n", "2"], env=env, encoding="utf-8", timeout=30,
                          dimensions=(50, 250))
    child.logfile_read = sys.stdout
    for _ in range(100):
        ports = os.path.exists("/proc/%d" % child.pid) and listening_ports(child.pid)
        if ports:
            break
        time.sleep(0.02)
    port = ports[0]
    for token in ("0" * 64, None):
        s = socket.create_connection(("127.0.0.1", port))
        fields = [b"bad" if token is None else token.encode(), b"0", b"2", b"x", b"1", b"x"]
        if token is None:  # not even a greeting
            body = b"R" + b"".join(struct.pack(">I", len(f)) + f for f in fields[:1])
        else:
            body = b"H" + b"".join(struct.pack(">I", len(f)) + f for f in fields)
        s.sendall(struct.pack(">I", len(body)) + body)
        child.expect(r"refused a control connection from 127\.0\.0\.1: (bad token|not a greeting)")
        s.close()
    # bytes that are no frame at all (a length beyond the limit), and a
    # connection that says nothing
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"\xff\xff\xff\xffGET / HTTP/1.0\r\n\r\n")
    child.expect(r"refused a control connection from 127\.0\.0\.1: not a frame of the control")
    s.close()
    s = socket.create_connection(("127.0.0.1", port))
    s.close()
    child.expect(r"refused a control connection from 127\.0\.0\.1: no greeting")
    child.expect(PROMPT)
    assert not listening_ports(child.pid), "still listening once every rank is in"
    try:
        socket.create_connection(("127.0.0.1", port)).close()
        raise AssertionError("a connection to port %d was accepted after the start" % port)
    except ConnectionRefusedError:
        pass
    run(child, "1 + 1", r"\[0,1\] 2", PROMPT)
    quit_ok(child)
    shutil.rmtree(wrap)


def mismatched_pair(child):
    """Both ranks blocked inside MPI for ever, with every partner there, so
    no deadlock hint can name it: rank 0 receives tag 5, rank 1 sends a
    message too large to go eagerly with tag 6."""
    run(child, "c = rmalab.world", PROMPT)
    run(child, "@0 c:recv(1, 5)", PROMPT)
    run(child, '@1 c:send(string.rep("x", 1000000), 0, 6)',
        r"\[1\] \u2026 still running", PROMPT)
    for _ in range(40):  # until rank 1 is in its send (a loaded machine is slow)
        run(child, ":status", r"rank 0: blocked \S+ s in recv\(\)", r"rank 1: (\w+)")
        if child.match.group(1) == "blocked":
            break
        time.sleep(0.5)
    child.expect(PROMPT)


def ends_within(child, t0, limit):
    """The job ends within limit seconds of t0: what never finished, why,
    exit status 1, and no process of the job left."""
    procs = descendants(child.pid)
    child.expect(r"\[0\] \u2026 never finished: c:recv\(1, 5\)", timeout=limit)
    child.expect(r"rmalab: the ranks have not moved for 5 s \(rank 0 in recv\(\) inside MPI, "
                 r"rank 1 in send\(\) inside MPI\); ending the job", timeout=limit)
    child.expect(pexpect.EOF, timeout=limit)
    child.close()
    took = time.time() - t0
    print("\nthe job ended %.1f s after the quit" % took)
    assert took < limit, "the job took %.1f s to end" % took
    assert child.exitstatus == 1, "exit status %s" % child.exitstatus
    time.sleep(0.5)
    left = [p for p in procs if alive(p)]
    assert not left, "processes of the job left running: %s" % left


def case_quit_inside_mpi():
    """:quit ends a job whose ranks are blocked inside MPI for ever within
    10 s (issue 42: it printed nothing for over a minute)."""
    child = spawn()
    child.delaybeforesend = None
    mismatched_pair(child)
    t0 = time.time()
    child.sendline(":quit")
    ends_within(child, t0, 10)


def case_ctrl_d_inside_mpi():
    """Ctrl-D at the prompt does what :quit does, there too."""
    child = spawn()
    child.delaybeforesend = None
    mismatched_pair(child)
    t0 = time.time()
    child.sendeof()
    ends_within(child, t0, 10)


def case_ctrl_c_inside_mpi():
    """Ctrl-C on a fence that only rank 0 entered: it says the call cannot
    be interrupted and leaves nothing pending, so the rest of the chunk runs
    once rank 1 fences. :interrupt with nothing running says so."""
    child = spawn()
    child.delaybeforesend = None
    run(child, ":interrupt", r"rmalab: nothing is running; nothing to interrupt", PROMPT)
    run(child, "w = rmalab.win_allocate(8)", PROMPT)
    run(child, '@0 w:fence(); print("after the fence")', r"still running", PROMPT)
    child.sendintr()  # not waiting any more: interrupts at once
    child.expect(r"rank 0 is inside MPI in fence\(\), which cannot be interrupted; "
                 r":quit ends the job")
    run(child, ":interrupt 0,1", r"rank 0 is inside MPI in fence\(\), which cannot be "
        r"interrupted; :quit ends the job", PROMPT)
    run(child, "@1 w:fence()", r"\[0\] after the fence", PROMPT)
    run(child, "return 7", r"\[0,1\] 7", PROMPT)
    run(child, "w:free()", PROMPT)
    quit_ok(child)
    assert "interrupting [0]" not in child.before


globals()["case_" + CASE]()
print("\ninteractive.py %s: passed" % CASE)
