"""Live slider latency as a reader gets it: JupyterLab with a kernel, headless
Chromium, every slider of every figure of every chapter moved with the
keyboard, from the key press to the new picture on screen (kernel round trip
included). Measured after the chapter has run and the kernel has had WAIT_S
seconds of idle time to draw frames ahead, as a reader who reads the figure
before moving its sliders would. Budget: median <= 100 ms.
    python benchmarks/live_sliders.py [chapter ...]
"""
import shutil
import statistics
import sys
import tempfile

from _common import NOTEBOOKS, ROOT, move_sliders, table

sys.path.insert(0, str(ROOT / "tools"))
from lab import jupyterlab, open_and_run_all  # noqa: E402

BUDGET_MS, WAIT_S, PRESSES = 100, 12, 2

# resolves with the ms from the next key press to a new picture in this figure
ARM = """box => { window.__latency = new Promise(resolve => {
  const src = () => { const i = box.querySelector('.widget-html img'); return i ? i.src : null; };
  const before = src();
  document.addEventListener('keydown', () => {
    const t0 = performance.now();
    const poll = () => { if (src() !== before) resolve(performance.now() - t0);
                         else requestAnimationFrame(poll); };
    requestAnimationFrame(poll);
  }, {once: true, capture: true});
  setTimeout(() => resolve(null), 10000); }); }"""


def measure(chapters=NOTEBOOKS):
    from playwright.sync_api import sync_playwright
    rows = []
    with tempfile.TemporaryDirectory() as work, jupyterlab(work) as (url, token), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        for path in chapters:
            tab = browser.new_page(viewport={"width": 1400, "height": 1000})
            open_and_run_all(tab, url, token, path.stem)
            tab.wait_for_timeout(WAIT_S * 1000)
            panel = tab.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
            boxes = panel.locator(".widget-vbox").filter(has=tab.locator(".widget-hslider"))
            times = []
            for b in range(boxes.count()):
                box = boxes.nth(b)
                if box.evaluate("el => !!el.parentElement.closest('.widget-vbox')"):
                    continue
                box.scroll_into_view_if_needed()
                times += move_sliders(tab, box, ARM, PRESSES)
            tab.evaluate("window.jupyterapp.commands.execute('kernelmenu:shutdown')")
            tab.close()
            median = statistics.median(times) if times else float("nan")
            rows.append((path.stem, len(times), f"{median:.0f}", f"{max(times, default=float('nan')):.0f}",
                         "ok" if median <= BUDGET_MS else "OVER"))
        browser.close()
    return rows


if __name__ == "__main__":
    chapters = [p for p in NOTEBOOKS if not sys.argv[1:] or any(a in p.stem for a in sys.argv[1:])]
    print(table(["chapter", "key presses", "median (ms)", "max (ms)", f"≤ {BUDGET_MS} ms"], measure(chapters)))
