"""A reader in JupyterLab with a live kernel: run a chapter, move its sliders,
and the kernel draws a new figure.

Starts JupyterLab on 127.0.0.1 with a token, drives Debian's Chromium with
Playwright. Skipped (with the reason) without Chromium, except under CI=true.
"""
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# one chapter from each part of the book
CHAPTERS = [c for c in ["01_selective_focus", "05_self_attention", "08_costs",
                         "09_exact_attention_linear_memory"]
            if (ROOT / "notebooks" / f"{c}.ipynb").exists()]

if not CHROMIUM:
    if os.environ.get("CI") == "true":
        raise RuntimeError("CI=true but Chromium is missing")
    pytest.skip("Chromium not found: install Debian's chromium", allow_module_level=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    port, token = free_port(), secrets.token_hex(16)
    work = tmp_path_factory.mktemp("lab")
    shutil.copytree(ROOT / "notebooks", work / "notebooks")   # runs never touch the repo
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
    for _ in range(120):
        try:
            urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=1)
            break
        except OSError:
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("JupyterLab did not start")
    yield url, token
    proc.terminate()
    proc.wait(timeout=20)


# every code cell has run and the kernel is idle again
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

STATE = """() => { const w = window.jupyterapp.shell.currentWidget;
  const cells = w.content.model.cells; const counts = [];
  for (let i = 0; i < cells.length; i++) { const c = cells.get(i);
    if (c.type === 'code') counts.push(c.executionCount); }
  const k = w.sessionContext.session && w.sessionContext.session.kernel;
  return {counts: counts, kernel: k ? k.status : null}; }"""

BAD_OUTPUTS = """() => { const cells = window.jupyterapp.shell.currentWidget.content.model.cells;
  const bad = [];
  for (let i = 0; i < cells.length; i++) { const c = cells.get(i);
    if (c.type !== 'code') continue;
    for (const o of c.outputs.toJSON()) {
      if (o.output_type === 'error' || (o.output_type === 'stream' && o.name === 'stderr'))
        bad.push(JSON.stringify(o).slice(0, 300)); } }
  return bad; }"""

FIRST_FIGURE_SRC = """cell => { const img = cell.querySelector('.widget-html img');
  return img ? img.src : null; }"""


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_sliders_redraw_in_a_live_kernel(lab, chapter):
    from playwright.sync_api import sync_playwright
    url, token = lab
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"])
        tab = browser.new_page(viewport={"width": 1400, "height": 1000})
        tab.goto(f"{url}/lab/tree/notebooks/{chapter}.ipynb?reset&token={token}")
        tab.wait_for_function("window.jupyterapp && document.querySelector('.jp-Notebook')",
                              timeout=60000)
        tab.wait_for_function(KERNEL_IDLE, timeout=120000)   # let the kernel start
        tab.evaluate("""async () => {
            await window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs');
            await window.jupyterapp.commands.execute('notebook:run-all-cells'); }""")
        try:
            tab.wait_for_function(ALL_RUN, timeout=240000)
        except Exception:
            pytest.fail(f"the notebook did not finish: {tab.evaluate(STATE)}")
        bad = tab.evaluate(BAD_OUTPUTS)
        assert not bad, f"errors or stderr in the live run: {bad}"
        panel = tab.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
        cell = panel.locator(".jp-Cell").filter(has=tab.locator(".widget-hslider")).first
        cell.scroll_into_view_if_needed()
        cell.locator(".widget-html img").first.wait_for(timeout=60000)
        assert cell.locator(".widget-html img").first.get_attribute("alt"), "a slider frame without alt text"
        names = [t.strip() for t in cell.locator(".widget-hslider .widget-label").all_inner_texts()]
        assert "d_k" in names and "n" in names, names
        for name in ["d_k", "n"]:
            before = cell.evaluate(FIRST_FIGURE_SRC)
            slider = cell.locator(".widget-hslider").filter(has_text=name).first
            handle = slider.locator(".noUi-handle")
            handle.focus()
            at_end = handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemax")
            tab.keyboard.press("ArrowLeft" if at_end else "ArrowRight")
            tab.wait_for_function(
                f"() => {{ const c = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell')].find(c => c.querySelector('.widget-hslider'));"
                f" const img = c && c.querySelector('.widget-html img'); return img && img.src !== {before!r}; }}",
                timeout=60000)
        browser.close()
