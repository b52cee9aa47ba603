"""Notebook execution: wall time of each chapter from a fresh kernel, in the
static mode the book build uses (every slider frame drawn).
Budget: each <= 60 s, all together <= 300 s.
    python benchmarks/notebooks.py [chapter-substring ...]
"""
import os
import sys
import time

import nbformat
from nbclient import NotebookClient

from _common import NOTEBOOKS, table

EACH_S, ALL_S = 60, 300


def measure(chapters):
    rows, total = [], 0.0
    os.environ["ATTENTION_BOOK_STATIC"] = "1"
    for path in chapters:
        nb = nbformat.read(path, 4)
        t = time.perf_counter()
        NotebookClient(nb, timeout=600, kernel_name="python3",
                       resources={"metadata": {"path": str(path.parent)}}).execute()
        seconds = time.perf_counter() - t
        total += seconds
        rows.append((path.stem, f"{seconds:.1f}", "ok" if seconds <= EACH_S else "OVER"))
    rows.append(("**all**", f"{total:.1f}", "ok" if total <= ALL_S else "OVER"))
    return rows


if __name__ == "__main__":
    chapters = [p for p in NOTEBOOKS if not sys.argv[1:] or any(a in p.stem for a in sys.argv[1:])]
    print(table(["chapter", "static execution (s)", f"≤ {EACH_S} s each, ≤ {ALL_S} s all"],
                measure(chapters)))
