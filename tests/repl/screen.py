"""The REPL's screen, as a person sees it: rmalab -n 2 runs in a detached
tmux session of a fixed size, keys go in with send-keys, and the screen,
read with capture-pane, must equal a golden file (tests/repl/screen-CASE.txt)
once the things that vary are normalised: durations ("(1.0 s)"), the
version and MPI banner. pexpect (interactive.py) sees the bytes; this sees
what they draw, so a prompt drawn twice or on the wrong line shows.

screen.py RMALAB CASE; non-zero exit on failure, with the screen and its
difference from the golden file. Each wait polls the screen until a
condition holds, within a timeout; the tmux server is private to the run
(its socket in a temporary directory, removed at the end with the server). SCREEN_UPDATE=1 writes the
golden file from the screen instead (read what it wrote before committing);
SCREEN_LOG=FILE appends every screen polled, with the cursor, to FILE."""
import difflib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

RMALAB, CASE = os.path.abspath(sys.argv[1]), sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "screen-%s.txt" % CASE)
HOME = tempfile.mkdtemp(prefix="rmalab-screen-")  # the history file, the tmux socket
SOCKET = os.path.join(HOME, "tmux")
TARGET = "screen"
WIDTH, HEIGHT = 100, 30
PROMPT = "rmalab[all]>"  # as captured: trailing blanks are cut


def tmux(*args, check=True):
    r = subprocess.run(["tmux", "-S", SOCKET, "-f", "/dev/null", *args],
                       capture_output=True, text=True, check=False)
    if check and r.returncode:
        raise RuntimeError("tmux %s: %s" % (" ".join(args), r.stderr.strip()))
    return r.stdout


