"""The kernel through jupyter_client, as a notebook server drives it, one
message kind per case:  messages.py BUILD CASE

The kernel comes from the staged install (harness.prepare); the job's
processes are counted before (none), during (the kernel, the front end,
mpiexec, its proxy and the ranks) and after (none) each case."""
import os
import signal
import sys
import time

import harness
from harness import check, texts

WIN = 'w = rmalab.win_allocate(64, {disp_unit = 8})'


def case_result(s):
    r, m = s.execute("x = 41\nreturn x + 1")
    check(r["content"]["status"] == "ok", "a cell's status is ok")
    results = [x for x in m if x["msg_type"] == "execute_result"]
    check(len(results) == 1 and results[0]["content"]["data"]["text/plain"] == "[0,1] 42\n",
          "its result is one execute_result, folded per rank: [0,1] 42")
    r, m = s.execute("for i = 1, 3 do\n  x = x + i\nend\n@1 return x\nprint(rmalab.world:rank())")
    check(texts(m) == "[1] 47\n[0] 0\n[1] 1\n",
          "a multi-line chunk, an @ranks line and print run as typed in order: %r" % texts(m))
    r, m = s.execute(":nosuch")
    check("unknown command" in texts(m), "a : command the REPL does not know says so")


def case_error(s):
    s.execute(WIN)
    r, m = s.execute("w:complete()")
    c = r["content"]
    check(c["status"] == "error", "an error cell's status is error")
    check(c["ename"] == "ERR_RMA_SYNC", "ename is the class: %s" % c["ename"])
    check("complete" in c["evalue"] and "start" in c["evalue"], "evalue is the message: %s"
          % c["evalue"])
    tb = "\n".join(c["traceback"])
    check("ranks 0,1" in tb and "[0,1] error ERR_RMA_SYNC" in tb, "the traceback names the ranks")
    check(any(x["msg_type"] == "error" for x in m), "an error message goes out on iopub")
    r, m = s.execute('@1 error("plain")')
    check(r["content"]["ename"] == "LuaError" and "[1] error" in texts(m),
          "a plain Lua error on one rank: LuaError, rank 1")
    msg_id = s.kc.execute("return 1", stop_on_error=True)
    s.kc.execute('error("stop here")', stop_on_error=True)
    aborted = s.kc.execute("return 3")
    replies = {}
    while len(replies) < 3:
        rep = s.kc.get_shell_msg(timeout=30)
        replies[rep["parent_header"]["msg_id"]] = rep["content"]["status"]
    check(replies[msg_id] == "ok" and replies[aborted] == "aborted",
          "Run All stops at an error cell (the next cell is aborted)")
    s.iopub(1)


def case_blocked(s):
    s.execute(WIN)
    t = time.monotonic()
    r, m = s.execute('@0 w:start{1}; w:put(1, 0, "int64", 42); w:complete()')
    took = time.monotonic() - t
    check(r["content"]["status"] == "ok" and 1.0 <= took < 3.5,
          "a blocked cell returns after about a second (%.1f s)" % took)
    shown = [x for x in m if x["msg_type"] in ("display_data", "update_display_data")]
    check(shown and all("display_id" in x["content"].get("transient", {}) for x in shown),
          "it shows a display with a display_id")
    did = shown[0]["content"]["transient"]["display_id"]
    last = shown[-1]["content"]["data"]["text/plain"]
    check("still running: w:start{1}" in last, "the still-running notice: %r" % last)
    check("hint: rank 0 is blocked in" in last and "post()" in last,
          "the deadlock hint, within 2 s: %r" % last)
    t = time.monotonic()
    r, m = s.execute("@0 return 5")
    check(time.monotonic() - t >= 1.0 and "still running: return 5" in texts(m),
          "a cell for a busy rank queues behind it, as in the REPL")
    queued = [x for x in m if "transient" in x["content"]][0]["content"]["transient"]["display_id"]
    r, m = s.execute('@1 w:post{0}; w:wait(); return w:read(0, "int64")')
    check(texts(m, "execute_result") == "[1] 42\n", "the partner's cell: [1] 42")
    late = [x for x in m + s.iopub(2) if x["msg_type"] == "update_display_data"]
    first = [x["content"]["data"]["text/plain"] for x in late
             if x["content"]["transient"]["display_id"] == did]
    check(first and "finished after" in first[-1] and "hint" not in first[-1],
          "the blocked cell is updated in place once done: %r" % first[-1:])
    second = [x["content"]["data"]["text/plain"] for x in late
              if x["content"]["transient"]["display_id"] == queued]
    check(second and second[-1].startswith("[0] 5\n"), "the queued cell's late result, in place")
    r, m = s.execute("@0 w:fence()")
    r, m = s.execute("@1 w:fence(); w:free()")
    late = [x for x in m + s.iopub(2) if x["msg_type"] == "update_display_data"]
    check(late, "late updates reach the cell that asked")


