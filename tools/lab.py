"""JupyterLab on 127.0.0.1 for the live-kernel tests and benchmark.

    with jupyterlab(work) as (url, token): ...

Serves `work` (a copy of notebooks/, so runs never touch the repository) with
a random token, a config of its own, and `window.jupyterapp` exposed so that a
browser driven by Playwright can run cells and read their state.
"""
import contextlib
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# JavaScript for Playwright: every code cell has run and the kernel is idle again
ALL_RUN = """() => { const w = window.jupyterapp.shell.currentWidget;
  if (!w || !w.content || !w.content.model) return false;
  const cells = w.content.model.cells; let ran = 0, code = 0;
  for (let i = 0; i < cells.length; i++) { const c = cells.get(i);
    if (c.type === 'code') { code++; if (c.executionCount) ran++; } }
  const kernel = w.sessionContext.session && w.sessionContext.session.kernel;
  return code > 0 && ran === code && kernel && kernel.status === 'idle'; }"""

KERNEL_IDLE = """() => { const w = window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return k && k.status === 'idle'; }"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def jupyterlab(work):
    """Start JupyterLab on a copy of notebooks/ in `work`; yield (url, token)."""
    work = Path(work)
    port, token = free_port(), secrets.token_hex(16)
    if not (work / "notebooks").exists():
        shutil.copytree(ROOT / "notebooks", work / "notebooks")
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(work / "config"),
               JUPYTER_RUNTIME_DIR=str(work / "runtime"))
    env.pop("ATTENTION_BOOK_STATIC", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         f"--IdentityProvider.token={token}", "--ServerApp.open_browser=False",
         "--LabApp.expose_app_in_browser=True", "--ServerApp.allow_root=True",
         f"--ServerApp.root_dir={work}"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=1)
                break
            except OSError:
                time.sleep(0.5)
        else:
            raise RuntimeError("JupyterLab did not start")
        yield url, token
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def open_and_run_all(tab, url, token, chapter):
    """Open notebooks/<chapter>.ipynb in a fresh workspace, clear it and run every cell."""
    tab.goto(f"{url}/lab/tree/notebooks/{chapter}.ipynb?reset&token={token}")
    tab.wait_for_function("window.jupyterapp && document.querySelector('.jp-Notebook')", timeout=60000)
    tab.wait_for_function(KERNEL_IDLE, timeout=120000)   # let the kernel start
    tab.evaluate("""async () => {
        await window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs');
        await window.jupyterapp.commands.execute('notebook:run-all-cells'); }""")
    tab.wait_for_function(ALL_RUN, timeout=240000)
