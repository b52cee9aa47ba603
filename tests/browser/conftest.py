"""Serve the built book on 127.0.0.1 and drive it with Debian's Chromium.

Without Chromium these tests are skipped with the reason, except under CI
(CI=true), where a missing browser is a failure: CI always runs them.
"""
import functools
import http.server
import os
import shutil
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def pytest_collection_modifyitems(config, items):
    reason = None
    if not CHROMIUM:
        reason = "Chromium not found: install Debian's chromium to run the browser tests"
    elif not (HTML / "index.html").exists():
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


@pytest.fixture(scope="session")
def server():
    handler = functools.partial(_Quiet, directory=str(HTML))
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()


@pytest.fixture(scope="session")
def playwright():
    """One Playwright driver for the session (it cannot be started twice at once)."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright):
    b = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    yield b
    b.close()