def case_late_error(s):
    s.execute(WIN)
    s.execute("@0 w:fence()")
    r, m = s.execute("@1 w:lock(0); w:unlock(0); w:fence(); error('after the fence')")
    late = [x for x in m + s.iopub(2) if x["msg_type"] == "update_display_data"]
    check(any("[1] error" in x["content"]["data"]["text/plain"] for x in late) or
          "[1] error" in texts(m), "a late error goes to the cell that asked")


def case_late_result(s):
    """A cell of three commands that wait behind a fence: once they finish,
    the cell says once when (issue 42: once per command). A race found in
    a cell is located at the cell's lines (cell:N), not at stdin:N."""
    s.execute(WIN)
    r, m = s.execute("@0 w:fence()\n@0 x = 1\n@0 return 'after'")
    did = [x for x in m if "transient" in x["content"]][0]["content"]["transient"]["display_id"]
    r, m = s.execute("@1 w:fence()")
    late = [x["content"]["data"]["text/plain"] for x in m + s.iopub(3)
            if x["msg_type"] == "update_display_data" and
            x["content"]["transient"]["display_id"] == did]
    check(late and late[-1].count("finished after") == 1 and "[0] after" in late[-1],
          "one 'finished after' line for the cell: %r" % late[-1:])
    r, m = s.execute('racy = rmalab.win_allocate(16, {disp_unit = 8, info = '
                     '{rmalab_check = "races"}})\n'
                     "racy:fence()\n"
                     "if rmalab.world:rank() == 0 then\n"
                     "  racy:put(1, 0, 'int64', 1)\n"
                     "else\n"
                     "  racy:write(0, 'int64', 2)\n"
                     "end\n"
                     "racy:fence()")
    t = texts(m) + "".join(r["content"].get("traceback", []))
    check("put(int64 x1) at cell:4" in t and "win:write(int64 x1) at cell:6" in t and
          "at fence() at cell:8" in t and "stdin" not in t,
          "the race is located at the cell's lines: %r" % t[-900:])
    tb = "".join(r["content"].get("traceback", []))
    check(tb.count("race on window") == 1, "and reported once: %r" % tb[-900:])
    # by the error events' "finder" field, not the messages' words: the
    # cell's error is the report of the rank that found the race
    c = r["content"]
    check(c["traceback"][0] == "ERR_RMA_CONFLICT on ranks 0,1, found by rank 1" and
          c["evalue"].startswith("win:fence: race on window"),
          "the error is the finder's report: %r %r" % (c["traceback"][0], c["evalue"][:80]))


