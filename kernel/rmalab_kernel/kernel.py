"""The rmalab Jupyter kernel (docs/jupyter.md): a wrapper kernel on
ipykernel whose cells go, line by line, to `rmalab -n N --json` (job.py),
the REPL's front end for programs (docs/repl-json.md, JSON lines).

A cell is the REPL's lines typed in order, followed by a "mark" request;
the front end numbers the commands the lines become, and the mark's reply
says where this cell's numbers end, so every event finds its cell. A cell
returns once its commands are done, or after 1 s with the "still running"
notice (and, when the ranks are deadlocked, the hint, which comes within
2 s); what comes later updates the same cell through its display_id."""
import asyncio
import collections
import itertools
import json
import os
import re
import signal
import time

from ipykernel.kernelbase import Kernel

from . import __version__, docs
from .cells import Cell, rank_text
from .job import Job

WORD_BREAK = " \t\n\"\\'`@$><=;|&{(,)+-*/%^#~[]"  # term.c's, for completion
KERNEL_LINE = re.compile(r"^\s*:(ranks|wait)\b\s*(.*?)\s*$")


class RmalabKernel(Kernel):
    implementation = "rmalab"
    implementation_version = __version__
    language = "lua"
    language_version = "5.4"
    language_info = {
        "name": "lua",
        "version": "5.4",
        "mimetype": "text/x-lua",
        "file_extension": ".lua",
        "codemirror_mode": "lua",
        "pygments_lexer": "lua",
    }
    help_links = [{"text": "rmalab in Jupyter", "url": "https://github.com/rmalab/rmalab"}]

    exe = "rmalab"       # set by __main__ from the kernelspec's argv
    default_ranks = 2

    # ------------------------------------------------------------------
    # Start and state

    @property
    def banner(self):
        return "rmalab %s on %d ranks (%s)" % (__version__, self.ranks, self.job_banner)

    def start(self):
        super().start()
        self.loop = asyncio.get_event_loop()
        self.ranks = self.default_ranks
        self.job_banner = "starting"
        self.job = None
        self.tags = itertools.count(1)
        self.changed = asyncio.Event()
        self.executing = None
        self.interrupts = 0
        self.replies = {}
        self.start_job(self.ranks)
        signal.signal(signal.SIGINT, self.on_sigint)

    def start_job(self, ranks):
        self.ranks = ranks
        self.marks = collections.deque()   # cells whose mark has not come back
        self.owner = {}                    # command id -> cell
        self.boundary = 1                  # ids from here on: marks[0]'s
        self.live = []                     # returned cells still running
        self.ready = asyncio.Event()
        self.job_end = ""
        self.job = Job(self.exe, ranks, self.loop, self.on_event)
        try:
            self.job.start()
            # the lines are cells: chunks are named "cell", lines counted per cell
            self.job.send(json.dumps({"request": "cells"}) + "\n")
        except OSError as e:
            self.job_end = "rmalab: cannot start %s: %s\n" % (self.exe, e)
            if not os.path.exists(self.exe):  # a checkout that moved, a build removed
                self.job_end += ("rmalab: the kernelspec names that rmalab; run `rmalab kernel "
                                 "install` again with the rmalab you use now\n")
            self.ready.set()

    def pre_handler_hook(self):
        pass  # keep on_sigint: the stop button may come while a cell runs

    def post_handler_hook(self):
        pass

    # ------------------------------------------------------------------
    # Events from the job (on the loop's thread)

    def on_event(self, job, ev):
        if job is not self.job:
            return
        kind = ev.get("event")
        if "id" in ev and kind not in ("mark",):
            self.on_command_event(ev)
        elif kind == "start":
            self.job_banner = ev.get("banner", "")
            self.ranks = ev.get("ranks", self.ranks)
            self.ready.set()
        elif kind == "mark":
            self.on_mark(ev)
        elif kind in ("note", "message"):
            self.target_cell().notes.append(ev.get("text", ""))
            self.touch(self.target_cell())
        elif kind == "hint":
            cell = self.hint_cell()
            if cell:
                cell.hint = ev.get("text", "")
                self.touch(cell)
        elif kind in ("matches", "is_complete", "inspect"):
            fut = self.replies.pop(ev.get("tag"), None)
            if fut and not fut.done():
                fut.set_result(ev)
        elif kind in ("end", "_exit"):
            self.on_job_end(ev)
        elif kind == "_stderr":
            self.on_stderr(ev.get("text", ""))
        self.changed.set()

    def on_command_event(self, ev):
        cid = ev["id"]
        cell = self.owner.get(cid)
        if cell is None and self.marks and cid >= self.boundary:
            cell = self.owner[cid] = self.marks[0]
        if cell is None:
            return
        c = cell.command(cid)
        kind = ev["event"]
        if kind == "error":
            c.errors.append((ev["rank"], ev.get("class", ""), ev.get("message", ""),
                             ev.get("finder")))
        elif kind in ("done", "never"):
            c.text = ev.get("text", "")
            c.took = time.monotonic() - cell.t0
        elif kind == "running":
            c.running = ev
        elif kind == "display":
            c.displays.append((ev.get("mime", ""), ev.get("data", "")))
        self.touch(cell)

    def on_mark(self, ev):
        if not self.marks:
            return
        cell = self.marks.popleft()
        cell.unmarked -= 1
        for cid in range(self.boundary, ev.get("next", self.boundary)):
            if cid not in self.owner:
                self.owner[cid] = cell
                cell.command(cid)
        self.boundary = ev.get("next", self.boundary)
        self.touch(cell)

    def on_job_end(self, ev):
        if ev.get("event") == "end":
            self.job_end = ev.get("text", "") or "the job ended (status %s)\n" % ev.get("status")
        elif not self.job_end:
            tail = "".join(self.job.stderr_lines[-5:])
            self.job_end = tail or "rmalab ended (status %s)\n" % ev.get("status")
        self.ready.set()
        why = "the job ended before this finished: " + self.job_end
        for cell in set(self.owner.values()) | set(self.marks) | set(self.live):
            if not cell.complete():
                cell.ended = why
                self.touch(cell)

    def on_stderr(self, text):
        cell = self.executing
        if cell and not cell.internal and text.startswith("rmalab:"):
            self.publish(cell, "stream", {"name": "stderr", "text": text})

    def target_cell(self):
        """Where a line without a command id goes: the cell whose lines the
        front end reads now."""
        if self.marks:
            return self.marks[0]
        return self.executing or (self.live[-1] if self.live else Cell("stray"))

    def hint_cell(self):
        """A hint concerns the ranks that are blocked: the running cell when
        it waits for them, else the last cell still running."""
        if self.executing and self.executing.pending():
            return self.executing
        for cell in reversed(self.live):
            if not cell.complete():
                return cell
        return self.executing

    def touch(self, cell):
        """The cell changed: a returned cell shows it in place."""
        if cell.internal and cell.complete() and cell.on_complete:
            cb, cell.on_complete = cell.on_complete, None
            cb(cell)
        if cell.returned and cell.live and not cell.update_due:
            cell.update_due = True
            self.loop.call_soon(self.update_live, cell)

    # ------------------------------------------------------------------
    # Output

    def publish(self, cell, msg_type, content, late=False):
        if cell.internal or cell.silent:
            return
        parent = cell.parent
        if late and self.executing is not None and not self.executing.internal:
            # nbclient reads only the running cell's messages; display ids
            # reach the cell that asked wherever the update comes from.
            parent = self.executing.parent
        self.session.send(self.iopub_socket, msg_type, content, parent=parent,
                          ident=self._topic(msg_type))

    def show_live(self, cell, update=False):
        content = {"data": cell.bundle(), "metadata": {},
                   "transient": {"display_id": cell.display_id}}
        self.publish(cell, "update_display_data" if update else "display_data", content,
                     late=update)
        cell.live = True

    def update_live(self, cell):
        cell.update_due = False
        self.show_live(cell, update=True)
        if cell.complete() and cell in self.live:
            self.live.remove(cell)

    def show_final(self, cell):
        """A cell done in time: its pictures, then its text as the
        execute_result, or the error."""
        for c, (mime, data) in cell.pictures():
            self.publish(cell, "display_data", {
                "data": {mime: data, "text/plain": c.text or ""}, "metadata": {}})
        text = cell.text(skip_pictures=True)
        if cell.first_error():
            ename, evalue, tb = cell.error_fields()
            self.publish(cell, "error", {"ename": ename, "evalue": evalue, "traceback": tb})
        elif text:
            self.publish(cell, "execute_result", {
                "execution_count": self.execution_count, "data": {"text/plain": text},
                "metadata": {}})

    def reply(self, cell=None, error=None):
        if error is None and cell is not None and cell.first_error():
            error = cell.error_fields()
        if error:
            ename, evalue, tb = error
            return {"status": "error", "execution_count": self.execution_count,
                    "ename": ename, "evalue": evalue, "traceback": tb}
        return {"status": "ok", "execution_count": self.execution_count, "payload": [],
                "user_expressions": {}}

    def fail(self, cell, ename, evalue, lines):
        err = (ename, evalue, lines)
        self.publish(cell, "error", {"ename": ename, "evalue": evalue, "traceback": lines})
        return self.reply(error=err)

    # ------------------------------------------------------------------
    # Executing a cell

    async def until(self, done, deadline):
        while not done():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except asyncio.TimeoutError:
                pass
        return True

    async def ensure_job(self, cell):
        if self.job_end or not self.job.alive():
            old = self.job_end
            self.job.stop(graceful=False)
            self.start_job(self.ranks)
            if old:
                self.publish(cell, "stream", {"name": "stdout", "text": (
                    "%sstarted a new job on %d ranks\n" % (old, self.ranks))})
        await self.until(self.ready.is_set, time.monotonic() + 90)
        return self.ready.is_set() and not self.job_end

    def send_lines(self, cell, text):
        cell.unmarked += 1
        self.marks.append(cell)
        mark = json.dumps({"request": "mark", "tag": cell.tag})
        body = text if text.endswith("\n") or not text else text + "\n"
        if not self.job.send(body + mark + "\n"):
            self.marks.remove(cell)
            cell.unmarked -= 1
            cell.ended = "the job has ended\n"

    def busy(self):
        return any(not c.complete() for c in set(self.owner.values()) | set(self.marks))

    async def do_execute(self, code, silent, store_history=True, user_expressions=None,
                         allow_stdin=False, **kw):
        tag = "c%d" % next(self.tags)
        cell = Cell(tag, parent=self.get_parent("shell"), display_id="rmalab-%s-%s" % (
            self.session.session[:8], tag))
        cell.silent = silent
        self.executing = cell
        try:
            return await self.execute(cell, code)
        finally:
            self.executing = None

    async def execute(self, cell, code):
        segments = split_cell(code)
        if any(k == "ranks" for k, _ in segments):
            if len(segments) > 1:
                return self.fail(cell, "UsageError", ":ranks N restarts the job",
                                 [":ranks N restarts the job: give it a cell of its own"])
            return await self.restart_ranks(cell, segments[0][1])
        if not await self.ensure_job(cell):
            return self.fail(cell, "JobError", "the ranks could not be started",
                             (self.job_end or "no answer from rmalab\n").splitlines())
        t0 = time.monotonic()
        for kind, arg in segments:
            if kind == "lines":
                self.send_lines(cell, arg)
            else:
                await self.wait_command(cell, arg)
                t0 = time.monotonic()
        if await self.until(cell.complete, t0 + 1.0):
            self.show_final(cell)
            return self.reply(cell)
        await self.until(lambda: cell.complete() or cell.noticed(), t0 + 1.5)
        self.show_live(cell)
        await self.until(lambda: cell.complete() or cell.hint, t0 + 2.5)
        self.show_live(cell, update=True)
        if not cell.complete():
            cell.returned = True
            self.live.append(cell)
        return self.reply(cell)

    async def wait_command(self, cell, arg):
        """:wait [s] in a cell: until every command sent so far is done, a
        deadlock hint says none can end, s seconds pass, or the stop button."""
        try:
            secs = float(arg) if arg else 1e9
        except ValueError:
            cell.notes.append("rmalab: use :wait, or :wait SECONDS\n")
            return
        start, seen = self.interrupts, {id(c) for c in self.live}
        await self.until(lambda: not self.busy() or self.interrupts != start or (
            self.hint_cell() is not None and self.hint_cell().hint and
            id(self.hint_cell()) in seen), time.monotonic() + secs)

    async def restart_ranks(self, cell, arg):
        if not arg:
            self.publish(cell, "stream", {"name": "stdout", "text": "%d ranks (%s)\n" % (
                self.ranks, self.job_banner)})
            return self.reply()
        if not arg.isdigit() or not 1 <= int(arg) <= 1024:
            return self.fail(cell, "UsageError", ":ranks takes a number of ranks, 1 to 1024",
                             [":ranks N: restart the job on N ranks (1 to 1024)"])
        self.job.stop(graceful=not self.busy())
        self.start_job(int(arg))
        if not await self.ensure_job(cell):
            return self.fail(cell, "JobError", "the ranks could not be started",
                             (self.job_end or "no answer from rmalab\n").splitlines())
        self.publish(cell, "stream", {"name": "stdout", "text": (
            "restarted the job on %d ranks (%s)\n" % (self.ranks, self.job_banner))})
        return self.reply()

    # ------------------------------------------------------------------
    # Interrupt, shutdown

    async def interrupt_request(self, stream, ident, parent):
        # interrupt_mode "message": on the control thread
        self.loop.call_soon_threadsafe(self.interrupt)
        self.session.send(stream, "interrupt_reply", {"status": "ok"}, parent, ident=ident)

    def on_sigint(self, signum, frame):
        self.loop.call_soon_threadsafe(self.interrupt)

    def interrupt(self):
        """The stop button: :interrupt on the busy ranks (any number of
        times), then :status, to say which ranks are inside MPI."""
        self.interrupts += 1
        self.changed.set()
        if not self.busy() or not self.job.alive():
            return
        target = self.executing if self.executing and not self.executing.complete() \
            else self.hint_cell() or self.executing
        probe = Cell("i%d" % next(self.tags), internal=True)
        probe.on_complete = lambda p: self.report_interrupt(p, target)
        self.send_lines(probe, ":interrupt\n:status\n")

    def report_interrupt(self, probe, target):
        said = "".join(probe.notes).strip() or "interrupting"
        status = "".join(c.text or "" for c in probe.ordered())
        stuck = [line for line in status.splitlines() if "inside MPI" in line]
        text = said + (": the Lua they run stops at its next instruction, and a call"
                       " blocked in the rma engine's own wait ends with ERR_INTERRUPTED\n")
        for line in stuck:
            text += "  cannot be interrupted, inside MPI until the call returns: %s\n" % line
        if target is None:
            return
        target.notes.append(text)
        if target.returned or target is not self.executing:
            self.touch(target)
        else:
            self.publish(target, "stream", {"name": "stdout", "text": text})
            target.notes.remove(text)

    def do_shutdown(self, restart):
        if self.job:
            self.job.stop(graceful=not self.busy())
        return {"status": "ok", "restart": restart}

    # ------------------------------------------------------------------
    # Completion, is_complete, inspect

    async def kernel_info_request(self, stream, ident, parent):
        # the banner names the job: wait for its ranks (a second or two)
        await self.until(self.ready.is_set, time.monotonic() + 30)
        await super().kernel_info_request(stream, ident, parent)

    async def ask(self, name, text, timeout):
        await self.until(self.ready.is_set, time.monotonic() + 30)
        tag = "q%d" % next(self.tags)
        fut = self.loop.create_future()
        self.replies[tag] = fut
        if not (self.job and self.ready.is_set() and self.job.request(name, tag, text)):
            self.replies.pop(tag, None)
            return None
        try:
            return await asyncio.wait_for(fut, timeout)
        except asyncio.TimeoutError:
            self.replies.pop(tag, None)
            return None

    async def do_complete(self, code, cursor_pos):
        cursor_pos = len(code) if cursor_pos is None else cursor_pos
        start = cursor_pos
        while start > 0 and code[start - 1] not in WORD_BREAK:
            start -= 1
        word = code[start:cursor_pos]
        names = []
        if word:
            ev = await self.ask("complete", word, 0.5)
            names = ev.get("names", []) if ev else []
        return {"status": "ok", "matches": names, "cursor_start": start,
                "cursor_end": cursor_pos, "metadata": {}}

    async def do_is_complete(self, code):
        ev = await self.ask("is_complete", code, 1.0)
        if not ev:
            return {"status": "unknown"}
        if ev.get("status") == "incomplete":
            return {"status": "incomplete", "indent": "  "}
        return {"status": ev.get("status", "unknown")}

    async def do_inspect(self, code, cursor_pos, detail_level=0, omit_sections=()):
        word = docs.word_at(code, len(code) if cursor_pos is None else cursor_pos)
        found = docs.lookup(word)
        key = word.split(".")[-1].split(":")[-1]
        if key:
            ev = await self.ask("inspect", key, 1.0)
            if ev and ev.get("found"):
                found.append(ev.get("doc", "").rstrip("\n"))
        text = "\n\n".join(found)
        return {"status": "ok", "found": bool(found),
                "data": {"text/plain": text} if found else {}, "metadata": {}}


def split_cell(code):
    """The cell's lines, cut at the kernel's own commands (:ranks, :wait)."""
    out, lines = [], []
    for line in code.splitlines():
        m = KERNEL_LINE.match(line)
        if m:
            if lines:
                out.append(("lines", "\n".join(lines)))
                lines = []
            out.append((m.group(1), m.group(2)))
        else:
            lines.append(line)
    if lines or not out:
        out.append(("lines", "\n".join(lines)))
    return out


__all__ = ["RmalabKernel", "rank_text"]
