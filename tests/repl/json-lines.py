#!/usr/bin/env python3
"""rmalab -n 2 --json: a program's view of a session (docs/repl-json.md, "JSON
lines"). Every line of stdout is one JSON object; the session's events come
in the kinds and with the fields the document promises.

usage: json-lines.py RMALAB"""
import json
import subprocess
import sys

RMALAB = sys.argv[1]

SESSION = """\
print("hi")
return rmalab.world:rank() * 10
w = rmalab.win_allocate(8, {disp_unit = 8})
@1 w:put(0, 0, "int64", 1)
rmalab.sleep(1.3 * (1 - rmalab.world:rank())); assert(rmalab.world:rank() == 0, "woke")
@0 w:fence()
:wait 5
@1 w:fence()
:bogus
w:free()
:quit
"""

proc = subprocess.run([RMALAB, "-n", "2", "--json"], input=SESSION, capture_output=True,
                      text=True, timeout=90)
events = [json.loads(line) for line in proc.stdout.splitlines()]
kinds = [e["event"] for e in events]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def find(event, **fields):
    return [e for e in events if e["event"] == event and
            all(e.get(k) == v for k, v in fields.items())]


check(proc.returncode == 0, f"exit status {proc.returncode}")
check(kinds[0] == "start" and events[0].get("version") == 1 and events[0].get("ranks") == 2,
      f"first event: {events[0]}")
check(kinds[-1] == "end" and events[-1].get("status") == 0, f"last event: {events[-1]}")
check(len(find("output", rank=0, text="hi\n")) == 1 and len(find("output", rank=1, text="hi\n")) == 1,
      "each rank's print as an output event")
check(find("result", rank=1, text="10") and find("result", rank=0, text="0"), "per-rank results")
check(find("done", kind="chunk", text="[0] 0\n[1] 10\n"), "the folded text of a command")
errs = find("error", rank=1, **{"class": "ERR_RMA_SYNC"})
check(errs and "no access epoch" in errs[0]["message"] or errs and "epoch" in errs[0]["message"],
      f"an ERR_RMA_SYNC error event with its message: {errs}")
run = find("running", ranks=[0])
check(run and run[0]["label"].startswith("rmalab.sleep(1.3") and run[0]["seconds"] >= 1.0,
      f"a still-running event: {run}")
check(run and run[0].get("text", "").startswith("[1] error stdin:1: woke\n[0] \u2026 still running: "),
      f"the still-running event shows the error of the rank that failed: {run}")
hints = find("hint")
check(hints and "hint: rank 0 is blocked in the collective fence()" in hints[0]["text"],
      f"a deadlock hint: {hints}")
check(find("note") and "bogus" in find("note")[0]["text"], "an unknown command is a note")
check("idle" in kinds, "an idle event")
check(not proc.stderr.strip() or "never freed" not in proc.stderr, proc.stderr)

for f in failures:
    print("json-lines.py:", f)
print("json-lines.py: " + ("passed" if not failures else f"{len(failures)} checks failed"))
sys.exit(1 if failures else 0)
