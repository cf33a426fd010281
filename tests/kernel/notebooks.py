"""Each notebook of notebooks/ runs top to bottom under nbclient with the
installed kernel, as CI runs it:  notebooks.py BUILD NOTEBOOK

The stored copy has no outputs (so the repository's copy is
deterministic); the run must end without an error (a cell tagged
raises-exception may fail), leave no process of its job behind, and show
what the notebook is about: the inline picture, PASS or FAIL."""
import os
import sys
import uuid

import nbformat
from nbclient import NotebookClient

import harness
from harness import check

EXPECT = {
    "01-pscw-example.ipynb": ["image/svg+xml", "[2] {2, -1, -1, 32}"],
    "02-weak-synchronisation.ipynb": ["holds 42", "put returned", "finished after"],
    "03-fence-pscw-lock.ipynb": ["image/svg+xml", "[0] 1\n[1] 0"],
    "04-finding-a-race.ipynb": ["ERR_RMA_CONFLICT", "fix: give each origin its own bytes",
                                "[0] {0, 1}"],
    "05-info-and-hints.ipynb": ["rmalab_pscw", "no_locks"],
    "06-window-attributes.ipynb": ["deleting\tfirst", "allocate"],
    "exercises.ipynb": ["FAIL: rank 1's exposure epoch never ended", "FAIL: the checker found"],
    "exercises-solutions.ipynb": ["PASS: the exchange ends", "PASS: no race"],
}


def main():
    build, path = sys.argv[1], sys.argv[2]
    stored = nbformat.read(path, as_version=4)
    check(all(not c.get("outputs") and c.get("execution_count") is None
              for c in stored.cells if c.cell_type == "code"),
          "the stored notebook has no outputs")
    stage, _, _ = harness.prepare(build)
    marker = uuid.uuid4().hex
    try:
        client = NotebookClient(stored, timeout=120, kernel_name="rmalab",
                                resources={"metadata": {"path": os.path.dirname(path)}})
        client.execute(env=dict(os.environ, RMALAB_KERNEL_TEST=marker))
        text = []
        for c in stored.cells:
            for o in c.get("outputs", []):
                text.append(o.get("text", ""))
                text.extend(o.get("data", {}).keys())
                text.append(o.get("data", {}).get("text/plain", ""))
                text.extend(o.get("traceback", []))
        text = "\n".join(text)
        for want in EXPECT[os.path.basename(path)]:
            check(want in text, "%s shows %r" % (os.path.basename(path), want))
        left = harness.wait_gone(marker)
        check(not left, "no process of its job is left: %r" % left)
    finally:
        harness.cleanup(stage)


main()
