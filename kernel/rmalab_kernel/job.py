"""The job behind the kernel: `rmalab -n N --json` as a child process.

Lines go to its stdin (the REPL's command language, and JSON requests);
each JSON line from its stdout is an event, handed to the kernel's event
loop with call_soon_threadsafe, so that all routing happens on one thread.

The child gets a session of its own (start_new_session), so neither the
kernel manager's signals to the kernel's process group nor ipykernel's own
SIGINT reach it, and a parent-death signal (setpriv --pdeathsig TERM): when
the kernel dies, even by SIGKILL, the front end gets SIGTERM, which ends
the whole job (mpiexec, its proxies, every rank) at once (docs/repl.md,
Ending a session).
"""
import json
import os
import shutil
import signal
import subprocess
import threading
import time


class Job:
    def __init__(self, exe, ranks, loop, on_event):
        self.exe, self.ranks = exe, ranks
        self.loop, self.on_event = loop, on_event
        self.proc = None
        self.lock = threading.Lock()
        self.stderr_lines = []
        self.ended = False

    def command(self):
        argv = [self.exe, "-n", str(self.ranks), "--json"]
        setpriv = shutil.which("setpriv") or "/usr/bin/setpriv"
        if os.path.exists(setpriv):
            argv = [setpriv, "--pdeathsig", "TERM", "--"] + argv
        return argv

    def start(self):
        env = dict(os.environ)
        # Ranks that wait in a call sleep instead of spinning (the REPL's
        # default; said here so a user's RMALAB_WAIT=spin is kept).
        self.proc = subprocess.Popen(
            self.command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True, env=env, bufsize=0)
        threading.Thread(target=self._read_stdout, args=(self.proc,), daemon=True).start()
        threading.Thread(target=self._read_stderr, args=(self.proc,), daemon=True).start()

    def _deliver(self, ev):
        try:
            self.loop.call_soon_threadsafe(self.on_event, self, ev)
        except RuntimeError:  # the loop is closed: the kernel is ending
            pass

    def _read_stdout(self, proc):
        for raw in proc.stdout:
            try:
                ev = json.loads(raw.decode("utf-8", "replace"))
            except ValueError:
                continue
            self._deliver(ev)
        proc.wait()
        self._deliver({"event": "_exit", "status": proc.returncode})

    def _read_stderr(self, proc):
        for raw in proc.stderr:
            line = raw.decode("utf-8", "replace")
            self.stderr_lines.append(line)
            del self.stderr_lines[:-50]
            self._deliver({"event": "_stderr", "text": line})

    def send(self, text):
        """Write text (whole lines) to the front end; False once it is gone."""
        data = text.encode("utf-8")
        with self.lock:
            if not self.proc or self.proc.poll() is not None:
                return False
            try:
                while data:
                    n = os.write(self.proc.stdin.fileno(), data)
                    data = data[n:]
            except OSError:
                return False
        return True

    def request(self, name, tag="", text=""):
        return self.send(json.dumps({"request": name, "tag": tag, "text": text}) + "\n")

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, graceful=True):
        """End the job: :quit when asked to be graceful (the ranks free what
        they can), else SIGTERM to the front end, which ends the whole job at
        once; SIGKILL as the last resort (the ranks then end by themselves
        within 5 s, their control channel closed)."""
        p = self.proc
        if p is None or p.poll() is not None:
            return
        if graceful:
            with self.lock:
                try:
                    p.stdin.close()
                except OSError:
                    pass
            if self._wait(p, 5):
                return
        try:
            p.send_signal(signal.SIGTERM)
        except OSError:
            pass
        if not self._wait(p, 5):
            p.kill()
            self._wait(p, 5)

    @staticmethod
    def _wait(p, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if p.poll() is not None:
                return True
            time.sleep(0.02)
        return p.poll() is not None
