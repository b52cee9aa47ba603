"""Serve the built book on 127.0.0.1 and drive it with Chromium.

The browser is the one `make test` set up (tools/test_setup.py: Debian's
chromium, installed as root where missing, else Playwright's own); its choice
and, when there is none, the reason are in _build/test-setup.json. Without a
browser these tests are skipped with that reason, except under CI (CI=true),
where a missing browser is a failure: CI always runs them.
"""
import functools
import http.server
import os
import re
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HTML = Path(os.environ.get("BOOK_HTML", ROOT / "_build" / "html"))   # another built copy, to try a change
sys.path.insert(0, str(ROOT / "tools"))
from test_setup import ARGS, find_chromium  # noqa: E402


CHROMIUM, NO_CHROMIUM = find_chromium()


HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items):
    """The book's tests (this folder) run page by page, so the tests of one page
    share one load (`loaded`); on a page, a test that leaves it (the language
    switch) runs last. Without a browser or a built book every test is skipped
    with the reason."""
    def key(item):
        page = getattr(item, "callspec", None) and item.callspec.params.get("page")
        leaves = "language_switch" in item.name
        return (page is not None, page or "", leaves)
    ours = [i for i in items if HERE in Path(str(i.fspath)).resolve().parents]
    if not ours:
        return
    first = items.index(ours[0])
    rest = [i for i in items if i not in set(ours)]
    items[:] = rest[:first] + sorted(ours, key=key) + rest[first:]  # stable within a page
    items = ours
    reason = NO_CHROMIUM
    if reason is None and not (HTML / "index.html").exists():
        reason = "the book is not built: run `make book` first"
    if reason is None:
        return
    if os.environ.get("CI") == "true":
        raise pytest.UsageError(f"CI=true and {reason}")
    for item in items:
        item.add_marker(pytest.mark.skip(reason=reason))


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        """A page left before it finished loading (the language-switch test) closes
        its connections: not an error of the book."""
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


@pytest.fixture(scope="session")
def server():
    handler = functools.partial(_Quiet, directory=str(HTML))
    srv = _Server(("127.0.0.1", 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()


LATIN_DIRS = [Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/truetype/liberation")]


@pytest.fixture(scope="session")
def latin_fonts(tmp_path_factory):
    """A fontconfig file listing only Latin font folders (None if there is none):
    the browser then sees no system CJK font, as on a reader's machine without
    one, so Chinese can only be drawn with the book's own font."""
    latin = [d for d in LATIN_DIRS if d.is_dir()]
    if not latin:
        return None
    folder = tmp_path_factory.mktemp("fontconfig")
    conf = folder / "fonts.conf"
    conf.write_text('<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
                    + "".join(f"  <dir>{d}</dir>\n" for d in latin)
                    + f"  <cachedir>{folder / 'cache'}</cachedir>\n</fontconfig>\n")
    return conf


@pytest.fixture(scope="session")
def browser(playwright, latin_fonts):
    """One Chromium for every test: with only Latin fonts where there are some."""
    env = {**os.environ, "FONTCONFIG_FILE": str(latin_fonts)} if latin_fonts else None
    b = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, env=env)
    yield b
    b.close()


RENDERED = """() => [...document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')]
  .every(s => s.parentElement && s.parentElement.querySelector('.jupyter-widgets, .widget-vbox, .lm-Widget'))"""


def visit(browser, server, page):
    """Open `page` offline (requests to other hosts aborted and logged), wait for
    its widgets; return (context, tab, log of errors, foreign and missing requests)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = ctx.new_page()
    log = {"errors": [], "foreign": [], "missing": []}
    tab.on("pageerror", lambda e: log["errors"].append(str(e)))
    tab.on("console", lambda m: log["errors"].append(m.text) if m.type == "error" else None)
    tab.on("request", lambda r: log["foreign"].append(r.url)
           if not r.url.startswith((server, "data:", "blob:")) else None)
    tab.on("response", lambda r: log["missing"].append(r.url)
           if r.status >= 400 else None)
    tab.route(re.compile(r"^(?!http://127\.0\.0\.1).*"), lambda route: route.abort())
    tab.goto(f"{server}/{page}", wait_until="load")
    if 'http-equiv="Refresh"' in (HTML / page.split("?")[0]).read_text(errors="replace")[:500]:
        # a redirect (index.html): test the page it leads to, once it has loaded
        tab.wait_for_url(lambda url: not url.endswith("/" + page), wait_until="load", timeout=15000)
    # every embedded widget drawn (the html-manager renders each view next to its
    # script tag), then time for it to finish laying them out (moving a slider
    # sooner once raised a Lumino error on a Chinese page) and for late console messages
    tab.wait_for_function(RENDERED, timeout=15000)
    tab.wait_for_timeout(1500)
    return ctx, tab, log


@pytest.fixture(scope="session")
def loaded(browser, server):
    """loaded(page) -> (context, tab, log): the page opened once and shared by
    every test of that page (tests run page by page); opening the next page
    closes it. loaded.forget(page) closes it early (a test that navigated away)."""
    cache = {}

    def forget(page=None):
        for name in [page] if page else list(cache):
            if name in cache:
                cache.pop(name)[0].close()

    def open_page(page):
        if page not in cache:
            forget()
            cache[page] = visit(browser, server, page)
        return cache[page]
    open_page.forget = forget
    yield open_page
    forget()
