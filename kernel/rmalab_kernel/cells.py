"""A notebook cell as the job sees it: the commands its lines became (by id,
as the front end numbers them), what each rank answered, the notices and
hints that concern it, and how all of that reads in the notebook."""
import html
import re
import time

ERROR_LINE = re.compile(r"^\[[0-9,\-]+\] error ")


def rank_text(ranks):
    """Ranks ascending, runs of three or more as ranges: 0-2,5 (fold.c)."""
    ranks = sorted(set(ranks))
    out, i = [], 0
    while i < len(ranks):
        j = i
        while j + 1 < len(ranks) and ranks[j + 1] == ranks[j] + 1:
            j += 1
        if j - i >= 2:
            out.append("%d-%d" % (ranks[i], ranks[j]))
        else:
            out.extend(str(r) for r in ranks[i:j + 1])
        i = j + 1
    return ",".join(out)


class Command:
    def __init__(self, cid):
        self.id = cid
        self.text = None        # the folded text of "done" or "never"
        self.errors = []        # (rank, class, message, finder: None, or the rank
                                #  that found the race every rank raised)
        self.running = None     # the "running" event
        self.displays = []      # (mime, data)
        self.took = None        # seconds from the cell's start to "done"

    @property
    def finished(self):
        return self.text is not None


class Cell:
    def __init__(self, tag, parent=None, display_id=None, internal=False):
        self.tag, self.parent, self.display_id = tag, parent, display_id
        self.internal = internal
        self.cmds = {}
        self.unmarked = 0       # marks sent whose reply has not come
        self.notes = []         # the front end's lines, the kernel's own
        self.hint = ""
        self.live = False       # a display with display_id was sent
        self.returned = False   # its execute_reply went
        self.ended = ""         # the job ended before it finished: why
        self.silent = internal  # nothing is published
        self.on_complete = None
        self.update_due = False
        self.t0 = time.monotonic()

    def command(self, cid):
        if cid not in self.cmds:
            self.cmds[cid] = Command(cid)
        return self.cmds[cid]

    def complete(self):
        return self.ended != "" or (
            self.unmarked == 0 and all(c.finished for c in self.cmds.values()))

    def pending(self):
        return [c for c in self.cmds.values() if not c.finished]

    def noticed(self):
        """Every command still running has had its "still running" notice."""
        return all(c.running for c in self.pending())

    def ordered(self):
        return [self.cmds[k] for k in sorted(self.cmds)]

    def first_error(self):
        for c in self.ordered():
            if c.errors:
                return c.errors
        return None

    def error_fields(self):
        """ename (the class, ERR_RMA_SYNC), evalue (the message) and the
        traceback: the cell's folded lines, the error lines in red."""
        errs = self.first_error()
        # a race every rank raised: the rank that found it (the event's
        # "finder") gives the message, its report; the others repeat it
        own = [e for e in errs if e[3] is not None and e[3] == e[0]]
        rank, cls, msg, finder = own[0] if own else errs[0]
        same = [r for r, c, m, f in errs
                if (f == finder if finder is not None else (c, m) == (cls, msg))]
        ename = cls or ("Interrupted" if msg.endswith("interrupted") else "LuaError")
        tb = ["%s on rank%s %s%s" % (ename, "s" if len(same) > 1 else "", rank_text(same),
                                     ", found by rank %d" % finder if finder is not None else "")]
        for line in self.text().splitlines():
            tb.append("\x1b[0;31m%s\x1b[0m" % line if ERROR_LINE.match(line) else line)
        return ename, msg, tb

    def parts(self, with_notices=True):
        """The cell's text in order: notes, each command's folded text (or
        its still-running notice), the hint. Each part is (command, text)."""
        out = [(None, n) for n in self.notes]
        # the commands that had their notice and finished: one line says
        # when, after the last of them (a line each repeated it)
        late = [c for c in self.ordered() if c.finished and c.running and c.took is not None]
        for c in self.ordered():
            if c.finished:
                out.append((c, c.text))
                if late and c is late[-1]:
                    ranks = sorted({r for x in late for r in x.running.get("ranks", [])})
                    out.append((None, "[%s] \u2026 finished after %.1f s\n" % (
                        rank_text(ranks), max(x.took for x in late))))
            elif c.running and with_notices:  # with the errors of ranks that finished
                ev = c.running
                out.append((c, ev.get("text") or "[%s] \u2026 still running: %s  (%.1f s)\n" % (
                    rank_text(ev.get("ranks", [])), ev.get("label", ""), ev.get("seconds", 1.0))))
        if self.ended:
            out.append((None, self.ended))
        if self.hint and not self.complete():
            out.append((None, self.hint))
        return out

    def text(self, skip_pictures=False):
        return "".join(t for c, t in self.parts()
                       if not (skip_pictures and c is not None and c.displays))

    def pictures(self):
        return [(c, d) for c in self.ordered() for d in c.displays]

    def bundle(self):
        """Everything as one display: text/plain, and text/html with the
        pictures in their places (a live cell, updated in place)."""
        h = []
        for c, t in self.parts():
            if c is not None and c.displays and c.finished:
                h.extend(data for mime, data in c.displays if mime == "image/svg+xml")
            if t:
                style = ' style="color:#b00"' if any(ERROR_LINE.match(x) for x in t.splitlines()) \
                    else ""
                h.append("<pre%s>%s</pre>" % (style, html.escape(t)))
        return {"text/plain": self.text(), "text/html": "\n".join(h)}
