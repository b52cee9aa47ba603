"""Static slider latency: in headless Chromium on the built book, the time from
a key press on a slider to the new frame being shown (the next animation
frame in which the newly selected picture is visible). Every slider of every
figure, moved 4 times; medians per page.
Budget: <= 50 ms.  Needs `make book` first and Debian's chromium.
    python benchmarks/static_sliders.py
"""
import functools
import http.server
import shutil
import statistics
import threading

from _common import ROOT, move_sliders, table

HTML = ROOT / "_build" / "html"
BUDGET_MS = 50

ARM = """root => { window.__latency = new Promise(resolve => {
  const visible = () => [...root.querySelectorAll('img')].find(i => i.offsetParent !== null);
  const before = visible();
  document.addEventListener('keydown', () => {
    const t0 = performance.now();
    const poll = () => { const v = visible();
      if (v && v !== before && v.complete) resolve(performance.now() - t0);
      else requestAnimationFrame(poll); };
    requestAnimationFrame(poll);
  }, {once: true, capture: true});
  setTimeout(() => resolve(null), 3000); }); }"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def measure():
    from playwright.sync_api import sync_playwright
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(HTML)))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    pages = sorted(p for p in (HTML / "notebooks").glob("*.html")
                   if "widget-state+json" in p.read_text())
    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"),
                                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        for page in pages:
            tab = browser.new_page()
            tab.goto(f"http://127.0.0.1:{srv.server_address[1]}/notebooks/{page.name}")
            tab.wait_for_timeout(1500)
            times = []
            boxes = tab.locator("div.cell_output .widget-vbox").filter(has=tab.locator(".widget-hslider"))
            for b in range(boxes.count()):
                box = boxes.nth(b)
                if box.evaluate("el => !!el.parentElement.closest('.widget-vbox')"):
                    continue
                times += move_sliders(tab, box, ARM, presses=4)
            tab.close()
            if not times:
                continue
            median = statistics.median(times)
            rows.append((page.stem, len(times), f"{median:.1f}", f"{max(times):.1f}",
                         "ok" if median <= BUDGET_MS else "OVER"))
        browser.close()
    srv.shutdown()
    return rows


if __name__ == "__main__":
    print(table(["page", "key presses", "median (ms)", "max (ms)", f"≤ {BUDGET_MS} ms"], measure()))
