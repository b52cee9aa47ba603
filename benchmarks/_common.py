"""Shared by the benchmarks: the chapters, and running a chapter's code."""
import re
import statistics
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from nbtools import book_namespace, run_code  # noqa: E402,F401

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def run_chapter(path, on_sliders):
    """Run a chapter's code cells; every sliders(...) call goes to on_sliders instead."""
    return run_code(path, after_setup=lambda ns: ns.__setitem__("sliders", on_sliders))


def median_ms(fn, repeats=5):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def reference_ms(repeats=30):
    """Median ms of a fixed pure-Python loop: how fast this machine runs right now.

    The machine's speed drifts from run to run, and every timing drifts with
    it; the report prints this beside the live-slider table.
    """
    def work():
        s = 0
        for i in range(200_000):
            s += i * i
        return s
    return median_ms(work, repeats)


def table(header, rows, code=()):
    """A Markdown table as a string; the columns `code` (indices) shown as code (names of
    chapters, functions, sliders and pages: a name or a list of names, not a sentence)."""
    def cell(k, c):
        c = str(c)
        return f"`{c}`" if k in code and re.fullmatch(r"(?=.*[A-Za-z])[\w./-]+(, [\w./-]+)*", c) else c
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(k, c) for k, c in enumerate(row)) + " |" for row in rows]
    return "\n".join(lines)


def move_sliders(tab, box, arm, presses):
    """Press an arrow key `presses` times on every slider of a figure's box.

    arm(box) is JavaScript that sets window.__latency to a promise of the ms
    from the next key press to the new picture (or null). Returns the times.
    """
    times = []
    handles = box.locator(".noUi-handle")
    for h in range(handles.count()):
        handle = handles.nth(h)
        for _ in range(presses):
            handle.focus()
            at_end = handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemax")
            box.evaluate(arm)
            tab.keyboard.press("ArrowLeft" if at_end else "ArrowRight")
            ms = tab.evaluate("window.__latency")
            if ms is not None:
                times.append(ms)
    return times
