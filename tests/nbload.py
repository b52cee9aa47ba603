"""Run a chapter's code cells in a plain namespace, to test what it defines.

The functions the tests check are the ones the notebook shows the reader,
not copies (tools/nbtools.py: run_code).

A chapter is run lazily, the first time a test needs it, and at most once per
session, whether it runs or fails: a chapter that raises (one of its asserts
no longer holds) is not run again for every test or hypothesis example; each
test that needs it fails at once with the cached error, and tests of other
chapters are not affected. Nothing runs at import or collection time.
"""
import sys
import traceback

import pytest

from conftest import NOTEBOOKS, ROOT

sys.path.insert(0, str(ROOT / "tools"))
from nbtools import run_code  # noqa: E402,F401  (test_figures imports it from here)

_RUNS = {}   # stem -> ("ok", namespace) or ("failed", message)


def chapter_path(stem):
    """notebooks/<stem>.ipynb, or notebooks/<stem>_*.ipynb for a number ("05")."""
    found = [p for p in NOTEBOOKS if p.stem == stem or p.stem.startswith(stem + "_")]
    if not found:
        pytest.fail(f"no chapter notebooks/{stem}*.ipynb: renamed or removed? "
                    f"(chapters: {[p.stem for p in NOTEBOOKS]})", pytrace=False)
    return found[0]


def _describe_failure(path, err, cell, source):
    """The error of a chapter run, with the cell and line it came from."""
    frames = [f for f in traceback.extract_tb(err.__traceback__) if f.filename == path.name]
    where = ""
    if frames and source is not None:
        line = frames[-1].lineno
        lines = source.splitlines()
        text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        where = f" in code cell {cell} (setup cell = 0), line {line}: {text}"
    return (f"notebooks/{path.name} raised {type(err).__name__}{where}\n"
            f"    {type(err).__name__}: {err}\n"
            f"(the chapter was run once; every test that uses it fails with this error)")


def namespace(stem):
    """The globals of chapter `stem` after running all its code cells, run once per
    session. If the chapter raises, the calling test fails (every time it is asked
    for, without running the chapter again).

    Each sliders(...) call the chapter makes is recorded, in order, in
    namespace["_slider_calls"] as (Frames, setup, figsize, start, values), and the
    setup cell's own sliders() is kept as namespace["_sliders"]."""
    if stem not in _RUNS:
        path = chapter_path(stem)
        state = {"cell": -1, "source": None}
        calls = []

        def after_setup(ns):
            sliders = ns["sliders"]

            def recorded(setup, figsize=(8, 3.4), start=None, **values):
                calls.append((ns["Frames"], setup, figsize, start, values))
                return sliders(setup, figsize, start, **values)
            ns["sliders"] = recorded
            ns["_sliders"] = sliders

        def after_cell(i, ns):
            state["cell"] = i

        try:
            ns = run_code(path, after_setup=after_setup, after_cell=after_cell)
            ns["_slider_calls"] = calls
            _RUNS[stem] = ("ok", ns)
        except Exception as err:  # noqa: BLE001  (an assert, a NameError, ...: cached, reported per test)
            import matplotlib.pyplot as plt
            import nbformat
            plt.close("all")
            cells = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
            failing = state["cell"] + 1
            source = cells[failing].source if failing < len(cells) else None
            _RUNS[stem] = ("failed", _describe_failure(path, err, failing, source))
    kind, value = _RUNS[stem]
    if kind == "failed":
        pytest.fail(value, pytrace=False)
    return value


class Chapter:
    """A chapter's definitions, run on first use (see namespace): chapter["name"]
    fails the test, with a clear message, if the chapter fails to run or no
    longer defines `name` (renamed or removed)."""

    def __init__(self, stem):
        self.stem = stem

    def __getitem__(self, name):
        ns = namespace(self.stem)
        if name not in ns:
            pytest.fail(f"notebooks/{chapter_path(self.stem).name} no longer defines `{name}` "
                        f"(renamed or removed?): the tests of `{name}` cannot run", pytrace=False)
        return ns[name]

    def __contains__(self, name):
        return name in namespace(self.stem)

    def get(self, name, default=None):
        return namespace(self.stem).get(name, default)


class Saved:
    """The functions chapter NN saves (#@save), imported from attention_book.chNN: no
    notebook is run. saved["name"] fails the test, with a clear message, when the
    chapter no longer saves `name`."""

    def __init__(self, number):
        self.number = number

    def module(self):
        import importlib
        try:
            return importlib.import_module(f"attention_book.ch{self.number}")
        except ModuleNotFoundError:
            pytest.fail(f"attention_book.ch{self.number} does not exist: chapter {self.number} "
                        f"saves no cell (#@save), or `make package` was not run", pytrace=False)

    def __getitem__(self, name):
        module = self.module()
        if not hasattr(module, name):
            pytest.fail(f"attention_book.ch{self.number} has no `{name}`: chapter {self.number} no "
                        f"longer saves it (#@save), or it was renamed", pytrace=False)
        return getattr(module, name)

    def __contains__(self, name):
        return hasattr(self.module(), name)
