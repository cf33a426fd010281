"""The kernel in a real browser: the classic Notebook server (Debian's
jupyter-notebook) and headless Chromium through Selenium run every cell of
a notebook, and the page shows the folded result and the inline SVG:
browser.py BUILD SCREENSHOT.png"""
import os
import socket
import subprocess
import sys
import tempfile
import time
import uuid

import nbformat
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

import harness
from harness import check

CELLS = [
    "x = 41\nreturn x + 1",
    'w = rmalab.win_allocate(8, {disp_unit = 8, info = {rmalab_trace = "true"}})\n'
    'w:post{1 - rmalab.world:rank()}; w:start{1 - rmalab.world:rank()}\n'
    'w:put(1 - rmalab.world:rank(), 0, "int64", rmalab.world:rank()); w:complete(); w:wait()',
    ":timeline w",
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    build, shot = sys.argv[1], sys.argv[2]
    stage, _, _ = harness.prepare(build)
    marker = uuid.uuid4().hex
    work = tempfile.mkdtemp(dir=stage)
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "rmalab", "display_name": "Lua (rmalab, 2 ranks)",
                                 "language": "lua"}
    nb.cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
    nbformat.write(nb, os.path.join(work, "epochs.ipynb"))
    port = free_port()
    env = dict(os.environ, RMALAB_KERNEL_TEST=marker, HOME=work)
    server = subprocess.Popen(
        ["/usr/bin/python3", "-m", "notebook", "--no-browser", "--allow-root",
         "--port=%d" % port, "--ip=127.0.0.1", "--NotebookApp.token=", "--NotebookApp.password=",
         "--notebook-dir=" + work], env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, start_new_session=True)
    opts = webdriver.ChromeOptions()
    for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1100,900",
              "--user-data-dir=" + os.path.join(work, "chrome")]:
        opts.add_argument(a)
    opts.binary_location = "/usr/bin/chromium"
    driver = None
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                time.sleep(0.2)
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
        driver.get("http://127.0.0.1:%d/notebooks/epochs.ipynb" % port)
        ready = "return !!(window.Jupyter && Jupyter.notebook && Jupyter.notebook.kernel && " \
                "Jupyter.notebook.kernel.is_connected() && Jupyter.notebook.kernel.info_reply " \
                "&& Jupyter.notebook.kernel.info_reply.banner)"
        end = time.monotonic() + 60
        while time.monotonic() < end and not driver.execute_script(ready):
            time.sleep(0.3)
        check(driver.execute_script(ready), "the notebook opens with the rmalab kernel")
        driver.execute_script("Jupyter.notebook.execute_all_cells()")
        found = lambda: driver.execute_script(
            "var o = document.querySelectorAll('.output_area');"
            "var t = Array.from(o).map(function (e) { return e.innerText; }).join('\\n');"
            "return [t.indexOf('[0,1] 42') >= 0, "
            "document.querySelectorAll('.output_area svg, .output_area img').length];")
        end = time.monotonic() + 60
        while time.monotonic() < end and not (found()[0] and found()[1] > 0):
            time.sleep(0.3)
        text, pictures = found()
        check(text, "the page shows the folded result [0,1] 42")
        check(pictures > 0, "and the inline SVG of :timeline")
        time.sleep(0.5)
        driver.save_screenshot(shot)
        print("screenshot:", shot)
    finally:
        if driver:
            driver.quit()
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
        left = harness.wait_gone(marker, 10)
        harness.cleanup(stage)
    check(not left, "the server ended its kernel and the job: %r" % left)


main()
