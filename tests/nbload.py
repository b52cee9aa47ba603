"""Run a chapter's code cells in a plain namespace, to test what it defines.

The functions the tests check are the ones the notebook shows the reader,
not copies (tools/nbtools.py: run_code).
"""
import sys
from functools import lru_cache

from conftest import NOTEBOOKS, ROOT

sys.path.insert(0, str(ROOT / "tools"))
from nbtools import run_code  # noqa: E402


@lru_cache(maxsize=None)
def namespace(stem):
    """The globals of notebook `stem` after running all its code cells."""
    path = next(p for p in NOTEBOOKS if p.stem == stem or p.stem.startswith(stem + "_"))
    return run_code(path)