def case_interrupt(s):
    r, m = s.execute("@0 while true do end")
    check("still running" in texts(m), "a runaway loop returns with its notice")
    for n in range(2):
        s.km.interrupt_kernel()
        msgs = s.iopub(3)
        upd = "".join(x["content"]["data"]["text/plain"] for x in msgs
                      if x["msg_type"] == "update_display_data")
        check("interrupting [0]" in upd and "interrupted" in upd,
              "interrupt #%d stops the loop and says so: %r" % (n + 1, upd[-200:]))
        r, m = s.execute("@0 while true do end") if n == 0 else (None, None)
    s.execute(WIN)
    s.execute("@0 w:fence()")
    s.execute("@1 while true do end")
    s.km.interrupt_kernel()
    msgs = s.iopub(3)
    upd = "".join(x["content"]["data"]["text/plain"] for x in msgs
                  if x["msg_type"] == "update_display_data")
    check("interrupting [1]" in upd and "interrupting [0" not in upd and
          "rank 0 is inside MPI in fence(), which cannot be interrupted" in upd and
          "rank 0: blocked" in upd,
          "the interrupt says which ranks are inside MPI: %r" % upd[-400:])
    r, m = s.execute("@1 w:fence()")
    r, m = s.execute("return 1")
    check(texts(m) == "[0,1] 1\n", "the job goes on after interrupts")


def case_interrupt_rma(s):
    """The stop button on the classroom deadlock (the rma engine, the
    default): both ranks start and put before anyone posts. Both puts end
    with ERR_INTERRUPTED, and a correct epoch follows in the same job."""
    s.execute(WIN)
    s.execute("o = 1 - rmalab.world:rank()")
    r, m = s.execute('w:start{o}; w:put(o, 0, "int64", 1)')
    check("still running" in texts(m), "the deadlocked cell returns with its notice")
    s.km.interrupt_kernel()
    msgs = s.iopub(3)
    upd = "".join(x["content"]["data"]["text/plain"] for x in msgs
                  if x["msg_type"] == "update_display_data")
    check("interrupting [0,1]" in upd and "ERR_INTERRUPTED: win:put to rank" in upd and
          "inside MPI" not in upd, "both puts end with ERR_INTERRUPTED: %r" % upd[-600:])
    r, m = s.execute('w:post{o}; w:put(o, 0, "int64", 11 - o); w:complete(); w:wait()\n'
                     'return w:read(0, "int64")')
    check(texts(m) == "[0] 11\n[1] 10\n",
          "a correct epoch works after the interrupt: %r" % texts(m))
    r, m = s.execute("w:free()")
    check(r["content"]["status"] == "ok", "the window is freed")


def case_complete(s):
    s.execute(WIN)
    c = s.kc.complete("w:po", 4, reply=True, timeout=10)["content"]
    check(c["matches"] == ["w:post"] and c["cursor_start"] == 0 and c["cursor_end"] == 4,
          "complete: w:po -> w:post")
    c = s.kc.complete("x = rmalab.win_al", 17, reply=True, timeout=10)["content"]
    check(c["matches"] == ["rmalab.win_allocate", "rmalab.win_allocate_shared"] and
          c["cursor_start"] == 4, "complete inside a line: %r" % c["matches"])
    s.execute("while true do end")
    t = time.monotonic()
    c = s.kc.complete("w:po", 4, reply=True, timeout=10)["content"]
    check(time.monotonic() - t < 1.0 and c["status"] == "ok",
          "completion never blocks, even with every rank busy (%.2f s)" % (time.monotonic() - t))
    s.km.interrupt_kernel()
    s.iopub(2)


def case_is_complete(s):
    for code, want in [("for i = 1, 2 do", "incomplete"), ("x = 1", "complete"),
                       ("for i = 1, 2 do\n  x = i\nend", "complete"), ("@7 x = 1", "invalid"),
                       ("t = {\n  1,", "incomplete"), (":status", "complete"),
                       ("@1 if x then", "incomplete")]:
        msg_id = s.kc.is_complete(code)
        c = s.kc.get_shell_msg(timeout=10)
        while c["parent_header"]["msg_id"] != msg_id:
            c = s.kc.get_shell_msg(timeout=10)
        c = c["content"]
        check(c["status"] == want, "is_complete %r: %s" % (code, c["status"]))


