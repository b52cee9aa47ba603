"""What a reader's first visit to a page of the built book loads, and how soon it is
ready: each page of both editions opened in a fresh browser context (empty cache)
of headless Chromium, the book served from 127.0.0.1.

- bytes: every response of the visit (the page, its scripts, styles, fonts, images,
  the widget manager's chunks, the search index), counted until the widgets are
  drawn and the network has been quiet for a second;
- widgets ready: when every widget of the page (sliders, quizzes, the playground)
  is drawn, in seconds after the page's load event (0 when they are drawn before it);
  the median of REPEATS visits;
- layout shift: the page's cumulative layout shift (Chromium's layout-shift entries,
  the largest session window as Web Vitals counts it) from opening the page until
  two seconds after its widgets are drawn, on a 1280 x 900 screen; the largest of
  REPEATS visits.
Budgets: every page <= 5 MB, widgets ready <= 1 s after the load event, layout
shift <= 0.1.  Needs `make book` first and Debian's chromium.
    python benchmarks/first_visit.py [PAGE_SUBSTRING ...]   (BOOK_HTML=folder: another built copy)
"""
import functools
import http.server
import os
import shutil
import statistics
import sys
import threading
from pathlib import Path

from _common import ROOT, table

HTML = Path(os.environ.get("BOOK_HTML", ROOT / "_build" / "html"))   # another built copy, to compare
PAGE_MB, READY_S, SHIFT = 5.0, 1.0, 0.1
REPEATS = 3
MB = 1e6
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# installed before the page's own scripts: records when every widget view is drawn
# (the html-manager renders each view beside its <script> tag) and the layout shifts
WATCH = """(() => {
  window.__shifts = [];
  new PerformanceObserver(list => { for (const e of list.getEntries())
    if (!e.hadRecentInput) window.__shifts.push([e.startTime, e.value]); })
    .observe({type: 'layout-shift', buffered: true});
  window.__ready = null;
  const drawn = () => [...document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')]
    .every(s => s.parentElement && s.parentElement.querySelector('.jupyter-widgets, .widget-vbox, .lm-Widget'));
  const check = () => { if (window.__ready === null && drawn()) window.__ready = performance.now(); };
  const watch = () => { check(); if (window.__ready === null) requestAnimationFrame(watch); };
  document.addEventListener('DOMContentLoaded', watch);
})();"""

RESULT = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  // the largest session window: shifts less than 1 s apart, a window at most 5 s long
  let best = 0, sum = 0, first = -1e9, last = -1e9;
  for (const [t, v] of window.__shifts) {
    if (t - last > 1000 || t - first > 5000) { sum = 0; first = t; }
    sum += v; last = t; best = Math.max(best, sum);
  }
  return {load: nav.loadEventEnd, ready: window.__ready, shift: best};
}"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def pages():
    """Every page a reader opens (both editions), in the order of the folder."""
    return sorted(str(p.relative_to(HTML)) for p in HTML.rglob("*.html")
                  if "_static" not in p.parts and p.name not in {"genindex.html", "search.html"}
                  and 'http-equiv="Refresh"' not in p.read_text(errors="replace")[:500])


def visit(browser, url, has_widgets):
    """One first visit: (bytes by kind, load ms, widgets-ready ms, layout shift)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = ctx.new_page()
    tab.add_init_script(WATCH)
    loaded = {}

    def done(request):
        try:
            size = request.sizes()["responseBodySize"]
        except Exception:   # noqa: BLE001 -- a request the page dropped
            return
        kind = "script" if request.resource_type == "script" else \
            "font" if request.resource_type == "font" else \
            "image" if request.resource_type == "image" else "other"
        loaded[request.url] = (kind, size)
    tab.on("requestfinished", done)
    tab.goto(url, wait_until="load")
    if has_widgets:
        tab.wait_for_function("() => window.__ready !== null", timeout=60000)
    for _ in range(30):              # until nothing more has loaded for a second (at most 30 s)
        count = len(loaded)
        tab.wait_for_timeout(1000)
        if len(loaded) == count:
            break
    tab.wait_for_timeout(1000)
    result = tab.evaluate(RESULT)
    ctx.close()
    return loaded, result


def measure(only=()):
    from playwright.sync_api import sync_playwright
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(HTML)))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{srv.server_address[1]}"
    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=ARGS)
        for page in pages():
            if only and not any(o in page for o in only):
                continue
            widgets = "widget-view+json" in (HTML / page).read_text(errors="replace")
            visits = [visit(browser, f"{base}/{page}", widgets) for _ in range(REPEATS if widgets else 1)]
            loaded = visits[0][0]
            total = sum(s for _, s in loaded.values()) / MB
            scripts = sum(s for k, s in loaded.values() if k == "script") / MB
            ready = statistics.median(max(0.0, (r["ready"] - r["load"]) / 1000) for _, r in visits) \
                if widgets else None
            shift = max(r["shift"] for _, r in visits)
            ok = total <= PAGE_MB and (ready is None or ready <= READY_S) and shift <= SHIFT
            rows.append((page, f"{total:.2f}", f"{scripts:.2f}", len(loaded),
                         "" if ready is None else f"{ready:.2f}", f"{shift:.3f}", "ok" if ok else "OVER"))
            print(" | ".join(map(str, rows[-1])), file=sys.stderr, flush=True)
        browser.close()
    srv.shutdown()
    return rows


HEADER = ["page", "first visit (MB)", "of it scripts (MB)", "requests", "widgets ready after load (s)",
          "layout shift", f"≤ {PAGE_MB:g} MB, ≤ {READY_S:g} s, ≤ {SHIFT:g}"]

if __name__ == "__main__":
    print(table(HEADER, measure(sys.argv[1:]), code=(0,)))
