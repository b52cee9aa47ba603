"""Shared helpers for the tests: the notebooks, their code, the setup cell."""
import ast
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
sys.path.insert(0, str(ROOT / "tools"))   # nbtools (book_namespace, run_code), i18n, package


def read(path):
    return nbformat.read(path, as_version=4)


def code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code"]


def calls(source, name):
    """Every call `name(...)` in a code cell's source."""
    tree = ast.parse(source)
    return [node for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == name]


@pytest.fixture(params=NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def notebook(request):
    return request.param, read(request.param)


@pytest.fixture(scope="session")
def playwright():
    """One Playwright driver for the session (tests/browser and tests/live; two
    sync drivers cannot run at once in one process)."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        yield p
