"""Run a chapter's code cells in a plain namespace, to test what it defines.

The functions the tests check are the ones the notebook shows the reader,
not copies. Cells run in order with the Agg backend, in live-slider mode,
from the notebooks/ folder, printing nowhere.
"""
import contextlib
import io
import os
from functools import lru_cache

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from conftest import NOTEBOOKS, code_cells, read  # noqa: E402


@lru_cache(maxsize=None)
def namespace(stem):
    """The globals of notebook `stem` after running all its code cells."""
    path = next(p for p in NOTEBOOKS if p.stem == stem or p.stem.startswith(stem + "_"))
    ns = {"__name__": "__main__"}
    old = os.getcwd()
    os.environ.pop("ATTENTION_BOOK_STATIC", None)
    os.chdir(path.parent)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            for cell in code_cells(read(path)):
                exec(compile(cell.source, f"{path.name}", "exec"), ns)
                plt.close("all")
    finally:
        os.chdir(old)
    return ns
