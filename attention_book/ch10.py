"""The functions chapter 10 teaches (10_costs.ipynb).

Generated from the chapter's cells marked #@save by tools/package.py
(make package): edit the chapter, not this file."""
import numpy as np
import time
import tracemalloc
import ctypes
import glob
import os


# Defined in chapter 10, 10_costs.ipynb (cell 8a2cc73c)
def blas_threads(k):
    """Ask the OpenBLAS bundled with numpy to use k threads; return the old count (None if not found)."""
    for path in glob.glob(os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs", "*openblas*")):
        lib = ctypes.CDLL(path)
        for prefix, suffix in [("scipy_openblas", "64_"), ("openblas", "64_"), ("openblas", "")]:
            get = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
            put = getattr(lib, f"{prefix}_set_num_threads{suffix}", None)
            if get and put:
                old = get()
                put(k)
                return old
    return None