def normalise(text):
    lines = [l.rstrip() for l in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    out = []
    for l in lines:
        l = re.sub(r"^rmalab \S+ on 2 ranks \(.*\)\. :help for commands\.$",
                   "rmalab VERSION on 2 ranks (MPI). :help for commands.", l)
        # durations; a absurd one (a million seconds) stays, to show
        l = re.sub(r"(?<![\d.])\d{1,3}\.\d s\b", "N.N s", l)
        l = re.sub(r"error (stdin:\d+: )?interrupted", "error interrupted", l)
        out.append(l)
    return "\n".join(out) + "\n"


def screen():
    s = normalise(tmux("capture-pane", "-p", "-t", TARGET))
    if os.environ.get("SCREEN_LOG"):
        with open(os.environ["SCREEN_LOG"], "a") as f:
            f.write("=== %.3f %s\n%s" % (time.time(), cursor(), s))
    return s


def cursor():
    x, y = tmux("display-message", "-p", "-t", TARGET, "#{cursor_x} #{cursor_y}").split()
    return int(x), int(y)


def last_line(s):
    return s.rstrip("\n").split("\n")[-1]


def golden_text():
    with open(GOLDEN, encoding="utf-8") as f:
        return f.read()


def fail(why, s=None):
    s = screen() if s is None else s
    print("FAIL: %s\n--- the screen:\n%s---" % (why, s))
    if os.path.exists(GOLDEN):
        print("".join(difflib.unified_diff(golden_text().splitlines(True), s.splitlines(True),
                                           "screen-%s.txt" % CASE, "screen")))
    raise SystemExit(1)


def wait(what, cond, timeout=20):
    """Poll the screen until cond(screen) holds."""
    until = time.time() + timeout
    while True:
        s = screen()
        if cond(s):
            return s
        if time.time() > until:
            fail("waited %d s for %s" % (timeout, what), s)
        time.sleep(0.05)


def at_prompt(typed=""):
    """The last line is the prompt with `typed` after it, the cursor at its end
    (and nothing below)."""
    want = (PROMPT + " " + typed).rstrip()

    def cond(s):
        lines = s.rstrip("\n").split("\n")
        x, y = cursor()
        return (lines[-1] == want and y == len(lines) - 1 and
                x == len(PROMPT) + 1 + len(typed))
    return cond


def line_sent(line):
    """`line` was read: it stands after a prompt and the cursor is below it."""
    def cond(s):
        lines = s.rstrip("\n").split("\n")
        rows = [i for i, l in enumerate(lines) if l == PROMPT + " " + line]
        return bool(rows) and cursor()[1] > rows[-1]
    return cond


def keys(*k):
    tmux("send-keys", "-t", TARGET, *k)


def text(t):
    tmux("send-keys", "-t", TARGET, "-l", t)


def enter(line):
    text(line)
    keys("Enter")


def run(line, *shown):
    """Type a line, wait for each of `shown` and then a clean prompt."""
    enter(line)
    for w in shown:
        wait(repr(w), lambda s, w=w: w in s)
    wait("the prompt after " + repr(line), at_prompt())


def compare():
    """The screen must equal the golden file, and stay so for a moment (no
    late redraw)."""
    if os.environ.get("SCREEN_UPDATE"):  # write the golden file (then read it!)
        time.sleep(1)
        with open(GOLDEN, "w", encoding="utf-8") as f:
            f.write(screen())
    want = golden_text()
    wait("the screen of screen-%s.txt" % CASE, lambda s: s == want, timeout=10)
    time.sleep(0.3)
    s = screen()
    if s != want:
        fail("the screen changed after it matched", s)


def start():
    env = "env HOME=%s TERM=xterm-256color LC_ALL=C.UTF-8" % HOME
    tmux("new-session", "-d", "-s", TARGET, "-x", str(WIDTH), "-y", str(HEIGHT),
         "%s %s -n 2; echo EXIT=$?; sleep 60" % (env, RMALAB))
    wait("the banner and the prompt", at_prompt(), timeout=60)


def quit_ok():
    enter(":quit")
    wait("the end of the session", lambda s: "EXIT=" in s, timeout=60)
    s = screen()
    if "EXIT=0" not in s:
        fail("exit status", s)


# ---------------------------------------------------------------------------


def case_help():
    """:help, then the next prompt on a line of its own; a command after it."""
    run(":help", '@1 win:wait(); return win:read(0, "int64")')
    run("1+1", "[0,1] 2")
    compare()
    quit_ok()


def case_ctrl_c_empty():
    """Ctrl-C at an empty prompt and at a half-typed line (cleared), then a
    line echoed once."""
    keys("C-c")
    wait("^C and a new prompt", lambda s: PROMPT + " ^C" in s and at_prompt()(s))
    text("abc")
    wait("the half-typed line", at_prompt("abc"))
    keys("C-c")
    wait("^C after abc and a new prompt",
         lambda s: PROMPT + " abc^C" in s and at_prompt()(s))
    run("return 5", "[0,1] 5")
    compare()
    quit_ok()


def case_ctrl_c_ladder():
    """A runaway chunk: Ctrl-C stops waiting and says who still runs, Ctrl-C
    again interrupts; then the same after the one-second notice, where one
    Ctrl-C interrupts. Lines after each echo once."""
    enter("while true do end")
    wait("the line read", line_sent("while true do end"))
    keys("C-c")  # 1: stop waiting
    wait("who still runs", lambda s: "still running: while true do end" in s and
         at_prompt()(s))
    keys("C-c")  # 2: interrupt
    wait("the interrupt", lambda s: "error interrupted" in s and at_prompt()(s))
    run("return 7", "[0,1] 7")
    enter("while true do end")
    wait("the one-second notice", lambda s: s.count("still running") == 2 and
         at_prompt()(s))
    keys("C-c")  # not waiting any more: interrupts at once
    wait("the interrupt", lambda s: s.count("error interrupted") == 2 and at_prompt()(s))
    run("return 8", "[0,1] 8")
    compare()
    quit_ok()


def case_notice_while_typing():
    """Notices arrive while a line is half typed: they print above it, and
    the line is drawn again intact on the prompt line. First a line typed
    under the empty prompt of a running command (the notice brings the
    prompt back), then the deadlock hint while a line is typed at the
    prompt."""
    enter('@0 rmalab.sleep(3); return "slept"')
    wait("the line read", line_sent('@0 rmalab.sleep(3); return "slept"'))
    text("return 4")
    # the line must be intact while the notice is the last thing printed (the
    # result, 2 s later, prints above it again and would hide a bad redraw)
    seen = []
    s = wait("the notice above the typed line",
             lambda s: "still running: rmalab.sleep(3)" in s and
             (at_prompt("return 4")(s) or "[0] slept" in s or seen.append(s)))
    if "[0] slept" in s:
        fail("the typed line was not drawn intact after the notice", seen[-1] if seen else s)
    wait("the result above the typed line",
         lambda s: "[0] slept" in s and at_prompt("return 4")(s))
    text("2")
    keys("Enter")
    wait("4 and 2", lambda s: "[0,1] 42" in s and at_prompt()(s))
    run("w = rmalab.win_allocate(8, {disp_unit = 8})")
    enter("@0 w:fence()")
    wait("the notice", lambda s: "still running: w:fence()" in s and at_prompt()(s))
    text("@1 w:fen")
    wait("the half-typed line", at_prompt("@1 w:fen"))
    wait("the hint above the typed line",
         lambda s: "hint: " in s and at_prompt("@1 w:fen")(s))
    text('ce(); return "fenced"')
    keys("Enter")
    wait("the fence on rank 1", lambda s: "[1] fenced" in s and at_prompt()(s))
    run("w:free()")
    compare()
    quit_ok()


if not shutil.which("tmux"):
    print("tmux is missing (./do deps installs it)")
    shutil.rmtree(HOME, ignore_errors=True)
    sys.exit(77)
# meson's timeout sends SIGTERM: end the tmux server (and rmalab) too
signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
try:
    start()
    globals()["case_" + CASE.replace("-", "_")]()
finally:
    tmux("kill-server", check=False)
    shutil.rmtree(HOME, ignore_errors=True)
print("screen.py %s: passed" % CASE)
