"""The JSON requests and the display event of `rmalab -n 2 --json`
(docs/repl-json.md, Requests), which the kernel is built on:
requests.py RMALAB"""
import json
import subprocess
import sys

from harness import check


def session(exe, lines):
    p = subprocess.run([exe, "-n", "2", "--json"], input="".join(
        (json.dumps(x) if isinstance(x, dict) else x) + "\n" for x in lines),
        capture_output=True, text=True, timeout=90)
    return [json.loads(x) for x in p.stdout.splitlines()]


def main():
    exe = sys.argv[1]
    evs = session(exe, [
        {"request": "mark", "tag": "a"},
        "x = 1",
        "for i = 1, 2 do",
        {"request": "mark", "tag": "b"},
        {"request": "is_complete", "tag": "c1", "text": "for i = 1, 2 do\n  x = i"},
        {"request": "is_complete", "tag": "c2", "text": "for i = 1, 2 do\n  x = i\nend"},
        {"request": "is_complete", "tag": "c3", "text": "@5 x = 1"},
        ":wait",
        {"request": "complete", "tag": "k", "text": "rmalab.win_al"},
        {"request": "inspect", "tag": "i", "text": "rmalab_check"},
        {"request": "inspect", "tag": "j", "text": "win:post"},
        {"request": "nosuch"},
        '{"not": "a request"}',
        "{}",
        'w = rmalab.win_allocate(8, {info = {rmalab_trace = "true"}}) w:fence() w:fence()',
        ":timeline w",
        ":wait",
        "@0 while true do end",
        ":wait 1",
        ":interrupt",
    ])
    by = {}
    for e in evs:
        by.setdefault(e["event"], []).append(e)
    marks = by["mark"]
    check(marks[0] == {"event": "mark", "tag": "a", "next": 1, "pending": False},
          "a mark before any command: next id 1")
    check(marks[1]["tag"] == "b" and marks[1]["next"] == 3 and marks[1]["pending"],
          "a mark sends the chunk left incomplete, and gives the next id: %r" % marks[1])
    errs = [e for e in by["error"] if e["id"] == 2]
    check(len(errs) == 2 and "<eof>" in errs[0]["message"],
          "that chunk's Lua error comes from the ranks")
    status = {e["tag"]: e["status"] for e in by["is_complete"]}
    check(status == {"c1": "incomplete", "c2": "complete", "c3": "invalid"},
          "is_complete: the <eof> rule, a bad rank set invalid: %r" % status)
    m = by["matches"][0]
    check(m["tag"] == "k" and m["names"] == ["rmalab.win_allocate", "rmalab.win_allocate_shared"]
          and not m["busy"], "complete: an idle rank's names: %r" % m)
    ins = {e["tag"]: e for e in by["inspect"]}
    check(ins["i"]["found"] and "rmalab_check" in ins["i"]["doc"] and "races" in ins["i"]["doc"],
          "inspect: a hint of the catalogue")
    check(not ins["j"]["found"] and ins["j"]["doc"] == "", "inspect: not a hint, nothing")
    notes = [e["text"] for e in by["note"]]
    check(sum("is not a request" in t for t in notes) == 2,
          "an unknown request, and a JSON line without one, are notes: %r" % notes)
    check(any(e["event"] == "result" and e["text"] == "{}" for e in evs),
          "{} is Lua (an empty table), not a request")
    disp = by.get("display", [])
    check(len(disp) == 1 and disp[0]["rank"] == 0 and disp[0]["mime"] == "image/svg+xml" and
          disp[0]["data"].startswith("<svg"), ":timeline under --json sends the picture")
    check(any("interrupting [0]" in e["text"] for e in by["message"]),
          ":interrupt under --json says which ranks it interrupts")
    check(any(e["event"] == "error" and e["message"].endswith("interrupted") for e in evs),
          "and the loop is interrupted")


main()