def case_inspect(s):
    for code, pos, want in [("rmalab.win_allocate", 12, "win_allocate(size"),
                            ("w:post", 6, "win:post(group"),
                            ('{info = {rmalab_pscw = "native"}}', 12, "the PSCW engine"),
                            ('"no_locks"', 3, "no passive-target lock")]:
        c = s.kc.inspect(code, pos, reply=True, timeout=10)["content"]
        text = c["data"].get("text/plain", "")
        check(c["found"] and want in text, "inspect %r shows %r" % (code, want))
    c = s.kc.inspect("nothing_here", 3, reply=True, timeout=10)["content"]
    check(not c["found"], "inspect of an unknown word finds nothing")


def case_kernel_info(s):
    c = s.kc.kernel_info(reply=True, timeout=10)["content"]
    li = c["language_info"]
    check(li["name"] == "lua" and li["file_extension"] == ".lua" and
          li["codemirror_mode"] == "lua" and li["version"].startswith("5.4"),
          "language_info: Lua 5.4 %r" % li)
    spec = s.km.kernel_spec
    check(spec.display_name == "Lua (rmalab, 2 ranks)", "display name %r" % spec.display_name)
    check("MPICH" in c["banner"] and "2 ranks" in c["banner"], "banner %r" % c["banner"])


def case_svg(s):
    s.execute('w = rmalab.win_allocate(8, {info = {rmalab_trace = "true"}})\n'
              'w:fence(); w:put(1 - rmalab.world:rank(), 0, "int8", 1); w:fence()')
    r, m = s.execute(":timeline w")
    pics = [x["content"]["data"] for x in m if x["msg_type"] == "display_data"]
    check(pics and pics[0].get("image/svg+xml", "").startswith("<svg"),
          ":timeline w shows an inline SVG")
    check("trace of" in pics[0].get("text/plain", "") and "rank 1" in pics[0]["text/plain"],
          "with the ASCII lanes as the text/plain fallback")
    r, m = s.execute(":trace svg")
    pics = [x["content"]["data"] for x in m if x["msg_type"] == "display_data"]
    check(pics and "<svg" in pics[0].get("image/svg+xml", ""), ":trace svg shows inline too")
    r, m = s.execute(":status")
    check("rank 0: idle" in texts(m), ":status works as in the REPL")
    r, m = s.execute(":help")
    check(":timeline" in texts(m), ":help works as in the REPL")


def case_restart(s):
    s.execute("x = 5")
    before = set(harness.marked(s.marker))
    s.km.restart_kernel(now=False)
    s.kc.wait_for_ready(timeout=60)
    left = [p for p in before if p in harness.marked(s.marker)]
    check(not left, "restart ends the old job: %r" % left)
    r, m = s.execute("return x, rmalab.world:size()")
    check(texts(m) == "[0,1] nil\t2\n", "restart starts a fresh job: %r" % texts(m))


def case_ranks(s):
    r, m = s.execute(":ranks 3")
    check("restarted the job on 3 ranks" in texts(m), ":ranks 3 says so")
    r, m = s.execute("return rmalab.world:size()")
    check(texts(m) == "[0-2] 3\n", "the new job has 3 ranks: %r" % texts(m))
    check(len(harness.marked(s.marker)) == 7, "kernel, front end, mpiexec, proxy, 3 ranks")
    r, m = s.execute(":ranks")
    check("3 ranks" in texts(m), ":ranks alone says how many")


def case_killed(s):
    s.execute(WIN + "\n@0 w:fence()")
    pid = s.km.provisioner.process.pid
    os.kill(pid, signal.SIGKILL)
    left = harness.wait_gone(s.marker, 8)
    check(not left, "a killed kernel leaves no process behind: %r" % left)


CASES = {k[5:]: v for k, v in globals().items() if k.startswith("case_")}


def main():
    build, name = sys.argv[1], sys.argv[2]
    stage, _, _ = harness.prepare(build)
    try:
        s = harness.Session()
        n = len(harness.marked(s.marker))
        check(n == 6, "the kernel, the front end, mpiexec, its proxy and 2 ranks (%d)" % n)
        CASES[name](s)
        if name != "killed":
            left = s.close()
            check(not left, "shutdown leaves no process behind: %r" % left)
    finally:
        harness.cleanup(stage)


if __name__ == "__main__":
    main()
