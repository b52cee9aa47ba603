"""Shared by the benchmarks: the chapters, and running a chapter's code."""
import contextlib
import io
import os
import statistics
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import nbformat  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def run_chapter(path, on_sliders):
    """Run a chapter's code cells; every sliders(...) call goes to on_sliders instead."""
    ns = {"__name__": "__main__"}
    old = os.getcwd()
    os.environ.pop("ATTENTION_BOOK_STATIC", None)
    os.chdir(path.parent)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            for i, cell in enumerate(c for c in nbformat.read(path, 4).cells if c.cell_type == "code"):
                exec(compile(cell.source, path.name, "exec"), ns)
                if i == 0:
                    ns["sliders"] = on_sliders
                plt.close("all")
    finally:
        os.chdir(old)
    return ns


def median_ms(fn, repeats=5):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def table(header, rows):
    """A Markdown table as a string."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)
