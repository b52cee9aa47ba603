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
    setup cell's own sliders() is kept as namespace["_sliders"].

    The same run draws every figure as the book does (figure_audit: plain figures
    after their cell, every frame of every slider) and keeps what test_figures
    checks in namespace["_figure_audit"]: one run of the chapter serves both."""
    if stem not in _RUNS:
        path = chapter_path(stem)
        state = {"cell": -1, "source": None}
        calls = []
        audit = FigureAudit()

        def after_setup(ns):
            sliders = ns["sliders"]

            def recorded(setup, figsize=(8, 3.4), start=None, **values):
                calls.append((ns["Frames"], setup, figsize, start, values))
                audit.every_frame(ns["Frames"], setup, figsize, start, values)
                return sliders(setup, figsize, start, **values)
            ns["sliders"] = recorded
            ns["_sliders"] = sliders

        def after_cell(i, ns):
            state["cell"] = i
            audit.draw_open_figures()

        try:
            with audit:
                ns = run_code(path, after_setup=after_setup, after_cell=after_cell)
            ns["_slider_calls"] = calls
            ns["_figure_audit"] = audit
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


COLUMN_PX = 680     # the book's text column at a 1280 px window (Chromium, pydata theme)


class FigureAudit:
    """What a chapter's figures show a reader, collected while the chapter runs.

    Inside `with audit:` every text matplotlib draws is measured: `small` maps
    (size in CSS px after the browser shrinks a figure wider than the text
    column, first axes' title) to the texts drawn that small. every_frame()
    draws every frame of a slider figure, as the book precomputes them, and
    adds to `still` each slider move that changes no plotted data.
    Figures are drawn at 72 dpi, so 1 pt = 1 CSS px before shrinking."""

    def __init__(self):
        self.small, self.still = {}, []

    def __enter__(self):
        from matplotlib.text import Text
        self._draw = draw = Text.draw
        audit = self

        def measured_draw(text, renderer):
            fig = text.get_figure(root=True) if hasattr(text, "get_figure") else text.figure
            if text.get_visible() and text.get_text().strip() and fig is not None:
                shrink = min(1.0, COLUMN_PX / (fig.get_figwidth() * 72))
                px = text.get_fontsize() * shrink
                title = fig.axes[0].get_title() if fig.axes else ""
                texts = audit.small.setdefault((px, title[:40]), set())
                if len(texts) < 20:
                    texts.add(text.get_text()[:20])
            return draw(text, renderer)
        Text.draw = measured_draw
        return self

    def __exit__(self, *exc):
        from matplotlib.text import Text
        Text.draw = self._draw
        return False

    def smaller_than(self, px):
        """{(size, title): texts} of every text drawn under `px` CSS px."""
        return {key: texts for key, texts in self.small.items() if key[0] < px - 1e-9}

    @staticmethod
    def draw_open_figures():
        """Draw the open figures, as the inline backend does after a cell."""
        import matplotlib.pyplot as plt
        for num in plt.get_fignums():
            plt.figure(num).canvas.draw()

    def every_frame(self, Frames, setup, figsize, start, values):
        """Draw every frame of a slider figure; note slider moves that plot nothing new."""
        from itertools import product
        frames = Frames(setup, figsize)
        data = {}
        for combo in product(*values.values()):
            frames.render(**dict(zip(values, combo)))
            data[combo] = plotted_data(frames.fig)
        first = dict(zip(values, [v[0] for v in values.values()])) | (start or {})
        for k, (name, vals) in enumerate(values.items()):
            at = [tuple(first[m] if m != name else v for m in values) for v in vals]
            same = [f"{a[k]}->{b[k]}" for a, b in zip(at, at[1:]) if data[a] == data[b]]
            if same:
                self.still.append(f"'{frames.fig.axes[0].get_title()[:40]}': {name} {same}")
        import matplotlib.pyplot as plt
        plt.close(frames.fig)


def plotted_data(fig):
    """A fingerprint of what a figure plots (lines, images, bars and other
    patches, scatter and mesh collections), leaving out texts and axis limits."""
    import hashlib

    import numpy as np
    h = hashlib.sha256()

    def add(a):
        a = np.ma.filled(np.ma.asarray(a, dtype=float), np.nan)
        h.update(np.round(a, 12).tobytes())
    for ax in fig.axes:
        for line in ax.lines:
            add(line.get_xydata())
            h.update(str(line.get_visible()).encode())
        for im in ax.images:
            add(im.get_array())
        for patch in ax.patches:
            add(patch.get_path().vertices @ patch.get_patch_transform().get_matrix()[:2, :2].T
                + patch.get_patch_transform().get_matrix()[:2, 2])
            h.update(str(patch.get_visible()).encode())
        for coll in ax.collections:
            add(coll.get_offsets())
            if coll.get_array() is not None:
                add(coll.get_array())
            for path in coll.get_paths()[:2000]:
                add(path.vertices)
            h.update(str(coll.get_visible()).encode())
    return h.hexdigest()


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
