"""A reader in JupyterLab with a live kernel: run a chapter, move its sliders,
and the kernel draws a new figure.

Starts JupyterLab on 127.0.0.1 with a token, drives the Chromium that `make
test` set up (tools/test_setup.py: find_chromium) with Playwright.
Without one, each test is skipped with the reason (not the module, so the
summary counts them), except under CI=true.
"""
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from lab import jupyterlab, open_and_run_all  # noqa: E402
from test_setup import ARGS, find_chromium  # noqa: E402

CHROMIUM, NO_CHROMIUM = find_chromium()
# one chapter from each part of the book
CHAPTERS = [c for c in ["01_selective_focus", "05_self_attention", "10_costs",
                         "11_exact_attention_linear_memory"]
            if (ROOT / "notebooks" / f"{c}.ipynb").exists()]

if NO_CHROMIUM and os.environ.get("CI") == "true":
    raise RuntimeError(f"CI=true but {NO_CHROMIUM}")
# skipped per test with the reason (make test-browser runs this module in a
# process of its own, beside the book's browser tests)
pytestmark = pytest.mark.skipif(bool(NO_CHROMIUM), reason=NO_CHROMIUM or "")


@pytest.fixture(scope="module")
def lab_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("lab")


@pytest.fixture(scope="module")
def lab(lab_dir):
    with jupyterlab(lab_dir) as served:
        yield served


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
def test_sliders_redraw_in_a_live_kernel(playwright, lab, chapter):
    url, token = lab
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    try:
        tab = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            open_and_run_all(tab, url, token, chapter)
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
    finally:
        browser.close()


def test_playground_computes_live_in_jupyterlab(playwright, lab):
    """Chapter 7's attention playground in JupyterLab: the anywidget renders from
    the kernel's widget, and a move of its d_k slider is computed in the page."""
    url, token = lab
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    try:
        tab = browser.new_page(viewport={"width": 1400, "height": 1000})
        open_and_run_all(tab, url, token, "07_why_sqrt_dk")
        assert not tab.evaluate(BAD_OUTPUTS)
        pg = tab.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .attention-playground").first
        pg.scroll_into_view_if_needed()
        pg.wait_for(timeout=60000)
        tab.wait_for_function("el => el.__playground", arg=pg.element_handle(), timeout=30000)
        pg.locator("input[data-name=d_k]").evaluate(
            "e => { e.value = 300; e.dispatchEvent(new Event('input', {bubbles: true})); }")
        tab.wait_for_function("el => el.__playground.params.d_k === 300", arg=pg.element_handle(), timeout=10000)
        assert "300" in pg.locator("input[data-name=d_k] + output").inner_text()
    finally:
        browser.close()


MODEL_READY = """el => el.__lab && el.__lab.model !== null
  && !el.querySelector('.ml-main').hidden && el.querySelectorAll('.ml-next tbody tr').length === 10"""


def test_model_in_the_page_takes_the_kernels_copy(playwright, lab, lab_dir):
    """Chapter 15's model in the page, in JupyterLab: the chapter's cell shows the widget,
    Load asks the kernel for its copy of the model (no _static/ folder there), the page
    checks it and runs the reader's text; without the kernel's copy, a clear message."""
    sys.path.insert(0, str(ROOT))
    from attention_book.model_lab import model_cache_path
    if not model_cache_path().is_file():
        if os.environ.get("CI") == "true":
            raise AssertionError(f"CI=true but no model at {model_cache_path()} (make model)")
        pytest.skip(f"no model at {model_cache_path()} (make model)")
    import nbformat
    url, token = lab
    chapter = nbformat.read(ROOT / "notebooks" / "15_real_model.ipynb", as_version=4)
    cells = [c for c in chapter.cells if c.cell_type == "code"
             and ("book-setup" in c.metadata.get("tags", []) or "model_lab(" in c.source)]
    assert len(cells) == 2, [c.source[:60] for c in cells]
    nbformat.write(nbformat.v4.new_notebook(cells=cells, metadata=chapter.metadata),
                   lab_dir / "notebooks" / "15_model_lab.ipynb")
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    try:
        tab = browser.new_page(viewport={"width": 1400, "height": 1000})
        open_and_run_all(tab, url, token, "15_model_lab")
        assert not tab.evaluate(BAD_OUTPUTS)
        box = tab.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .model-lab").first
        box.wait_for(timeout=60000)
        assert "kernel" in box.locator(".ml-status").inner_text()
        box.locator(".ml-load").click()
        tab.wait_for_function(MODEL_READY, arg=box.element_handle(), timeout=120000)
        status = box.locator(".ml-status").inner_text()
        assert "checksum verified" in status, status
        assert "Paris" in box.locator(".ml-next tbody tr").first.inner_text()
        box.locator(".ml-text").fill("我喜欢学习")
        box.locator(".ml-run").click()
        tab.wait_for_function("el => el.__lab.run && el.__lab.run.ids.length === 12", arg=box.element_handle(),
                              timeout=60000)
    finally:
        browser.close()
